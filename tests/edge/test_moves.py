"""`POST /tables/{id}/moves` answered by the edge (games.edge.moves through games.edge.app) before
Django's handler, in this process.

It must answer exactly what Django's view answers: the same status, body and headers for every
move and every refusal (checked on twin tables: the same players, seed, deck and dealer, one
played through the edge and one through Django alone), leave to Django only what it does not
answer (keys, other content types), count the throttles in DRF's own windows, and never apply a
move twice."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from accounts import tokens
from config import throttling
from config.asgi import application, django_application
from games import versions
from games.edge.app import Edge
from games.models import Move, Table
from games.services import changes
from tests.api.helpers import president_hands_deck
from tests.edge.test_state import counted_queries, run

pytestmark = pytest.mark.django_db(transaction=True)
MISSING = "00000000-0000-0000-0000-000000000000"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def post(app, user, table_id, body, *, raw: bytes | None = None, **headers):
    """POST a move through `app` (the project's ASGI app, or Django's alone)."""

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=30) as c:
            auth = {"Authorization": f"Token {user.token}"} if user is not None else {}
            content = raw if raw is not None else json.dumps(body).encode()
            return await c.post(
                f"/api/v1/tables/{table_id}/moves",
                content=content,
                headers={"Content-Type": "application/json", **auth, **headers},
            )

    return run(scenario)


# What reached Django through the edge (FAST): only what it leaves to Django.
reached_django: list[str] = []


async def _counting_django(scope, receive, send):
    reached_django.append(scope["path"])
    await django_application(scope, receive, send)


FAST = Edge(_counting_django)


@pytest.fixture(autouse=True)
def _forget_reached():
    reached_django.clear()


def get_state(user, table_id):
    return user.api.get(f"/api/v1/tables/{table_id}/state").json()


@pytest.fixture
def twins(make_user):
    """Two started tables of `game` with the same players in the same seats, the same seed and
    first dealer (and deck for President): (fast table, Django table, users)."""

    def make(game: str, seats: int, **fields):
        users = [make_user(staff=True)] + [make_user() for _ in range(seats - 1)]
        ids = []
        for _ in range(2):
            created = users[0].api.post(
                "/api/v1/tables", {"game": game, "seats": seats, "seed": 42, "first_dealer": 0, **fields}, format="json"
            )
            assert created.status_code == 201, created.content
            table_id = created.json()["id"]
            for user in users[1:]:
                assert user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
            assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
            ids.append(table_id)
        tokens.clear()
        versions.reset()
        return ids[0], ids[1], users

    return make


def same_answer(fast, slow, fast_id, slow_id):
    """The two answers are the same but for the table's id: the status, every header (but the
    request id, and the length, which the deadlines' milliseconds may change) and the body."""
    assert fast.status_code == slow.status_code, (fast.content, slow.content)
    a, b = json.loads(fast.content.decode().replace(fast_id, "T")), json.loads(slow.content.decode().replace(slow_id, "T"))
    differences = _diff(a, b)
    # The deadlines were set a few milliseconds apart: the same format is all that can match.
    assert all(path.endswith(".deadline") and ISO.match(x) and ISO.match(y) for path, x, y in differences), differences
    skip = {"x-request-id", "content-length"}
    assert sorted((k, v) for k, v in fast.headers.items() if k not in skip) == sorted(
        (k, v) for k, v in slow.headers.items() if k not in skip)
    assert fast.headers["x-request-id"]


