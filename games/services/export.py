"""Table exports and their verification (api.md, "Fair deals, export and replay"). The format
and the checks are the pure `games.engine.replay`; this module reads the table and maps
document errors to the API's."""

from __future__ import annotations

from django.conf import settings

from config.errors import Conflict, Invalid
from games import selectors
from games.engine import fairness, replay
from games.models import Table

from .common import engine_for


def table_export(*, table_id) -> dict:
    """A finished (or aborted) table as one `cardgames-table/1` document. 409 before the end:
    no hidden card, and no unrevealed secret, is ever exported early."""
    table = selectors.get_table(table_id)
    if table.status != Table.Status.FINISHED:
        raise Conflict("the table has not finished: it is exported after its end")
    if table.state is None:
        raise Conflict("the table was aborted before its start: it dealt nothing")
    if table.state.get("fairness") is None:
        # Ruling: a table dealt before fair deals (shuffle 0) has no deal secrets to export.
        raise Conflict("the table was dealt before fair deals (shuffle 0): it has no deal secrets to export")
    engine = engine_for(table)
    records = list(table.moves.order_by("seq"))
    first = engine.new_game(
        players=table.seat_count, options=table.options, seed=table.seed, deck=table.deck,
        first_dealer=table.first_dealer, shuffle=fairness.VERSION,
    )
    final, deals = replay.export_deals(
        engine, first, [(r.seat, r.move) for r in records], seed=table.seed, deck=table.deck,
        first_dealer_fixed=table.first_dealer is not None,
    )
    seats = sorted(selectors.seats_of(table), key=lambda row: row.index)
    return {
        "format": replay.FORMAT,
        "table": str(table.pk),
        "game": table.game,
        "seats": table.seat_count,
        "options": table.options,
        "players": [
            {
                "seat": row.index,
                "player": None if row.user is None else {"id": row.user.pk, "username": row.user.username},
                "is_bot": row.is_bot,
                "bot_level": row.bot_level or None,
                "left": row.left,
            }
            for row in seats
        ],
        "aborted": table.aborted,
        "duplicate_of": None if table.duplicate_of_id is None else str(table.duplicate_of_id),
        "shuffle": final["fairness"]["shuffle"],
        "first_dealer": first["dealer"],
        "first_dealer_fixed": table.first_dealer is not None,
        "created_at": table.created_at.isoformat(),
        "started_at": table.started_at.isoformat() if table.started_at else None,
        "finished_at": table.finished_at.isoformat() if table.finished_at else None,
        "deals": deals,
        "moves": [
            {
                "seq": r.seq,
                "seat": r.seat,
                "by": r.by,
                "move": r.move,
                "events": replay.public_events(engine, r.events),
                "version": r.version,
                "at": r.created_at.isoformat(),
            }
            for r in records
        ],
        "scores": engine.scores(table.state),
        "winners": selectors.table_winners(table),
    }


def export_verify(*, document: object) -> dict:
    """`{valid, reason?, final_scores}`; 400 `invalid` naming the field for a document that is not
    an export."""
    try:
        return replay.verify(document)
    except replay.DocumentError as exc:
        raise Invalid(f"not a {replay.FORMAT} document: {exc.field} {exc.message}", {"fields": {exc.field: [exc.message]}}) from exc


def max_document_bytes() -> int:
    return settings.REPLAY_MAX_BYTES
