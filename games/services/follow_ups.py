"""The platform's own subscribers to the change hook (`changes`): what every table change
causes. Installed once by `common`; later features add theirs the same way."""

from __future__ import annotations

import copy

from games import notify, scheduling
from games.engine import registry

from . import changes, ratings, webhooks

_installed = False


def record_webhooks(change: changes.Change) -> None:
    """In the change's transaction: the webhook deliveries it causes (your_turn, start, end),
    comparing the table before and after (before: the previous change of the same transaction,
    else the table as it was locked). Nothing to work out when none of its players has a webhook
    (the lock's read of the seats knows)."""
    table = change.extra["table"]
    after = webhooks.Snapshot.of(table.status, change.to_act, change.extra["players"])
    before = getattr(table, "_before_change", None)
    locked = getattr(table, "_locked", None)
    if before is None and locked is not None and getattr(table, "_webhook_users", None) != set():
        before = webhooks.Snapshot.of_locked(table.game, *locked)
    webhooks.record_change(table, change.extra["rows"], before=before, after=after, mover=change.extra["mover"])
    table._before_change = after


def rate_finished(change: changes.Change) -> None:
    """In the transaction that finishes a table: its players' ratings (once per table)."""
    result = change.extra.get("result")
    if result is None or not result.over:
        return
    table = change.extra["table"]
    teams = registry.get(table.game).teams(result.state)
    ratings.record_finished(
        table, rows=change.extra["rows"], places=[list(p) for p in result.finishing_order], teams=teams,
        matches=[[list(p) for p in places] for places in result.rating_matches],
    )


def wake_waiters(change: changes.Change) -> None:
    """On commit: long-polls and event streams waiting on the table (any process)."""
    notify.table_changed(change.table_id, change.version, snapshot=_snapshot(change))


def _snapshot(change: changes.Change):
    """The committed table with its seats and players, for this process's woken waiters: only a
    move's, whose seats (with their players) were read under the lock and not reassigned; a
    shallow copy, so later work on the request's object does not reach the waiters."""
    table = change.extra.get("table")
    if table is None or change.extra.get("result") is None or table.version != change.version:
        return None
    if "seats" not in getattr(table, "_prefetched_objects_cache", {}):
        return None
    return copy.copy(table)


def queue_follow_ups(change: changes.Change) -> None:
    """On commit: the bot move, the decision's deadline and its warning."""
    if change.bot_to_act:
        scheduling.queue_bot_move(change.table_id, change.version, change.bot_delay)
    if change.deadline is not None:
        scheduling.queue_deadline(change.table_id, change.version, change.deadline)
        if change.human_to_act:
            scheduling.queue_timeout_warning(change.table_id, change.version, change.deadline, change.turn_timeout)


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    changes.subscribe(record_webhooks, during=True)
    changes.subscribe(rate_finished, during=True)
    changes.subscribe(wake_waiters)
    changes.subscribe(queue_follow_ups)
