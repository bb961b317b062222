"""No process of `manage.py serve`'s tree outlives serve, however serve ends: SIGHUP (a closed
terminal) and SIGKILL (nothing serve can handle). The tree is recorded while serve runs, with
uvicorn started with two worker processes (WEB_CONCURRENCY) and the Celery worker with its
beat and pool: every process of it, known by pid and start time (a pid may be reused), must be
gone afterwards, and the port free, within a bounded wait."""

from __future__ import annotations

import os
import signal
import socket

import pytest

from tests.integration.conftest import eventually

pytestmark = pytest.mark.integration


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time in clock ticks since boot) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text.rsplit(")", 1)[1].split()  # the command name may contain spaces and ")"
    return int(fields[1]), fields[0], int(fields[19])


def descendants(root: int) -> dict[int, int]:
    """Every living descendant of `root`: pid -> start time."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (stat := _stat(int(name))) is not None:
            children.setdefault(stat[0], []).append(int(name))
            started[int(name)] = stat[2]
    found: dict[int, int] = {}
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found[pid] = started[pid]
        todo.extend(children.get(pid, []))
    return found


def still_running(tree: dict[int, int]) -> list[int]:
    """The processes of `tree` still alive: same pid, same start time, not a zombie."""
    left = []
    for pid, start in tree.items():
        stat = _stat(pid)
        if stat is not None and stat[2] == start and stat[1] != "Z":
            left.append(pid)
    return left


def command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def port_free(port: int) -> bool:
    """A new server could listen on `port`. With SO_REUSEADDR, as uvicorn binds: without it the
    closed connections' TIME_WAIT would refuse the bind; with it, only a listener does."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError:
            return False
    return True


def whole_tree(served) -> dict[int, int]:
    """serve's descendants once all are up: uvicorn with its two workers, the Celery worker with
    its beat and its two pool processes (at least seven)."""
    api, worker = served.pid_of("API server"), served.pid_of("worker")
    eventually(lambda: " ready." in served.log() and "beat: Starting..." in served.log(), timeout=90)

    def complete():
        tree = descendants(served.proc.pid)
        under_api = [pid for pid in tree if _stat(pid) and _stat(pid)[0] == api]
        under_worker = [pid for pid in tree if _stat(pid) and _stat(pid)[0] == worker]
        return tree if len(under_api) >= 2 and len(under_worker) >= 3 else None

    return eventually(complete, timeout=60)


@pytest.mark.parametrize("how", [signal.SIGHUP, signal.SIGKILL], ids=["SIGHUP", "SIGKILL"])
def test_no_process_of_serves_tree_outlives_it(serve, how):
    served = serve(env={"WEB_CONCURRENCY": "2"})
    tree = whole_tree(served)
    assert served.pid_of("API server") in tree and served.pid_of("worker") in tree
    try:
        os.kill(served.proc.pid, how)
        code = served.proc.wait(timeout=60)
        assert code == (-signal.SIGKILL if how == signal.SIGKILL else 0), served.log()
        try:
            eventually(lambda: not still_running(tree), timeout=45)
        except AssertionError:
            left = {pid: command_line(pid) for pid in still_running(tree)}
            raise AssertionError(f"left running after {how.name}: {left}") from None
        eventually(lambda: port_free(served.port), timeout=15)
    finally:
        # A failure must not leave the test's processes behind either.
        for pid in still_running(tree):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_uvicorn_writes_no_access_line_of_its_own(serve):
    """The edge writes the access log (config/logs.py); uvicorn's own would repeat each line."""
    served = serve("--no-worker")
    assert served.healthy()
    eventually(lambda: "GET /healthz 200" in served.log(), timeout=10)
    assert '"GET /healthz HTTP/1.1" 200' not in served.log()
