"""`make run`: the API under uvicorn (ASGI, so long-polls hold no thread) and a Celery worker
with its beat scheduler, as child processes, supervised.

A dead worker is restarted, with a log line, up to `--worker-restarts` times in ten minutes
(the API keeps serving meanwhile: reads enforce overdue deadlines themselves, and the beat
sweep catches up on bot moves once the worker is back). Past that, or when the API server
itself exits, serve stops everything and exits non-zero with a message saying which child
died: it never goes on half-alive, and never goes down silently.

Each child runs in its own process group: the worker's beat and pool processes are its
children, and a worker killed outright would orphan them (a second beat after a restart).
Serve signals whole groups, so Ctrl-C, SIGTERM and SIGHUP (a closed terminal) reach every
process through it.

No child outlives serve, however serve ends. Ended by a signal it can handle, serve stops each
child's whole group (SIGTERM, then SIGKILL for what is left). Killed outright (SIGKILL, the
OOM killer), it can do nothing: there each direct child has asked Linux for a SIGTERM when
its parent dies (prctl PR_SET_PDEATHSIG, set between fork and exec), and on SIGTERM uvicorn's
supervisor stops its worker processes and Celery's main process its pool and beat
(tests/integration/test_serve_ends.py kills serve both ways and finds no process left). On a
system without prctl (not Linux) only the first promise holds.

Every child writes its metrics to one directory (config/metrics.py), emptied here before the
first child starts and kept across a worker's restart: the API's /metrics shows uvicorn's,
the worker's and beat's figures together."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections import deque

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

RESTART_WINDOW_SECONDS = 600
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _load_prctl():
    """libc's prctl, or None where there is none (not Linux). Loaded in serve itself: the child
    between fork and exec should only call it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def die_with_parent():
    """A preexec_fn: the child gets SIGTERM when serve (the thread that started it: serve starts
    every child from its main thread) dies. None where prctl is missing."""
    prctl = _load_prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        # Serve may have died between fork and prctl: then no signal will come.
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def signal_group(child: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(child.pid, sig)
    except ProcessLookupError:
        pass


def stop(children: list[subprocess.Popen]) -> None:
    for child in children:
        signal_group(child, signal.SIGTERM)
    for child in children:
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            signal_group(child, signal.SIGKILL)
            child.wait()
        # Whatever of its group outlived it (beat, pool processes) goes too.
        signal_group(child, signal.SIGKILL)


class Command(BaseCommand):
    help = "Run the API server and a Celery worker with beat until Ctrl-C; restart a dead worker."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--no-worker", action="store_true", help="the API server only")
        parser.add_argument("--worker-restarts", type=int, default=5,
                            help="restarts of a dead worker allowed in ten minutes before serve gives up (default 5)")

    def raise_file_limit(self) -> None:
        """Each waiting long-poll or event stream holds a socket, one file descriptor
        (docs/performance.md): a common soft limit of 1,024 would cap the API under 1,000
        waiters. Raised to the hard limit (at most 65,536) for serve and its children."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            except (ValueError, OSError) as exc:
                self.log(f"could not raise the open-file limit from {soft}: {exc}")
                return
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft != resource.RLIM_INFINITY and soft < 4096:
            self.log(f"open-file limit {soft}: fewer than {soft} waiting clients at most (ulimit -n)")

    def metrics_directory(self) -> None:
        """PROMETHEUS_MULTIPROC_DIR (default: VAR_DIR/prometheus), emptied and exported to the
        children, which start after it (serve itself records no metric)."""
        path = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or str(settings.VAR_DIR / "prometheus")
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path

    def log(self, message: str) -> None:
        # stderr, flushed: the line must reach a terminal or a log file before anything else.
        self.stderr.write(f"serve: {message}")
        self.stderr.flush()

    def handle(self, *args, host, port, no_worker, worker_restarts, **options):
        self.raise_file_limit()
        self.metrics_directory()
        python = sys.executable
        # --no-access-log: the edge writes one access line per request (config/logs.py), and
        # uvicorn's own would repeat each in another format. --timeout-graceful-shutdown: an open
        # event stream (up to SSE_MAX_SECONDS) would otherwise hold up uvicorn's shutdown, and
        # the port with it, when it is told to stop by its parent's death (no one escalates).
        api_command = [python, "-m", "uvicorn", "config.asgi:application", "--host", host, "--port", str(port),
                       "--no-access-log", "--timeout-graceful-shutdown", "10"]
        worker_command = [python, "-m", "celery", "-A", "config", "worker", "--beat", "--loglevel", "INFO",
                          "--concurrency", "2"]

        preexec = die_with_parent()

        def start(command):
            return subprocess.Popen(command, start_new_session=True, preexec_fn=preexec)

        stopping = False

        def on_stop_signal(*_):
            nonlocal stopping
            stopping = True

        # SIGHUP is what a closed terminal sends: its default would end serve on the spot and
        # leave the children running.
        signal.signal(signal.SIGTERM, on_stop_signal)
        signal.signal(signal.SIGHUP, on_stop_signal)
        api = start(api_command)
        children = [api]
        self.log(f"API server running (pid {api.pid})")
        worker = None
        if not no_worker:
            worker = start(worker_command)
            children.append(worker)
            self.log(f"worker running (pid {worker.pid})")
        self.stdout.write(f"API on http://{host}:{port}/api/v1/ (docs: /api/docs/); Ctrl-C stops everything.")
        self.stdout.flush()
        restarts: deque[float] = deque()
        try:
            while not stopping:
                if api.poll() is not None:
                    raise CommandError(f"the API server (uvicorn) exited with code {api.returncode}; "
                                       "stopped the worker too")
                if worker is not None and worker.poll() is not None:
                    code = worker.returncode
                    signal_group(worker, signal.SIGKILL)  # its orphaned beat and pool, if any
                    children.remove(worker)
                    now = time.monotonic()
                    while restarts and now - restarts[0] > RESTART_WINDOW_SECONDS:
                        restarts.popleft()
                    if len(restarts) >= worker_restarts:
                        raise CommandError(
                            f"the Celery worker exited with code {code} after {len(restarts)} restart(s) in "
                            f"{RESTART_WINDOW_SECONDS // 60} minutes; stopped the API server too "
                            "(see the worker's log above)")
                    restarts.append(now)
                    self.log(f"the Celery worker exited with code {code}; restarting it (restart "
                             f"{len(restarts)} of {worker_restarts} allowed in {RESTART_WINDOW_SECONDS // 60} minutes)")
                    worker = start(worker_command)
                    children.append(worker)
                    self.log(f"worker running (pid {worker.pid})")
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            stop(children)
        return None
