"""A bot account's seat (`is_bot: true, bot: {account}`) is shown the same by both doors of the
state view (the edge's route and Django's view) and by a table a wake-up message carries, which
renders it with no read; and a bot account's move without the `bot` scope is refused alike by
both doors (docs/bots-accounts.md)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts import scopes, tokens
from accounts import services as account_services
from games import notify, selectors, versions
from tests.api.helpers import president_hands_deck
from tests.edge.test_carried_table import views
from tests.edge.test_paired import _same, auth, both
from tests.edge.test_state import counted_queries

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]


@pytest.fixture
def table(make_user):
    """A started President table: a staff host, two people and a bot account (upgraded before it sat)."""
    users = [make_user(staff=True), make_user(), make_user(), make_user()]
    account_services.bot_account_upgrade(user=users[3], grant=scopes.SESSION)
    made = users[0].api.post("/api/v1/tables", {"game": "president", "seats": 4, "first_dealer": 3,
                                                "deck": president_hands_deck()[1]}, format="json")
    table_id = made.json()["id"]
    for user in users[1:]:
        assert user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    tokens.clear()
    versions.reset()
    return table_id, users


def test_both_doors_show_a_bot_accounts_seat_alike(table, make_user):
    table_id, users = table
    bot = users[3]
    for viewer in (users[1], bot, make_user()):
        edge, django, by_edge = both("GET", f"/api/v1/tables/{table_id}/state", headers=auth(viewer))
        assert edge[0] == 200 and by_edge
        _same(edge, django, f"state for {viewer.username}")
        seats = {s["player"]["username"]: s for s in json.loads(edge[2])["seats"]}
        assert seats[bot.username]["is_bot"] is True and seats[bot.username]["bot"] == {"account": bot.username}
        assert all("bot" not in seats[u.username] and seats[u.username]["is_bot"] is False for u in users[:3])


def test_a_bot_accounts_move_without_the_bot_scope_is_refused_alike_by_both_doors(table):
    table_id, users = table
    bot = users[3]
    _, raw = account_services.personal_token_create(user=bot, grant=scopes.SESSION, name="p", scopes_asked=["read", "play"],
                                                    expires_in=None)
    edge, django, by_edge = both("POST", f"/api/v1/tables/{table_id}/moves", headers={"authorization": f"Token {raw}"},
                                 body=b'{"type": "pass"}')
    assert edge[0] == 403 and json.loads(edge[2])["detail"] == {"required": "bot"} and by_edge
    _same(edge, django, "a bot account's move with play")


def test_a_carried_table_shows_a_bot_accounts_seat_without_a_read(table, make_user):
    table_id, users = table
    read = selectors.table_for_state(table_id)
    carried = notify.encode_table(read)
    everyone = [*users, make_user(), AnonymousUser()]
    with counted_queries() as seen:
        rendered = views(notify.decode_table(carried), everyone)
    assert seen == []
    assert [json.loads(v) for v in rendered] == [json.loads(v) for v in views(read, everyone)]
    seats = {s["player"]["username"]: s for s in json.loads(rendered[0])["seats"]}
    assert seats[users[3].username]["bot"] == {"account": users[3].username}
