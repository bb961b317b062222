"""The bad input corpus (docs/reliability.md). Every state-changing operation gets every kind of bad
request: malformed JSON, wrong content types, a body over the size limit, deep nesting, huge
numbers, control characters, JSON that is not an object, unknown fields, an Idempotency-Key
over 255 characters. Each answer is a 4xx in the one error shape, with no trace, and the
table is unchanged afterwards (version, move count, seats, state). Then the queries (`wait`,
`after`, `limit`), usernames and house-rule descriptions, and the admin's escaping."""

from __future__ import annotations

import json

import pytest

from games.models import Move, Table
from tests.reliability.endpoints import MISSING
from tests.reliability.tables import build, client_for, new_user

# Every state-changing operation on a table, with a valid-looking body of its own.
STATE_CHANGING = [
    ("POST", "/join", {"seat": 3}, "president"),
    ("POST", "/leave", None, "president"),
    ("POST", "/bots", {"level": "random"}, "president"),
    ("POST", "/back", None, "president"),
    ("POST", "/start", None, "president"),
    ("POST", "/invitations", {"username": "nobody"}, "president"),
    ("POST", "/rematch", None, "president"),
    ("POST", "/moves", {"type": "pass"}, "president"),
    ("POST", "/moves", {"type": "keep"}, "lopti"),
    ("POST", "/house-rules", {"decline": True}, "lopti"),
    ("PATCH", f"/house-rules/{MISSING}", {"rule": {"description": "x"}}, "lopti"),
    ("POST", "/rule-votes", {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}, "lopti"),
    ("POST", f"/rule-votes/{MISSING}/ballots", {"yes": True}, "lopti"),
    ("POST", f"/rule-votes/{MISSING}/champions", None, "lopti"),
    ("POST", f"/duels/{MISSING}/throws", {"throw": "rock"}, "lopti"),
    ("POST", "/sessions", None, "lopti"),
]
# Operations without a body (None above) ignore the fields of a JSON object, as they ignore
# unknown fields (see test_unknown_fields_change_nothing): the object-valued items of the
# corpus name only fields that those operations do not have.
OBJECT_ITEMS = {"huge version", "huge seat", "float overflow", "NUL in strings"}
BIG = 10**400  # past every integer column and float


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


# (name, body bytes, content type, extra headers): each is refused.
CORPUS = [
    ("malformed JSON", b'{"type": "pass",', "application/json", {}),
    ("truncated string", b'{"type": "pa', "application/json", {}),
    ("not UTF-8", b'{"type": "\xff\xfe"}', "application/json", {}),
    ("NaN", b'{"type": "pass", "expected_version": NaN}', "application/json", {}),
    ("form body", b"type=pass", "application/x-www-form-urlencoded", {}),
    ("plain text", b'{"type": "pass"}', "text/plain", {}),
    ("multipart", b"--x\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\npass\r\n--x--\r\n",
     "multipart/form-data; boundary=x", {}),
    ("XML", b"<move><type>pass</type></move>", "application/xml", {}),
    ("deep nesting (40)", deep(40).encode(), "application/json", {}),
    ("deep nesting (100000)", deep(100000).encode(), "application/json", {}),
    ("a list", b"[]", "application/json", {}),
    ("a string", b'"pass"', "application/json", {}),
    ("null", b"null", "application/json", {}),
    ("a number", b"5", "application/json", {}),
    ("huge version", json.dumps({"type": "pass", "expected_version": BIG}).encode(), "application/json", {}),
    ("huge seat", json.dumps({"seat": BIG, "level": "random", "yes": True, "throw": "rock"}).encode(), "application/json", {}),
    ("float overflow", b'{"type": "bid", "value": 1e400, "seat": 1e400, "expected_version": 1e400}', "application/json", {}),
    ("NUL in strings", json.dumps({"type": "pa\x00ss", "level": "ran\x00dom", "throw": "ro\x00ck", "kind": "\x00",
                                   "cards": ["\x00"]}).encode(), "application/json", {}),
    ("key too long", b"{}", "application/json", {"HTTP_IDEMPOTENCY_KEY": "k" * 256}),
]


