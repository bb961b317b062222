"""The authorization matrix (docs/reliability.md). Every table-scoped operation of `config/api_urls.py`
x every role x {open, active, finished} table, with the expected status of each cell written
below: the matrix is the specification of api.md's 401/403/404/409 rules.

Roles (tests/reliability/tables.py builds them): anonymous; a deactivated user (for active and
finished tables a former member of seat 3, deactivated after the start); an outsider (seated
at another table of the same game); a spectator (seated nowhere); `player` (seat 1, on turn in
President); `other_player` (seat 2); the host (seat 0); staff (seated nowhere).

Rulings (the API has no spectator registration): a spectator and an outsider are both
"not seated here" and get the same answers; staff have no extra rights on the public API
(operators act in the admin), so staff answer like a spectator except that they may join.

Lopti's vote, duel and rule ids are ids no table has (999999): the cells show that a caller
gets as far as "no such vote" (404) only once the table is in play, and that no role learns
more than anonymous callers (401) or outsiders do.

Every response body is also checked for hidden information: no card the caller could not
see at the table (both before and after the call), and never the table's seed."""

from __future__ import annotations

import re

import pytest
from django.db import transaction

from games.engine import fairness, registry
from games.models import Move, Table
from tests.reliability.endpoints import MOVE, TABLE_ENDPOINTS, call
from tests.reliability.tables import ROLES, STATES, build, client_for, json_strings, new_user

# One row per operation and table state; the cells follow ROLES:
#   anonymous deactivated outsider spectator player other_player host staff
# A cell is the status, with the error code when a status has several (409 conflict is "409",
# 409 not_your_turn is "409t").
EXPECTED = {
    "summary": {
        "open":     "401 401 200 200 200 200 200 200",
        "active":   "401 401 200 200 200 200 200 200",
        "finished": "401 401 200 200 200 200 200 200",
    },
    "join": {  # a free seat only on the open table; seated callers are already in
        "open":     "401 401 200 200 409 409 409 200",
        "active":   "401 401 409 409 409 409 409 409",
        "finished": "401 401 409 409 409 409 409 409",
    },
    "leave": {  # after the start a bot takes the seat (200); a finished table cannot be left
        "open":     "401 401 403 403 200 200 200 403",
        "active":   "401 401 403 403 200 200 200 403",
        "finished": "401 401 403 403 409 409 409 403",
    },
    "bots": {  # host only, and only before the start
        "open":     "401 401 403 403 403 403 200 403",
        "active":   "401 401 403 403 403 403 409 403",
        "finished": "401 401 403 403 403 403 409 403",
    },
    "back": {  # nobody is away: 409 for members, 403 for the rest
        "open":     "401 401 403 403 409 409 409 403",
        "active":   "401 401 403 403 409 409 409 403",
        "finished": "401 401 403 403 409 409 409 403",
    },
    "start": {  # host only; the open table has a free seat, so 409 even for the host
        "open":     "401 401 403 403 403 403 409 403",
        "active":   "401 401 403 403 403 403 409 403",
        "finished": "401 401 403 403 403 403 409 403",
    },
    "invite": {  # host only; nobody is named "nobody": 400 for the host, before the start as after
        "open":     "401 401 403 403 403 403 400 403",
        "active":   "401 401 403 403 403 403 400 403",
        "finished": "401 401 403 403 403 403 400 403",
    },
    "rematch": {  # the players of a finished table (aborted here); 409 before its end
        "open":     "401 401 403 403 409 409 409 403",
        "active":   "401 401 403 403 409 409 409 403",
        "finished": "401 401 403 403 201 201 201 403",
    },
    "state": {
        "open":     "401 401 200 200 200 200 200 200",
        "active":   "401 401 200 200 200 200 200 200",
        "finished": "401 401 200 200 200 200 200 200",
    },
    "moves_list": {
        "open":     "401 401 200 200 200 200 200 200",
        "active":   "401 401 200 200 200 200 200 200",
        "finished": "401 401 200 200 200 200 200 200",
    },
    "move": {  # President: `player` leads; the others are seated but not on turn
        "open":     "401 401 403 403 409 409 409 403",
        "active":   "401 401 403 403 200 409t 409t 403",
        "finished": "401 401 403 403 409 409 409 403",
    },
    "events": {
        "open":     "401 401 200 200 200 200 200 200",
        "active":   "401 401 200 200 200 200 200 200",
        "finished": "401 401 200 200 200 200 200 200",
    },
    "export": {  # only once the table is over (the finished table here was aborted)
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 409 409 409 409 409 409",
        "finished": "401 401 200 200 200 200 200 200",
    },
    "house_rules": {  # no session before the start
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 200 200 200 200 200 200",
        "finished": "401 401 200 200 200 200 200 200",
    },
    "house_rule_submit": {  # nobody has won a round: 403 for everyone, "whenever it comes" (api.md)
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 403 403 403 403 403 403",
        "finished": "401 401 403 403 403 403 403 403",
    },
    "house_rule_edit": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "house_rule_delete": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "vote_propose": {  # members only (201: the proposal is the proposer's yes ballot)
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 403 403 201 201 201 403",
        "finished": "401 401 403 403 409 409 409 403",
    },
    "vote_detail": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "ballot": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "champion": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "duel_detail": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "throw": {
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 404 404 404 404 404 404",
        "finished": "401 401 404 404 404 404 404 404",
    },
    "session_new": {  # host only, between rounds or after the end
        "open":     "401 401 409 409 409 409 409 409",
        "active":   "401 401 403 403 403 403 200 403",
        "finished": "401 401 403 403 403 403 409 403",
    },
    "lopti_move": {  # the swap phase: several may act; `player`'s swap names cards the
        # others do not hold (400 invalid, the same answer as for any card not in one's hand)
        "open":     "401 401 403 403 409 409 409 403",
        "active":   "401 401 403 403 200 400 400 403",
        "finished": "401 401 403 403 409 409 409 403",
    },
}

