"""Queueing follow-up work: the one place services hand work to Celery. Tasks are looked up by
name in the Celery app's registry, so services never import `games.tasks` (which imports the
services): the dependency runs one way, tasks -> services."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings

from config.outage import Breaker

# The broker may be down (Redis stopped): the change that queues the work has committed, so
# failing the request (a 500 for an applied move) would only make the client retry. The work is
# not lost: the beat's sweep (games.tasks.sweep) moves a bot left waiting, enforces an overdue
# deadline, retries a due webhook and fills an overdue quick-play table. Only a
# `timeout_warning` webhook queued while the broker is down is not sent.
_broker = Breaker("the task broker")


def _task(name: str):
    return current_app.tasks[f"games.tasks.{name}"]


def _send(name: str, args: tuple, **options) -> None:
    _broker.call(_task(name).apply_async, args, **options)


def queue_bot_move(table_id: str, version: int, delay: float) -> None:
    _send("bot_move", (table_id, version), countdown=max(delay, 0))


def queue_deadline(table_id: str, version: int, deadline: datetime) -> None:
    # Eager mode would run the timeout at once instead of at the deadline: there the sweep
    # and the lazy check on reads enforce deadlines.
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send("enforce_deadline", (table_id, version), eta=deadline)


def queue_timeout_warning(table_id: str, version: int, deadline: datetime, turn_timeout: int) -> None:
    """`timeout_warning` webhooks when a quarter of the decision's time is left."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send("timeout_warning", (table_id, version), eta=deadline - timedelta(seconds=turn_timeout / 4))


def queue_quick_play_fill(table_id: str, when: datetime) -> None:
    """Bots take a quick-play table's free seats at `when` (the sweep catches a lost task; in
    eager mode it is left to the sweep, as deadlines are)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send("quick_play_fill", (table_id,), eta=when)


def queue_webhook(delivery_id: str, delay: float = 0) -> None:
    # Eager mode would run a retry at once, not after its backoff: there retries are left to
    # the sweep (tests drive them with the clock).
    if delay and settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send("deliver_webhook", (delivery_id,), countdown=max(delay, 0))