def fingerprint(table_id) -> tuple:
    table = Table.objects.get(pk=table_id)
    seats = tuple(table.seats.order_by("index").values_list("index", "user_id", "is_bot", "left", "away"))
    return (table.version, table.status, Move.objects.filter(table=table).count(), seats,
            json.dumps(table.state, sort_keys=True), table.host_id)


def assert_clean_refusal(response, label) -> None:
    assert 400 <= response.status_code < 500, (label, response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"code", "message", "detail"}, (label, body)
    text = response.content.decode()
    assert "Traceback" not in text and 'File "' not in text, label


@pytest.fixture
def small_body_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    return 2048


@pytest.mark.django_db
@pytest.mark.parametrize("method,suffix,body,game", STATE_CHANGING, ids=[f"{m} {s} {g}" for m, s, _, g in STATE_CHANGING])
def test_every_bad_body_is_refused_and_changes_nothing(method, suffix, body, game, small_body_limit):
    built = build(game, "active")
    url = f"/api/v1/tables/{built.table_id}{suffix}"
    for role in ("player", "host"):
        client = built.clients[role]
        before = fingerprint(built.table_id)
        over = json.dumps({**(body or {}), "padding": "x" * small_body_limit}).encode()
        corpus = [*CORPUS, ("over the size limit", over, "application/json", {})]
        for label, raw, content_type, headers in corpus:
            if body is None and label in OBJECT_ITEMS:
                continue
            if label == "key too long":
                raw = json.dumps(body or {}).encode()
            # Without a key, and with one (the refusal is then stored and replayed: the
            # stored copy must be storable, e.g. no NUL character in PostgreSQL's jsonb).
            for extra in ({}, {"HTTP_IDEMPOTENCY_KEY": f"{role}-{label}"}):
                for _ in range(2):
                    response = getattr(client, method.lower())(
                        url, raw, content_type=content_type, **{**extra, **headers}
                    )
                    assert_clean_refusal(response, label)
                    if label == "over the size limit":
                        assert response.status_code == 413 and response.json()["code"] == "too_large", response.content
                    assert fingerprint(built.table_id) == before, (role, label)


@pytest.mark.django_db
def test_unknown_fields_change_nothing():
    # Ruling: unknown fields in a table operation's body are ignored (DRF's default, and
    # api.md lets every state-changing POST carry `expected_version`, which most of them do
    # not read); what must hold is that they grant nothing: no mass assignment of seats,
    # hosting, staff rights or state.
    built = build("president", "open")
    spectator = built.users["spectator"]
    response = built.clients["spectator"].post(
        f"/api/v1/tables/{built.table_id}/join",
        {"seat": 3, "host": spectator.pk, "is_staff": True, "status": "finished", "version": 0, "user": 1},
        format="json",
    )
    assert response.status_code == 200, response.content
    table = built.table
    spectator.refresh_from_db()
    assert table.host_id == built.users["host"].pk and table.status == "open" and not spectator.is_staff
    assert table.seats.get(index=3).user_id == spectator.pk


@pytest.mark.django_db
def test_a_move_with_an_unknown_field_changes_nothing():
    built = build("president", "active")
    before = fingerprint(built.table_id)
    response = built.clients["player"].post(
        f"/api/v1/tables/{built.table_id}/moves", {"type": "pass", "cards_of_seat_2": True}, format="json"
    )
    assert_clean_refusal(response, "a move with an unknown field")
    assert fingerprint(built.table_id) == before


