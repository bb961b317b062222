"""docs/api.md, "Third-party apps": personal access tokens (`/me/tokens`), every token stored
hashed, scopes enforced on every path with 403 `insufficient_scope`, `Bearer` beside `Token`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts import scopes, tokens
from accounts.models import ApiToken
from tests.api.helpers import president_hands_deck

pytestmark = pytest.mark.django_db


def client_with(token: str, scheme: str = "Token") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {token}")
    return client


def pat(user, *held, expires_in=None, name="my script") -> tuple[str, dict]:
    body = {"name": name, "scopes": list(held), **({"expires_in": expires_in} if expires_in else {})}
    made = user.api.post("/api/v1/me/tokens", body, format="json")
    assert made.status_code == 201, made.content
    return made.json()["token"], made.json()


def test_a_personal_token_is_shown_once_and_listed_without_its_secret(make_user):
    user = make_user()
    raw, made = pat(user, "read", "play")
    assert raw.startswith("cgp_") and made["prefix"] == raw[:8] and made["kind"] == "personal"
    assert made["scopes"] == ["read", "play"] and made["expires"] is None
    listed = user.api.get("/api/v1/me/tokens").json()
    assert {t["kind"] for t in listed} == {"personal", "first_party"}  # the fixture's login is listed too
    assert all("token" not in t for t in listed) and raw not in str(listed)
    # Stored hashed: nothing in the row is the token, and the digest is its SHA-256.
    row = ApiToken.objects.get(pk=made["id"])
    assert raw not in str(row.__dict__) and row.digest == tokens.digest(raw)
    assert client_with(raw).get("/api/v1/me").json()["username"] == user.username


def test_each_operation_needs_its_scope(make_user):
    user = make_user()
    reader, _ = pat(user, "read")
    client = client_with(reader, "Bearer")
    assert client.get("/api/v1/me").status_code == 200
    refused = client.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert refused.json()["detail"] == {"required": "host"}
    assert client.get("/api/v1/me/webhooks").json()["detail"] == {"required": "webhooks"}
    host, _ = pat(user, "host")
    made = client_with(host).post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json")
    assert made.status_code == 201
    # The host token cannot read the state, and a reader cannot move: on the edge's paths too.
    table = made.json()["id"]
    assert client_with(host).get(f"/api/v1/tables/{table}/state").json()["detail"] == {"required": "read"}
    moved = client.post(f"/api/v1/tables/{table}/moves", {"type": "bid", "value": 0}, format="json")
    assert moved.status_code == 403 and moved.json()["detail"] == {"required": "play"}


def test_a_token_cannot_make_or_see_tokens_and_bot_is_for_bot_accounts(make_user):
    user = make_user()
    raw, made = pat(user, "read", "play", "host", "webhooks")
    refused = client_with(raw).post("/api/v1/me/tokens", {"name": "x", "scopes": ["read"]}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert client_with(raw).get("/api/v1/me/tokens").status_code == 403
    assert client_with(raw).delete(f"/api/v1/me/tokens/{made['id']}").status_code == 403
    bot = user.api.post("/api/v1/me/tokens", {"name": "b", "scopes": ["read", "bot"]}, format="json")
    assert bot.status_code == 400 and "bot" in str(bot.json()["detail"]["fields"]["scopes"])
    unknown = user.api.post("/api/v1/me/tokens", {"name": "b", "scopes": ["admin"]}, format="json")
    assert unknown.status_code == 400 and unknown.json()["code"] == "invalid"


def test_a_revoked_or_expired_token_is_refused_at_once_caches_included(make_user, monkeypatch):
    user = make_user()
    raw, made = pat(user, "read", expires_in=3600)
    client = client_with(raw)
    assert client.get("/api/v1/me").status_code == 200 and tokens.cached(raw) is not None  # cached now
    assert user.api.delete(f"/api/v1/me/tokens/{made['id']}").status_code == 204
    gone = client.get("/api/v1/me")
    assert gone.status_code == 401 and gone.json()["code"] == "not_authenticated"
    assert made["id"] not in [t["id"] for t in user.api.get("/api/v1/me/tokens").json()]
    assert user.api.delete(f"/api/v1/me/tokens/{made['id']}").status_code == 404  # once
    other, made = pat(user, "read", expires_in=3600)
    assert client_with(other).get("/api/v1/me").status_code == 200 and tokens.cached(other) is not None
    # The clock passes its expiry while it sits in the cache: refused all the same.
    later = timezone.now() + timedelta(hours=2)
    monkeypatch.setattr(tokens.timezone, "now", lambda: later)
    assert client_with(other).get("/api/v1/me").status_code == 401


def test_another_users_token_cannot_be_revoked(make_user):
    owner, other = make_user(), make_user()
    _, made = pat(owner, "read")
    assert other.api.delete(f"/api/v1/me/tokens/{made['id']}").status_code == 404
    assert ApiToken.objects.get(pk=made["id"]).revoked_at is None


def test_a_session_and_a_first_party_token_hold_every_scope_but_bot(make_user, client):
    user = make_user()
    assert scopes.SESSION.scopes == set(scopes.FIRST_PARTY) == {"read", "play", "host", "webhooks"}
    row = ApiToken.objects.get(digest=tokens.digest(user.token))
    assert row.kind == "first_party" and row.scopes == list(scopes.FIRST_PARTY)
    client.force_login(user)
    assert client.get("/api/v1/me/tokens").status_code == 200


def test_a_move_through_the_edge_checks_the_scope(make_user, table_of):
    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    reader, _ = pat(users[0], "read")
    state = client_with(reader).get(f"/api/v1/tables/{table_id}/state").json()
    assert state["legal_moves"]
    refused = client_with(reader).post(f"/api/v1/tables/{table_id}/moves", state["legal_moves"][0], format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == {"required": "play"}


def _views():
    def walk(patterns, prefix=""):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                view = getattr(entry.callback, "view_class", None) or getattr(entry.callback, "cls", None)
                if view is not None and issubclass(view, APIView) and prefix.startswith("api/v1/"):
                    yield prefix + str(entry.pattern), view

    return list(walk(get_resolver().url_patterns))


def test_every_operation_of_the_api_names_its_scope():
    undeclared = []
    for route, view in _views():
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view, method) and method.upper() not in (getattr(view, "scopes", None) or {}):
                if getattr(view, "scopes", None) == {} and not view().get_authenticators():
                    continue  # no credential at all (register, log in)
                undeclared.append(f"{method.upper()} {route}")
    assert undeclared == []
    assert len(_views()) > 30
