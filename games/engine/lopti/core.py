"""Lopti's base rules (L-1 to L-10, L-13): the deal, the turn state machine and legality.

Every base event of L-11.7 goes through `_fire`, which hands it to the house-rule engine
(`ctx.hook`, see house_rules.py) unless it happened inside a house rule's own effect. The
pieces of state that house rules change between base events live here too, because the turn
machine honours them: pending skips (`skips`), hands shown to everyone (`revealed`), the
reversed order of play (`reversed`), the per-turn bound on house-rule work (`rule_firings`)
and the seats that may not receive cards while they go out (`ctx.protected`).

This module gathers the base rules' modules, split out of it, under their old names:
state.py (layout, card order, the move context, geometry), legality.py (options, move shapes,
L-5), turn.py (the turn machine) and deal.py (the deal)."""

from __future__ import annotations

from .deal import (  # noqa: F401
    _deal,
    deal_from_seed,
    next_round,
)
from .legality import (  # noqa: F401
    BASE_RULES,
    DEAL_KEYS,
    MOVE_FIELDS,
    NEXT_ROUND_RULES,
    _check_forbidden,
    _check_holdings,
    _deal_fits,
    _illegal_reason,
    _parse,
    change_base_rule,
    check_base_rule,
    check_deal_fits,
    parse_fields,
    set_base_rule,
)
from .state import (  # noqa: F401
    _KEY,
    _RANK,
    DECK_SIZE,
    RANK_VALUE,
    SUIT_VALUE,
    _clone,
    _Ctx,
    _face_down_phase,
    _fire,
    _has_cards,
    _next_active,
    _prev_active,
    _rank,
    _run_length,
    _step,
    card_key,
    fresh_round_fields,
    held,
)
from .turn import (  # noqa: F401
    _clear,
    _draw,
    _end_reveal,
    _end_round,
    _face_up_pickup,
    _lay,
    _play,
    _play_face_down,
    _redirect,
    _round_over,
    _set_chain_empty,
    _set_lock,
    _set_obligation,
    _settle_out,
    _start_turn,
    _take_pile,
)
