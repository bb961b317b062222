"""Operators in the Django admin: users, tables, abort, Lopti moderation — and no hidden
card on any admin page."""

import random

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Table
from tests.api.helpers import president_hands_deck, seat_users
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
    operator.post("/admin/accounts/user/", {"action": "regenerate_token", "_selected_action": [user.pk]})
    assert user.api.get("/api/v1/me").status_code == 401
    assert user.api_tokens.filter(revoked_at=None).count() == 1  # a new one, shown to nobody
    operator.post("/admin/accounts/user/", {"action": "deactivate", "_selected_action": [user.pk]})
    user.refresh_from_db()
    assert not user.is_active


@pytest.mark.django_db
def test_the_token_admin_shows_prefixes_never_tokens_and_revokes(operator, make_user):
    from accounts.models import ApiToken

    user = make_user(username="holder")
    made = user.api.post("/api/v1/me/tokens", {"name": "laptop", "scopes": ["read"]}, format="json").json()
    page = operator.get("/admin/accounts/apitoken/")
    text = page.content.decode()
    assert page.status_code == 200 and made["prefix"] in text and "laptop" in text
    assert made["token"] not in text and user.token not in text
    detail = operator.get(f"/admin/accounts/apitoken/{made['id']}/change/").content.decode()
    assert made["token"] not in detail and ApiToken.objects.get(pk=made["id"]).digest not in detail
    operator.post("/admin/accounts/apitoken/", {"action": "revoke", "_selected_action": [made["id"]]})
    refused = APIClient()
    refused.credentials(HTTP_AUTHORIZATION=f"Token {made['token']}")
    assert refused.get("/api/v1/me").status_code == 401
    assert user.api.get("/api/v1/me").status_code == 200  # the other token stays


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
    url = f"/admin/games/table/{table_id}/moderate/{rule_id}/1/"
    assert f'formmethod="post" formaction="{url}"' in page
    # A GET link would let a prefetch or a forged link moderate: it changes nothing now.
    assert operator.get(url).status_code == 405
    assert users[1].api.get(f"/api/v1/tables/{table_id}/house-rules").json()[0]["rule"]["description"] == RULE["description"]
    operator.post(url)
    rules = users[1].api.get(f"/api/v1/tables/{table_id}/house-rules").json()
    assert rules[0]["rule"]["description"] != RULE["description"] and rules[0]["status"] == "active"


@pytest.mark.django_db
def test_moderation_needs_the_csrf_token(table_of):
    from django.test import Client

    table_id, users = table_of("lopti", 3, options=QUICK, seed=11)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    current = play_until(table_id, users, lambda s: s["phase"] == "house_rule", random.Random(1))
    winner = next(u for u in users if state(u, table_id)["you"]["seat"] == current["public"]["window"]["winner"])
    rule_id = winner.api.post(f"/api/v1/tables/{table_id}/house-rules", {"rule": RULE}, format="json").json()[0]["id"]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(User.objects.create_superuser("strict", "s@example.com", "operator password"))
    url = f"/admin/games/table/{table_id}/moderate/{rule_id}/1/"
    assert strict.post(url).status_code == 403
    page = strict.get(f"/admin/games/table/{table_id}/change/")
    token = page.cookies["csrftoken"].value
    assert strict.post(url, {"csrfmiddlewaretoken": token}).status_code == 302
    assert users[1].api.get(f"/api/v1/tables/{table_id}/house-rules").json()[0]["rule"]["description"] != RULE["description"]


def _change_page_queries(operator, table_id) -> tuple[int, str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        page = operator.get(f"/admin/games/table/{table_id}/change/")
    assert page.status_code == 200
    return len(queries), page.content.decode()


@pytest.mark.django_db
def test_the_table_page_costs_the_same_queries_at_five_moves_and_at_three_hundred(operator, table_of):
    from games.models import Move

    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    seat0 = seat_users(users[0].api, table_id, users)[0]
    assert seat0.api.post(f"/api/v1/tables/{table_id}/moves", {"type": "play", "cards": ["3C"]}, format="json").status_code == 200
    first = Move.objects.get(table_id=table_id)

    def grow_to(n):
        last = Move.objects.filter(table_id=table_id).count()
        Move.objects.bulk_create(
            Move(table_id=table_id, seq=seq, seat=seq % 4, user=users[seq % 4], by=first.by, move=first.move,
                 events=first.events, seat_players=first.seat_players, version=first.version)
            for seq in range(last + 1, n + 1)
        )

    grow_to(5)
    # Once to fill what a process reads once and keeps (which depends on the tests this worker
    # ran before), then measured: only what grows with the moves may differ, and nothing should.
    _change_page_queries(operator, table_id)
    small, small_page = _change_page_queries(operator, table_id)
    grow_to(300)
    large, large_page = _change_page_queries(operator, table_id)
    assert small == large
    assert "5 of 5 moves shown" in small_page and "50 of 300 moves shown" in large_page
    assert "<td>300</td>" in large_page and "<td>250</td>" not in large_page


@pytest.mark.django_db
def test_rating_admin_lists_a_players_ratings_and_resets_one(operator, make_user):
    from games.models import Rating, RatingReset
    from games.services import ratings

    player, other = make_user(username="ratedone"), make_user(username="someoneelse")
    for user, game in ((player, "pitch"), (player, "president"), (other, "pitch")):
        Rating.objects.create(user=user, game=game, mu=30, sigma=2, rating=ratings.display(30, 2), games=12, wins=5)
    page = operator.get("/admin/games/rating/?q=ratedone")
    assert page.status_code == 200 and page.content.count(b"ratedone") >= 2 and b"someoneelse" not in page.content
    reset = Rating.objects.get(user=player, game="pitch")
    operator.post("/admin/games/rating/", {"action": "reset", "_selected_action": [reset.pk]})
    reset.refresh_from_db()
    assert (reset.mu, reset.sigma, reset.rating, reset.games, reset.wins) == (
        ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA, 1000, 0, 0)
    # Only that one: the player's other game and the other player keep theirs; the reset is on record.
    assert Rating.objects.get(user=player, game="president").games == 12
    assert Rating.objects.get(user=other, game="pitch").games == 12
    assert list(RatingReset.objects.values_list("user", "game")) == [(player.pk, "pitch")]
