"""Moves the server makes by itself: timeout moves at a decision's deadline and bot moves
for bot-controlled seats. Both go through `apply_move` like a human's move, under the table
lock, and do nothing when the table has moved on since they were queued (docs/architecture.md,
convention 7)."""

from __future__ import annotations

import json
import random
import secrets
import time
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from config.errors import Conflict, Forbidden, Invalid, NotFound
from games import bots, scheduling
from games.models import Move, Table

from . import follow_ups, webhooks
from .common import MoveWrites, apply_move, bump, engine_for, lock_table, publish_change, seat_rows
from .tables import free_seat

AWAY_AFTER_TIMEOUTS = 2


def table_enforce_deadline(*, table_id, version: int | None = None) -> bool:
    """Apply the timeout move of every seat that must act once the deadline has passed.
    Two timeouts in a row mark a human seat away (api.md: time, bots and absence)."""
    with transaction.atomic():
        table = lock_table(table_id)
        if version is not None and table.version != version:
            return False
        if table.status != Table.Status.ACTIVE or table.deadline is None or table.deadline > timezone.now():
            return False
        engine = engine_for(table)
        rows = seat_rows(table)
        acted = False
        for seat in engine.to_act(table.state):
            if table.status != Table.Status.ACTIVE or seat not in engine.to_act(table.state):
                continue
            move = engine.timeout_move(table.state, seat, rng=secrets.SystemRandom())
            apply_move(table, seat=seat, move=move, by=Move.By.SERVER)
            acted = True
            row = rows[seat]
            if not row.bot_controlled:
                row.timeouts_in_row += 1
                row.away = row.timeouts_in_row >= AWAY_AFTER_TIMEOUTS
                row.save(update_fields=["timeouts_in_row", "away"])
                if row.away:
                    webhooks.record_seat_away(table, row, seat=seat, reason="timeouts")
        if acted:
            # The away flags changed after the last move's version: publish them too (a bot
            # now plays an away seat that must act).
            publish_change(table)
        return acted


def table_clock(table_id) -> tuple[int, object] | None:
    """The table's (version, deadline) (None: no such table), after enforcing an overdue
    deadline: reads enforce deadlines lazily, so a table never stays stuck while the worker or
    broker is down. One indexed query when nothing is overdue."""
    try:
        row = Table.objects.filter(pk=table_id).values_list("version", "deadline").first()
    except (ValueError, ValidationError):
        return None
    if row is None:
        return None
    version, deadline = row
    if deadline is not None and deadline <= timezone.now():
        table_enforce_deadline(table_id=table_id, version=version)
        return Table.objects.filter(pk=table_id).values_list("version", "deadline").first()
    return version, deadline


def table_versions(table_ids: list[str]) -> dict[str, int]:
    """The versions of these tables (deleted ones absent), in one query: the waiting room's
    batched re-check of the tables it waits on (games.edge.waiting)."""
    return {str(pk): v for pk, v in Table.objects.filter(pk__in=table_ids).values_list("pk", "version")}


def table_version(table_id) -> int | None:
    """The table's version (None: no such table), after enforcing an overdue deadline."""
    clock = table_clock(table_id)
    return None if clock is None else clock[0]


# A bot whose decision went stale (the table changed while it thought) decides again this
# many times at most, then gives up quietly: the sweep retries a bot seat left waiting.
BOT_TRIES = 3

# A bot run (`table_bot_run`, the `bot_move` task) plays a table's consecutive bot turns
# without a delay, each its own move, for at most this many moves or seconds (checked after
# each move), then queues the rest as a new task behind the other tables' work: one table's
# bots never hold a worker for long.
BOT_RUN_MOVES = 8
BOT_RUN_SECONDS = 0.25


@dataclass
class _Decision:
    version: int  # the version the bot read
    seat: int
    move: dict
    log: list[dict] | None  # the table's events at that version, when the bot remembers


@dataclass
class _Moved:
    """A bot move as it committed: the locked table (its state, seats and bot control as of
    its new version) and the table's events up to it (when the bot remembers), for the run's
    next decision, which then reads nothing."""

    table: Table
    log: list[dict] | None
    moves: int = 1  # the bot moves of its transaction (a chain of quick bots: _bot_step)


def _logged_events(table: Table) -> list[dict]:
    return [e for events in Move.objects.filter(table=table).order_by("seq").values_list("events", flat=True)
            for e in events]


