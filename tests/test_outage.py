"""config.outage.Breaker: what counts as "Redis is not there" (degraded answer, breaker open) and
what is a bug (raised)."""

import pytest

from config.outage import Breaker


def test_a_socket_torn_down_under_redis_py_degrades_like_a_connection_error():
    breaker = Breaker("test", seconds=60)

    def torn():
        # What redis-py's socket buffer raises when its connection is closed under it.
        raise ValueError("I/O operation on closed file.")

    assert breaker.call(torn, default="degraded") == "degraded"
    assert breaker.is_open()
    assert breaker.call(lambda: "not called while open", default="degraded") == "degraded"


def test_any_other_value_error_is_a_bug_and_is_raised():
    breaker = Breaker("test", seconds=60)

    def bug():
        raise ValueError("invalid literal for int() with base 10: 'x'")

    with pytest.raises(ValueError):
        breaker.call(bug, default="degraded")
    assert not breaker.is_open()


def test_an_os_error_degrades():
    breaker = Breaker("test", seconds=60)

    def refused():
        raise ConnectionRefusedError

    assert breaker.call(refused, default=0) == 0 and breaker.is_open()
