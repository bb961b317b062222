"""The version cache: each table's version and deadline, kept in Redis by every commit, so that
a poll decides its 304 without touching the database (docs/performance.md, "How a poll is
answered").

- Writers: a commit that saves a table (any path: moves, bot moves, timeouts, votes, seats,
  the admin) records `(version, deadline)` once it has committed (`connect()` hooks Table's
  post_save/post_delete). The record keeps the highest version it has seen (a Lua script), so
  a late or reordered write never lowers it, and readers may fill a missing key from the
  database without racing a writer.
- Readers (`cached`, games.edge.state): one Redis GET on the event loop. A miss, an overdue
  deadline (a read enforces it, automation.table_clock) or Redis being down falls back to one
  indexed query.
- Keys expire after VERSION_CACHE_SECONDS, and a write that failed (Redis away) is retried with
  the next one: a missed write can make a 304 stale for at most that long. While Redis is
  failing, readers skip it for a few seconds rather than wait on its timeouts.

Without REDIS_URL there is no cache: the embedded setup's worker is another process that could
not update an in-process one, and its SQLite read is a few microseconds.

The cached value is the version and the deadline only, which every player of the table sees in
the state anyway: nothing hidden is cached here."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from django.conf import settings

from config import redis_clients
from config.outage import Breaker

log = logging.getLogger(__name__)
PREFIX = "cardgames:tv:"

# KEYS[1]: the table's key; ARGV: version, deadline ("-" for none), ttl. Sets the value unless
# the stored version is higher; the same version refreshes the deadline.
_SET_MAX = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local v = tonumber(string.match(cur, '^%d+'))
  if v and v > tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
"""

_lock = threading.Lock()
_client = None
_script = None
_pending: dict[str, tuple[int, float | None]] = {}  # writes that failed, retried with the next
_skip_until = 0.0  # readers skip Redis until then after a failure
_async_clients: dict[asyncio.AbstractEventLoop, object] = {}


def enabled() -> bool:
    return bool(settings.REDIS_URL) and settings.VERSION_CACHE


def _encode(version: int, deadline: float | None) -> tuple[str, str]:
    return str(int(version)), "-" if deadline is None else repr(float(deadline))


def _decode(raw: bytes | str) -> tuple[int, float | None] | None:
    text = raw.decode() if isinstance(raw, bytes) else raw
    version, _, deadline = text.partition(" ")
    if not version.isdigit():
        return None
    try:
        return int(version), None if deadline in ("", "-") else float(deadline)
    except ValueError:
        return None


def _timestamp(deadline) -> float | None:
    return None if deadline is None else deadline.timestamp()


def _sync_client():
    global _client, _script
    if _client is None:
        import redis

        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
        _script = _client.register_script(_SET_MAX)
    return _client, _script


def _write(writes: dict[str, tuple[int, float | None]]) -> bool:
    client, script = _sync_client()
    ttl = settings.VERSION_CACHE_SECONDS
    if len(writes) == 1:
        # The usual case, one round trip (EVALSHA): a pipeline of scripts first asks Redis
        # whether it has them (SCRIPT EXISTS), a second round trip on every move.
        ((key, (v, d)),) = writes.items()
        script(keys=[PREFIX + key], args=[*_encode(v, d), ttl])
        return True
    with client.pipeline(transaction=False) as pipe:
        for key, (v, d) in writes.items():
            script(keys=[PREFIX + key], args=[*_encode(v, d), ttl], client=pipe)
        pipe.execute()
    return True


# After a failure, writers leave Redis alone for a while (their writes wait in _pending).
_writes = Breaker("the version cache (polls read the database)", seconds=5.0)


def record(table_id, version: int, deadline) -> None:
    """After a commit (any process): the table's new version and deadline. Never raises for
    Redis being away: the commit is done, and a cache that missed a write expires on its own."""
    if not enabled():
        return
    with _lock:
        _pending[str(table_id)] = (version, _timestamp(deadline))
        writes = dict(_pending)
    if not _writes.call(_write, writes, default=False):
        return
    with _lock:
        for key, value in writes.items():
            if _pending.get(key) == value:
                del _pending[key]


def forget(table_id) -> None:
    """After a table is deleted."""
    if not enabled():
        return
    with _lock:
        _pending.pop(str(table_id), None)
    _writes.call(lambda: _sync_client()[0].delete(PREFIX + str(table_id)))


def _async_client():
    """This event loop's client and its set-max script (a client is bound to its loop)."""
    loop = asyncio.get_running_loop()
    pair = _async_clients.get(loop)
    if pair is None:
        client = redis_clients.async_client(socket_timeout=0.5, connect_timeout=0.5)
        pair = _async_clients[loop] = (client, client.register_script(_SET_MAX))
    return pair


async def cached(table_id: str) -> tuple[int, float | None] | None:
    """The cached (version, deadline timestamp), or None: no cache, a miss, or Redis failing."""
    global _skip_until
    if not enabled() or time.monotonic() < _skip_until:
        return None
    try:
        raw = await _async_client()[0].get(PREFIX + table_id)
    except Exception as exc:  # noqa: BLE001 - any failure: read the database instead
        _skip_until = time.monotonic() + settings.VERSION_CACHE_BACKOFF_SECONDS
        log.warning("version cache unavailable, reading the database: %s", type(exc).__name__)
        return None
    return None if raw is None else _decode(raw)


async def fill(table_id: str, version: int, deadline) -> None:
    """A reader's database read, stored unless a writer stored a later version first."""
    if not enabled() or time.monotonic() < _skip_until:
        return
    try:
        _, script = _async_client()
        await script(keys=[PREFIX + table_id], args=[*_encode(version, _timestamp(deadline)), settings.VERSION_CACHE_SECONDS])
    except Exception as exc:  # noqa: BLE001 - the next reader reads the database again
        log.warning("version cache not filled: %s", type(exc).__name__)


def reset() -> None:
    """Forget pending writes and back-offs (tests)."""
    global _skip_until
    with _lock:
        _pending.clear()
    _skip_until = 0.0
    _writes._until = 0.0


def connect() -> None:
    """Hook every save and delete of a table (games.apps)."""
    from django.db import transaction
    from django.db.models.signals import post_delete, post_save

    from games.models import Table

    def saved(sender, instance, **kwargs):
        version, deadline, table_id = instance.version, instance.deadline, instance.pk
        transaction.on_commit(lambda: record(table_id, version, deadline))

    def deleted(sender, instance, **kwargs):
        table_id = instance.pk
        transaction.on_commit(lambda: forget(table_id))

    post_save.connect(saved, sender=Table, dispatch_uid="games.versions.saved", weak=False)
    post_delete.connect(deleted, sender=Table, dispatch_uid="games.versions.deleted", weak=False)
