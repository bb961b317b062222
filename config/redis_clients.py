"""Redis clients of the web processes' event loops, on a bounded pool that waits for a free
connection instead of failing.

redis-py's own pool opens a connection per concurrent command up to 100 and then raises
`MaxConnectionsError`: a burst of a thousand waiters or stream openings in one process (a move
at a busy table, a reconnect storm) made a thousand concurrent Redis commands, and past the
hundredth each failed, as a 500 for an event stream's opening (its per-user slot) and as a
needless database read for a long-poll (its version check). A Redis command takes a fraction of
a millisecond, so a few dozen connections serve thousands of them a second: past
REDIS_MAX_CONNECTIONS a command waits its turn (at most REDIS_POOL_WAIT_SECONDS, then it fails
as Redis being away does, which every caller already handles)."""

from __future__ import annotations

from django.conf import settings


def async_client(*, socket_timeout: float, connect_timeout: float):
    """A redis.asyncio client on a blocking pool of at most REDIS_MAX_CONNECTIONS connections."""
    import redis.asyncio as aioredis

    pool = aioredis.BlockingConnectionPool.from_url(
        settings.REDIS_URL,
        max_connections=settings.REDIS_MAX_CONNECTIONS,
        timeout=settings.REDIS_POOL_WAIT_SECONDS,
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
    )
    return aioredis.Redis(connection_pool=pool)
