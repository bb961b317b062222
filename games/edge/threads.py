"""Where the edge's blocking work runs: never on the event loop. Database work (and the Redis
calls of DRF's throttles) on the shared thread pool, each piece handing its database connection
back when it ends, so no waiting request holds a thread or a connection; the reads of woken
waiters on a few threads of their own (WOKEN_READ_THREADS), so that a burst of moves on the
shared pool does not delay them.

**Turns.** At most EDGE_WORK_THREADS pieces of a loop's work run on threads at once: the edge's
own (on the shared pool) and every request it hands to Django (whose handler runs the view on a
thread of its own: games.edge.app). The others wait their turn on the loop, holding no thread. The
event loop answers the woken waiters, and it needs the GIL to do so: with six threads working
through a burst of moves and their players' reads, it got about a seventh of it, and the waiters
of the process that was not making the moves answered 100-200 ms after the move
(docs/performance.md, "Bursts": with two turns, every round's p95 was under 55 ms, against
44-180 ms before).
A woken waiter's own read (an account stream's) takes the next free turn before the requests
waiting. A piece that has held its turn EDGE_WORK_LEASE_SECONDS gives it up to the next one while
it goes on: one that waits (on a row lock, SQLite's busy wait, a slow query, a slow client's
body) holds no one up for longer, and no piece can wait for ever on another's turn."""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection


def closing(fn):
    """`fn`, then its database connection handed back (to the pool, or closed)."""

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            if settings.DATABASES["default"].get("CONN_MAX_AGE", 0):
                close_old_connections()
            else:
                connection.close()

    return run


class Turns:
    """The turns of one loop's work on threads (the module's docstring). Work marked `first` (a
    woken waiter's read) takes the next free turn before any other work waiting. A turn is free
    only while no work waits: `_next` hands a freed turn to the next waiting work, and keeps it
    only once both queues are empty."""

    def __init__(self, size: int, lease: float):
        self._free = size
        self._lease = lease
        self._waiting: tuple[deque[asyncio.Future], deque[asyncio.Future]] = (deque(), deque())

    async def run(self, work, *args, first: bool = False, **kwargs):
        if self._free > 0:
            self._free -= 1
        else:
            granted = asyncio.get_running_loop().create_future()
            self._waiting[0 if first else 1].append(granted)
            try:
                await granted
            except asyncio.CancelledError:
                if granted.done() and not granted.cancelled():
                    self._next()  # granted, then cancelled before it ran: pass the turn on
                raise
        given_back = False

        def give_back():
            nonlocal given_back
            if not given_back:
                given_back = True
                self._next()

        timer = asyncio.get_running_loop().call_later(self._lease, give_back)
        try:
            return await work(*args, **kwargs)
        finally:
            timer.cancel()
            give_back()

    def _next(self) -> None:
        """A turn came free: to the first work waiting (a cancelled wait is skipped), else kept."""
        for queue in self._waiting:
            while queue:
                granted = queue.popleft()
                if not granted.done():
                    granted.set_result(None)
                    return
        self._free += 1

    def free(self) -> int:
        return self._free


_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Turns] = weakref.WeakKeyDictionary()


def turns() -> Turns | None:
    """The running loop's turns; None when EDGE_WORK_THREADS is 0 (no limit)."""
    if settings.EDGE_WORK_THREADS <= 0:
        return None
    loop = asyncio.get_running_loop()
    found = _turns.get(loop)
    if found is None:  # only the loop's own thread gets here: no lock needed
        found = _turns[loop] = Turns(settings.EDGE_WORK_THREADS, settings.EDGE_WORK_LEASE_SECONDS)
    return found


async def in_turn(work, *args, first: bool = False, **kwargs):
    """`await work(*args, **kwargs)` in its turn (`first`: before other work waiting)."""
    found = turns()
    if found is None:
        return await work(*args, **kwargs)
    return await found.run(work, *args, first=first, **kwargs)


def run_db(fn, *, first: bool = False):
    """`fn` as a coroutine function running on the shared pool, its connection handed back, in
    its turn (`first`: a woken waiter's read, before other work waiting)."""
    work = sync_to_async(closing(fn), thread_sensitive=False)

    async def turned(*args, **kwargs):
        return await in_turn(work, *args, first=first, **kwargs)

    return turned


_woken_pool: ThreadPoolExecutor | None = None
_woken_lock = threading.Lock()


def woken(fn, *args) -> asyncio.Future:
    """`fn(*args)` on the woken waiters' threads, its connection handed back."""
    global _woken_pool
    if _woken_pool is None:
        with _woken_lock:
            if _woken_pool is None:
                _woken_pool = ThreadPoolExecutor(max_workers=settings.WOKEN_READ_THREADS, thread_name_prefix="woken-read")
    return asyncio.get_running_loop().run_in_executor(_woken_pool, closing(fn), *args)
