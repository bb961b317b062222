"""`GET /tables/{id}/state` answered by the edge (games.edge.state through games.edge.app) before
Django's handler, through the project's real ASGI app (config.asgi.application) in this process.

It must answer what Django's view answers (tests/edge/test_paired.py compares whole answers),
with per-viewer ETags, the fewest queries (counted across every thread: the edge works on the
shared pool), and waiting requests that hold no thread and no database connection."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import weakref
from contextlib import contextmanager
from datetime import timedelta

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.db.backends import utils as db_utils
from django.db.backends.signals import connection_created
from django.utils import timezone

from accounts import services as account_services
from accounts import tokens
from config.asgi import application
from games import notify, versions
from games.edge import http as edge_http
from games.edge import waiting
from games.models import Table
from games.services import moves
from tests.api.helpers import president_hands_deck

pytestmark = pytest.mark.django_db(transaction=True)
ETAG = re.compile(r'^"v[0-9]+-[0-9a-f]{8}"$')
CLOCK = '"games_table"."version" AS "version"'  # the version check (automation.table_clock)


@pytest.fixture
def started(table_of):
    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    tokens.clear()
    versions.reset()  # no back-off left by a test that took Redis away
    return str(table_id), users, hands


def url(table_id, query=""):
    return f"http://testserver/api/v1/tables/{table_id}/state{query}"


def run(scenario):
    """Run an async scenario, then close the connections its pool threads opened."""

    async def main():
        try:
            return await scenario()
        finally:
            await sync_to_async(connections.close_all)()

    return asyncio.run(main())


def client():
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=application), timeout=40)


def get(user, table_id, query="", **headers):
    async def scenario():
        async with client() as c:
            auth = {"Authorization": f"Token {user.token}"} if user is not None else {}
            return await c.get(url(table_id, query), headers={**auth, **headers})

    return run(scenario)


@contextmanager
def counted_queries(by_thread: bool = False):
    """Every SQL statement run meanwhile, on any thread's connection (with `by_thread`: as
    (thread id, statement))."""
    seen: list = []
    lock = threading.Lock()
    original = db_utils.CursorWrapper.execute

    def execute(self, sql, params=None):
        with lock:
            seen.append((threading.get_ident(), sql) if by_thread else sql)
        return original(self, sql, params)

    db_utils.CursorWrapper.execute = execute
    try:
        yield seen
    finally:
        db_utils.CursorWrapper.execute = original


def test_the_fast_path_answers_what_djangos_view_answers_for_every_viewer(started, make_user):
    table_id, users, _ = started
    spectator = make_user()
    for user in [*users, spectator]:
        fast = get(user, table_id)
        slow = user.api.get(f"/api/v1/tables/{table_id}/state")
        assert fast.status_code == slow.status_code == 200
        assert fast.json() == slow.json()
        assert fast.headers["etag"] == slow["ETag"] and ETAG.match(fast.headers["etag"])
        assert fast.headers["content-type"] == "application/json"
        assert fast.headers["cache-control"] == "private, no-cache"
        assert fast.headers["x-content-type-options"] == "nosniff" and fast.headers["x-request-id"]
        # The fast path never shows anyone else's hand: only the viewer's own is in it.
        body = fast.json()
        assert (body["you"] is None) == (user is spectator)


def test_etags_are_per_viewer_and_a_304_needs_the_viewers_own(started):
    table_id, users, _ = started
    tags = {u.pk: get(u, table_id).headers["etag"] for u in users}
    assert len(set(tags.values())) == len(users)
    version = get(users[0], table_id).json()["version"]
    # The tag says nothing but the version: it is the same for every version of a viewer.
    assert all(tag.startswith(f'"v{version}-') for tag in tags.values())
    assert get(users[1], table_id, **{"If-None-Match": tags[users[1].pk]}).status_code == 304
    # Another viewer's ETag of the same version is not this viewer's view: a full answer.
    other = get(users[1], table_id, **{"If-None-Match": tags[users[2].pk]})
    assert other.status_code == 200 and other.headers["etag"] == tags[users[1].pk]
    # So is an ETag built by hand from the version.
    assert get(users[1], table_id, **{"If-None-Match": f'"v{version}"'}).status_code == 200


def test_a_304_costs_one_query_and_a_200_two_without_redis(started, settings):
    settings.REDIS_URL = ""
    table_id, users, _ = started
    tag = get(users[1], table_id).headers["etag"]  # the token is now cached
    with counted_queries() as seen:
        assert get(users[1], table_id, **{"If-None-Match": tag}).status_code == 304
    assert len(seen) == 1 and "version" in seen[0]
    with counted_queries() as seen:
        assert get(users[1], table_id).status_code == 200
    # The table, its seats with their players.
    assert len(seen) == 2
    with counted_queries() as seen:
        assert get(users[1], table_id, **{"If-None-Match": '"v0-00000000"'}).status_code == 200
    # With a stale ETag: its version first, then the same two.
    assert len(seen) == 3
    tokens.clear()
    with counted_queries() as seen:
        assert get(users[1], table_id, **{"If-None-Match": tag}).status_code == 304
    assert len(seen) == 2  # the token, once, then the version


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the version cache lives in Redis (CI's second pass)")
def test_with_redis_a_304_costs_no_query_and_every_commit_path_invalidates(started, settings):
    settings.VERSION_CACHE = True
    table_id, users, hands = started
    tag = get(users[1], table_id).headers["etag"]
    # The fixture's commits came before the cache was on: the first 304 reads and fills it.
    assert get(users[1], table_id, **{"If-None-Match": tag}).status_code == 304
    with counted_queries() as seen:
        assert get(users[1], table_id, **{"If-None-Match": tag}).status_code == 304
    assert seen == []
    with counted_queries() as seen:
        assert get(users[1], table_id).status_code == 200
    assert len(seen) == 2  # the table, its seats with their players
    # A move: the next poll with the old ETag gets the new state.
    moves.move_submit(table_id=table_id, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    after_move = get(users[1], table_id, **{"If-None-Match": tag})
    assert after_move.status_code == 200 and after_move.json()["turn"] == 1
    # A save from anywhere else (the admin, a shell): the same.
    tag = after_move.headers["etag"]
    table = Table.objects.get(pk=table_id)
    table.version += 1
    table.save()
    assert get(users[1], table_id, **{"If-None-Match": tag}).json()["version"] == table.version
    # An overdue deadline in the cache is not trusted: the read enforces it.
    tag = get(users[1], table_id).headers["etag"]
    Table.objects.filter(pk=table_id).update(deadline=timezone.now() - timedelta(seconds=1))
    versions.record(table_id, table.version, timezone.now() - timedelta(seconds=1))
    timed_out = get(users[1], table_id, **{"If-None-Match": tag})
    assert timed_out.status_code == 200 and timed_out.json()["version"] > table.version
    # A deleted table: 404, not a 304 from the cache.
    tag = timed_out.headers["etag"]
    Table.objects.filter(pk=table_id).delete()
    gone = get(users[1], table_id, **{"If-None-Match": tag})
    assert gone.status_code == 404 and gone.json()["code"] == "not_found"


def test_a_reader_never_lowers_a_cached_version(started, settings):
    """The cache keeps the highest version it was told: a reader's fill from an older read,
    arriving after a writer's record, changes nothing."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("the version cache lives in Redis (CI's second pass)")
    settings.VERSION_CACHE = True
    table_id, _, _ = started

    async def scenario():
        versions.record(table_id, 7, None)
        await versions.fill(table_id, 5, None)
        return await versions.cached(table_id)

    assert run(scenario) == (7, None)


