"""The worker's and beat's figures and log lines, from real processes (docs/operations.md,
"Metrics" and "Logs"): a task a worker runs is counted on the API's /metrics when they share a
directory (`make run`), and on the worker's own port otherwise (a container); in production
every line of the worker and of beat is JSON, naming the task it belongs to."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from games import tasks
from games.management.commands.serve import stop
from tests.integration.conftest import ROOT, eventually, free_port
from tests.scrape import value

pytestmark = pytest.mark.integration

TOKEN = "a-scrape-token-for-the-tests"
TASKS = "cardgames_celery_tasks_total"
PUBLISHED = "cardgames_celery_tasks_published_total"
PURGE, SWEEP = tasks.purge_idempotency_keys.name, tasks.sweep.name


def production_env(metrics_dir: Path, port: int) -> dict:
    """A production process with its own metrics directory and port, as in its container."""
    return {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "METRICS_ENABLED": "true",
        "METRICS_TOKEN": TOKEN,
        "METRICS_PORT": str(port),
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
    }


def get(url: str, token: str | None = None) -> tuple[int, dict, str]:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def scraped(port: int) -> str:
    """The figures on a worker's or beat's port, or "" while it does not answer yet."""
    try:
        status, _, text = get(f"http://127.0.0.1:{port}/metrics", TOKEN)
    except OSError:
        return ""
    return text if status == 200 else ""


def entries(log_path: Path) -> list[dict]:
    """Every complete line of a process's output, each parsed as JSON (a line that is not fails
    the test). Run as root, as tests may be, Celery first prints its warning against that,
    before any logging is set up; the image runs as an unprivileged user."""
    text = log_path.read_text(errors="replace")
    lines = text.splitlines()
    if not text.endswith("\n"):
        lines = lines[:-1]  # still being written
    if os.geteuid() == 0 and lines and "SecurityWarning" in lines[0]:
        lines = lines[next((i for i, line in enumerate(lines) if line.startswith("{")), len(lines)):]
    return [json.loads(line) for line in lines]


def test_in_production_the_worker_logs_json_lines_naming_their_task_and_serves_its_metrics_with_the_token(
        worker, tmp_path):
    port = free_port()
    child = worker(env=production_env(tmp_path / "worker-metrics", port), quiet=True)
    published = value(PUBLISHED, task=PURGE)
    result = tasks.purge_idempotency_keys.delay()
    assert value(PUBLISHED, task=PURGE) - published == 1  # counted where it is sent: here
    lines = eventually(lambda: (found := entries(child.log_path)) and any(
        e.get("task_id") == result.id and "succeeded" in e["message"] for e in found) and found)
    assert all({"time", "level", "logger", "message", "request_id"} <= set(entry) for entry in lines)
    ours = [entry for entry in lines if entry.get("task_id") == result.id]
    # Received by the main process (the task from the line's arguments), run inside the task.
    assert len(ours) == 2 and "received" in ours[0]["message"] and "succeeded" in ours[1]["message"]
    assert {entry["task_name"] for entry in ours} == {PURGE}
    assert not [entry for entry in lines if entry["level"] in ("ERROR", "CRITICAL")]

    status, headers, body = get(f"http://127.0.0.1:{port}/metrics")
    assert status == 401 and json.loads(body)["code"] == "not_authenticated" and "Bearer" in headers["WWW-Authenticate"]
    assert get(f"http://127.0.0.1:{port}/metrics", "wrong")[0] == 401
    assert get(f"http://127.0.0.1:{port}/elsewhere", TOKEN)[0] == 404
    assert value(TASKS, scraped(port), task=PURGE, outcome="success") == 1


def test_in_production_beat_logs_json_lines_and_counts_the_tasks_it_sends(settings, tmp_path):
    port = free_port()
    env = {**os.environ, **production_env(tmp_path / "beat-metrics", port), "VAR_DIR": str(tmp_path),
           "CELERY_BROKER_DIR": str(settings.CELERY_BROKER_DIR)}
    log_path = tmp_path / "beat.log"
    with open(log_path, "wb") as log:
        beat = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "--quiet", "beat", "--loglevel", "INFO",
             "--schedule", str(tmp_path / "beat-schedule")],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        eventually(lambda: value(PUBLISHED, scraped(port), task=SWEEP) >= 1, timeout=60)
        lines = entries(log_path)
    finally:
        stop([beat])
    assert any(entry["logger"] == "celery.beat" and "Sending due task" in entry["message"] for entry in lines)
    assert not [entry for entry in lines if entry["level"] in ("ERROR", "CRITICAL")]


def test_make_run_shows_the_workers_and_beats_figures_on_the_api_and_starts_counting_afresh(serve, tmp_path):
    folder = tmp_path / "metrics"
    left_over = "from config import metrics; metrics.task_published('games.tasks.left_over')"
    subprocess.run([sys.executable, "-c", left_over], cwd=ROOT, check=True,
                   env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)})
    assert any(folder.iterdir())
    served = serve(env={"PROMETHEUS_MULTIPROC_DIR": str(folder)})

    def figures() -> str:
        return get(f"http://127.0.0.1:{served.port}/metrics")[2]

    # Beat (a child of the worker) sends the sweep, the worker's pool runs it, uvicorn answers.
    text = eventually(lambda: (text := figures()) and value(TASKS, text, task=SWEEP, outcome="success") >= 1 and text,
                      timeout=60)
    assert value(PUBLISHED, text, task=SWEEP) >= 1
    assert "left_over" not in text