@pytest.mark.django_db
def test_creating_a_table_refuses_every_bad_body(small_body_limit):
    user = new_user("creator")
    client = client_for(user)
    over = json.dumps({"game": "president", "seats": 4, "padding": "x" * small_body_limit}).encode()
    corpus = [*CORPUS, ("over the size limit", over, "application/json", {}),
              ("huge seats", json.dumps({"game": "president", "seats": BIG}).encode(), "application/json", {}),
              ("huge timeout", json.dumps({"game": "president", "seats": 4, "turn_timeout": BIG}).encode(), "application/json", {}),
              ("NUL game", json.dumps({"game": "pres\x00ident", "seats": 4}).encode(), "application/json", {}),
              ("option NUL", json.dumps({"game": "president", "seats": 4, "options": {"\x00": "\x00"}}).encode(), "application/json", {}),
              ("option huge", json.dumps({"game": "president", "seats": 4, "options": {"bot_delay": BIG}}).encode(), "application/json", {})]
    for label, raw, content_type, headers in corpus:
        if label == "key too long":
            raw = json.dumps({"game": "president", "seats": 4}).encode()
        response = client.post("/api/v1/tables", raw, content_type=content_type, **headers)
        assert_clean_refusal(response, label)
        assert not Table.objects.exists(), label


# --- usernames ---------------------------------------------------------------------------------

BAD_USERNAMES = [
    "nul\x00byte", "bell\x07", "new\nline", "tab\tname", "rtl\u202eevil", "zero\u200bwidth",
    "<script>alert(1)</script>", "'; DROP TABLE accounts_user; --", "a" * 151, "", " ", "emoji\U0001f0a1",
]


@pytest.mark.django_db
@pytest.mark.parametrize("username", BAD_USERNAMES, ids=range(len(BAD_USERNAMES)))
def test_usernames_with_control_characters_or_markup_are_refused(username):
    from accounts.models import User

    response = client_for(None).post(
        "/api/v1/auth/register", {"username": username, "password": "a long passphrase 9"}, format="json"
    )
    assert_clean_refusal(response, username)
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["nul\x00byte", "' OR '1'='1", "a" * 10000])
def test_logging_in_with_strange_usernames_is_a_plain_refusal(username):
    response = client_for(None).post("/api/v1/auth/token", {"username": username, "password": "x"}, format="json")
    assert_clean_refusal(response, username)


# --- queries -----------------------------------------------------------------------------------

