"""games.edge.threads: the edge's blocking work takes turns (EDGE_WORK_THREADS at once per loop),
a piece that holds its turn past EDGE_WORK_LEASE_SECONDS lets the next one start, and the
woken waiters' reads never wait for a turn (docs/performance.md, "Bursts")."""

from __future__ import annotations

import asyncio
import threading

from games.edge import threads
from games.edge.app import Edge

# Generous bounds for a thread to start: they only pass sooner, never decide a result.
STARTS_WITHIN = 5.0


def blocker(started: threading.Event, release: threading.Event):
    def work():
        started.set()
        assert release.wait(STARTS_WITHIN * 2), "the test never released this piece"
        return "done"

    return work


def one_turn(settings, lease: float = 60.0) -> None:
    """One turn per loop, kept `lease` seconds (by default longer than any test)."""
    settings.EDGE_WORK_THREADS = 1
    settings.EDGE_WORK_LEASE_SECONDS = lease


async def wait_for(event: threading.Event, seconds: float) -> bool:
    return await asyncio.to_thread(event.wait, seconds)


def test_one_turn_runs_one_piece_at_a_time(settings):
    one_turn(settings)
    first_started, first_release = threading.Event(), threading.Event()
    second_started, second_release = threading.Event(), threading.Event()

    async def scenario():
        first = asyncio.ensure_future(threads.run_db(blocker(first_started, first_release))())
        assert await wait_for(first_started, STARTS_WITHIN)
        second = asyncio.ensure_future(threads.run_db(blocker(second_started, second_release))())
        # The only turn is taken: the second piece waits on the loop, not on a thread.
        assert not await wait_for(second_started, 0.3)
        first_release.set()
        assert await first == "done"
        assert await wait_for(second_started, STARTS_WITHIN)
        second_release.set()
        assert await second == "done"

    asyncio.run(scenario())


def test_without_a_limit_both_run_at_once(settings):
    settings.EDGE_WORK_THREADS = 0
    events = [(threading.Event(), threading.Event()) for _ in range(2)]

    async def scenario():
        pieces = [asyncio.ensure_future(threads.run_db(blocker(*pair))()) for pair in events]
        for started, _ in events:
            assert await wait_for(started, STARTS_WITHIN)
        for _, release in events:
            release.set()
        assert await asyncio.gather(*pieces) == ["done", "done"]

    asyncio.run(scenario())


def started_beside_a_held_turn(settings, lease: float, second) -> None:
    """With one turn, held by a piece that waits until released: `second(work)` (a future of
    `work` run some way) starts while it waits, then both end."""
    one_turn(settings, lease)
    first_started, first_release = threading.Event(), threading.Event()
    second_started, second_release = threading.Event(), threading.Event()

    async def scenario():
        first = asyncio.ensure_future(threads.run_db(blocker(first_started, first_release))())
        assert await wait_for(first_started, STARTS_WITHIN)
        other = second(blocker(second_started, second_release))
        assert await wait_for(second_started, STARTS_WITHIN)
        assert not first.done()  # the first still holds its thread
        first_release.set()
        second_release.set()
        assert await asyncio.gather(first, other) == ["done", "done"]
        # Given back once, by the lease or the end, never twice: one turn is free again.
        assert threads.turns().free() == 1

    asyncio.run(scenario())


def test_a_piece_past_its_lease_lets_the_next_start(settings):
    # A piece waiting on a lock (here: an event) for longer than the lease holds no one up: only
    # its turn goes, not its thread.
    started_beside_a_held_turn(settings, 0.1, lambda work: asyncio.ensure_future(threads.run_db(work)()))


def test_a_failing_piece_gives_its_turn_back(settings):
    one_turn(settings)

    def fails():
        raise ValueError("refused")

    async def scenario():
        for _ in range(3):  # with the turn kept, the second would wait for ever
            try:
                await asyncio.wait_for(threads.run_db(fails)(), STARTS_WITHIN)
            except ValueError:
                pass
            else:
                raise AssertionError("the piece's error was lost")
        assert threads.turns().free() == 1

    asyncio.run(scenario())


def test_woken_reads_do_not_wait_for_a_turn(settings):
    started_beside_a_held_turn(settings, 60.0, threads.woken)


def test_a_woken_waiters_read_takes_the_next_turn_before_other_work(settings):
    # An account stream's read (run_db(..., first=True)) goes ahead of requests already waiting.
    one_turn(settings)
    held_started, held_release = threading.Event(), threading.Event()
    plain_started, plain_release = threading.Event(), threading.Event()
    woken_started, woken_release = threading.Event(), threading.Event()

    async def scenario():
        held = asyncio.ensure_future(threads.run_db(blocker(held_started, held_release))())
        assert await wait_for(held_started, STARTS_WITHIN)
        plain = asyncio.ensure_future(threads.run_db(blocker(plain_started, plain_release))())
        await asyncio.sleep(0)  # the plain piece waits first
        woken = asyncio.ensure_future(threads.run_db(blocker(woken_started, woken_release), first=True)())
        await asyncio.sleep(0)
        held_release.set()
        assert await wait_for(woken_started, STARTS_WITHIN)
        assert not plain_started.is_set()  # still waiting: the turn went to the woken read
        woken_release.set()
        assert await wait_for(plain_started, STARTS_WITHIN)
        plain_release.set()
        assert await asyncio.gather(held, woken, plain) == ["done"] * 3
        assert threads.turns().free() == 1

    asyncio.run(scenario())


def test_a_request_for_django_takes_a_turn(settings):
    # What the edge hands to Django runs on a thread of Django's own: in a turn like the rest.
    one_turn(settings)
    held_started, held_release = threading.Event(), threading.Event()
    reached: list[str] = []

    async def django(scope, receive, send):
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": "/not-the-edges", "raw_path": b"/not-the-edges", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 40000), "server": ("testserver", 80)}
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    async def scenario():
        held = asyncio.ensure_future(threads.run_db(blocker(held_started, held_release))())
        assert await wait_for(held_started, STARTS_WITHIN)
        request = asyncio.ensure_future(Edge(django)(scope, receive, send))
        await asyncio.sleep(0.3)
        assert reached == [] and not request.done()
        held_release.set()
        await asyncio.wait_for(request, STARTS_WITHIN)
        assert reached == ["/not-the-edges"] and sent[0]["status"] == 204
        assert await held == "done"

    asyncio.run(scenario())
