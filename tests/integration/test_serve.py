"""`manage.py serve` (make run) supervises its children: a dead worker comes back with a log
line while the API keeps answering; past the restart budget, or when the API server dies,
serve stops everything and exits non-zero saying why, instead of staying half-alive."""

import os
import re
import signal

import pytest

from tests.integration.conftest import eventually

pytestmark = pytest.mark.integration


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (dead, not yet reaped by serve) still answers kill(0).
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_killed_worker_is_restarted_with_a_log_line_and_the_api_stays_up(serve):
    served = serve()
    first = served.pid_of("worker")
    eventually(lambda: " ready." in served.log())
    os.kill(first, signal.SIGKILL)
    eventually(lambda: served.pid_of("worker") != first, timeout=30)
    assert "the Celery worker exited with code -9; restarting it (restart 1 of 5" in served.log()
    second = served.pid_of("worker")
    # Nothing of the dead worker's group (its beat, its pool) lives on: no second beat.
    eventually(lambda: not group_alive(first), timeout=10)
    assert alive(second) and served.proc.poll() is None
    assert served.healthy()
    # The new worker works: it runs the beat's sweep, which the new beat sends every 5 s.
    after_restart = lambda: served.log().partition("restarting it")[2]  # noqa: E731
    eventually(lambda: re.search(r"games\.tasks\.sweep\[[^]]+\] succeeded", after_restart()), timeout=60)


def test_past_the_restart_budget_serve_exits_with_a_message_and_takes_the_api_down(serve):
    served = serve("--worker-restarts", "0")
    api = served.pid_of("API server")
    os.kill(served.pid_of("worker"), signal.SIGKILL)
    assert served.proc.wait(timeout=60) == 1
    assert "the Celery worker exited with code -9 after 0 restart(s) in 10 minutes; stopped the API server too" in served.log()
    assert not alive(api) and not served.healthy()


def test_when_the_api_server_dies_serve_stops_the_worker_and_says_so(serve):
    served = serve()
    worker = served.pid_of("worker")
    os.kill(served.pid_of("API server"), signal.SIGKILL)
    assert served.proc.wait(timeout=60) == 1
    assert "the API server (uvicorn) exited with code -9; stopped the worker too" in served.log()
    assert not alive(worker)
