"""Operators in the Django admin: users, tables, abort, Lopti moderation — and no hidden
card on any admin page."""

import random

import pytest

from accounts.models import User
from games.models import Table
from tests.api.helpers import president_hands_deck
from tests.api.test_lopti_sessions import QUICK, RULE, play_until, state


@pytest.fixture
def operator(client, db):
    admin = User.objects.create_superuser("operator", "op@example.com", "operator password")
    client.force_login(admin)
    return client


@pytest.mark.django_db
def test_user_admin_searches_deactivates_and_regenerates_tokens(operator, make_user):
    user = make_user(username="findme")
    page = operator.get("/admin/accounts/user/?q=findme")
    assert page.status_code == 200 and b"findme" in page.content
    old = user.token
    operator.post("/admin/accounts/user/", {"action": "regenerate_token", "_selected_action": [user.pk]})
    assert user.api.get("/api/v1/me").status_code == 401
    operator.post("/admin/accounts/user/", {"action": "deactivate", "_selected_action": [user.pk]})
    user.refresh_from_db()
    assert not user.is_active and user.auth_token.key != old


@pytest.mark.django_db
def test_table_admin_shows_no_hidden_card_and_aborts(operator, table_of):
    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    listing = operator.get("/admin/games/table/?game__exact=president&status__exact=active")
    assert listing.status_code == 200 and table_id.encode() in listing.content
    page = operator.get(f"/admin/games/table/{table_id}/change/").content.decode()
    assert not any(f'"{card}"' in page for hand in hands for card in hand)
    operator.post("/admin/games/table/", {"action": "abort", "_selected_action": [table_id]})
    table = Table.objects.get(pk=table_id)
    assert table.status == "finished" and table.aborted
    assert users[1].api.get(f"/api/v1/tables/{table_id}/state").json()["legal_moves"] == []


@pytest.mark.django_db
def test_operators_moderate_a_lopti_rule_from_the_admin(operator, table_of):
    table_id, users = table_of("lopti", 3, options=QUICK, seed=11)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    current = play_until(table_id, users, lambda s: s["phase"] == "house_rule", random.Random(1))
    winner = next(u for u in users if state(u, table_id)["you"]["seat"] == current["public"]["window"]["winner"])
    rule_id = winner.api.post(f"/api/v1/tables/{table_id}/house-rules", {"rule": RULE}, format="json").json()[0]["id"]
    page = operator.get(f"/admin/games/table/{table_id}/change/").content.decode()
    assert RULE["description"] in page and "Hide description" in page
    operator.get(f"/admin/games/table/{table_id}/moderate/{rule_id}/1/")
    rules = users[1].api.get(f"/api/v1/tables/{table_id}/house-rules").json()
    assert rules[0]["rule"]["description"] != RULE["description"] and rules[0]["status"] == "active"
