"""Rate limits (api.md: 429 `throttled` with Retry-After). Rates come from
`API_THROTTLE_RATES`; counters live in Redis when REDIS_URL is set (so every web process counts
the same requests), else in the process's cache.

Each throttle counts requests in fixed windows of its rate's period: one INCR (with the key's
expiry, in one pipelined round trip) per request and scope. DRF's own throttles keep the
timestamp of every request of the window and read and rewrite that whole list (thousands of
entries at 3000/min) twice per request; here it is one small integer. A fixed window lets a
caller spend up to twice the rate across a window boundary, which is fine for a protection.

When the counters cannot be reached (Redis down), the throttles let requests through rather than
fail them: limiting is a protection, not a promise, and a 500 on every request would turn a
Redis outage into an API outage (docs/reliability.md, drill (b)). It resumes when Redis is back
(counts start afresh: what Redis held is gone).

State polls have a throttle of their own (`PollRateThrottle`, scope `polls`), counted in the
process's memory: a 304 costs no round trip to Redis, and with N web processes a client may poll
N times the rate, which is still a bound on what one client costs each process.

Every answer a throttle counted carries the IETF RateLimit fields of its tightest window
(`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`; a 429 adds Retry-After):
`headers(request)`, added by `RateLimitHeadersMiddleware` on Django's side and by the edge
(games.edge.endpoints) on its own. The client's address is REMOTE_ADDR unless TRUSTED_PROXIES
says how many proxies' X-Forwarded-For entries to trust (DRF's NUM_PROXIES): a forged header
never buys a fresh quota."""

from __future__ import annotations

import math
import threading
import time

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core.cache import cache
from django.utils.decorators import sync_and_async_middleware
from rest_framework import throttling

from config.outage import Breaker

PREFIX = "cardgames:throttle:"
_cache = Breaker("the throttles' cache")
_client = None


def _redis():
    global _client
    if _client is None:
        import redis

        _client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    return _client


def _count(key: str, ttl: int) -> int:
    """This request's number in its window (the counter's expiry set with it)."""
    if settings.REDIS_URL:
        with _redis().pipeline(transaction=False) as pipe:
            pipe.incr(PREFIX + key)
            pipe.expire(PREFIX + key, ttl)
            count, _ = pipe.execute()
        return int(count)
    cache.add(PREFIX + key, 0, ttl)
    try:
        return cache.incr(PREFIX + key)
    except ValueError:  # expired between the two calls
        cache.set(PREFIX + key, 1, ttl)
        return 1


def reset() -> None:
    """Forget every count (tests)."""
    with _local_lock:
        _local.clear()
    if settings.REDIS_URL:
        client = _redis()
        keys = list(client.scan_iter(PREFIX + "*"))
        if keys:
            client.delete(*keys)
    cache.clear()


def _holder(request):
    """Where a request's rate-limit figures are kept: the Django request under DRF's, so that
    the middleware sees them; the edge's request object as it is."""
    return getattr(request, "_request", request)


def record(request, limit: int, count: int, reset: int) -> None:
    """Keep the tightest window's figures (least remaining) of a counted request."""
    holder = _holder(request)
    remaining = max(0, limit - count)
    known = getattr(holder, "ratelimit", None)
    if known is None or remaining < known[1]:
        holder.ratelimit = (limit, remaining, reset)


def headers(request) -> dict[str, str]:
    """The RateLimit fields of a counted request (none for one no throttle counted)."""
    known = getattr(_holder(request), "ratelimit", None)
    if known is None:
        return {}
    limit, remaining, reset = known
    return {"RateLimit-Limit": str(limit), "RateLimit-Remaining": str(remaining), "RateLimit-Reset": str(reset)}


def _with_headers(request, response):
    for name, value in headers(request).items():
        response[name] = value
    return response


@sync_and_async_middleware
def RateLimitHeadersMiddleware(get_response):  # noqa: N802 - named as the middleware it is
    """Adds `headers(request)` to Django's answers (the edge adds them to its own); async under
    ASGI, so a waiting long-poll is not pinned to a thread."""
    if iscoroutinefunction(get_response):
        async def middleware(request):
            return _with_headers(request, await get_response(request))
    else:
        def middleware(request):
            return _with_headers(request, get_response(request))
    return middleware


class _Counting:
    # Whether counting waits on I/O (Redis, the cache): the edge then runs it off its event loop.
    blocking = True

    def get_rate(self):
        # A scope with no rate (API_THROTTLE_RATES=off, or a scope left out) does not throttle,
        # where DRF would fail with ImproperlyConfigured.
        return self.THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        self._retry = max(1, math.ceil((window + 1) * self.duration - now))
        count = self._count(f"{self.key}:{window}", int(self.duration) + 1)
        if count is None:
            return True
        record(request, self.num_requests, count, self._retry)
        return count <= self.num_requests

    def _count(self, key: str, ttl: int) -> int | None:
        return _cache.call(_count, key, ttl, default=None)

    def wait(self):
        return self._retry


class AnonRateThrottle(_Counting, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(_Counting, throttling.UserRateThrottle):
    pass


_local_lock = threading.Lock()
_local: dict[str, tuple[float, int]] = {}  # key -> (expires, count)


class PollRateThrottle(_Counting, throttling.UserRateThrottle):
    """Per user, state polls (scope `polls`), counted in this process's memory (no I/O: the edge
    counts it on its loop, and a 304 stays free of Redis)."""

    scope = "polls"
    blocking = False

    def _count(self, key: str, ttl: int) -> int:
        now = time.monotonic()
        with _local_lock:
            expires, count = _local.get(key, (0.0, 0))
            count = count + 1 if expires > now else 1
            _local[key] = (now + ttl if count == 1 else expires, count)
            if len(_local) > 100_000:  # windows past: drop them all at once, rarely
                for stale in [k for k, (e, _) in _local.items() if e <= now]:
                    del _local[stale]
        return count


class MoveRateThrottle(_Counting, throttling.ScopedRateThrottle):
    """Per user, for the game-changing POSTs of views whose `throttle_scope` is `moves`."""

    def allow_request(self, request, view):
        if request.method != "POST":
            return True
        # What ScopedRateThrottle.allow_request does before it counts: the view's scope, its rate.
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)
