"""Redis is allowed to be down (docs/reliability.md, drill (b)): the database is the truth, and
what Redis carries (the throttles' counters, the Celery broker, long-poll wake-ups) may be
lost. A `Breaker` wraps each of those uses: the first failure is logged, the dependency is then
left alone for `seconds` (so a request does not pay a connection attempt, or a hung socket's
timeout, per call while it is down), and the caller gets its degraded answer instead of an
error (a throttle lets the request through; a task is not queued and the sweep makes up for
it)."""

from __future__ import annotations

import logging
import threading
import time

from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import RedisError

# What "Redis is not there" looks like from the cache (redis-py), the broker (kombu) and a bare
# socket; nothing else is swallowed.
ERRORS = (RedisError, BrokerError, OSError)
log = logging.getLogger(__name__)


def broken_socket(exc: ValueError) -> bool:
    """redis-py's socket buffer, when its connection is torn down under it (seen with 1,000 event
    streams opening at once: one connection timed out, and requests on the same process's other
    connections failed with a bad file descriptor, then this), raises ValueError("I/O operation
    on closed file") instead of a ConnectionError: Redis is unavailable, not a bug of ours."""
    return "closed file" in str(exc)


class Breaker:
    def __init__(self, name: str, seconds: float = 5.0):
        self.name = name
        self.seconds = seconds
        self._until = 0.0
        self._lock = threading.Lock()

    def is_open(self) -> bool:
        """True while the dependency is being left alone after a failure."""
        return time.monotonic() < self._until

    def call(self, fn, *args, default=None, **kwargs):
        """`fn(*args, **kwargs)`, or `default` while the breaker is open or when it fails with
        one of ERRORS (which opens it)."""
        if self.is_open():
            return default
        try:
            return fn(*args, **kwargs)
        except (*ERRORS, ValueError) as exc:
            if isinstance(exc, ValueError) and not broken_socket(exc):
                raise
            with self._lock:
                first = not self.is_open()
                self._until = time.monotonic() + self.seconds
            if first:
                log.warning("%s unavailable (%s): degraded for %.0f s", self.name, type(exc).__name__, self.seconds)
            return default
