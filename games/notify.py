"""Wake-ups for long-polling readers.

A `?wait=` request waits on an asyncio event per table. A commit that changes a table sets
the events of this process's waiters and, when REDIS_URL is set, publishes the table id on a
Redis channel that every web process listens to, so a move served (or a bot move or timeout
applied by a worker) anywhere wakes pollers everywhere. Waiters also re-read the version
every LONGPOLL_RECHECK_SECONDS, so a lost message only delays a wake-up."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import defaultdict

from django.conf import settings

CHANNEL = "cardgames:table-changed"
log = logging.getLogger(__name__)

_lock = threading.Lock()
_waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)
_listeners: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
_publisher = None


def subscribe(table_id: str) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
    loop = asyncio.get_running_loop()
    entry = (loop, asyncio.Event())
    with _lock:
        _waiters[str(table_id)].add(entry)
    if settings.REDIS_URL:
        _ensure_listener(loop)
    return entry


def unsubscribe(table_id: str, entry) -> None:
    with _lock:
        waiters = _waiters.get(str(table_id))
        if waiters is not None:
            waiters.discard(entry)
            if not waiters:
                del _waiters[str(table_id)]


def wake_local(table_id: str) -> None:
    with _lock:
        entries = list(_waiters.get(str(table_id), ()))
    for loop, event in entries:
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:
            # The waiter's loop has closed: its request is gone.
            pass


def table_changed(table_id: str) -> None:
    """Called on commit of any change to the table, from any thread or process."""
    wake_local(table_id)
    if settings.REDIS_URL:
        _publish(str(table_id))


def _publish(table_id: str) -> None:
    global _publisher
    import redis

    try:
        if _publisher is None:
            _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
        _publisher.publish(CHANNEL, table_id)
    except redis.RedisError as exc:
        log.warning("could not publish a table change (pollers fall back to re-checking): %s", type(exc).__name__)


def _ensure_listener(loop: asyncio.AbstractEventLoop) -> None:
    with _lock:
        task = _listeners.get(loop)
        if task is not None and not task.done():
            return
        _listeners[loop] = loop.create_task(_listen())


async def _listen() -> None:
    """One subscriber per event loop (per web process), for as long as the loop runs."""
    import redis.asyncio as aioredis

    while True:
        client = aioredis.Redis.from_url(settings.REDIS_URL)
        try:
            async with client.pubsub() as pubsub:
                await pubsub.subscribe(CHANNEL)
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        wake_local(message["data"].decode())
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reconnect on any failure
            log.warning("table-change listener reconnecting: %s", type(exc).__name__)
            await asyncio.sleep(1)
        finally:
            await client.aclose()

