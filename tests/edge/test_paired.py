"""The two doors of each hot endpoint give the same whole answer: the edge's route
(games.edge.app, in front of Django) and Django's own view (games.api), driven as an ASGI server
drives them, across a table of cases — status, every header and the body, byte for byte.

A new middleware, authentication class or header changes one door only if the edge does not
follow it; then a case here fails (and tests/edge/test_guard.py names the setting)."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from accounts import services as account_services
from accounts import tokens
from config import throttling
from config.asgi import django_application
from games import versions
from games.edge.app import Edge
from games.models import Table
from tests.api.helpers import president_hands_deck
from tests.edge.test_state import run

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # Django's handler drives the stream view's one-chunk opening from a list (it warns that it
    # would rather have an async iterator: the view serves WSGI too).
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]
REQUEST_ID = "paired-1"
MISSING = "00000000-0000-4000-8000-000000000000"
reached_django: list[str] = []


async def _django(scope, receive, send):
    reached_django.append(scope["path"])
    await django_application(scope, receive, send)


EDGE = Edge(_django)


def call(app, method: str, path: str, *, headers: dict | None = None, body: bytes = b"", query: str = "",
         stream: bool = False) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers as sorted lowercase pairs, body) of one request, as an ASGI server runs
    it; with `stream`, the body's first chunk, its opening (the client then leaves)."""
    headers = {"host": "testserver", "x-request-id": REQUEST_ID, **(headers or {})}
    if body:
        headers.setdefault("content-type", "application/json")
        headers["content-length"] = str(len(body))
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000), "server": ("testserver", 80),
    }

    async def scenario():
        sent: list[dict] = []
        first = asyncio.Event()
        request_sent = False

        async def receive():
            nonlocal request_sent
            if not request_sent:
                request_sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await first.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)
            if message["type"] == "http.response.body" and (stream or not message.get("more_body")):
                first.set()  # a stream: its opening (one chunk) is what both doors send

        task = asyncio.create_task(app(scope, receive, send))
        await asyncio.wait_for(first.wait(), timeout=30)
        await asyncio.wait_for(task, timeout=30)
        start = next(m for m in sent if m["type"] == "http.response.start")
        bodies = [m.get("body", b"") for m in sent if m["type"] == "http.response.body"]
        content = bodies[0] if stream else b"".join(bodies)
        pairs = sorted((k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in start["headers"])
        return start["status"], pairs, content

    return run(scenario)


def both(method, path, between=None, **kwargs):
    """The two doors' answers to the same request; and whether the edge answered it itself.
    `between()` runs between the two (a throttle's counts forgotten, say)."""
    reached_django.clear()
    edge = call(EDGE, method, path, **kwargs)
    by_edge = reached_django == []
    if between is not None:
        between()
    django = call(django_application, method, path, **kwargs)
    return edge, django, by_edge


@pytest.fixture
def table(table_of):
    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    tokens.clear()
    versions.reset()
    return str(table_id), users, hands


def auth(user) -> dict:
    return {"authorization": f"Token {user.token}"}


def etag_of(user, table_id) -> str:
    return user.api.get(f"/api/v1/tables/{table_id}/state")["ETag"]


def _cases(table_id, users, spectator):
    state = f"/api/v1/tables/{table_id}/state"
    events = f"/api/v1/tables/{table_id}/events"
    return [
        # name, method, path, kwargs, expected status, the edge answers it itself
        ("state as a player", "GET", state, {"headers": auth(users[1])}, 200, True),
        ("state as a spectator", "GET", state, {"headers": auth(spectator)}, 200, True),
        ("state 304 with the own ETag", "GET", state,
         {"headers": {**auth(users[1]), "if-none-match": etag_of(users[1], table_id)}}, 304, True),
        ("state with another viewer's ETag", "GET", state,
         {"headers": {**auth(users[1]), "if-none-match": etag_of(users[2], table_id)}}, 200, True),
        ("state long-poll that times out", "GET", state,
         {"headers": {**auth(users[1]), "if-none-match": etag_of(users[1], table_id)}, "query": "wait=0.2"}, 304, True),
        ("state bad wait", "GET", state, {"headers": auth(users[1]), "query": "wait=31"}, 400, True),
        ("state bad token", "GET", state, {"headers": {"authorization": "Token nope"}}, 401, True),
        ("state malformed header", "GET", state, {"headers": {"authorization": "Token"}}, 401, True),
        ("state another scheme", "GET", state, {"headers": {"authorization": "Basic eDp5"}}, 401, True),
        ("state no credentials", "GET", state, {}, 401, True),
        ("state unknown table", "GET", f"/api/v1/tables/{MISSING}/state", {"headers": auth(users[1])}, 404, True),
        ("state bad host", "GET", state, {"headers": {**auth(users[1]), "host": "evil.example"}}, 400, False),
        ("state unsafe request id", "GET", state, {"headers": {**auth(users[1]), "x-request-id": "<script>x</script>"}},
         200, True),
        ("events opening", "GET", events, {"headers": {**auth(users[1]), "accept": "text/event-stream"}, "stream": True},
         200, True),
        ("events after the current version", "GET", events,
         {"headers": auth(users[1]), "query": "after=999999", "stream": True}, 200, True),
        ("events bad Last-Event-ID", "GET", events, {"headers": {**auth(users[1]), "last-event-id": "x"}}, 400, True),
        ("events bad token", "GET", events, {"headers": {"authorization": "Token nope", "accept": "text/event-stream"}},
         401, True),
        ("events unknown table", "GET", f"/api/v1/tables/{MISSING}/events", {"headers": auth(users[1])}, 404, True),
        ("events bad host", "GET", events, {"headers": {**auth(users[1]), "host": "evil.example"}}, 400, False),
    ]


def freeze_throttle_clock(monkeypatch):
    """The throttles' clock stands still: RateLimit-Reset (seconds to the window's end) is then
    the same for both doors, whatever second each request falls in."""
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: 1_800_000_030.0)


