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
    "purge-account-events": {"task": "games.tasks.purge_account_events", "schedule": 3600.0},
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


# A worker's tasks are short and many (a bot run, a deadline, a webhook). Celery's Django fixup
# closes every database connection before and after each task (unless CELERY_DB_REUSE_MAX),
# whatever CONN_MAX_AGE says: on PostgreSQL a server process forked and its caches filled for
# every task, several times the CPU of the task's own statements (a connection a bot move, in
# `make bench`'s bots pair). So a worker keeps its connection across tasks and treats them as
# Django treats requests: after each task, a connection that broke or outlived its
# CONN_MAX_AGE is closed (close_old_connections), and the next task opens a fresh one. Unless
# DB_CONN_MAX_AGE says otherwise, a worker's connection lives WORKER_CONN_MAX_AGE seconds.
WORKER_CONN_MAX_AGE = 60
# The fixup's own recycling stays as a backstop: every this many tasks it closes them all.
WORKER_DB_REUSE_MAX = 1000


def _keep_database_connections() -> None:
    from django.db import connections

    if "DB_CONN_MAX_AGE" not in os.environ:
        for alias in connections:
            db = connections.settings[alias]
            if not db.get("OPTIONS", {}).get("pool"):
                db["CONN_MAX_AGE"] = WORKER_CONN_MAX_AGE
    for fixup in getattr(app, "_fixups", None) or ():
        worker_fixup = getattr(fixup, "worker_fixup", None)
        if worker_fixup is not None and not worker_fixup.db_reuse_max:
            worker_fixup.db_reuse_max = WORKER_DB_REUSE_MAX


@signals.task_prerun.connect
@signals.task_postrun.connect
def _close_old_connections(sender=None, **_):
    """Around each task (not an eager call, which runs inside its caller's request or test):
    a connection that broke or aged out is closed, as Django does around each request."""
    if sender is not None and getattr(sender.request, "is_eager", False):
        return
    if not _in_worker:
        return
    from django.db import close_old_connections

    close_old_connections()


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
