"""Wake-ups for clients that wait on a table: `?wait=` long-polls and event streams.

A waiter is an asyncio event per request. A commit that changes a table sets the events of
this process's waiters and, when REDIS_URL is set, publishes the table id on a Redis channel
that every web process listens to, so a move served (or a bot move or timeout applied by a
worker) anywhere wakes waiters everywhere.

Without Redis, another process's commits (the Celery worker's bot moves and timeouts) reach
nobody by message, so one watcher task per event loop reads the versions of every waited table
in a single query every LONGPOLL_RECHECK_SECONDS and wakes the waiters that are behind: one
query per process, not one per waiter. With Redis, a listener that (re)connects wakes every
local waiter once, so a message lost while it was away only costs a re-read."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import defaultdict

from asgiref.sync import sync_to_async
from django.conf import settings

from config.outage import Breaker

CHANNEL = "cardgames:table-changed"
log = logging.getLogger(__name__)


class Waiter:
    """One waiting request: its loop, its event, the table version it has already seen
    (None: any change wakes it) and the newest version a wake-up announced (`latest`), so a
    reader knows whether what it read is recent enough."""

    __slots__ = ("loop", "event", "version", "latest")

    def __init__(self, loop: asyncio.AbstractEventLoop, version: int | None):
        self.loop = loop
        self.event = asyncio.Event()
        self.version = version
        self.latest = 0

    def wake(self, version: int | None = None) -> None:
        if version is not None and version > self.latest:
            self.latest = version
        try:
            self.loop.call_soon_threadsafe(self.event.set)
        except RuntimeError:
            # The waiter's loop has closed: its request is gone.
            pass


_lock = threading.Lock()
_waiters: dict[str, set[Waiter]] = defaultdict(set)
_tasks: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
_publisher = None


def subscribe(table_id: str, version: int | None = None) -> Waiter:
    loop = asyncio.get_running_loop()
    waiter = Waiter(loop, version)
    with _lock:
        _waiters[str(table_id)].add(waiter)
    _ensure_background(loop)
    return waiter


def unsubscribe(table_id: str, waiter: Waiter) -> None:
    with _lock:
        waiters = _waiters.get(str(table_id))
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del _waiters[str(table_id)]


def waiting_tables() -> int:
    with _lock:
        return len(_waiters)


def wake_local(table_id: str, version: int | None = None) -> None:
    with _lock:
        waiters = list(_waiters.get(str(table_id), ()))
    for waiter in waiters:
        waiter.wake(version)


def _wake_all() -> None:
    with _lock:
        waiters = [w for group in _waiters.values() for w in group]
    for waiter in waiters:
        waiter.wake()


# (table id) -> (when, version, table): the table as a change in this process committed it, for
# this process's waiters woken by that change (games.polling.shared_table), so that they need
# no read of their own. Kept only for tables this process has waiters on, short-lived and
# bounded; only complete snapshots (a move's, whose seats and players were read under the
# lock) are handed over.
_fresh: dict[str, tuple[float, int, object]] = {}
_FRESH_SECONDS = 2.0
_MAX_FRESH = 1024


def fresh(table_id: str, at_least: int):
    """The table at version `at_least` or later as this process committed it moments ago, or None."""
    hit = _fresh.get(str(table_id))
    if hit is None or hit[1] < at_least or time.monotonic() - hit[0] > _FRESH_SECONDS:
        return None
    return hit[2]


def table_changed(table_id: str, version: int | None = None, snapshot=None) -> None:
    """Called on commit of a change to the table (that made `version`), from any thread or
    process. `snapshot`: the committed table with its seats and players, when the change has it
    whole (a move), handed to this process's waiters."""
    if snapshot is not None and version is not None and _waiters.get(str(table_id)):
        key = str(table_id)
        held = _fresh.get(key)
        if held is None or held[1] < version:
            _fresh[key] = (time.monotonic(), version, snapshot)
            if len(_fresh) > _MAX_FRESH:
                now = time.monotonic()
                for stale in [k for k, v in list(_fresh.items()) if now - v[0] > _FRESH_SECONDS]:
                    _fresh.pop(stale, None)
    wake_local(table_id, version)
    if settings.REDIS_URL:
        _publish(str(table_id) if version is None else f"{table_id} {version}")


