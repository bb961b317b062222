"""A real Celery worker (with beat) in a child process, on the same database and broker as
the test: Redis when REDIS_URL is set (CI's second pass), else the embedded filesystem
broker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test` runs two workers, `--dist loadgroup`), every test here
    runs on the same worker: their Celery workers share the broker (its folder, or Redis), so
    two at once could take each other's tasks; each xdist worker has its own test database."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.xdist_group("integration"))


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
    """worker() starts a worker with beat and returns its Popen; all are stopped afterwards."""
    from config.celery import app

    # Read before the settings change: the app loads its configuration lazily from them.
    was_eager = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "VAR_DIR": str(tmp_path),
        "CELERY_BROKER_DIR": str(settings.CELERY_BROKER_DIR),
    }
    if db["ENGINE"].endswith("sqlite3"):
        env["SQLITE_PATH"] = str(db["NAME"])
        env.pop("DATABASE_URL", None)
    else:
        env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    app.control.purge()
    children: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        log_path = tmp_path / f"worker-{len(children)}.log"
        log = open(log_path, "wb")  # noqa: SIM115 - closed with the process
        child = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat", "--pool", "solo",
             "--loglevel", "INFO", "--schedule", str(tmp_path / f"beat-{len(children)}")],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            # Its own process group: `--beat` runs the scheduler in a child process, which a
            # signal to the worker alone would orphan.
            start_new_session=True,
        )
        child.log_path = log_path
        children.append(child)
        return child

    yield start
    for child in children:
        stop_group(child, signal.SIGTERM)
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            stop_group(child, signal.SIGKILL)
            child.wait()
        # The beat child may outlive a killed worker; nothing of the group may survive the test.
        stop_group(child, signal.SIGKILL)
    app.conf.task_always_eager = was_eager


def stop_group(child: subprocess.Popen, sig: int) -> None:
    """Signal the worker's whole process group (the worker and its beat)."""
    try:
        os.killpg(child.pid, sig)
    except ProcessLookupError:
        pass
