"""Rate limits (api.md: 429 `throttled` with Retry-After). Rates come from
`API_THROTTLE_RATES`; counters live in the shared cache (Redis when REDIS_URL is set), so
every web process counts the same requests.

When the cache cannot be reached (Redis down), the throttles let requests through rather than
fail them: limiting is a protection, not a promise, and a 500 on every request would turn a
Redis outage into an API outage (docs/reliability.md, drill (b)). It resumes when Redis is back
(counts start afresh: what Redis held is gone)."""

from rest_framework import throttling

from config.outage import Breaker

_cache = Breaker("the throttles' cache")


class _FailOpen:
    def allow_request(self, request, view):
        return _cache.call(super().allow_request, request, view, default=True)


class AnonRateThrottle(_FailOpen, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(_FailOpen, throttling.UserRateThrottle):
    pass


class MoveRateThrottle(_FailOpen, throttling.ScopedRateThrottle):
    """Per user, for the game-changing POSTs of views whose `throttle_scope` is `moves`."""

    def allow_request(self, request, view):
        if request.method != "POST":
            return True
        return super().allow_request(request, view)