CODES = {"400": "invalid", "401": "not_authenticated", "403": "forbidden", "404": "not_found",
         "409": "conflict", "409t": "not_your_turn"}
CARD = re.compile(r"^(10|[2-9JQKA])[CDHS]$")


def state_cards(state) -> set[str]:
    """Every card code anywhere in the stored state (hands, piles, face-down cards)."""
    return {s for s in json_strings_of(state) if CARD.match(s)}


def json_strings_of(value) -> set[str]:
    import json

    return json_strings(json.dumps(value))


def secret_for(table: Table, seat: int | None) -> set[str]:
    """The cards `seat` (None: not seated) may not see now: every card in the state that its
    own view does not show. The engine's `secret_cards` is the authority once it exists."""
    if table.state is None:
        return set()
    engine = registry.get(table.game)
    try:
        return set(engine.secret_cards(table.state, seat))
    except NotImplementedError:
        return state_cards(table.state) - json_strings_of(engine.view(table.state, seat))


def first_move(built) -> dict:
    table = built.table
    if table.state is None:
        return {"type": "pass"}
    engine = registry.get(table.game)
    acting = engine.to_act(table.state)
    seat = built.seat_of("player")
    assert seat in acting or not acting, (seat, acting)
    return engine.legal_moves(table.state, seat)[0] if acting else {"type": "pass"}


def live_secret(table) -> str | None:
    """The secret of the deal in play, while it is unrevealed (fair deals)."""
    fair = (table.state or {}).get("fairness")
    if fair is None or fair["revealed"] or table.status != Table.Status.ACTIVE:
        return None
    return fairness.deal_secret(table.seed, fair["deal"]).hex()


def check_no_leak(built, role: str, text: str, before: set[str], after: set[str], seed: int) -> None:
    leaked = json_strings(text) & before & after
    assert not leaked, f"{role} saw hidden cards {sorted(leaked)}"
    assert str(seed) not in text, f"{role} saw the seed"
    secret = live_secret(built.table)
    assert secret is None or secret not in text, f"{role} saw the secret of the deal in play"


