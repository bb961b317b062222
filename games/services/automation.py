"""Moves the server makes by itself: timeout moves at a decision's deadline and bot moves
for bot-controlled seats. Both go through `apply_move` like a human's move, under the table
lock, and do nothing when the table has moved on since they were queued (docs/architecture.md,
convention 7)."""

from __future__ import annotations

import random
import secrets

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from config.errors import Conflict, Forbidden, Invalid
from games import bots
from games.models import Move, Table

from . import webhooks
from .common import apply_move, bump, engine_for, lock_table, publish_change, seat_rows
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


def _bot_decision(table_id, version: int | None) -> tuple[int, int, dict] | None:
    """Read the table WITHOUT a lock and decide: (version read, seat, move), or None when no
    bot must act (or the table moved on from `version`). A hard bot searches here, so no
    search ever runs while the table row (or SQLite's write lock) is held."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.status != Table.Status.ACTIVE or table.state is None:
        return None
    if version is not None and table.version != version:
        return None
    engine = engine_for(table)
    rows = seat_rows(table)
    seat = next((s for s in engine.to_act(table.state) if rows[s].bot_controlled), None)
    if seat is None:
        return None
    level = rows[seat].bot_level or "easy"
    # The bot sees only its seat's view, and (the bots that remember) the table's events as
    # its seat may see them: what a player there could read in the move log.
    history = None
    if bots.wants_history(table.game, level):
        history = [engine.view_event(e, seat)
                   for events in Move.objects.filter(table=table).order_by("seq").values_list("events", flat=True)
                   for e in events]
    move = bots.choose_move(table.game, level, engine.view(table.state, seat), random.Random(secrets.randbits(64)),
                            history=history)
    return table.version, seat, move


def table_bot_step(*, table_id, version: int | None = None) -> bool:
    """One move for the first bot-controlled seat that must act, chosen from that seat's
    view only: decided off the lock, then submitted through the command path if the table
    is still at the version the bot read; a stale decision is made again (BOT_TRIES)."""
    for _ in range(BOT_TRIES):
        decision = _bot_decision(table_id, version)
        if decision is None:
            return False
        read_version, seat, move = decision
        with transaction.atomic():
            table = lock_table(table_id, with_seats=True)
            if table.version == read_version:
                # Same version: same state, same seats and the same bot control as decided on.
                apply_move(table, seat=seat, move=move, by=Move.By.BOT)
                return True
        # The table changed while the bot thought (a human's move, a player back, another
        # worker's bot move): decide again on what it is now, if a bot still must act.
        version = None
    return False


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