def test_a_deactivated_user_or_a_replaced_token_gets_401_at_once(started):
    table_id, users, _ = started
    assert get(users[1], table_id).status_code == 200  # cached now
    account_services.users_deactivate(type(users[1]).objects.filter(pk=users[1].pk))
    denied = get(users[1], table_id)
    assert denied.status_code == 401 and denied.json()["code"] == "not_authenticated"
    # Moves read the same cache (games.edge.auth, the one authentication).
    refused = users[1].api.post(f"/api/v1/tables/{table_id}/moves", {"type": "pass"}, format="json")
    assert refused.status_code == 401 and refused.json()["code"] == "not_authenticated"
    assert get(users[2], table_id).status_code == 200
    old = users[2].token
    account_services.token_regenerate(user=users[2])
    assert get(users[2], table_id).status_code == 401
    users[2].token = old  # the fixture's token is the replaced one
    assert tokens.cached(old) is None


def test_another_processs_token_change_reaches_this_process_by_message(started):
    table_id, users, _ = started
    assert get(users[1], table_id).status_code == 200
    assert tokens.cached(users[1].token) is not None

    async def message():
        waiting.room()._message(tokens.CHANNEL, str(users[1].pk))

    asyncio.run(message())
    assert tokens.cached(users[1].token) is None
    # A revoked token's message names its digest, not its user.
    assert get(users[2], table_id).status_code == 200
    assert tokens.cached(users[2].token) is not None

    async def revoked():
        waiting.room()._message(tokens.CHANNEL, f"d:{tokens.digest(users[2].token)}")

    asyncio.run(revoked())
    assert tokens.cached(users[2].token) is None


