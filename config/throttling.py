"""Rate limits (api.md: 429 `throttled` with Retry-After). Rates come from
`API_THROTTLE_RATES`; counters live in the shared cache (Redis when REDIS_URL is set), so
every web process counts the same requests."""

from rest_framework.throttling import ScopedRateThrottle


class MoveRateThrottle(ScopedRateThrottle):
    """Per user, for the game-changing POSTs of views whose `throttle_scope` is `moves`."""

    def allow_request(self, request, view):
        if request.method != "POST":
            return True
        return super().allow_request(request, view)
