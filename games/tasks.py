"""Thin Celery tasks: they take a table id and the version they were queued for, call one
service, and do nothing when the table has moved on (docs/architecture.md, convention 7)."""

from __future__ import annotations

import threading
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games import scheduling
from games.models import Table
from games.services import account_events, automation, idempotency, lobby, webhooks

SWEEP_SECONDS = 5.0
_eager = threading.local()


@shared_task(ignore_result=True)
def enforce_deadline(table_id: str, version: int) -> bool:
    return automation.table_enforce_deadline(table_id=table_id, version=version)


@shared_task(ignore_result=True)
def bot_move(table_id: str, version: int) -> None:
    """The table's bot move at `version`, and with `bot_delay` 0 the bot turns right after it,
    a bounded run of them (automation.table_bot_run). In eager mode (tests,
    CELERY_TASK_ALWAYS_EAGER) the tasks queued meanwhile (a run's rest, a delayed bot's move)
    are run by a loop here instead of recursing through on-commit hooks."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        automation.table_bot_run(table_id=table_id, version=version)
        return
    if getattr(_eager, "running", False):
        _eager.pending = (table_id, version)
        return
    _eager.running = True
    try:
        job = (table_id, version)
        while job is not None:
            _eager.pending = None
            automation.table_bot_run(table_id=job[0], version=job[1])
            job = _eager.pending
    finally:
        _eager.running = False
        _eager.pending = None


@shared_task(ignore_result=True)
def sweep() -> int:
    """Beat, every few seconds: enforce every overdue deadline whose task was lost, and move
    bots whose task was lost (a bot seat waiting well past its delay)."""
    now = timezone.now()
    done = 0
    for table_id, version in Table.objects.filter(status=Table.Status.ACTIVE, deadline__lte=now).values_list("pk", "version"):
        done += bool(automation.table_enforce_deadline(table_id=table_id, version=version))
    stale = now - timedelta(seconds=SWEEP_SECONDS)
    waiting = Table.objects.filter(Q(status=Table.Status.ACTIVE) & Q(bot_pending=True) & Q(updated_at__lte=stale))
    for table_id, version in waiting.values_list("pk", "version"):
        done += bool(automation.table_bot_step(table_id=table_id, version=version))
    for delivery_id in webhooks.deliveries_due(now):
        scheduling.queue_webhook(delivery_id)
    for table_id in lobby.overdue_fills(now - timedelta(seconds=SWEEP_SECONDS)):
        done += bool(lobby.quick_play_fill(table_id=table_id))
    return done


@shared_task(ignore_result=True)
def purge_idempotency_keys() -> int:
    """Beat, hourly: idempotency records are kept 24 hours."""
    return idempotency.idempotency_purge()


@shared_task(ignore_result=True)
def purge_account_events() -> int:
    """Beat, hourly: account stream events are kept 24 hours (games.services.account_events)."""
    return account_events.prune()


@shared_task(ignore_result=True)
def timeout_warning(table_id: str, version: int) -> int:
    return webhooks.record_timeout_warning(table_id=table_id, version=version)


@shared_task(ignore_result=True)
def quick_play_fill(table_id: str) -> bool:
    return lobby.quick_play_fill(table_id=table_id)


@shared_task(ignore_result=True)
def deliver_webhook(delivery_id: str) -> str | None:
    return webhooks.delivery_attempt(delivery_id=delivery_id)


@shared_task(ignore_result=True, acks_late=True)
def relay(name: str, args: list, when: str) -> None:
    """One hop of a wait longer than the broker may hold a message (games/scheduling.py):
    acknowledged after it has sent the next message, so on Redis a worker killed mid-hop leaves
    the hop to the visibility timeout instead of losing it."""
    scheduling.relay(name, args, when)
