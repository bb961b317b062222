"""A real Celery worker (with beat) in a child process, on the same database and broker as
the test: Redis when REDIS_URL is set (CI's second pass), else the embedded filesystem
broker in the test run's own folder (config/settings/test.py), never var/. And `serve`: the
whole `make run` process tree on its own temporary SQLite database and broker folder."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from games.management.commands.serve import signal_group, stop

ROOT = Path(__file__).resolve().parents[2]


def eventually(check, timeout: float = 60.0, interval: float = 0.2):
    """Poll `check()` until it returns something truthy; fail after `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        result = check()
        if result:
            return result
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


@pytest.fixture
def worker(settings, tmp_path, transactional_db):
    """worker() starts a worker with beat and returns its Popen; all are stopped afterwards.
    worker(env={...}) adds to or overrides its environment (e.g. production settings), and
    quiet=True leaves out Celery's start-up banner, as docker/entrypoint.sh does."""
    from config.celery import app

    # Read before the settings change: the app loads its configuration lazily from them.
    was_eager = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    db = connection.settings_dict
    base_env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "VAR_DIR": str(tmp_path),
        "CELERY_BROKER_DIR": str(settings.CELERY_BROKER_DIR),
    }
    if db["ENGINE"].endswith("sqlite3"):
        base_env["SQLITE_PATH"] = str(db["NAME"])
        base_env.pop("DATABASE_URL", None)
    else:
        base_env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    app.control.purge()
    children: list[subprocess.Popen] = []

    def start(env: dict | None = None, quiet: bool = False) -> subprocess.Popen:
        log_path = tmp_path / f"worker-{len(children)}.log"
        log = open(log_path, "wb")  # noqa: SIM115 - closed with the process
        child = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", *(["--quiet"] if quiet else []), "worker", "--beat",
             "--pool", "solo", "--loglevel", "INFO", "--schedule", str(tmp_path / f"beat-{len(children)}")],
            cwd=ROOT, env={**base_env, **(env or {})}, stdout=log, stderr=subprocess.STDOUT,
            # Its own process group: `--beat` runs the scheduler in a child process, which a
            # signal to the worker alone would orphan.
            start_new_session=True,
        )
        child.log_path = log_path
        children.append(child)
        return child

    yield start
    # As serve stops its children: the whole group, since the beat child may outlive a
    # killed worker and nothing of the group may survive the test.
    stop(children)
    # Nothing a test queued reaches the next one.
    app.control.purge()
    app.conf.task_always_eager = was_eager


# Signal the worker's whole process group (the worker and its beat).
stop_group = signal_group


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base: str, method: str, path: str, token: str | None = None, body=None, headers=None, replied=None,
         timeout: float = 30):
    """One JSON request to a live server: (status, parsed body). `replied`: a dict that gets
    the response's headers (lower-case names); `timeout`: seconds the client waits."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if token:
        request.add_header("Authorization", f"Token {token}")
    request.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if replied is not None:
                replied.update({k.lower(): v for k, v in response.headers.items()})
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        if replied is not None:
            replied.update({k.lower(): v for k, v in exc.headers.items()})
        return exc.code, json.loads(exc.read() or b"null")


def skip_in_the_second_pass(what: str) -> None:
    """CI runs the suite twice: on the embedded defaults, then on PostgreSQL and Redis
    (DATABASE_URL). What runs on an environment of its own, the same in both passes (`make
    run`'s embedded setup, the wheel's image), ran in the first: the second skips it."""
    if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        pytest.skip(f"{what}: the same whatever the pass; the embedded pass runs it")


def embedded_env(var_dir: Path, **extra) -> dict:
    """`make run`'s environment on the embedded defaults (SQLite, filesystem broker), all of it
    under `var_dir`: whatever the test run itself uses (CI's PostgreSQL and Redis, the
    developer's var/) is left out."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND",
                          "CELERY_BROKER_DIR", "SQLITE_PATH", "PROMETHEUS_MULTIPROC_DIR")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings.base", VAR_DIR=str(var_dir), PYTHONUNBUFFERED="1", **extra)
    return env


class Served:
    """A `manage.py serve` child: `base` is its API root, `log()` its output so far."""

    def __init__(self, proc: subprocess.Popen, port: int, log_path: Path, env: dict):
        self.proc, self.port, self.log_path, self.env = proc, port, log_path, env
        self.base = f"http://127.0.0.1:{port}/api/v1"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pid_of(self, what: str) -> int | None:
        """The pid of the latest `what` ("worker", "API server") serve started."""
        pids = re.findall(rf"serve: {what} running \(pid (\d+)\)", self.log())
        return int(pids[-1]) if pids else None

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False


@pytest.fixture
def serve(tmp_path):
    """serve(*args, env=None) starts `manage.py serve` on a free port, on its own migrated
    SQLite database and broker folder under tmp_path, and waits until /healthz answers.
    Every serve started is stopped (SIGTERM, as Ctrl-C would) after the test."""
    started: list[Served] = []

    def start(*args: str, env: dict | None = None, timeout: float = 90.0) -> Served:
        if not set(env or {}) & {"DATABASE_URL", "REDIS_URL"}:
            skip_in_the_second_pass("`manage.py serve` on the embedded defaults")
        var_dir = tmp_path / f"var-{len(started)}"
        var_dir.mkdir()
        environment = embedded_env(var_dir, **{"API_THROTTLE_RATES": "off", **(env or {})})
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=ROOT, env=environment, check=True)
        port = free_port()
        log_path = tmp_path / f"serve-{len(started)}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--port", str(port), *args],
                                    cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT)
        served = Served(proc, port, log_path, environment)
        started.append(served)
        eventually(lambda: served.healthy() or proc.poll() is not None, timeout=timeout)
        assert proc.poll() is None, served.log()
        return served

    yield start
    for served in started:
        if served.proc.poll() is None:
            served.proc.terminate()
        try:
            served.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            served.proc.kill()
            served.proc.wait()
        # Shown by pytest when the test failed: what serve, uvicorn and the worker said last.
        print(f"--- last lines of {served.log_path.name}:", *served.log().splitlines()[-80:], sep="\n")


# Markers that `make test` leaves out; `-m soak` (make soak-embedded), `-m readme`
# (make test-readme), `-m busy` (make test-busy), `-m clients` (make test-clients), or any -m
# expression naming them, selects them.
OPT_IN = {
    "soak": "minutes of bot play on `make run`'s process tree (make soak-embedded)",
    "readme": "runs README.md's sh blocks against a live server (make test-readme)",
    "busy": "every kind of writer at once on a busy embedded database, about two minutes (make test-busy)",
    "clients": "generates, builds and runs clients/python and clients/typescript against a live server; needs npm (make test-clients)",
}


def pytest_configure(config):
    for name, description in OPT_IN.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test` runs two workers, `--dist loadgroup`), every test here
    runs on the same worker: their Celery workers share the broker (its folder, or Redis), so
    two at once could take each other's tasks; each xdist worker has its own test database.
    The opt-in suites (OPT_IN) run only when a `-m` expression names them."""
    here = Path(__file__).parent
    for item in items:
        # Tests elsewhere that start workers (the reliability drills) are marked `integration`:
        # with Redis they share its broker too.
        if here in Path(item.path).parents or item.get_closest_marker("integration"):
            item.add_marker(pytest.mark.xdist_group("integration"))
    expression = config.getoption("markexpr") or ""
    left_out = [name for name in OPT_IN if name not in expression]
    deselected = [item for item in items if any(item.get_closest_marker(name) for name in left_out)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if item not in deselected]