def _same(edge, django, name):
    status, headers, body = edge
    d_status, d_headers, d_body = django
    assert status == d_status, (name, body, d_body)
    if name == "state unsafe request id":
        # The one request-id rule: an unsafe id is replaced by a fresh one on both doors.
        edge_id = dict(headers).pop("x-request-id")
        django_id = dict(d_headers).pop("x-request-id")
        assert re.fullmatch(r"[0-9a-f]{32}", edge_id) and re.fullmatch(r"[0-9a-f]{32}", django_id)
        headers = [h for h in headers if h[0] != "x-request-id"]
        d_headers = [h for h in d_headers if h[0] != "x-request-id"]
    assert headers == d_headers, (name, headers, d_headers)
    assert body == d_body, (name, body[:300], d_body[:300])


def test_state_and_event_stream_answer_the_same_through_either_door(table, make_user):
    table_id, users, _ = table
    spectator = make_user()
    for name, method, path, kwargs, status, by_edge_expected in _cases(table_id, users, spectator):
        edge, django, by_edge = both(method, path, **kwargs)
        assert edge[0] == status, (name, edge)
        _same(edge, django, name)
        assert by_edge == by_edge_expected, name
        if status < 300 or status == 304:
            assert dict(edge[1])["x-frame-options"] and dict(edge[1])["x-content-type-options"] == "nosniff", name