def _diff(a, b, path=""):
    """Where two JSON values differ (for the assertion message)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path, a, b)]


def acting(users, table_id):
    """(user, state) of a player who has a legal move."""
    for user in users:
        state = get_state(user, table_id)
        if state["legal_moves"]:
            return user, state
    raise AssertionError("nobody can move")


@pytest.mark.parametrize(
    "game, seats, fields, steps",
    [
        ("president", 4, {"deck": president_hands_deck()[1]}, 30),
        ("pitch", 4, {}, 30),
        ("pitch", 4, {"options": {"partnerships": True}}, 12),
        ("lopti", 3, {}, 30),
    ],
)
def test_every_move_answers_what_djangos_view_answers(twins, game, seats, fields, steps):
    fast_id, slow_id, users = twins(game, seats, **fields)
    for step in range(steps):
        user, state = acting(users, fast_id)
        assert get_state(user, slow_id)["legal_moves"] == state["legal_moves"]
        # Every few steps, a move that is not the first legal one (the last), with the version.
        choice = state["legal_moves"][-1 if step % 3 else 0]
        body = {**choice, "expected_version": state["version"]} if step % 2 else dict(choice)
        fast = post(FAST, user, fast_id, body)
        slow = post(django_application, user, slow_id, body)
        same_answer(fast, slow, fast_id, slow_id)
        assert fast.status_code == 200 and reached_django == []
        if Table.objects.get(pk=fast_id).status != Table.Status.ACTIVE:
            break
    # Both tables went the same way, move by move.
    assert list(Move.objects.filter(table_id=fast_id).values_list("seq", "seat", "move", "version")) == list(
        Move.objects.filter(table_id=slow_id).values_list("seq", "seat", "move", "version")
    )


def test_every_refusal_answers_what_djangos_view_answers(twins, make_user):
    hands, _ = president_hands_deck()
    fast_id, slow_id, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)
    other = next(u for u in users if u is not mover)
    outsider = make_user()
    cases = [
        (other, {"type": "pass"}),  # not your turn
        (mover, {"type": "play", "cards": ["XX"]}),  # malformed card
        (mover, {"type": "play", "cards": [hands[3][-1], hands[2][-1]]}),  # not the mover's cards
        (mover, {"type": "shout"}),  # no such move
        (mover, {**state["legal_moves"][0], "expected_version": state["version"] - 1}),  # stale
        (outsider, state["legal_moves"][0]),  # not seated: 403
    ]
    for user, body in cases:
        fast = post(FAST, user, fast_id, body)
        slow = post(django_application, user, slow_id, body)
        same_answer(fast, slow, fast_id, slow_id)
        assert fast.status_code in (400, 403, 409) and set(fast.json()) == {"code", "message", "detail"}
        assert reached_django == []  # refused by the edge itself
    for target in (MISSING, "not-a-uuid"):
        fast = post(FAST, mover, target, state["legal_moves"][0])
        slow = post(django_application, mover, target, state["legal_moves"][0])
        assert fast.status_code == slow.status_code == 404 and fast.json() == slow.json()
    # Nothing was applied by any of them.
    assert Table.objects.get(pk=fast_id).version == state["version"]


def test_a_move_on_a_table_not_in_play_and_after_the_end(twins):
    fast_id, slow_id, users = twins("pitch", 3)
    for table_id in (fast_id, slow_id):
        Table.objects.filter(pk=table_id).update(status=Table.Status.FINISHED)
    versions.reset()
    fast = post(FAST, users[0], fast_id, {"type": "bid", "value": 0})
    slow = post(django_application, users[0], slow_id, {"type": "bid", "value": 0})
    same_answer(fast, slow, fast_id, slow_id)
    assert fast.status_code == 409 and fast.json()["code"] == "conflict"


@pytest.mark.parametrize(
    "raw, headers, status, code, by_django",
    [
        (b'{"type": "pass"', {}, 400, "invalid", False),  # not JSON: the API parser's error
        (b'["pass"]', {}, 400, "invalid", False),  # not an object
        (b'{"cards": []}', {}, 400, "invalid", False),  # no type
        (b'{"type": "pass", "expected_version": "3"}', {}, 400, "invalid", False),
        (b'{"type": "pass", "x": ' + b"[" * 40 + b"]" * 40 + b"}", {}, 400, "invalid", False),  # too deep
        (b'{"type": "pass", "x": "\\u0000"}', {}, 400, "invalid", False),  # a NUL
        (b'{"type": "pass"}', {"Authorization": "Token nope"}, 401, "not_authenticated", False),
        (b'{"type": "pass"}', {"Accept": "application/xml"}, 406, "not_acceptable", False),
        (b'{"type": "pass"}', {"Content-Type": "text/plain"}, 415, "invalid", True),  # the error shape's code for a 415
    ],
)
def test_bad_bodies_get_djangos_answer_from_either_door(twins, raw, headers, status, code, by_django):
    fast_id, slow_id, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, _ = acting(users, fast_id)
    fast = post(FAST, mover, fast_id, None, raw=raw, **headers)
    slow = post(django_application, mover, slow_id, None, raw=raw, **headers)
    assert fast.status_code == slow.status_code == status
    assert fast.json()["code"] == code and fast.json() == slow.json()
    assert reached_django == ([f"/api/v1/tables/{fast_id}/moves"] if by_django else [])


def test_a_keyed_move_goes_through_djangos_idempotent_path(twins):
    fast_id, _, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)
    first = post(FAST, mover, fast_id, state["legal_moves"][0], **{"Idempotency-Key": "k-1"})
    again = post(FAST, mover, fast_id, state["legal_moves"][0], **{"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true" and again.json() == first.json()
    assert len(reached_django) == 2
    assert Table.objects.get(pk=fast_id).move_count == 1


def test_the_fast_path_costs_the_views_statements(twins):
    """Statements of a move with the token cached: the same count through either path."""
    fast_id, slow_id, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)
    body = state["legal_moves"][0]
    post(FAST, mover, MISSING, body)  # the token is now cached
    with counted_queries() as fast_seen:
        assert post(FAST, mover, fast_id, body).status_code == 200
    with counted_queries() as slow_seen:
        assert post(django_application, mover, slow_id, body).status_code == 200
    # The same statements, in the same order: the locked table, its seats with their players,
    # the UPDATE of the table, the INSERT of the log entry, the INSERT of the next player's
    # account event (its outbox; docs/performance.md).
    kinds = [sql.split()[0] for sql in fast_seen]
    assert kinds == [sql.split()[0] for sql in slow_seen]
    assert kinds.count("SELECT") == 2 and kinds.count("UPDATE") == 1 and kinds.count("INSERT") == 2
    assert sum('"games_accountevent"' in sql for sql in fast_seen) == 1


@pytest.fixture
def tiny_rates(monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "100/min", "anon": "2/min", "moves": "2/min"})
    monkeypatch.setattr(APIView, "throttle_classes", [throttling.AnonRateThrottle, throttling.UserRateThrottle,
                                                      throttling.MoveRateThrottle])
    throttling.reset()
    yield
    throttling.reset()


def test_the_edge_counts_moves_in_drfs_windows_and_answers_the_429(twins, tiny_rates):
    fast_id, slow_id, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)
    body = {"type": "pass"}  # refused (a pass on the lead), but counted, as DRF counts it
    assert post(FAST, mover, fast_id, body).status_code == 400
    # The second through Django's own throttles: the same window.
    assert post(django_application, mover, slow_id, body).status_code == 400
    third = post(FAST, mover, fast_id, state["legal_moves"][0])
    assert third.status_code == 429 and third.json()["code"] == "throttled" and int(third.headers["retry-after"]) >= 1
    assert reached_django == []  # the edge ran DRF's throttles itself
    assert Table.objects.get(pk=fast_id).move_count == 0
    # Another player has their own budget.
    assert post(FAST, users[3] if mover is not users[3] else users[2], fast_id, body).status_code in (400, 409)


def test_an_error_after_the_commit_is_a_500_and_the_move_is_not_made_twice(twins):
    """A failure in a hook that runs once the move committed must not send the request on to
    Django, which would make the move again."""
    from config.errors import Conflict

    fast_id, _, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)

    def failing(change):
        raise Conflict("a hook failed after the commit")

    unsubscribe = changes.subscribe(failing)
    try:
        answer = post(FAST, mover, fast_id, state["legal_moves"][0])
    finally:
        unsubscribe()
    assert answer.status_code == 500 and answer.json()["code"] == "server_error"
    table = Table.objects.get(pk=fast_id)
    assert table.move_count == 1 and table.version == state["version"] + 1


def test_the_projects_app_serves_moves_by_the_edge_and_its_etag_earns_a_304(twins):
    fast_id, _, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)
    assert isinstance(application, Edge) and application.django is django_application
    answer = post(FAST, mover, fast_id, state["legal_moves"][0])
    assert answer.status_code == 200 and reached_django == []
    poll = mover.api.get(f"/api/v1/tables/{fast_id}/state", HTTP_IF_NONE_MATCH=answer.headers["etag"])
    assert poll.status_code == 304
    # The answer shows the mover's own hand and nobody else's.
    body = answer.json()
    assert body["state"]["you"]["seat"] == state["you"]["seat"]


def test_the_throttles_count_off_the_event_loop(twins, tiny_rates, monkeypatch):
    """DRF's throttles call Redis (or the cache) synchronously: the edge runs them on a pool
    thread, never on the loop that serves every other request of the process."""
    import asyncio

    fast_id, _, users = twins("president", 4, deck=president_hands_deck()[1])
    mover, state = acting(users, fast_id)
    on_loop = []
    real_count = throttling._count

    def count(key, ttl):
        try:
            asyncio.get_running_loop()
            on_loop.append(key)
        except RuntimeError:
            pass
        return real_count(key, ttl)

    monkeypatch.setattr(throttling, "_count", count)
    assert post(FAST, mover, fast_id, state["legal_moves"][0]).status_code == 200
    assert reached_django == [] and on_loop == []