# While Redis is down, a commit does not try to publish (a stopped Redis would cost each commit
# its socket timeout): the waiters of other processes fall back to re-checking every
# LONGPOLL_RECHECK_SECONDS.
_wakeups = Breaker("table-change wake-ups (waiters fall back to re-checking)")


def _publish(message: str) -> None:
    """Never raises (it runs after the commit)."""
    global _publisher
    import redis

    if _publisher is None:
        _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    _wakeups.call(_publisher.publish, CHANNEL, message)


def _ensure_background(loop: asyncio.AbstractEventLoop) -> None:
    """One background task per event loop (per web process): the Redis listener, or the
    batched version watcher when there is no Redis."""
    with _lock:
        task = _tasks.get(loop)
        if task is not None and not task.done():
            return
        _tasks[loop] = loop.create_task(_listen() if settings.REDIS_URL else _watch())


def _versions(table_ids: list[str]) -> dict[str, int]:
    from django.db import connection

    from games.models import Table

    try:
        return {str(pk): v for pk, v in Table.objects.filter(pk__in=table_ids).values_list("pk", "version")}
    finally:
        # Run on a shared pool thread: hold no database connection between checks.
        connection.close()


async def _check_round() -> None:
    """One batched re-check: read the versions of every waited table in one query and wake
    the waiters that are behind."""
    with _lock:
        waited = {table_id: list(group) for table_id, group in _waiters.items()}
    if not waited:
        return
    try:
        versions = await sync_to_async(_versions, thread_sensitive=False)(list(waited))
    except Exception as exc:  # noqa: BLE001 - the next round retries
        log.warning("version watcher could not read the tables: %s", type(exc).__name__)
        return
    for table_id, waiters in waited.items():
        current = versions.get(table_id)
        for waiter in waiters:
            # A deleted table wakes its waiters too: they answer 404.
            if current is None or waiter.version is None or current > waiter.version:
                waiter.wake(current)


async def _watch() -> None:
    while True:
        await asyncio.sleep(settings.LONGPOLL_RECHECK_SECONDS)
        await _check_round()


def _on_message(message: dict) -> None:
    from accounts import tokens

    channel = message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"]
    data = message["data"].decode() if isinstance(message["data"], bytes) else str(message["data"])
    if channel == tokens.CHANNEL:
        tokens.forget_local(u for u in data.split() if u.isdigit())
        return
    table_id, _, version = data.partition(" ")
    wake_local(table_id, int(version) if version.isdigit() else None)


async def _listen() -> None:
    """One subscriber per event loop (per web process), for as long as the loop runs. It pings
    Redis every NOTIFY_HEALTH_SECONDS and reconnects when nothing (not even a pong) came back
    in three times that: a stopped Redis keeps its sockets open. While disconnected, waiters
    are re-checked in batches as without Redis, so a long-poll still sees other processes'
    commits (docs/reliability.md, Redis drill)."""
    import redis.asyncio as aioredis

    from accounts import tokens

    health = settings.NOTIFY_HEALTH_SECONDS
    while True:
        client = aioredis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
        try:
            async with client.pubsub() as pubsub:
                await pubsub.subscribe(CHANNEL, tokens.CHANNEL)
                # Changes published while this listener was away were missed: re-read once.
                _wake_all()
                heard = pinged = time.monotonic()
                while True:
                    message = await pubsub.get_message(timeout=min(1.0, health))
                    now = time.monotonic()
                    if message is not None:
                        heard = now
                        if message.get("type") == "message":
                            _on_message(message)
                    if now - heard > 3 * health:
                        raise TimeoutError("no answer from Redis")
                    if now - pinged >= health:
                        pinged = now
                        await pubsub.ping()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reconnect on any failure
            log.warning("table-change listener reconnecting: %s", type(exc).__name__)
        finally:
            try:
                await asyncio.wait_for(client.aclose(), timeout=2)
            except Exception:  # noqa: BLE001 - a dead connection closes badly
                pass
        # Away from Redis: one batched re-check, then try again.
        await _check_round()
        await asyncio.sleep(settings.LONGPOLL_RECHECK_SECONDS)
