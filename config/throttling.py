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
(counts start afresh: what Redis held is gone)."""

from __future__ import annotations

import math

from django.conf import settings
from django.core.cache import cache
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
    if settings.REDIS_URL:
        client = _redis()
        keys = list(client.scan_iter(PREFIX + "*"))
        if keys:
            client.delete(*keys)
    cache.clear()


class _Counting:
    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        self._retry = max(1, math.ceil((window + 1) * self.duration - now))
        count = _cache.call(_count, f"{self.key}:{window}", int(self.duration) + 1, default=None)
        return count is None or count <= self.num_requests

    def wait(self):
        return self._retry


class AnonRateThrottle(_Counting, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(_Counting, throttling.UserRateThrottle):
    pass


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