def test_scopes_bearer_cors_and_rate_limits_answer_the_same_through_either_door(table, settings, monkeypatch):
    """The cross-cutting concerns added once: a token's scopes (403 insufficient_scope), the
    Bearer scheme, CORS answers for an allowed origin, the RateLimit fields of a throttled poll."""
    from accounts import services

    table_id, users, _ = table
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example"]
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"polls": "50/min"})
    freeze_throttle_clock(monkeypatch)
    throttling.reset()
    user = type(users[1]).objects.get(pk=users[1].pk)
    grant = services.scopes.SESSION
    _, webhooks_only = services.personal_token_create(user=user, grant=grant, name="w", scopes_asked=["webhooks"],
                                                      expires_in=None)
    _, reader = services.personal_token_create(user=user, grant=grant, name="r", scopes_asked=["read"], expires_in=None)
    state = f"/api/v1/tables/{table_id}/state"
    cases = [
        ("a token without read", {"authorization": f"Token {webhooks_only}"}, 403),
        ("Bearer", {"authorization": f"Bearer {reader}"}, 200),
        ("an allowed origin", {"authorization": f"Bearer {reader}", "origin": "https://app.example"}, 200),
        ("another origin", {"authorization": f"Bearer {reader}", "origin": "https://evil.example"}, 200),
    ]
    for name, headers, status in cases:
        throttling.reset()  # each door's poll is the first of its window: the same RateLimit fields
        edge, django, by_edge = both("GET", state, between=throttling.reset, headers=headers)
        assert edge[0] == status, (name, edge)
        _same(edge, django, name)
        assert by_edge, name
        fields = dict(edge[1])
        if status == 200:  # (a refused permission is answered before any throttle counts)
            assert fields["ratelimit-limit"] == "50" and fields["ratelimit-remaining"] == "49", name
        assert ("access-control-allow-origin" in fields) == (name == "an allowed origin"), name
        if name == "an allowed origin":
            assert "etag" in fields["access-control-expose-headers"].lower()
    assert json.loads(both("GET", state, headers=cases[0][1])[0][2])["detail"] == {"required": "read"}
    # A reader's move is refused for its scope by both doors.
    move_edge, move_django, _ = both("POST", f"/api/v1/tables/{table_id}/moves",
                                     headers={"authorization": f"Token {reader}"}, body=b'{"type": "pass"}')
    assert move_edge[0] == 403 and json.loads(move_edge[2])["detail"] == {"required": "play"}
    _same(move_edge, move_django, "a reader's move")


def test_a_deactivated_user_is_refused_the_same_through_either_door(table):
    table_id, users, _ = table
    for door in (EDGE, django_application):
        assert call(door, "GET", f"/api/v1/tables/{table_id}/state", headers=auth(users[2]))[0] == 200  # cached
    account_services.users_deactivate(type(users[2]).objects.filter(pk=users[2].pk))
    for path in (f"/api/v1/tables/{table_id}/state", f"/api/v1/tables/{table_id}/events"):
        edge, django, by_edge = both("GET", path, headers=auth(users[2]))
        assert edge[0] == 401 and json.loads(edge[2])["message"] == "User inactive or deleted."
        _same(edge, django, path)
        assert by_edge


def test_a_session_poll_answers_the_same_through_either_door(table, client):
    table_id, users, _ = table
    client.force_login(users[1])
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    edge, django, by_edge = both("GET", f"/api/v1/tables/{table_id}/state", headers={"cookie": cookie})
    assert edge[0] == 200 and json.loads(edge[2])["you"]["seat"] == 1
    _same(edge, django, "session")
    assert by_edge and "Cookie" in dict(edge[1])["vary"]


@pytest.fixture
def twins(make_user):
    """Two started President tables with the same players, seed, deck and dealer."""
    users = [make_user(staff=True)] + [make_user() for _ in range(3)]
    ids = []
    for _ in range(2):
        created = users[0].api.post("/api/v1/tables", {"game": "president", "seats": 4, "seed": 42, "first_dealer": 3,
                                                       "deck": president_hands_deck()[1]}, format="json")
        table_id = created.json()["id"]
        for user in users[1:]:
            user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
        users[0].api.post(f"/api/v1/tables/{table_id}/start")
        ids.append(table_id)
    tokens.clear()
    versions.reset()
    return ids[0], ids[1], users


_DEADLINE = re.compile(rb'"deadline":"[0-9T:.\-]+Z"')


