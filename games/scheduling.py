"""Queueing follow-up work: the one place services hand work to Celery. Tasks are looked up by
name in the Celery app's registry, so services never import `games.tasks` (which imports the
services): the dependency runs one way, tasks -> services."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.utils import timezone

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


# Long waits are relayed. A worker takes a task with a countdown or an eta from the broker at
# once and holds it, unacknowledged, until it runs; Redis hands a message held unacknowledged
# longer than its visibility timeout (BROKER_VISIBILITY_TIMEOUT, an hour) to a worker again,
# and again every hour after. A turn's deadline may be a week away (MAX_TURN_TIMEOUT), its
# warning days, a webhook retry 7.5 hours, a quick-play fill an hour: each would reach the
# workers, and run, once per hour waited (idempotent, but every copy is held and run). So no message waits longer than RELAY_FRACTION of the timeout: a longer wait is sent as
# a `relay` task that, when it runs, sends the next hop or, once the time left fits, the task
# itself with its exact eta.
#
# Rather than raising the visibility timeout past the longest wait (a week): the timeout is also
# how long the tasks a killed worker held stay invisible before Redis gives them to another
# worker. At an hour, a crash delays a timeout warning (which the sweep does not make up for)
# by an hour at most, not a week; deadlines, bot moves, webhook retries and fills are caught by
# the sweep either way. A relay hop keeps that promise too: it is acknowledged late, after it
# has sent the next message, so a worker dying during a hop leaves the hop to the visibility
# timeout, not lost. (A death between the send and the acknowledgement may send the next
# message twice: every task here is idempotent — it carries the version it was queued for, or a
# claim, or a dedupe key — so a deadline is still enforced once.) Half the timeout leaves the
# other half for a busy worker to reach a due hop before Redis hands it out again.
RELAY_FRACTION = 0.5


def longest_wait() -> float:
    """Seconds: the longest countdown or eta sent to the broker."""
    return settings.BROKER_VISIBILITY_TIMEOUT * RELAY_FRACTION


def _send_later(name: str, args: tuple, *, eta: datetime | None = None, countdown: float = 0) -> None:
    """Task `name` at `eta` (or after `countdown` seconds), relayed when that is further away
    than longest_wait(). In eager mode waits are ignored, and so is relaying."""
    hop = longest_wait()
    wait = countdown if eta is None else (eta - timezone.now()).total_seconds()
    if wait > hop and not settings.CELERY_TASK_ALWAYS_EAGER:
        when = eta if eta is not None else timezone.now() + timedelta(seconds=countdown)
        _send("relay", (name, list(args), when.isoformat()), countdown=hop)
    elif eta is not None:
        _send(name, args, eta=eta)
    else:
        _send(name, args, countdown=max(countdown, 0))


# The tasks sent with a wait, which a relay hop may send on.
RELAYED = frozenset({"bot_move", "enforce_deadline", "timeout_warning", "quick_play_fill", "deliver_webhook"})


def relay(name: str, args: list, when: str) -> None:
    """A relay hop (games.tasks.relay): the next hop, or task `name` itself at `when`."""
    if name not in RELAYED:
        raise ValueError(f"not a task that is relayed: {name!r}")
    _send_later(name, tuple(args), eta=datetime.fromisoformat(when))


def queue_bot_move(table_id: str, version: int, delay: float) -> None:
    _send_later("bot_move", (table_id, version), countdown=max(delay, 0))


def queue_deadline(table_id: str, version: int, deadline: datetime) -> None:
    # Eager mode would run the timeout at once instead of at the deadline: there the sweep
    # and the lazy check on reads enforce deadlines.
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send_later("enforce_deadline", (table_id, version), eta=deadline)


def queue_timeout_warning(table_id: str, version: int, deadline: datetime, turn_timeout: int) -> None:
    """`timeout_warning` webhooks when a quarter of the decision's time is left."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send_later("timeout_warning", (table_id, version), eta=deadline - timedelta(seconds=turn_timeout / 4))


def queue_quick_play_fill(table_id: str, when: datetime) -> None:
    """Bots take a quick-play table's free seats at `when` (the sweep catches a lost task; in
    eager mode it is left to the sweep, as deadlines are)."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send_later("quick_play_fill", (table_id,), eta=when)


def queue_webhook(delivery_id: str, delay: float = 0) -> None:
    # Eager mode would run a retry at once, not after its backoff: there retries are left to
    # the sweep (tests drive them with the clock).
    if delay and settings.CELERY_TASK_ALWAYS_EAGER:
        return
    _send_later("deliver_webhook", (delivery_id,), countdown=max(delay, 0))

