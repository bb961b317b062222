"""Lopti's deal (L-3.1, L-2.3, L-2.4): the next round's dealer, the cards from the seed, the swap
phase or the first turn."""

from __future__ import annotations

from .. import fairness
from ..cards import standard_deck
from .state import _clone, _Ctx, _fire, card_key, fresh_round_fields
from .turn import _start_turn


def next_round(ctx: _Ctx) -> None:
    """L-2.3: the dealer moves one seat clockwise and the next round is dealt from the seed and
    the table's deal number."""
    st = ctx.state
    st["round"] += 1
    st["dealer"] = (st["dealer"] + 1) % st["players"]
    deal_from_seed(ctx)


def deal_from_seed(ctx: _Ctx) -> None:
    st = ctx.state
    st["deal_number"] += 1
    deck, committed = fairness.deal_deck(st, standard_deck(), st["deal_number"])
    _deal(ctx, deck, committed)


def _deal(ctx: _Ctx, deck: list[str], committed: dict) -> None:
    """L-3.1: face-down rounds, face-up rounds, hand rounds from dealer + 1; the rest is the draw
    pile. Pending base-rule changes take effect now (L-13)."""
    st = ctx.state
    st["rules"].update(st["next_rules"])
    st["next_rules"] = {}
    rules = st["rules"]
    n = st["players"]
    # Ruling: `direction` orders play only; dealing and the dealer's move stay clockwise (L-2.3).
    order = [(st["dealer"] + 1 + i) % n for i in range(n)]
    cards = iter(deck)
    st["face_down"] = [[None] * rules["face_down_count"] for _ in range(n)]
    st["face_up"] = [[None] * rules["face_up_count"] for _ in range(n)]
    st["hands"] = [[] for _ in range(n)]
    for pos in range(rules["face_down_count"]):
        for seat in order:
            st["face_down"][seat][pos] = next(cards)
    for pos in range(rules["face_up_count"]):
        for seat in order:
            st["face_up"][seat][pos] = next(cards)
    for _ in range(rules["hand_size"]):
        for seat in order:
            st["hands"][seat].append(next(cards))
    st["hands"] = [sorted(hand, key=card_key) for hand in st["hands"]]
    st["draw_pile"] = list(cards)
    fairness.record_hands(
        st, {"hands": st["hands"], "face_down": st["face_down"], "face_up": st["face_up"], "draw_pile": st["draw_pile"]}
    )
    st.update(fresh_round_fields(n), swaps_left=[rules["swaps_allowed"]] * n, swap_done=[False] * n)
    # L-2.4
    st["first_player"] = st["dealer"] if st["round"] == 1 else st["last_round_winner"]
    # Ruling: with no face-up cards there is nothing to swap, so the phase is skipped like
    # swaps_allowed 0.
    swapping = rules["swaps_allowed"] > 0 and rules["face_up_count"] > 0
    st["phase"] = "swap" if swapping else "play"
    ctx.log(
        {
            "type": "deal",
            "round": st["round"],
            "dealer": st["dealer"],
            "first_player": st["first_player"],
            "face_up": _clone(st["face_up"]),
            "hand_counts": [len(h) for h in st["hands"]],
            "face_down_counts": [len(f) for f in st["face_down"]],
            "draw_pile_count": len(st["draw_pile"]),
            "rules": dict(rules),
            **committed,
        }
    )
    # Ruling: the actor of round_start (for house rules) is the round's first player (L-2.4).
    _fire(ctx, "round_start", "before", seat=st["first_player"], round=st["round"])
    _fire(ctx, "round_start", "after", seat=st["first_player"], round=st["round"])
    if not swapping:
        _start_turn(ctx, st["first_player"], keep_extra=True)
