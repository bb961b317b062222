"""The platform's own subscribers to the change hook (`changes`): what every table change
causes. Installed once by `common`; later features add theirs the same way."""

from __future__ import annotations

import contextlib
import contextvars
import copy

from games import notify, scheduling
from games.engine import registry

from . import changes, ratings, webhooks

_installed = False


def record_webhooks(change: changes.Change) -> None:
    """In the change's transaction: the events it causes (your_turn, start, end) for its players'
    account streams and the webhook deliveries of those with webhooks, comparing the table
    before and after (before: the previous change of the same transaction, else the table as it
    was locked)."""
    table = change.extra["table"]
    after = webhooks.Snapshot.of(table.status, change.to_act, change.extra["players"])
    before = getattr(table, "_before_change", None)
    locked = getattr(table, "_locked", None)
    if before is None and locked is not None:
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
    """On commit: long-polls and event streams waiting on the table (any process). Within a bot
    run, a move after which the run plays on (a bot acts next, no delay) wakes no one: the run
    wakes the waiters once, with its last change, when it ends (`bot_run`). A waiter is woken
    to read the latest state, which it would be an instant later anyway; each woken waiter
    costs a read and an answer, and a client waiting for its turn would be woken by every bot
    move before it (three reads a human move at a table of one human and three bots). The
    move log and the SSE streams lose nothing (a stream sends the latest state, coalescing
    changes that come faster than it reads: docs/api.md)."""
    run = _run_of(change)
    if run is not None:
        if _run_plays_on(change):
            run.wake = (change.version, _snapshot(change))
            return
        run.wake = None  # this wake-up is later than the one held
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


class BotRun:
    """A bot task playing a table's consecutive bot turns (automation.table_bot_run): the
    follow-up of each of its moves that leaves a bot to act at once (`bot_delay` 0) is the run's
    to play, not a new task's. `next`: the version the last such change left, once committed."""

    def __init__(self, table_id) -> None:
        self.table_id = str(table_id)
        self.next: int | None = None
        # The wake-up of the run's last committed change, held until the run ends (wake_waiters).
        self.wake: tuple[int, object] | None = None

    def take(self) -> int | None:
        """The version the run plays on from (None: its last move left no bot turn to it)."""
        version, self.next = self.next, None
        return version


# The run of the current task (or eager call), if any: set by `bot_run`, read on commit of the
# run's own moves, which happen in the same thread and context.
_bot_run: contextvars.ContextVar[BotRun | None] = contextvars.ContextVar("bot_run", default=None)


@contextlib.contextmanager
def bot_run(table_id):
    """While the block runs, committed changes of this table that leave a bot to act with no
    delay are handed to the run (`BotRun.take`) instead of queueing a `bot_move` task."""
    run = BotRun(table_id)
    token = _bot_run.set(run)
    try:
        yield run
    finally:
        _bot_run.reset(token)
        if run.wake is not None:
            # The run ends (its bound, a human's turn, an error): one wake-up for its moves.
            version, snapshot = run.wake
            run.wake = None
            notify.table_changed(run.table_id, version, snapshot=snapshot)


def _run_of(change: changes.Change) -> BotRun | None:
    """The bot run of `change`'s table running in this thread, if any."""
    run = _bot_run.get()
    return run if run is not None and run.table_id == change.table_id else None


def _run_plays_on(change: changes.Change) -> bool:
    """Whether the run plays the turn `change` leaves: a bot's, without a delay (with
    `bot_delay` > 0 each move stays a task queued after it)."""
    return change.bot_to_act and change.bot_delay <= 0


def _taken_by_run(change: changes.Change) -> bool:
    """Whether the running bot run of this table plays the bot turn `change` leaves."""
    run = _run_of(change)
    if run is None:
        return False
    if not _run_plays_on(change):
        # A later change of the run's transaction (a chain of quick bots) that leaves no bot
        # turn to the run: the turns the earlier ones left were played in it.
        run.next = None
        return False
    run.next = change.version
    return True


def queue_follow_ups(change: changes.Change) -> None:
    """On commit: the bot move, the decision's deadline and its warning. A bot turn the running
    bot run takes over queues no task; nor does its deadline when only bots act: the run plays
    it at once, and should the run die first the sweep moves the bot (`bot_pending`) and
    enforces the stored deadline."""
    taken = _taken_by_run(change)
    if change.bot_to_act and not taken:
        scheduling.queue_bot_move(change.table_id, change.version, change.bot_delay)
    if taken and not change.human_to_act:
        return
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