def cell_matches(response, cell: str) -> None:
    status = int(cell.rstrip("t"))
    assert response.status_code == status, (response.status_code, getattr(response, "content", b"")[:300])
    if status >= 400:
        body = response.json()
        assert set(body) == {"code", "message", "detail"} and body["code"] == CODES[cell], body


@pytest.mark.django_db
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("endpoint", TABLE_ENDPOINTS, ids=[e[0] for e in TABLE_ENDPOINTS])
def test_every_cell_of_the_matrix(endpoint, state):
    name, method, suffix, body, game = endpoint
    cells = EXPECTED[name][state].split()
    assert len(cells) == len(ROLES)
    built = build(game, state)
    url = f"/api/v1/tables/{built.table_id}{suffix}"
    payload = first_move(built) if body is MOVE else body
    seed = built.table.seed
    wrong = []
    for role, cell in zip(ROLES, cells, strict=True):
        # Each role meets the same table: the call runs in a savepoint rolled back after it.
        with transaction.atomic():
            seat = built.seat_of(role)
            before = secret_for(built.table, seat)
            response = call(built.clients[role], method, url, payload)
            after = secret_for(built.table, built.seat_of(role))
            if name == "export" and state == "finished":
                # The export of a table that is over is its whole record, every card included:
                # the abort revealed the deal's secret, from which anyone recomputes every hand
                # (api.md, "Fair deals"). The seed must still never appear.
                before = after = set()
            text = response.content.decode() if hasattr(response, "content") else ""
            check_no_leak(built, role, text, before, after, seed)
            try:
                cell_matches(response, cell)
            except AssertionError as exc:
                wrong.append(f"{role}: expected {cell}, {exc}")
            transaction.set_rollback(True)
    assert not wrong, "\n".join(wrong)


# --- private tables: id-holders may view and join, nobody may list them -------------------


@pytest.mark.django_db
def test_a_private_table_is_listed_to_nobody_but_open_to_whoever_has_its_id():
    built = build("president", "open", private=True)
    public = build("president", "open")
    for role in ("outsider", "spectator", "player", "other_player", "host", "staff"):
        client = built.clients[role]
        for query in ({}, {"status": "open"}, {"game": "president"}, {"game": "president", "status": "open"}):
            listed = {t["id"] for t in client.get("/api/v1/tables", {"limit": 100, **query}).json()["results"]}
            assert built.table_id not in listed and public.table_id in listed, (role, query)
        assert client.get(f"/api/v1/tables/{built.table_id}").status_code == 200, role
        assert client.get(f"/api/v1/tables/{built.table_id}/state").status_code == 200, role
    # An invite link works: anyone with the id takes the free seat.
    joined = built.clients["spectator"].post(f"/api/v1/tables/{built.table_id}/join", {}, format="json")
    assert joined.status_code == 200 and joined.json()["private"] is True
    # Members still find it among their own tables.
    mine = {t["id"] for t in built.clients["player"].get("/api/v1/me/tables").json()}
    assert built.table_id in mine


# --- the move log as seen by each role ---------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["president", "lopti"])
def test_the_move_log_shows_each_role_the_same_entries_and_only_its_own_cards(game):
    built = build(game, "active")
    client = built.clients["player"]
    move = first_move(built)
    # A card secret now but public before the move (a face-up card swapped into a hand) is
    # known to everyone who watched: only cards secret both before and after must not appear.
    before = {role: secret_for(built.table, built.seat_of(role)) for role in ROLES}
    assert client.post(f"/api/v1/tables/{built.table_id}/moves", move, format="json").status_code == 200
    table = built.table
    seqs = list(Move.objects.filter(table=table).order_by("seq").values_list("seq", flat=True))
    assert seqs, "the start and the move are logged"
    for role in ("outsider", "spectator", "player", "other_player", "host", "staff"):
        response = built.clients[role].get(f"/api/v1/tables/{built.table_id}/moves")
        assert response.status_code == 200
        log = response.json()
        # Every role sees every entry (seq and version are public); only their content differs.
        # Entry 0 is the first deal's commitment (fair deals), made by the start.
        assert [e["seq"] for e in log] == [0, *seqs], role
        check_no_leak(built, role, response.content.decode(), before[role],
                      secret_for(table, built.seat_of(role)), table.seed)
    watcher = json_strings(built.clients["spectator"].get(f"/api/v1/tables/{built.table_id}/moves").content.decode())
    hand = set(built.clients["player"].get(f"/api/v1/tables/{built.table_id}/state").json()["you"]["hand"])
    hand &= before["spectator"]
    # A spectator's log names none of the cards in the player's hand that nobody saw.
    assert hand and not (watcher & hand), sorted(watcher & hand)