BAD_QUERIES = [
    ("/state", "wait=abc"), ("/state", "wait=31"), ("/state", "wait=-1"), ("/state", "wait=nan"),
    ("/state", "wait=inf"), ("/state", "wait=1e400"), ("/state", "wait="), ("/state", "wait=%00"),
    ("/moves", "after=abc"), ("/moves", "after=-1"), ("/moves", "after=1.5"), ("/moves", f"after={BIG}"),
    ("/moves", "after="), ("/moves", "limit=0"), ("/moves", "limit=501"), ("/moves", "after=%00"),
    ("/events", "after=abc"), ("/events", "after=-1"), ("/events", f"after={BIG}"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("suffix,query", BAD_QUERIES, ids=[f"{s}?{q[:20]}" for s, q in BAD_QUERIES])
def test_bad_query_parameters_are_400_invalid(suffix, query):
    built = build("president", "active")
    before = fingerprint(built.table_id)
    response = built.clients["player"].get(f"/api/v1/tables/{built.table_id}{suffix}?{query}")
    assert_clean_refusal(response, query)
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert fingerprint(built.table_id) == before


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["status=%00", "game=%27%20OR%201%3D1", "limit=abc", f"offset={BIG}", "limit=-5"])
def test_bad_list_queries_are_400_invalid(query):
    response = client_for(new_user("lister")).get(f"/api/v1/tables?{query}")
    assert_clean_refusal(response, query)


# --- house rules: unicode, control characters, markup -------------------------------------------


def house_rule(description: str) -> dict:
    return {"rule": {"description": description, "when": {"event": "play", "ranks": ["7"]},
                     "then": [{"effect": "skip_next_turn", "target": "next_player"}]}}


@pytest.mark.django_db
@pytest.mark.parametrize("description", ["nul\x00", "\x07\x08\x1b[31m", "a" * 281, ""], ids=["nul", "controls", "long", "empty"])
def test_house_rule_descriptions_with_control_characters_are_refused(description):
    # Nobody has won a round on a fresh table: the body is checked before the winner is, so
    # the refusal is about the body (400) for every caller, including non-winners.
    built = build("lopti", "active")
    before = fingerprint(built.table_id)
    response = built.clients["player"].post(f"/api/v1/tables/{built.table_id}/house-rules", house_rule(description), format="json")
    assert_clean_refusal(response, description[:10])
    assert fingerprint(built.table_id) == before


# --- the admin escapes what players typed --------------------------------------------------------

MARKUP = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.mark.django_db
def test_the_admin_escapes_player_supplied_text(client, make_user, table_of):
    import random

    from accounts.models import User
    from tests.api.test_lopti_sessions import QUICK, RULE, play_until, state

    # A username cannot carry markup (refused above); a name, an email and a house-rule
    # description can: the admin must show them as text.
    operator = User.objects.create_superuser(username="operator", password="operator password 1", email="op@example.com")
    table_id, users = table_of("lopti", 3, options=QUICK, seed=11)
    users[1].first_name = MARKUP[:150]
    users[1].email = "a@example.com"
    users[1].save()
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    current = play_until(table_id, users, lambda s: s["phase"] == "house_rule", random.Random(1))
    winner = next(u for u in users if state(u, table_id)["you"]["seat"] == current["public"]["window"]["winner"])
    written = winner.api.post(f"/api/v1/tables/{table_id}/house-rules",
                              {"rule": {**RULE, "description": MARKUP}}, format="json")
    assert written.status_code == 201, written.content
    # The API returns the text as the player wrote it (JSON is not HTML).
    assert written.json()[0]["rule"]["description"] == MARKUP
    client.force_login(operator)
    pages = [
        "/admin/accounts/user/", f"/admin/accounts/user/{users[1].pk}/change/",
        "/admin/games/table/", f"/admin/games/table/{table_id}/change/",
    ]
    for page in pages:
        response = client.get(page)
        assert response.status_code == 200, page
        html = response.content.decode()
        assert "<script>alert" not in html and "<img src=x" not in html, page
    table_page = client.get(f"/admin/games/table/{table_id}/change/").content.decode()
    assert "&lt;script&gt;alert" in table_page  # shown, escaped


# --- regressions of the fixes this corpus forced ------------------------------------------------


def test_the_parser_refuses_a_nul_character_anywhere_in_the_body():
    import io

    from rest_framework.exceptions import ParseError

    from config.parsers import JSONParser

    for raw in (b'{"level": "ran\\u0000dom"}', b'{"a\\u0000": 1}', b'[[{"x": ["\\u0000"]}]]'):
        with pytest.raises(ParseError, match="NUL"):
            JSONParser().parse(io.BytesIO(raw))
    assert JSONParser().parse(io.BytesIO(b'{"level": "random\\u00e9"}')) == {"level": "random\u00e9"}


@pytest.mark.django_db
def test_a_nul_character_with_an_idempotency_key_is_a_clean_400_and_stores_nothing():
    # On PostgreSQL this was a 500: the 400 body echoed the value, and jsonb refused it.
    from games.models import IdempotencyRecord

    built = build("president", "open")
    response = built.clients["host"].post(
        f"/api/v1/tables/{built.table_id}/bots", {"level": "ran\x00dom"}, format="json", HTTP_IDEMPOTENCY_KEY="nul-1"
    )
    assert_clean_refusal(response, "nul")
    assert "NUL" in response.json()["message"]
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [b"[]", b'"leave"', b"null", b"5"])
def test_an_operation_without_a_body_refuses_a_body_that_is_not_an_object(raw):
    # POST /leave with `[]` applied the leave (the body was never looked at).
    built = build("president", "open")
    before = fingerprint(built.table_id)
    response = built.clients["player"].post(f"/api/v1/tables/{built.table_id}/leave", raw, content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "invalid", response.content
    assert fingerprint(built.table_id) == before
