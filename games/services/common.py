"""Shared steps of the table services: locking, engine error mapping, recording a change."""

from __future__ import annotations

import contextlib
import contextvars
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef
from django.utils import timezone

from config.errors import (
    Conflict,
    Forbidden,
    IllegalMoveError,
    Invalid,
    NotFound,
    NotYourTurnError,
    StaleVersion,
)
from games import prepared
from games.engine import base as engine_base
from games.engine import registry
from games.models import Move, Seat, Table, WebhookEndpoint

from . import changes, follow_ups

# The platform's own subscribers (wake-ups, deadline and bot step, webhooks, ratings) join the hook.
follow_ups.install()


def engine_for(table: Table) -> engine_base.Game:
    return registry.get(table.game)


# api.md, optimistic concurrency: a state-changing POST may carry `expected_version`. The view
# states it for its request (`expecting`); the request's first table lock checks it, under the
# lock, and consumes it (the follow-ups that run inside the request, such as eager bot moves,
# lock the table again unconditioned).
_expected_version: contextvars.ContextVar[int | None] = contextvars.ContextVar("expected_version", default=None)


@contextlib.contextmanager
def expecting(version: int | None):
    token = _expected_version.set(version)
    try:
        yield
    finally:
        _expected_version.reset(token)


# The two reads of every move, compiled once (games.prepared): the table row, locked; its seats
# with their players and, for each, whether the player has an active webhook (a change whose
# players have none, nearly all, records its webhook events without a query of its own).
_LOCKED_TABLE = prepared.Prepared(lambda table_id: Table.objects.select_for_update().filter(pk=table_id), Table._meta.pk)
_SEATS_WITH_WEBHOOK_FLAG = prepared.Prepared(
    lambda table_id: Seat.objects.filter(table_id=table_id).select_related("user").order_by("index").annotate(
        player_has_webhooks=Exists(WebhookEndpoint.objects.filter(user_id=OuterRef("user_id"), active=True))
    ),
    Table._meta.pk,
)


def lock_table(table_id, *, with_seats: bool = False) -> Table:
    """The table row, locked for the rest of the transaction (on SQLite the IMMEDIATE
    transaction already holds the database's write lock). 409 `stale_version` when the request
    expected another version (see `expecting`).

    `with_seats`: also read its seats with their players, once (one query), for a change that
    does not add or reassign seats (a move): `table.seats.all()` is then that read, for the
    checks, the change's publication and the response alike (docs/performance.md, "Moves: the
    statements")."""
    try:
        found = _LOCKED_TABLE.run(table_id)
    except (ValidationError, ValueError, TypeError) as exc:
        raise NotFound("no such table") from exc
    if not found:
        raise NotFound("no such table")
    table = found[0]
    if with_seats:
        prepared.attach_seats(table, _SEATS_WITH_WEBHOOK_FLAG.run(table.pk))
        table._webhook_users = {row.user_id for row in table.seats.all() if row.player_has_webhooks}
    expected = _expected_version.get()
    if expected is not None:
        _expected_version.set(None)
        if expected != table.version:
            raise StaleVersion(detail={"version": table.version})
    # The locked state's seat mapping, read once for the platform's checks; and what the table
    # was when locked, for the change's subscribers that compare before and after (webhooks),
    # which work out what they need from it only if they need it.
    players = None
    if table.state is not None:
        players = tuple(engine_for(table).seat_players(table.state))
    table._players = (table.state, players)
    table._locked = (table.status, table.state, players)
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
    """Current seat -> player (seat row index); from the lock's read while the state is the
    locked one."""
    if table.state is None:
        return list(range(table.seat_count))
    known = getattr(table, "_players", None)
    if known is not None and known[0] is table.state and known[1] is not None:
        return list(known[1])
    return engine_for(table).seat_players(table.state)


def current_seat(table: Table, seat_row: Seat) -> int:
    return seat_players(table).index(seat_row.index)


def refresh_deadline(table: Table, to_act: tuple[int, ...] | list[int] | None = None) -> None:
    """Deadlines are data: the current decision's deadline is stored on the table. `to_act`:
    who acts now, when the caller already knows it (a move's Result)."""
    if table.status != Table.Status.ACTIVE or not table.turn_timeout:
        table.deadline = None
        return
    if to_act is None:
        to_act = engine_for(table).to_act(table.state)
    table.deadline = timezone.now() + timedelta(seconds=table.turn_timeout) if to_act else None


def seat_rows(table: Table, players: tuple[int, ...] | list[int] | None = None) -> dict[int, Seat]:
    """Current seat -> seat row (`players`: the seat mapping, when the caller knows it)."""
    rows = {row.index: row for row in table.seats.all()}
    if players is None:
        players = seat_players(table)
    return {seat: rows[player] for seat, player in enumerate(players)}


# What every change saves besides its own fields (`bump`).
BUMPED_FIELDS = ["version", "updated_at", "bot_pending"]


