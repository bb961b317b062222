"""The waiting room: every client that waits on a table — a `?wait=` long-poll, an event stream —
waits here, on one machinery per event loop (per web process), holding no thread and no database
connection.

- **Waking.** A waiter is an asyncio event. A change committed in this process reaches the room
  through games.notify's listener (one hop onto the loop per change, not one per waiter); another
  process's change through Redis (the room's listener task) or, without Redis, the room's batched
  re-check of every waited table's version (one query per LONGPOLL_RECHECK_SECONDS). A listener
  that (re)connects wakes every waiter once, so a message lost while it was away costs a re-read.
- **One read per change, or none.** The waiters a change woke need the table at that version:
  `table_at` gives them the room's newest copy of it — the one the committing move handed over
  (its seats and players read under the lock; from another process, carried by its message:
  games.notify), or one read shared by all of them, on threads of their own (games.edge.threads). `view` renders it once per seat (all spectators see the same state).
- **One lifetime.** The room keeps, per waited table, that newest copy and its rendered views for
  HOLD_SECONDS after they were taken, and only while someone waits on the table; a copy past
  the table's deadline is never used (a read enforces the deadline).

The room also carries the other processes' messages for the token cache (accounts.tokens).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from datetime import UTC, datetime

from django.conf import settings
from django.core.exceptions import SynchronousOnlyOperation

from accounts import tokens
from config import metrics
from games import notify, selectors
from games.services import account_events, automation

from . import threads
from .http import render

log = logging.getLogger(__name__)
HOLD_SECONDS = 1.0
ACCOUNT = notify.account_key("")  # the prefix of the account streams' keys


def overdue(deadline) -> bool:
    """Whether a deadline (a datetime or a timestamp) has passed."""
    if deadline is None:
        return False
    stamp = deadline.timestamp() if isinstance(deadline, datetime) else deadline
    return stamp <= datetime.now(UTC).timestamp()


def read_table(table_id: str):
    """The table with its seats and players (two queries), after enforcing an overdue deadline as
    every read does; None when there is no such table."""
    table = selectors.table_for_state(table_id)
    if table is None:
        return None
    if overdue(table.deadline):
        automation.table_clock(table_id)
        table = selectors.table_for_state(table_id)
    return table


async def pure(fn, *args):
    """`fn(*args)` on the loop when it needs no database (a view of a table read with its seats is
    engine work), so a burst of wake-ups does not queue behind the pool's reads; on the pool if it
    turns out to query after all."""
    try:
        return fn(*args)
    except SynchronousOnlyOperation:
        return await threads.run_db(fn)(*args)


class Waiter:
    """One waiting request: its event, the version it has (None: any change is news), the newest
    version announced since (`latest`, 0 while none was) and whether it was woken without a
    version (`unknown`: a listener that reconnected; the waiter must read to know)."""

    __slots__ = ("event", "version", "latest", "unknown")

    def __init__(self, version: int | None):
        self.event = asyncio.Event()
        self.version = version
        self.latest = 0
        self.unknown = False

    def wake(self, version: int | None) -> None:
        if version is None:
            self.unknown = True
        elif version > self.latest:
            self.latest = version
        self.event.set()

    async def changed(self, wait: float, current_version) -> int | None:
        """Hold until the table's version is above `self.version` or `wait` seconds pass; the
        version then (None: no such table). `current_version()`: a coroutine reading it; read
        once more now, since a change may have committed before this waiter subscribed."""
        baseline = self.version
        end = time.monotonic() + wait
        version = await current_version()
        while version is not None and version <= baseline:
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(self.event.wait(), timeout=remaining)
            except TimeoutError:
                break
            self.event.clear()
            version = self.latest if self.latest > baseline else await current_version()
        return version


class _Copy:
    """The room's newest copy of a table, when it was taken, and its rendered views by seat."""

    __slots__ = ("table", "at", "bodies")

    def __init__(self, table):
        self.table = table
        self.at = time.monotonic()
        self.bodies: dict[int | None, bytes] = {}

    def usable(self, at_least: int | None) -> bool:
        return (at_least is not None and self.table.version >= at_least
                and time.monotonic() - self.at < HOLD_SECONDS and not overdue(self.table.deadline))


class _Waited:
    __slots__ = ("waiters", "copy", "reading")

    def __init__(self):
        self.waiters: set[Waiter] = set()
        self.copy: _Copy | None = None
        self.reading: asyncio.Future | None = None