@pytest.mark.parametrize(
    "method, query, headers, status, code",
    [
        ("GET", "", {}, 401, "not_authenticated"),
        ("GET", "", {"Authorization": "Token nope"}, 401, "not_authenticated"),
        ("GET", "?wait=31", None, 400, "invalid"),
        ("GET", "?wait=x", None, 400, "invalid"),
        ("POST", "", None, 405, "method_not_allowed"),
    ],
)
def test_what_the_fast_path_does_not_answer_django_answers_in_the_error_shape(started, method, query, headers, status, code):
    table_id, users, _ = started
    headers = {"Authorization": f"Token {users[0].token}"} if headers is None else headers

    async def scenario():
        async with client() as c:
            return await c.request(method, url(table_id, query), headers=headers)

    response = run(scenario)
    assert response.status_code == status and response.json()["code"] == code
    missing = get(users[0], "00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def _threads() -> int:
    return threading.active_count()


@contextmanager
def tracked_connections():
    """The database connections opened meanwhile, on any thread; `open()` counts those still
    open (with the pool, a connection handed back counts as closed)."""
    opened = weakref.WeakSet()

    def created(sender, connection, **kwargs):
        opened.add(connection)

    connection_created.connect(created, weak=False)
    try:
        yield lambda: sum(1 for wrapper in list(opened) if wrapper.connection is not None)
    finally:
        connection_created.disconnect(created)


def test_two_hundred_waiting_polls_hold_no_thread_and_no_connection_and_all_wake(started, make_user):
    table_id, users, hands = started
    viewers = [make_user() for _ in range(40)]
    tokens.clear()

    async def scenario():
        async with client() as c:
            first = await c.get(url(table_id), headers={"Authorization": f"Token {viewers[0].token}"})
            assert first.status_code == 200
            version = first.json()["version"]
            await sync_to_async(connections.close_all)()
            threads_before = _threads()
            polls = [
                asyncio.create_task(c.get(url(table_id, "?wait=30"), headers={"Authorization": f"Token {v.token}"}))
                for v in viewers for _ in range(5)
            ]
            for _ in range(500):
                if waiting.room().waiter_count() >= len(polls):
                    break
                await asyncio.sleep(0.02)
            waiters = waiting.room().waiter_count()
            # Once their first reads are done (they run on the shared pool), nothing is open.
            for _ in range(100):
                if still_open() == 0:
                    break
                await asyncio.sleep(0.05)
            threads_waiting = _threads()
            connections_waiting = still_open()
            await sync_to_async(
                lambda: moves.move_submit(table_id=table_id, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
            )()
            answers = await asyncio.gather(*polls)
            return version, waiters, threads_before, threads_waiting, connections_waiting, answers

    with tracked_connections() as still_open:
        version, waiters, threads_before, threads_waiting, connections_waiting, answers = run(scenario)
    assert waiters == 200
    # The shared pool may have started its few threads; 200 waiters add none each.
    assert threads_waiting - threads_before <= 8
    # While they wait, no connection opened by them (or anything else) is open.
    assert connections_waiting == 0
    assert [a.status_code for a in answers] == [200] * 200
    assert {a.json()["version"] for a in answers} == {version + 1}


def test_the_json_renderer_writes_what_drfs_encoder_writes(started):
    table_id, users, _ = started
    Table.objects.filter(pk=table_id).update(deadline=timezone.now().replace(microsecond=123456))
    from games import selectors

    state = selectors.state_view(selectors.get_table(table_id), users[0])
    from rest_framework.utils.encoders import JSONEncoder

    assert json.loads(edge_http.render(state)) == json.loads(json.dumps(state, cls=JSONEncoder))
    assert edge_http.render({"at": timezone.now().replace(microsecond=0)}).endswith(b'Z"}')
    # DRF's JSONRenderer escapes the two line separators JavaScript's older parsers choke on.
    assert edge_http.render({"x": "a\u2028b\u2029"}) == b'{"x":"a\\u2028b\\u2029"}'
    from rest_framework.renderers import JSONRenderer

    assert edge_http.render(state) == JSONRenderer().render(state)


def test_a_host_outside_allowed_hosts_is_refused_as_django_refuses_it(started):
    table_id, users, _ = started

    async def scenario():
        async with client() as c:
            return await c.get(f"http://evil.example/api/v1/tables/{table_id}/state",
                               headers={"Authorization": f"Token {users[0].token}"})

    assert run(scenario).status_code == 400


def woken_answers(table_id, viewers, tags, change):
    """Long-poll the table as each viewer (from the ETag in `tags`), run `change` on a thread
    once every poll waits, and return (the answers, every statement run from then on)."""

    async def scenario():
        async with client() as c:
            polls = [
                asyncio.create_task(c.get(url(table_id, "?wait=30"),
                                          headers={"Authorization": f"Token {u.token}", "If-None-Match": tags[u.pk]}))
                for u in viewers
            ]
            for _ in range(500):
                if waiting.room().waiter_count() >= len(polls):
                    break
                await asyncio.sleep(0.02)
            with counted_queries() as seen:
                await sync_to_async(change)()
                answers = await asyncio.gather(*polls)
            return answers, seen

    return run(scenario)


def test_woken_waiters_share_a_read_but_each_gets_only_their_own_seats_view(started, make_user):
    table_id, users, hands = started
    spectators = [make_user(), make_user()]
    viewers = [*users, *spectators]
    tags = {u.pk: get(u, table_id).headers["etag"] for u in viewers}
    answers, _ = woken_answers(
        table_id, viewers, tags,
        lambda: moves.move_submit(table_id=table_id, user=users[0], move={"type": "play", "cards": [hands[0][0]]}),
    )
    for user, answer in zip(viewers, answers, strict=True):
        assert answer.status_code == 200
        # Exactly what a plain read gives this viewer: their own hand, or none for a spectator.
        assert answer.json() == user.api.get(f"/api/v1/tables/{table_id}/state").json()
        assert answer.headers["etag"] != tags[user.pk]
    assert [a.json()["you"] is None for a in answers] == [False] * 4 + [True] * 2


def test_waiters_woken_by_a_move_of_this_process_read_nothing_and_others_read_once(started, make_user):
    """A move committed in this process hands its table (seats and players read under the lock)
    to this process's waiters: their answers cost no statement beyond the move's own. A change
    without that snapshot (a save from elsewhere) costs the waiters one shared read."""
    table_id, users, hands = started
    spectators = [make_user() for _ in range(5)]
    tags = {u.pk: get(u, table_id).headers["etag"] for u in spectators}

    mover_thread: list[int] = []

    def move():
        mover_thread.append(threading.get_ident())
        moves.move_submit(table_id=table_id, user=users[0], move={"type": "play", "cards": [hands[0][0]]})

    with counted_queries(by_thread=True) as statements:
        answers, _ = woken_answers(table_id, spectators, tags, move)
    assert all(a.status_code == 200 and a.json()["version"] == answers[0].json()["version"] for a in answers)
    own = [sql for thread, sql in statements if thread == mover_thread[0]]
    others = [sql for thread, sql in statements if thread != mover_thread[0]]
    # The move's own statements (the lock, the seats, UPDATE, INSERT); the waiters' only ones
    # are the version checks they make as they subscribe, none to answer.
    assert any(sql.startswith("INSERT") for sql in own)
    # (A token the cache let go of on a slow machine is looked up again: authentication, not a read.)
    assert [sql for sql in others if CLOCK not in sql and "accounts_apitoken" not in sql] == []
    for user in spectators:
        tags[user.pk] = get(user, table_id).headers["etag"]

    def save_elsewhere():
        # A change committed by another process (a worker's bot move, an admin save) reaches
        # this one as a message naming the version: no table to hand over.
        table = Table.objects.get(pk=table_id)
        table.version += 1
        table.save()
        notify.table_changed(table_id, table.version)

    answers, seen = woken_answers(table_id, spectators, tags, save_elsewhere)
    assert all(a.status_code == 200 for a in answers)
    reads = [sql for sql in seen if sql.startswith("SELECT") and '"games_table"."finished_at" FROM "games_table"' in sql]
    # Whole-row reads of the table: the save's own, then one shared by the five waiters (the
    # re-check that found the change reads only versions).
    assert len(reads) == 2, reads


def test_a_waiter_reaching_the_shared_read_late_takes_it_and_a_newer_version_reads_again(started):
    """A waiter woken by a change whose shared read has just ended (a busy loop wakes it late)
    takes that read rather than reading again; one that needs a newer version reads."""
    table_id = str(started[0])
    version = Table.objects.get(pk=table_id).version
    whole_row = '"games_table"."finished_at" FROM "games_table"'

    async def scenario():
        room = waiting.room()
        with room.waiting(table_id, version - 1, "longpoll"), counted_queries() as seen:
            first = await room.table_at(table_id, version)
            late = await room.table_at(table_id, version)
        reads_before = [sql for sql in seen if whole_row in sql]
        await sync_to_async(Table.objects.filter(pk=table_id).update)(version=version + 1)
        with room.waiting(table_id, version, "longpoll"), counted_queries() as seen:
            newer = await room.table_at(table_id, version + 1)
        return first, late, reads_before, newer, [sql for sql in seen if whole_row in sql]

    first, late, reads_before, newer, reads_after = run(scenario)
    assert late is first and first.version == version
    assert len(reads_before) == 1, reads_before
    assert newer.version == version + 1 and len(reads_after) == 1, reads_after


@pytest.mark.parametrize("query", ["?wait=0.3", ""])
def test_a_cache_behind_what_the_client_holds_never_earns_it_a_200_of_the_same_state(started, monkeypatch, query):
    """The version cache can lag (a write lost while Redis failed, and its message too): a poll
    holding the current version's ETag still gets a 304, never a 200 with the state it has
    (the 10,000-waiter run of the bots-and-bursts benchmark saw thousands). Each with its own
    ETag, on the current version, while the cache says the one before."""
    table_id, users, hands = started
    first = get(users[1], table_id)
    version, tag = first.json()["version"], first.headers["etag"]

    async def behind(key):
        return (version - 1, None)

    monkeypatch.setattr(versions, "cached", behind)
    answer = get(users[1], table_id, query, **{"If-None-Match": tag})
    assert answer.status_code == 304, answer.text
    # News is still news: a move after the cache fell behind is answered with the new state.
    moves.move_submit(table_id=table_id, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    answer = get(users[1], table_id, query, **{"If-None-Match": tag})
    assert answer.status_code == 200 and answer.json()["version"] > version
