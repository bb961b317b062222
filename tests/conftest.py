"""Fixtures for the service and API tests. Engine tests (tests/engine) need no Django:
everything Django is imported inside the fixtures."""

from __future__ import annotations

import itertools

import pytest

_names = itertools.count()


@pytest.fixture
def make_user(db):
    """make_user(staff=False) -> a user with a token and an authenticated APIClient as `.api`."""
    from rest_framework.test import APIClient

    from accounts import services
    from accounts.models import User

    def make(staff: bool = False, username: str | None = None):
        user = User.objects.create_user(
            username=username or f"player{next(_names)}", password="correct horse battery", is_staff=staff
        )
        token = services.token_issue(user=user)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        user.api = client
        user.token = token
        return user

    return make


@pytest.fixture
def anon():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def table_of(make_user):
    """table_of(game, n, **create_fields) -> (table_id, [users]) with every seat filled, not started.
    The first user is staff (so tests may fix deck, first_dealer and seed) and hosts the table."""

    def make(game: str, n: int, **fields):
        users = [make_user(staff=True)] + [make_user() for _ in range(n - 1)]
        response = users[0].api.post("/api/v1/tables", {"game": game, "seats": n, **fields}, format="json")
        assert response.status_code == 201, response.content
        table_id = response.json()["id"]
        for user in users[1:]:
            joined = user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
            assert joined.status_code == 200, joined.content
        return table_id, users

    return make
