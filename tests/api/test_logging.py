"""Production logs: JSON lines carrying the id of the request they belong to, and in the Celery
worker the name and id of the task (config/task_logs.py)."""

import json
import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from config.logs import JsonFormatter, RequestIdFilter, request_id_var
from config.task_logs import TaskFilter

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_every_response_carries_a_request_id_and_echoes_a_safe_one(anon):
    made = anon.get("/api/v1/games")["X-Request-ID"]
    assert len(made) == 32
    assert anon.get("/api/v1/games", HTTP_X_REQUEST_ID="client-42")["X-Request-ID"] == "client-42"
    # An unsafe id (it would end up in log lines) is replaced.
    assert anon.get("/api/v1/games", HTTP_X_REQUEST_ID="bad id\n{}")["X-Request-ID"] != "bad id\n{}"


def test_log_lines_are_json_with_the_request_id():
    record = logging.LogRecord("games", logging.WARNING, __file__, 1, "table %s stuck", ("t1",), None)
    token = request_id_var.set("req-7")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id_var.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "req-7" and line["message"] == "table t1 stuck" and line["level"] == "WARNING"


class Lines(logging.Handler):
    """A handler that keeps each record formatted as production does (config/settings/production.py)."""

    def __init__(self, formatter: logging.Formatter):
        super().__init__()
        self.lines: list[str] = []
        self.addFilter(RequestIdFilter())
        self.addFilter(TaskFilter())
        self.setFormatter(formatter)

    def emit(self, record):
        self.lines.append(self.format(record))


@pytest.mark.django_db
def test_a_line_logged_inside_a_task_names_the_task_and_one_outside_does_not(monkeypatch):
    from games import tasks

    json_lines, text_lines = Lines(JsonFormatter()), Lines(logging.Formatter(settings.LOGGING["formatters"]["text"]["format"]))
    logger = logging.getLogger("games.services.idempotency")
    for handler in (json_lines, text_lines):
        logger.addHandler(handler)
    monkeypatch.setattr(tasks.idempotency, "idempotency_purge", lambda: logger.warning("purging %d keys", 3) or 3)
    try:
        run = tasks.purge_idempotency_keys.delay()
        logger.warning("outside any task")
    finally:
        for handler in (json_lines, text_lines):
            logger.removeHandler(handler)
    inside, outside = (json.loads(line) for line in json_lines.lines)
    assert inside["message"] == "purging 3 keys"
    assert (inside["task_name"], inside["task_id"]) == ("games.tasks.purge_idempotency_keys", run.id)
    assert set(outside) == {"time", "level", "logger", "message", "request_id"}
    assert text_lines.lines[0].endswith(f"] games.tasks.purge_idempotency_keys[{run.id}]: purging 3 keys")
    assert text_lines.lines[1].endswith("] outside any task")


def test_the_workers_line_for_a_received_task_names_it_from_its_arguments():
    """The worker's main process logs a task's receipt outside the task, with the task in the
    arguments of the line (celery.worker.strategy)."""
    context = {"id": "1c0ffee0", "name": "games.tasks.sweep", "args": "()", "kwargs": "{}", "eta": None}
    record = logging.LogRecord("celery.worker.strategy", logging.INFO, __file__, 1, "Task %(name)s[%(id)s] received",
                               (context,), None)
    TaskFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "Task games.tasks.sweep[1c0ffee0] received"
    assert (line["task_name"], line["task_id"]) == ("games.tasks.sweep", "1c0ffee0")
    # Another logger's dict arguments are not taken for a task.
    record = logging.LogRecord("games", logging.INFO, __file__, 1, "%(id)s", ({"id": "t1", "name": "x"},), None)
    TaskFilter().filter(record)
    assert "task_id" not in json.loads(JsonFormatter().format(record))


CELERY_PROCESS = """
import logging, django
django.setup()
from config.celery import app
from celery.utils.log import get_multiprocessing_logger
app.log.setup(loglevel="INFO")  # what `celery worker` and `celery beat` call first
logging.getLogger("celery.worker.consumer").info("Connected to the broker")
get_multiprocessing_logger().error("Process %r pid:%r exited with %r", "ForkPoolWorker-1", 7, "signal 9")
logging.getLogger("celery.beat").debug("below the level")
"""


def test_a_celery_process_in_production_logs_json_lines_through_djangos_logging():
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.production", "SECRET_KEY": secrets.token_urlsafe(50)}
    environment.pop("METRICS_ENABLED", None)
    done = subprocess.run([sys.executable, "-c", CELERY_PROCESS], cwd=ROOT, env=environment, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [(line["logger"], line["level"]) for line in lines] == [("celery.worker.consumer", "INFO"),
                                                                   ("multiprocessing", "ERROR")]
    assert lines[1]["message"] == "Process 'ForkPoolWorker-1' pid:7 exited with 'signal 9'"