def _move_answers(twins_ids, user, body: bytes | None, headers=None, *, edge_expected=True):
    """The same move posted to each twin, one through each door; the answers with the tables'
    ids and the deadlines (set milliseconds apart) blanked."""
    edge_id, django_id = twins_ids
    reached_django.clear()
    raw = body if body is not None else b""
    headers = {**(auth(user) if user is not None else {}), **(headers or {})}
    edge = call(EDGE, "POST", f"/api/v1/tables/{edge_id}/moves", headers=headers, body=raw)
    assert (reached_django == []) == edge_expected, reached_django
    django = call(django_application, "POST", f"/api/v1/tables/{django_id}/moves", headers=headers, body=raw)

    def blank(answer, table_id):
        status, pairs, content = answer
        content = _DEADLINE.sub(b'"deadline":"D"', content.replace(table_id.encode(), b"T"))
        assert dict(pairs).get("content-length", str(len(answer[2]))) == str(len(answer[2]))
        return status, [(k, v) for k, v in pairs if k != "content-length"], content

    return blank(edge, edge_id), blank(django, django_id)


def test_moves_answer_the_same_through_either_door(twins, make_user):
    edge_id, django_id, users = twins
    state = users[0].api.get(f"/api/v1/tables/{edge_id}/state").json()
    mover = next(u for u in users if users.index(u) == state["turn"])
    other = next(u for u in users if u is not mover)
    move = state["legal_moves"][0]
    cases = [
        ("not your turn", other, {"type": "pass"}, {}, 409),
        ("stale version", mover, {**move, "expected_version": state["version"] - 1}, {}, 409),
        ("illegal", mover, {"type": "play", "cards": ["XX"]}, {}, 400),
        ("no such move", mover, {"type": "shout"}, {}, 400),
        ("not seated", make_user(), move, {}, 403),
        ("bad body", mover, None, {}, 400),
        ("not an object", mover, ["pass"], {}, 400),
        ("bad token", None, move, {"authorization": "Token nope"}, 401),
        ("no credentials", None, move, {}, 401),
        ("not acceptable", mover, move, {"accept": "application/xml"}, 406),
        ("bad host", mover, move, {"host": "evil.example"}, 400),
        ("the move", mover, move, {}, 200),
    ]
    for name, user, body, headers, status in cases:
        raw = b'{"type": "pass"' if name == "bad body" else json.dumps(body).encode()
        edge, django = _move_answers((edge_id, django_id), user, raw, headers, edge_expected=name != "bad host")
        assert edge[0] == status, (name, edge)
        assert edge == django, name
    assert Table.objects.get(pk=edge_id).version == Table.objects.get(pk=django_id).version == state["version"] + 1


def test_throttled_moves_and_streams_answer_the_same_through_either_door(twins, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"user": "2/min", "anon": "100/min", "moves": "1/min"})
    freeze_throttle_clock(monkeypatch)
    monkeypatch.setattr(APIView, "throttle_classes", [throttling.AnonRateThrottle, throttling.UserRateThrottle,
                                                      throttling.MoveRateThrottle])
    edge_id, django_id, users = twins
    refused = {}
    for door, table_id in ((EDGE, edge_id), (django_application, django_id)):
        throttling.reset()
        moves = f"/api/v1/tables/{table_id}/moves"
        # The moves scope allows one a minute: the second is refused, whichever door.
        assert call(door, "POST", moves, headers=auth(users[1]), body=b'{"type": "shout"}')[0] == 400
        second = call(door, "POST", moves, headers=auth(users[1]), body=b'{"type": "shout"}')
        # The user scope (two a minute) is spent too: the stream is refused before it opens.
        stream = call(door, "GET", f"/api/v1/tables/{table_id}/events", headers=auth(users[1]))
        refused[door] = (second, stream)
    for (edge, django) in zip(refused[EDGE], refused[django_application], strict=True):
        assert edge[0] == 429 and json.loads(edge[2])["code"] == "throttled"
        # Retry-After counts down the same window on both: equal unless a second ticked between.
        strip = lambda a: (a[0], [h for h in a[1] if h[0] not in ("retry-after", "content-length")],  # noqa: E731
                           re.sub(rb"\d+", b"N", a[2].replace(edge_id.encode(), b"T").replace(django_id.encode(), b"T")))
        assert strip(edge) == strip(django)
