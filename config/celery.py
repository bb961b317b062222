"""The Celery app: `celery -A config worker --beat` from the project root, with the web
server's environment. Broker and results come from Django settings (CELERY_* names).

Its processes log through Django's LOGGING (config/task_logs.py) and count their tasks in
config/metrics.py; with METRICS_PORT, the worker and a standalone beat answer scrapes on it.
config.metrics is imported only inside the signal handlers: this module is imported with the
`config` package, before settings may have set up its environment."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("cardgames")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    "sweep-deadlines-and-bots": {"task": "games.tasks.sweep", "schedule": 5.0},
    "purge-idempotency-keys": {"task": "games.tasks.purge_idempotency_keys", "schedule": 3600.0},
}


@signals.setup_logging.connect
def _log_through_django(loglevel=None, **_):
    from config import task_logs

    task_logs.configure(loglevel)


@signals.task_prerun.connect
def _task_started(task_id=None, **_):
    from config import metrics

    metrics.task_started(task_id)


@signals.task_postrun.connect
def _task_finished(task_id=None, task=None, state=None, **_):
    from config import metrics

    metrics.task_finished(task_id, task.name, state)


@signals.after_task_publish.connect
def _task_published(sender=None, **_):
    from config import metrics

    metrics.task_published(sender)


# A worker started with --beat runs beat in a child process: the worker's port serves both.
_in_worker = False


@signals.worker_init.connect
def _worker_init(**_):
    global _in_worker
    _in_worker = True
    _keep_database_connections()


# A worker's tasks are short and many (a bot run, a deadline, a webhook): with Django's default
# of a connection per task (CONN_MAX_AGE 0), each task would open a PostgreSQL connection, a
# server process forked and its caches filled, several times the CPU of the task's own
# statements. So unless DB_CONN_MAX_AGE says otherwise, a worker process keeps its connection
# this long; Celery's Django fixup still closes one that broke or aged out after each task.
WORKER_CONN_MAX_AGE = 60


def _keep_database_connections() -> None:
    if "DB_CONN_MAX_AGE" in os.environ:
        return
    from django.db import connections

    for alias in connections:
        db = connections.settings[alias]
        if not db.get("OPTIONS", {}).get("pool"):
            db["CONN_MAX_AGE"] = WORKER_CONN_MAX_AGE


@signals.worker_ready.connect
def _worker_serves_metrics(**_):
    # Once the pool's processes are forked: they need not inherit the listening socket.
    _serve_metrics()


@signals.beat_init.connect
def _beat_serves_metrics(**_):
    if not _in_worker:
        _serve_metrics()


def _serve_metrics() -> None:
    from django.conf import settings

    if settings.METRICS_ENABLED and settings.METRICS_PORT:
        from config import metrics

        metrics.serve_in_background(settings.METRICS_PORT)
