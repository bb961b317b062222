"""Replaying a table's move log from its first deal (docs/architecture.md: version + lock)."""

from __future__ import annotations

from games.engine import base as engine_base
from games.engine import fairness
from games.models import Table

from .common import engine_for


def table_replay(table: Table) -> dict | None:
    """The state that the table's log produces from its first deal, or None before the start.
    Raises EngineError if a logged move no longer applies."""
    if table.started_at is None:
        return None
    engine = engine_for(table)
    # Tables dealt before fair deals (no `fairness` in their state) replay with the old generator.
    shuffle = fairness.VERSION if table.state is None or "fairness" in table.state else 0
    state = engine.new_game(
        players=table.seat_count, options=table.options, seed=table.seed, deck=table.deck,
        first_dealer=table.first_dealer, shuffle=shuffle,
    )
    for key in engine.added_keys:
        # A table stored before the engine had this key played without it (Game.added_keys).
        if table.state is not None and key not in table.state:
            state.pop(key, None)
    for record in table.moves.order_by("seq"):
        state, _ = engine.apply(state, record.seat, record.move)
    return state


def table_verify(table: Table) -> str | None:
    """None when the stored state equals the replay; else a description of the difference."""
    try:
        replayed = table_replay(table)
    except engine_base.EngineError as exc:
        return f"a logged move does not apply: {exc.message}"
    if replayed is None:
        return None if table.state is None else "state stored but the table never started"
    seqs = list(table.moves.order_by("seq").values_list("seq", flat=True))
    if seqs != list(range(1, len(seqs) + 1)) or len(seqs) != table.move_count:
        return f"move log has gaps or a wrong count ({len(seqs)} moves, move_count {table.move_count})"
    if replayed != table.state:
        keys = sorted(k for k in set(replayed) | set(table.state or {}) if replayed.get(k) != (table.state or {}).get(k))
        return f"stored state differs from the replay in {keys}"
    return None
