"""Shared steps of the table services: locking, engine error mapping, recording a change."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from config.errors import Conflict, Forbidden, IllegalMoveError, Invalid, NotFound, NotYourTurnError
from games import notify, scheduling
from games.engine import base as engine_base
from games.engine import registry
from games.models import Move, Seat, Table

from . import ratings, webhooks


def engine_for(table: Table) -> engine_base.Game:
    return registry.get(table.game)


def lock_table(table_id) -> Table:
    """The table row, locked for the rest of the transaction (on SQLite the IMMEDIATE
    transaction already holds the database's write lock)."""
    try:
        table = Table.objects.select_for_update().get(pk=table_id)
    except (Table.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("no such table") from exc
    # What the change's webhook events compare against (no query: status and who acts).
    table._before_change = webhooks.snapshot(table)
    return table


def engine_error(exc: engine_base.EngineError) -> Exception:
    """An engine error as the API error of the contract."""
    if isinstance(exc, engine_base.IllegalMove):
        return IllegalMoveError(exc.message, {"rule": exc.rule})
    if isinstance(exc, engine_base.InvalidMove):
        return Invalid(exc.message, {"fields": exc.fields})
    if isinstance(exc, engine_base.NotYourTurn):
        return NotYourTurnError(exc.message)
    if isinstance(exc, engine_base.NotPermitted):
        return Forbidden(exc.message)
    rule = getattr(exc, "rule", None)
    return Conflict(exc.message, {"rule": rule} if rule else None)


def seat_players(table: Table) -> list[int]:
    if table.state is None:
        return list(range(table.seat_count))
    return engine_for(table).seat_players(table.state)


def current_seat(table: Table, seat_row: Seat) -> int:
    return seat_players(table).index(seat_row.index)


def refresh_deadline(table: Table) -> None:
    """Deadlines are data: the current decision's deadline is stored on the table."""
    if table.status != Table.Status.ACTIVE or not table.turn_timeout:
        table.deadline = None
        return
    if engine_for(table).to_act(table.state):
        table.deadline = timezone.now() + timedelta(seconds=table.turn_timeout)
    else:
        table.deadline = None


def bump(table: Table, *, update_fields: list[str] | None = None, mover: int | None = None) -> None:
    """Save a change to a locked table: version + 1; on commit, wake waiters and queue the
    follow-ups; record the webhook events the change causes (`mover`: the seat row index of
    the player whose move it was)."""
    table.version += 1
    fields = None if update_fields is None else [*update_fields, "version", "updated_at"]
    table.save(update_fields=fields)
    table_id, version = str(table.pk), table.version
    transaction.on_commit(lambda: notify.table_changed(table_id, version))
    rows = seat_rows(table)
    schedule_after(table, rows)
    before = getattr(table, "_before_change", None)
    webhooks.record_change(table, rows, before=before, mover=mover)
    table._before_change = webhooks.snapshot(table)


def seat_rows(table: Table) -> dict[int, Seat]:
    """Current seat -> seat row."""
    rows = {row.index: row for row in table.seats.all()}
    return {seat: rows[player] for seat, player in enumerate(seat_players(table))}


def schedule_after(table: Table, rows: dict[int, Seat] | None = None) -> None:
    """Record whether a bot must act now, and queue the follow-up tasks (a bot move, the
    deadline and its warning) for when the change commits."""
    pending = False
    humans_to_act = False
    if table.status == Table.Status.ACTIVE and table.state is not None:
        rows = rows if rows is not None else seat_rows(table)
        acting = [rows[s] for s in engine_for(table).to_act(table.state)]
        pending = any(row.bot_controlled for row in acting)
        humans_to_act = any(not row.bot_controlled for row in acting)
    if pending != table.bot_pending:
        table.bot_pending = pending
        Table.objects.filter(pk=table.pk).update(bot_pending=pending)
    table_id, version, deadline, delay, timeout = str(table.pk), table.version, table.deadline, table.bot_delay, table.turn_timeout

    def queue():
        if pending:
            scheduling.queue_bot_move(table_id, version, delay)
        if deadline is not None:
            scheduling.queue_deadline(table_id, version, deadline)
            if humans_to_act:
                scheduling.queue_timeout_warning(table_id, version, deadline, timeout)

    transaction.on_commit(queue)


def apply_move(
    table: Table, *, seat: int, move: dict, by: str, user=None
) -> tuple[list[dict], Move]:
    """Apply one move to a locked, active table through its engine, append it to the log,
    store the new state and bump the version. Raises the contract's API errors."""
    engine = engine_for(table)
    if table.status != Table.Status.ACTIVE:
        raise Conflict("the table is not in play")
    before = table.state
    try:
        state, events = engine.apply(before, seat, move)
    except engine_base.EngineError as exc:
        raise engine_error(exc) from exc
    table.move_count += 1
    table.state = state
    if engine.is_finished(state):
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()
        ratings.record_finished(
            table, rows=seat_rows(table), places=engine.finishing_order(state), teams=engine.teams(state)
        )
    refresh_deadline(table)
    bump(table, mover=None if seat is None else engine.seat_players(before)[seat])
    record = Move.objects.create(
        table=table,
        seq=table.move_count,
        seat=seat,
        user=user,
        by=by,
        move=move,
        events=events,
        seat_players=engine.seat_players(state),
        version=table.version,
    )
    return events, record