class Room:
    """The waiting room of one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.tables: dict[str, _Waited] = {}
        self.task = loop.create_task(self._listen() if settings.REDIS_URL else self._watch())

    # Waiters -------------------------------------------------------------------------------

    def subscribe(self, table_id: str, version: int | None) -> Waiter:
        waiter = Waiter(version)
        self.tables.setdefault(table_id, _Waited()).waiters.add(waiter)
        return waiter

    def unsubscribe(self, table_id: str, waiter: Waiter) -> None:
        waited = self.tables.get(table_id)
        if waited is not None:
            waited.waiters.discard(waiter)
            if not waited.waiters:
                del self.tables[table_id]

    @contextlib.contextmanager
    def waiting(self, table_id: str, version: int | None, kind: str):
        """A waiter for the time of the block; `kind` ("longpoll", "stream") for the metrics of
        open waiters (config.metrics)."""
        waiter = self.subscribe(table_id, version)
        metrics.waiter_opened(kind)
        try:
            yield waiter
        finally:
            metrics.waiter_closed(kind)
            self.unsubscribe(table_id, waiter)

    def waiter_count(self) -> int:
        return sum(len(w.waiters) for w in self.tables.values())

    def changed(self, table_id: str, version: int | None, snapshot=None) -> None:
        """On the loop: the table changed (to `version`, when known); `snapshot` the committed
        table with its seats, when the change had it whole."""
        waited = self.tables.get(table_id)
        if waited is None:
            return
        if snapshot is not None and version is not None and (waited.copy is None or waited.copy.table.version <= version):
            waited.copy = _Copy(snapshot)
        for waiter in waited.waiters:
            waiter.wake(version)

    def _wake_all(self) -> None:
        for waited in self.tables.values():
            for waiter in waited.waiters:
                waiter.wake(None)

    # The shared read -----------------------------------------------------------------------

    async def table_at(self, table_id: str, at_least: int | None):
        """The table at version `at_least` or later (None: whatever is newest, read now): the
        room's copy while it is recent, else one read shared by every waiter that needs it."""
        waited = self.tables.get(table_id)
        if waited is None:  # nobody waits: nothing to share
            return await threads.woken(read_table, table_id)
        table = None
        for _ in range(3):
            if waited.copy is not None and waited.copy.usable(at_least):
                return waited.copy.table
            if waited.reading is None:
                waited.reading = threads.woken(read_table, table_id)
                waited.reading.add_done_callback(lambda future, waited=waited: self._read_done(waited, future))
            table = await asyncio.shield(waited.reading)
            # A read that began before the change that woke us may miss it: read again.
            if table is None or at_least is None or table.version >= at_least:
                return table
        return table

    @staticmethod
    def _read_done(waited: _Waited, future: asyncio.Future) -> None:
        if waited.reading is future:
            waited.reading = None
        if future.cancelled() or future.exception() is not None:
            return
        table = future.result()
        if table is not None and (waited.copy is None or waited.copy.table.version <= table.version):
            waited.copy = _Copy(table)

    async def view(self, table_id: str, at_least: int | None, user) -> tuple[int, bytes] | None:
        """(version, the state as `user` sees it, rendered) at version `at_least` or later."""
        table = await self.table_at(table_id, at_least)
        if table is None:
            return None
        seat = await pure(selectors.viewer_seat, table, user)
        waited = self.tables.get(table_id)
        copy = waited.copy if waited is not None else None
        if copy is not None and copy.table is table and seat in copy.bodies:
            return table.version, copy.bodies[seat]
        body = render(await pure(selectors.state_view, table, user))
        if copy is not None and copy.table is table:
            copy.bodies[seat] = body
        return table.version, body

    # Hearing other processes ---------------------------------------------------------------

    async def _check_round(self) -> None:
        """One batched re-check: the versions of every waited table in one query; the waiters
        that are behind are woken (a deleted table's too: they answer 404)."""
        waited = {table_id: [w.version for w in group.waiters] for table_id, group in self.tables.items()
                  if not table_id.startswith(ACCOUNT)}
        accounts = {int(key[len(ACCOUNT):]): min(w.version or 0 for w in group.waiters)
                    for key, group in self.tables.items() if key.startswith(ACCOUNT)}
        if accounts:
            await self._check_accounts(accounts)
        if not waited:
            return
        try:
            current = await threads.run_db(automation.table_versions)(list(waited))
        except Exception as exc:  # noqa: BLE001 - the next round retries
            log.warning("version watcher could not read the tables: %s", type(exc).__name__)
            return
        for table_id, known in waited.items():
            version = current.get(table_id)
            if version is None or any(v is None or version > v for v in known):
                self.changed(table_id, version)

    async def _check_accounts(self, known: dict[int, int]) -> None:
        """The account streams' share of a re-check: the users with events a stream of theirs
        has not sent (games.services.account_events.news), in one query."""
        try:
            fresh = await threads.run_db(account_events.news)(known)
        except Exception as exc:  # noqa: BLE001 - the next round retries
            log.warning("version watcher could not read the account events: %s", type(exc).__name__)
            return
        for user_id in fresh:
            self.changed(notify.account_key(user_id), None)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(settings.LONGPOLL_RECHECK_SECONDS)
            await self._check_round()

    def _message(self, channel: str, data: str) -> None:
        if channel == tokens.CHANNEL:
            # Every item: user ids and token digests (`d:<digest>`, a revoked or deleted token);
            # forget_local ignores anything else. Keeping only the digits dropped revocations,
            # which other processes then honoured only when their cache entry ran out.
            tokens.forget_local(data.split())
            return
        table_id, version, carried = notify.parse(data)
        waited = self.tables.get(table_id)
        if waited is None:
            return  # nobody waits on it here
        snapshot = None
        if carried is not None and (waited.copy is None or waited.copy.table.version < version):
            # The committed table came with the message: the waiters answer from it, as they
            # would from this process's own move, instead of reading it.
            snapshot = notify.decode_table(carried)
        self.changed(table_id, version, snapshot)

    async def _listen(self) -> None:
        """One Redis subscriber per loop, for as long as the loop runs. It pings Redis every
        NOTIFY_HEALTH_SECONDS and reconnects when nothing (not even a pong) came back in three
        times that: a stopped Redis keeps its sockets open. While disconnected, waiters are
        re-checked in batches as without Redis (docs/reliability.md, Redis drill)."""
        import redis.asyncio as aioredis

        health = settings.NOTIFY_HEALTH_SECONDS
        connected_before = False
        while True:
            client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(notify.CHANNEL, tokens.CHANNEL)
                # Changes published while this listener was away were missed: re-read once; and
                # after a reconnection, forget every cached credential (a revocation heard by no
                # one would otherwise hold until AUTH_CACHE_SECONDS; each token's next request
                # reads it again). The first connection, at the process's first wait, has
                # missed nothing a cached credential could need.
                self._wake_all()
                if connected_before:
                    tokens.clear()
                connected_before = True
                heard = pinged = time.monotonic()
                me = asyncio.current_task()
                while True:
                    message = await pubsub.get_message(timeout=min(1.0, health))
                    if me.cancelling():
                        # redis-py's read with a timeout can take the loop's cancellation for
                        # its own timeout and return None: the listener would then never end,
                        # and neither would the loop's shutdown.
                        raise asyncio.CancelledError
                    now = time.monotonic()
                    if message is not None:
                        heard = now
                        if message.get("type") == "message":
                            self._message(_text(message["channel"]), _text(message["data"]))
                    if now - heard > 3 * health:
                        raise TimeoutError("no answer from Redis")
                    if now - pinged >= health:
                        pinged = now
                        await pubsub.ping()
            except asyncio.CancelledError:
                # The loop is closing (the server stops): its connections go with it. Awaiting
                # their close here could wait on a connection the cancelled read left busy, and
                # hold up the server's shutdown.
                raise
            except Exception as exc:  # noqa: BLE001 - reconnect on any failure
                log.warning("table-change listener reconnecting: %s", type(exc).__name__)
                await _close(pubsub, client)
            # Away from Redis: one batched re-check, then try again.
            await self._check_round()
            await asyncio.sleep(settings.LONGPOLL_RECHECK_SECONDS)


