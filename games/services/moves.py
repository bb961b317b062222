"""Moves made by players."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from config.errors import Conflict, Forbidden, StaleVersion
from games.engine import base as engine_base
from games.models import Move, Table

from .common import apply_move, current_seat, engine_error, engine_for, lock_table

Check = Callable[[Table], None]


def move_submit(
    *, table_id, user, move: dict, expected_version: int | None = None, check: Check | None = None
) -> tuple[Table, int, list[dict]]:
    """Apply a seated player's move under the table lock. Returns (table, seat, events).
    `check(table)`: a feature's own platform check (Lopti: the game, the ids in the path),
    run first under the same lock, so no check ever judges a state older than the move's.

    A move by a player marked away brings them back from the bot (api.md: away)."""
    with transaction.atomic():
        table = lock_table(table_id, with_seats=True)
        if check is not None:
            check(table)
        row = next((r for r in table.seats.all() if r.user_id == user.pk and not r.is_bot), None)
        if row is None:
            raise Forbidden("you do not sit at this table")
        if row.left:
            raise Forbidden("you left this table; a bot plays your seat")
        if expected_version is not None and expected_version != table.version:
            raise StaleVersion(detail={"version": table.version})
        if table.status != Table.Status.ACTIVE:
            _refuse_the_unpermitted(table, row, move)
            raise Conflict("the table is not in play")
        seat = current_seat(table, row)
        if row.away or row.timeouts_in_row:
            # Cleared before the move so that the follow-up scheduling sees a human seat;
            # a rejected move rolls this back with everything else.
            row.away = False
            row.timeouts_in_row = 0
            row.save(update_fields=["away", "timeouts_in_row"])
        events, _ = apply_move(table, seat=seat, move=move, by=Move.By.PLAYER, user=user)
        return table, seat, events


def _refuse_the_unpermitted(table: Table, row, move: dict) -> None:
    """On a table no longer in play, a move the engine would refuse to this seat in any case
    (Lopti's house-rule POST by anyone but the round's winner, L-11.1: 403 "whenever it
    comes", api.md) is that 403, not the table's 409."""
    if table.state is None:
        return
    engine, seat = engine_for(table), current_seat(table, row)
    refusal = engine.seat_refusal(table.state, seat, move)  # a finished table too
    if refusal is not None:
        raise engine_error(refusal)
    try:
        engine.apply(table.state, seat, move)
    except engine_base.NotPermitted as exc:
        raise engine_error(exc) from exc
    except engine_base.EngineError:
        pass


def server_move_submit(*, table_id, move: dict, check: Check | None = None) -> tuple[Table, list[dict]]:
    """A move the server makes on a caller's behalf after checking (`check(table)`, under the
    table lock) a platform permission the engine does not know (the host starting a session,
    an operator moderating a rule). The engine sees `seat=None`, which only server moves
    accept."""
    with transaction.atomic():
        table = lock_table(table_id)
        if check is not None:
            check(table)
        events, _ = apply_move(table, seat=None, move=move, by=Move.By.SERVER)
        return table, events
