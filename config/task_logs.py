"""Log lines of the Celery worker and beat: through Django's LOGGING like the web's (JSON lines in
production), each naming the task it belongs to where there is one.

Celery would otherwise replace the root logger's handlers with its own plain-text ones
(`worker_hijack_root_logger`); config/celery.py answers its `setup_logging` signal with
`configure`, which makes Celery leave logging alone."""

from __future__ import annotations

import logging
import logging.config

from celery._state import get_current_task
from celery.utils.log import get_multiprocessing_logger


class TaskFilter(logging.Filter):
    """Sets `task_name` and `task_id` (None outside a task), and `task`, the text layout's
    "name[id]: " prefix for the project's own lines in a task (Celery's name the task in their
    message already). Inside a task they come from the task being run, as Celery's own
    TaskFormatter finds them; the worker's main process logs each task's receipt with the
    task in its arguments, so they come from there."""

    def filter(self, record: logging.LogRecord) -> bool:
        name = task_id = None
        celery = record.name.startswith("celery")
        task = get_current_task()
        if task is not None and task.request.id:
            name, task_id = task.name, task.request.id
        elif celery and isinstance(record.args, dict):
            name, task_id = record.args.get("name"), record.args.get("id")
        record.task_name, record.task_id = name, task_id
        record.task = f"{name}[{task_id}]: " if task_id and not celery else ""
        return True


def configure(loglevel: int | str | None = None) -> None:
    """Django's LOGGING for a worker or beat process, at Celery's `--loglevel`."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    root = logging.getLogger()
    if loglevel:
        root.setLevel(loglevel)
    # The pool's own logger (billiard's: "a pool process died") does not propagate; as Celery
    # would, it gets the root's handlers, for its errors only.
    pool = get_multiprocessing_logger()
    if pool is not None:
        pool.handlers = list(root.handlers)
        pool.setLevel(logging.ERROR)