def _bot_decision(table_id, version: int | None, known: _Moved | None = None) -> _Decision | None:
    """Read the table WITHOUT a lock and decide, or None when no bot must act (or the table
    moved on from `version`). A hard bot searches here, so no search ever runs while the table
    row (or SQLite's write lock) is held. `known`: the run's last move, whose committed table
    is the one at `version`, so nothing is read again."""
    if known is not None and version is not None and known.table.version == version:
        table = known.table
    else:
        known = None
        table = Table.objects.filter(pk=table_id).first()
    if table is None or table.status != Table.Status.ACTIVE or table.state is None:
        return None
    if version is not None and table.version != version:
        return None
    turn = _bot_turn(table)
    if turn is None:
        return None
    seat, level = turn
    engine = engine_for(table)
    # The bot sees only its seat's view, and (the bots that remember) the table's events as
    # its seat may see them: what a player there could read in the move log.
    log = history = None
    if bots.wants_history(table.game, level):
        log = known.log if known is not None and known.log is not None else _logged_events(table)
        history = [engine.view_event(e, seat) for e in log]
    move = bots.choose_move(table.game, level, engine.view(table.state, seat), random.Random(secrets.randbits(64)),
                            history=history)
    return _Decision(table.version, seat, move, log)


# `_quick_step`'s answer when the bot that must act searches: decide it off the lock.
_SEARCH = object()


def _bot_step(table_id, version: int | None, known: _Moved | None = None, *, more: int = 0,
              until: float | None = None) -> _Moved | None:
    """A bot move, and then, in the same transaction, up to `more` moves of the bots that
    follow it with a quick rule (`bots.decides_at_once`: random, easy) and no delay, while
    time.monotonic() < `until` (a chain): each still its own engine step, version, log entry
    and change under the lock the first took; their rows are written once, at the chain's end
    (`MoveWrites`). A quick bot is decided under the lock, with nothing read before it; a
    search (a hard bot) never is: it is decided off the lock on the table as read (or as the
    run's last move left it) and applied only if the table is still at that version."""
    if known is None:
        moved = _quick_step(table_id, version, more, until)
        if moved is not _SEARCH:
            return moved
    for _ in range(BOT_TRIES):
        decision = _bot_decision(table_id, version, known)
        if decision is None:
            return None
        with transaction.atomic():
            table = lock_table(table_id, with_seats=True)
            if table.version == decision.version:
                # Same version: same state, same seats and the same bot control as decided on.
                # The log as the table's events stand (JSON), extended for the run's next bot.
                log = None if decision.log is None else list(decision.log)
                return _play(table, decision.seat, decision.move, more, until, log)
        # The table changed while the bot thought (a human's move, a player back, another
        # worker's bot move): decide again on what it is now, if a bot still must act.
        version = known = None
    return None


def _quick_step(table_id, version: int | None, more: int, until: float | None):
    """The first move of a task when its bot decides by a quick rule: lock, decide, apply and
    chain, with no read before the lock. None when no bot must act (or the table moved on from
    `version`); _SEARCH when the bot that must act searches (nothing written)."""
    with transaction.atomic():
        try:
            table = lock_table(table_id, with_seats=True)
        except NotFound:
            return None  # deleted since the task was queued
        if table.status != Table.Status.ACTIVE or table.state is None:
            return None
        if version is not None and table.version != version:
            return None
        turn = _bot_turn(table)
        if turn is None:
            return None
        seat, level = turn
        if not bots.decides_at_once(table.game, level):
            return _SEARCH
        return _play(table, seat, _decide(table, seat, level), more, until, None)


def _play(table: Table, seat: int, move: dict, more: int, until: float | None, log: list[dict] | None) -> _Moved:
    """On the locked table: the bot's move, the quick bots' chained after it (`_chain`), their
    rows written once; `log` (a remembering bot's) gets their events."""
    writes = MoveWrites()
    events, _ = apply_move(table, seat=seat, move=move, by=Move.By.BOT, writes=writes)
    if log is not None:
        log.extend(json.loads(json.dumps(events)))
    moved = 1 + _chain(table, writes, more, until, log)
    writes.flush(table)
    return _Moved(table, log, moved)


def _bot_turn(table: Table, *, alone: bool = False) -> tuple[int, str] | None:
    """(seat, level) of the first bot-controlled seat that must act on the table, or None
    (also, with `alone`, when more than one seat must act)."""
    to_act = engine_for(table).to_act(table.state)
    if alone and len(to_act) != 1:
        return None
    rows = seat_rows(table)
    seat = next((s for s in to_act if rows[s].bot_controlled), None)
    return None if seat is None else (seat, rows[seat].bot_level or "easy")