async def _close(pubsub, client) -> None:
    """Close a listener's connections, giving up after two seconds (a dead connection may never
    answer), without waiting for a close that does not end."""
    async def close():
        await pubsub.aclose()
        await client.aclose()

    closing = asyncio.ensure_future(close())
    await asyncio.wait({closing}, timeout=2)
    if not closing.done():
        closing.cancel()
    elif closing.exception() is not None:
        log.debug("listener connection closed badly: %s", type(closing.exception()).__name__)


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


_rooms: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Room] = weakref.WeakKeyDictionary()
_rooms_lock = threading.Lock()


def room() -> Room:
    """The running loop's room (made, with its listener, on first use)."""
    loop = asyncio.get_running_loop()
    found = _rooms.get(loop)
    if found is None:
        with _rooms_lock:
            found = _rooms.get(loop)
            if found is None:
                found = _rooms[loop] = Room(loop)
    return found


def _committed(table_id: str, version: int | None, snapshot) -> None:
    """games.notify's listener, from the committing thread: one hop onto each loop that has
    waiters on the table."""
    with _rooms_lock:
        rooms = [r for r in _rooms.values() if table_id in r.tables]
    for found in rooms:
        with contextlib.suppress(RuntimeError):  # the loop has closed: its waiters are gone
            found.loop.call_soon_threadsafe(found.changed, table_id, version, snapshot)


notify.listen(_committed)