# --- operations not on a table ------------------------------------------------------------------

ACCOUNT_ROLES = ("anonymous", "deactivated", "user", "staff")
# (method, path, body): expected per ACCOUNT_ROLES.
ACCOUNT_EXPECTED = [
    ("GET", "/api/v1/games", None, "200 401 200 200"),  # public, but "deactivated: 401 on every call"
    ("GET", "/api/v1/tables", None, "401 401 200 200"),
    ("POST", "/api/v1/tables", {"game": "president", "seats": 4}, "401 401 201 201"),
    ("POST", "/api/v1/tables", {"game": "president", "seats": 4, "seed": 7}, "401 401 403 201"),
    ("GET", "/api/v1/me", None, "401 401 200 200"),
    ("GET", "/api/v1/me/tables", None, "401 401 200 200"),
    ("GET", "/api/v1/me/webhooks", None, "401 401 200 200"),
    ("GET", "/api/v1/me/invitations", None, "401 401 200 200"),
    ("POST", "/api/v1/me/invitations/999999/accept", None, "401 401 404 404"),
    ("POST", "/api/v1/me/invitations/999999/decline", None, "401 401 404 404"),
    ("GET", "/api/v1/me/webhooks/{other_webhook}", None, "401 401 404 404"),  # someone else's
    ("DELETE", "/api/v1/me/webhooks/{other_webhook}", None, "401 401 404 404"),
    ("GET", "/api/v1/me/webhooks/{other_webhook}/deliveries", None, "401 401 404 404"),
    # The login reads no token: wrong credentials are 400 invalid whoever sends them.
    ("POST", "/api/v1/auth/token", {"username": "nobody", "password": "wrong one"}, "400 400 400 400"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("method,path,body,cells", ACCOUNT_EXPECTED, ids=[f"{m} {p}" for m, p, _, _ in ACCOUNT_EXPECTED])
def test_operations_off_the_tables(method, path, body, cells):
    from games.models import WebhookEndpoint as Webhook

    owner = new_user("hookowner")
    hook = Webhook.objects.create(user=owner, url="http://127.0.0.1:9/hook", events=["your_turn"], secret="s" * 32)
    gone = new_user("gone", is_active=False)
    users = {"anonymous": None, "deactivated": gone, "user": new_user("user"), "staff": new_user("staff", is_staff=True)}
    url = path.format(other_webhook=hook.pk)
    for role, cell in zip(ACCOUNT_ROLES, cells.split(), strict=True):
        with transaction.atomic():
            response = call(client_for(users[role]), method, url, body)
            cell_matches(response, cell)
            transaction.set_rollback(True)
    assert Webhook.objects.filter(pk=hook.pk).exists()


@pytest.mark.django_db
def test_a_deactivated_user_cannot_log_in_again():
    # Ruling: "deactivated users get 401 on every call" meets "bad credentials: 400 invalid" at
    # the login; the login answers as for bad credentials (it does not confirm that the
    # account exists), and no token is issued.
    gone = new_user("gone", is_active=False)
    response = client_for(None).post(
        "/api/v1/auth/token", {"username": gone.username, "password": "correct horse battery"}, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "token" not in response.json()