def _decide(table: Table, seat: int, level: str) -> dict:
    """A quick bot's move from its seat's view alone (no history: `decides_at_once`)."""
    view = engine_for(table).view(table.state, seat)
    return bots.choose_move(table.game, level, view, random.Random(secrets.randbits(64)))


def _chain(table: Table, writes: MoveWrites, more: int, until: float | None, log: list[dict] | None) -> int:
    """On the locked table, just changed by a bot move: the moves of the quick bots that follow
    at once (no `bot_delay`; one seat to act, a bot with a quick rule), at most `more`, while
    there is time. Returns how many were made; `log` (a remembering bot's) gets their events."""
    moved = 0
    while moved < more and (until is None or time.monotonic() < until):
        if table.status != Table.Status.ACTIVE or table.bot_delay > 0:
            break
        turn = _bot_turn(table, alone=True)
        if turn is None or not bots.decides_at_once(table.game, turn[1]):
            break
        events, _ = apply_move(table, seat=turn[0], move=_decide(table, *turn), by=Move.By.BOT, writes=writes)
        if log is not None:
            log.extend(json.loads(json.dumps(events)))
        moved += 1
    return moved


def table_bot_step(*, table_id, version: int | None = None) -> bool:
    """One move for the first bot-controlled seat that must act, chosen from that seat's
    view only: a quick rule decided under the lock; a search decided off the lock, then
    submitted through the command path if the table is still at the version the bot read (a
    stale decision is made again, BOT_TRIES)."""
    return _bot_step(table_id, version) is not None


def table_bot_run(*, table_id, version: int | None = None) -> int:
    """The bot task: the table's bot moves from `version` on, for as long as a bot must act
    with no delay after the last one, up to BOT_RUN_MOVES moves or BOT_RUN_SECONDS. Each step
    (`_bot_step`) is a move applied under the lock only if the table is still at the version the
    last move left (so a duplicate or late task plays nothing), with the quick bots that follow
    it chained in its transaction; every move keeps its own version and log entry, and the run
    wakes the waiters once, at its end (`follow_ups.bot_run`, which also takes the follow-up of
    each move the run plays on from instead of queueing a task). Where the run stops
    at its bound, the turn left is queued as a new task; with `bot_delay` > 0 every move's own
    commit queues the next, after its delay. Returns the moves made."""
    started = time.monotonic()
    moved = 0
    known = None
    with follow_ups.bot_run(table_id) as run:
        while True:
            known = _bot_step(table_id, version, known, more=BOT_RUN_MOVES - moved - 1,
                              until=started + BOT_RUN_SECONDS)
            if known is None:
                break
            moved += known.moves
            version = run.take()
            if version is None:
                break
            if moved >= BOT_RUN_MOVES or time.monotonic() - started >= BOT_RUN_SECONDS:
                run.next = version
                break
    # The turn the run took and leaves (its bound; or a change made in its thread that was not
    # its move) is queued once the run is over, so as a task of its own (in eager mode, run by
    # tasks.bot_move's loop).
    if run.next is not None:
        scheduling.queue_bot_move(run.table_id, run.next, 0)
    return moved


def table_back(*, table_id, user) -> Table:
    """An away player takes their seat back from the bot."""
    with transaction.atomic():
        table = lock_table(table_id)
        row = table.seats.filter(user=user, is_bot=False).first()
        if row is None:
            raise Forbidden("you do not sit at this table")
        if row.left:
            raise Conflict("you left this table")
        if not row.away:
            raise Conflict("you are not away")
        row.away = False
        row.timeouts_in_row = 0
        row.save(update_fields=["away", "timeouts_in_row"])
        bump(table, update_fields=[])
        return table


def table_add_bot(*, table_id, user, level: str, seat: int | None = None) -> Table:
    """Host only, before the start: a bot of `level` takes a free seat."""
    from accounts.services import bot_user_get_or_create

    if level not in bots.LEVELS:
        raise Invalid("unknown bot level", {"fields": {"level": [f"must be one of {list(bots.LEVELS)}"]}})
    with transaction.atomic():
        table = lock_table(table_id)
        if table.host_id != user.pk:
            raise Forbidden("only the host may add bots")
        if table.status != Table.Status.OPEN:
            raise Conflict("the table has already started")
        row = free_seat(table, seat)
        row.user = bot_user_get_or_create(level=level)
        row.is_bot = True
        row.bot_level = level
        row.save(update_fields=["user", "is_bot", "bot_level"])
        bump(table, update_fields=[])
        return table
