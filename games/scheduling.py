"""Queueing follow-up work: the one place services hand work to Celery. Tasks are looked up by
name in the Celery app's registry, so services never import `games.tasks` (which imports the
services): the dependency runs one way, tasks -> services."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings


def _task(name: str):
    return current_app.tasks[f"games.tasks.{name}"]


def queue_bot_move(table_id: str, version: int, delay: float) -> None:
    _task("bot_move").apply_async((table_id, version), countdown=max(delay, 0))


def queue_deadline(table_id: str, version: int, deadline: datetime) -> None:
    # Eager mode would run the timeout at once instead of at the deadline: there the sweep
    # and the lazy check on reads enforce deadlines.
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _task("enforce_deadline").apply_async((table_id, version), eta=deadline)


def queue_timeout_warning(table_id: str, version: int, deadline: datetime, turn_timeout: int) -> None:
    """`timeout_warning` webhooks when a quarter of the decision's time is left."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _task("timeout_warning").apply_async((table_id, version), eta=deadline - timedelta(seconds=turn_timeout / 4))


def queue_quick_play_fill(table_id: str, when: datetime) -> None:
    """Bots take a quick-play table's free seats at `when` (the sweep catches a lost task; in
    eager mode it is left to the sweep, as deadlines are)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _task("quick_play_fill").apply_async((table_id,), eta=when)


def queue_webhook(delivery_id: str, delay: float = 0) -> None:
    # Eager mode would run a retry at once, not after its backoff: there retries are left to
    # the sweep (tests drive them with the clock).
    if delay and settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _task("deliver_webhook").apply_async((delivery_id,), countdown=max(delay, 0))