def bump(
    table: Table,
    *,
    update_fields: list[str] | None = None,
    mover: int | None = None,
    result: engine_base.Result | None = None,
    move: dict | None = None,
    save: bool = True,
) -> None:
    """Save a change to a locked table (version + 1) and publish it once through the change
    hook (`changes`): the webhook rows in this transaction; on commit, the wake-ups and the
    follow-up tasks. `mover`: the seat row index of the player whose move it was; `result`:
    the move's engine Result, whose facts are used instead of asking the engine again.
    `save=False`: the row is written later in the same transaction (`MoveWrites.flush`)."""
    table.version += 1
    facts = _facts(table, result)
    # Read by the sweep to find bots whose queued move was lost; saved with the change.
    table.bot_pending = facts[3]
    if save:
        table.save(update_fields=None if update_fields is None else [*update_fields, *BUMPED_FIELDS])
    _publish(table, facts, mover=mover, result=result, move=move)


def publish_change(
    table: Table, *, mover: int | None = None, result: engine_base.Result | None = None, move: dict | None = None
) -> None:
    """Publish the table's current facts after a change that keeps the version, such as seats
    marked away after a timeout (`bump` publishes the others)."""
    facts = _facts(table, result)
    if facts[3] != table.bot_pending:
        table.bot_pending = facts[3]
        Table.objects.filter(pk=table.pk).update(bot_pending=facts[3])
    _publish(table, facts, mover=mover, result=result, move=move)


def _facts(table: Table, result: engine_base.Result | None):
    """(who acts, the seat mapping, the seat rows, whether a bot must act) of the table now."""
    to_act: tuple[int, ...] = ()
    players = None
    if table.state is not None:
        if result is not None:
            to_act, players = result.to_act, result.seat_players
            table._players = (table.state, players)
        elif table.status == Table.Status.ACTIVE:
            engine = engine_for(table)
            to_act, players = tuple(engine.to_act(table.state)), tuple(engine.seat_players(table.state))
    if table.status != Table.Status.ACTIVE:
        to_act = ()
    rows = seat_rows(table, players)
    return tuple(to_act), players, rows, any(rows[s].bot_controlled for s in to_act)


def _publish(table: Table, facts, *, mover, result, move) -> None:
    to_act, players, rows, bot_to_act = facts
    acting = [rows[s] for s in to_act]
    changes.publish(
        changes.Change(
            table_id=str(table.pk),
            game=table.game,
            version=table.version,
            status=table.status,
            deadline=table.deadline,
            turn_timeout=table.turn_timeout,
            bot_delay=table.bot_delay,
            to_act=tuple(to_act),
            bot_to_act=bot_to_act,
            human_to_act=any(not row.bot_controlled for row in acting),
            move=move,
            events=tuple(result.events) if result is not None else (),
            extra={"table": table, "rows": rows, "mover": mover, "players": players, "result": result},
        )
    )


# The fields a move changes: the UPDATE stays small (the options, seat count and the rest are
# not rewritten with every move).
MOVE_FIELDS = ["state", "status", "finished_at", "deadline", "move_count"]


class MoveWrites:
    """The writes of several moves applied to one locked table in one transaction (a bot run's
    chain), made once at the end: the table's row once, with its last state and version, and
    the log's rows in one INSERT. Each move is still its own engine step, version, log entry
    and published change; only the statements are fewer."""

    def __init__(self) -> None:
        self.records: list[Move] = []

    def flush(self, table: Table) -> None:
        if not self.records:
            return
        table.save(update_fields=[*MOVE_FIELDS, *BUMPED_FIELDS])
        Move.objects.bulk_create(self.records)
        self.records = []


def apply_move(
    table: Table, *, seat: int | None, move: dict, by: str, user=None, writes: MoveWrites | None = None
) -> tuple[list[dict], Move]:
    """The command path's engine step: apply one move to a locked, active table with ONE
    engine call (`Game.apply`, whose Result says who acts next, whether the game is over and
    where everyone sits), append it to the log, store the new state and bump the version.
    Raises the contract's API errors. `writes`: the row writes wait in it for its `flush`,
    which the caller makes before the transaction ends."""
    engine = engine_for(table)
    if table.status != Table.Status.ACTIVE:
        raise Conflict("the table is not in play")
    mover = None if seat is None else seat_players(table)[seat]
    try:
        result = engine.apply(table.state, seat, move)
    except engine_base.EngineError as exc:
        raise engine_error(exc) from exc
    table.move_count += 1
    table.state = result.state
    if result.over:
        table.status = Table.Status.FINISHED
        table.finished_at = timezone.now()
    refresh_deadline(table, result.to_act)
    bump(table, update_fields=MOVE_FIELDS, mover=mover, result=result, move=move, save=writes is None)
    record = Move(
        table=table,
        seq=table.move_count,
        seat=seat,
        user=user,
        by=by,
        move=move,
        events=result.events,
        seat_players=list(result.seat_players),
        version=table.version,
    )
    if writes is None:
        record.save(force_insert=True)
    else:
        writes.records.append(record)
    return result.events, record
