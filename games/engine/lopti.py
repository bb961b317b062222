"""Lopti: a Palace/Shithead-style shedding game played in sessions (spec: shared/spec/lopti.md).

Base rules implemented here (house rules L-11 and the Rule Vote L-12 plug in later):

- L-1: 2-5 players, 52 cards, ranks 2 < 3 < ... < K < A; 2 resets, 3 redirects, 7 plays low,
  10 clears. "Next player" is seat + 1 (seat - 1 with `direction` counterclockwise, L-13),
  skipping players who are out.
- L-2: a table is one session of rounds. Round 1's dealer is fixed or drawn from the seed, the
  dealer then moves one seat clockwise per round; the dealer plays first in round 1, the previous
  round's winner afterwards. The next round is dealt inside `apply` when a round ends, until the
  `rounds` option (0 = no limit) is reached; `public.winners` are then the seats with most round
  wins.
- L-3: one card at a time from dealer + 1: face-down rounds, face-up rounds (face-up i lies on
  face-down i), hand rounds; the rest is the draw pile in order. Face-down cards are hidden from
  everybody, their owner included. Swap phase (simultaneous): each player swaps up to
  `swaps_allowed` times a hand card with a face-up card, or keeps; the timeout keeps.
- L-4: a turn is one play (cards of one rank from the hand, or one face-down card) or taking the
  non-empty pile (allowed even with a legal play; it ends the turn, extra plays included). After
  the first legal play of a turn, one draw if the hand holds fewer than `hand_size` cards.
- L-5: legality, first test that applies: 3-obligation -> only 3s; a 3 is legal anywhere; empty
  pile -> anything; same rank -> more cards than the top play or completing four; after a 7 ->
  lower than 7; 2, 7 and 10 on anything; otherwise a higher rank (anything after a 2). Rank before
  count. A special rank whose power is off (L-13) is an ordinary card.
- L-6: 3s are discarded into the visible 3-chain (emptied by a non-3 play, a take or a clear);
  on a non-empty pile they put a 3-obligation on the next player; four 3s in the chain clear.
  A 7 sets the low lock for the next play; a 10 clears (not on a 7).
- L-7: a clear (10, four of a rank at the top, four 3s) removes the pile and every pending 3/7
  effect and gives one extra play on the empty pile (none to a player who went out with it).
  Order in a turn: first play -> its effects -> the draw -> the face-up pickup -> extra plays.
- L-8: when the hand is empty after the draw opportunity, the face-up cards become the hand.
- L-9: with no hand and no face-up cards, play a face-down card blind by position; it is revealed
  to all; an illegal one goes onto the pile and the player takes the pile (turn over).
- L-10: the first player to play their last card wins the round (settled before the draw; the
  last card's effect still happens); with `play_for_places` the others play on for places.
- L-13: every base rule lives in `state["rules"]`; `set_base_rule` changes one (deal-touching keys
  wait in `state["next_rules"]` for the next deal).
- L-14: views show only what a seat may see: the draw pile's size, never its order; no face-down
  card before it is played; a drawn card only to the drawer.

Every base event of L-11.7 goes through `_fire`, the single place where house rules will act.
"""

from __future__ import annotations

import itertools
import marshal

from .base import Game, GameConflict, IllegalMove, InvalidMove, NotYourTurn, Option
from .cards import RANKS, SUITS, check_fixed_deck, deal_rng, is_card, rank_of, shuffled, standard_deck
from .registry import register

RANK_VALUE = {rank: i for i, rank in enumerate(RANKS)}  # L-1.2: cards.RANKS is 2..A
SUIT_VALUE = {suit: i for i, suit in enumerate(SUITS)}
DECK_SIZE = 52

BASE_RULES: dict[str, Option] = {
    "hand_size": Option(
        "int", 3, "Hand cards dealt, and the 'fewer than N' of the draw (L-13).", minimum=1, maximum=5
    ),
    "face_up_count": Option("int", 3, "Face-up cards dealt to each player (L-13).", minimum=0, maximum=3),
    "face_down_count": Option("int", 3, "Face-down cards dealt to each player (L-13).", minimum=1, maximum=3),
    "draw_rule": Option(
        "choice",
        "one_per_turn",
        "one_per_turn: one draw after the first play (L-4.4); refill: draw up to hand_size; none.",
        choices=("one_per_turn", "refill", "none"),
    ),
    "swaps_allowed": Option(
        "int", 1, "Swaps per player in the swap phase; 0 turns the phase off (L-3.3).", minimum=0, maximum=3
    ),
    "match_needs_more": Option(
        "bool", True, "A same-rank play needs more cards than the top play or completes four (L-5.4)."
    ),
    "two_resets": Option("bool", True, "2 resets the pile (L-6.1)."),
    "three_redirects": Option("bool", True, "3 redirects: discarded, 3-chain, 3-obligation (L-6.2)."),
    "seven_plays_low": Option("bool", True, "7 sets the low lock (L-6.3)."),
    "ten_clears": Option("bool", True, "10 clears the pile (L-6.4)."),
    "four_of_a_kind_clears": Option("bool", True, "Four of a rank at the top clear the pile (L-7.1)."),
    "extra_play_on_clear": Option("bool", True, "The clearer gets an extra play (L-7.2)."),
    "direction": Option(
        "choice", "clockwise", "Order of play (L-1.5, L-13).", choices=("clockwise", "counterclockwise")
    ),
    "play_for_places": Option("bool", False, "After the winner, the others play on for places (L-10.3)."),
}

# L-13: a change touching the deal applies from the next round. Ruling: the swap phase is part of
# the deal, and `play_for_places` decides when a round ends, so both wait for the next deal too.
NEXT_ROUND_RULES = ("hand_size", "face_up_count", "face_down_count", "swaps_allowed", "play_for_places")

MOVE_FIELDS = {
    "swap": {"type", "hand_card", "face_up_card"},
    "keep": {"type"},
    "play": {"type", "cards"},
    "play_face_down": {"type", "index"},
    "take_pile": {"type"},
}


def _clone(obj):
    """A deep copy of JSON-shaped data (marshal copies dict/list/str/int/bool/None in C, several
    times faster than copy.deepcopy on this hot path)."""
    return marshal.loads(marshal.dumps(obj))


# Looked up in C (dict.__getitem__) on the hot paths instead of calling Python functions.
_RANK = {card: rank_of(card) for card in standard_deck()}
_KEY = {card: (RANK_VALUE[rank_of(card)], SUIT_VALUE[card[-1]]) for card in standard_deck()}
_rank = _RANK.__getitem__
card_key = _KEY.__getitem__  # hands sort by natural rank order, then suit C D H S


def _deal_fits(rules: dict, players: int) -> bool:
    dealt = rules["hand_size"] + rules["face_up_count"] + rules["face_down_count"]
    return dealt * players <= DECK_SIZE


def set_base_rule(state: dict, key: str, value, applies: str) -> dict:
    """Return a new state with one base rule (L-13) changed, for a passed Rule Vote (L-12).

    `applies` is "now" or "next_round"; keys of NEXT_ROUND_RULES always wait for the next deal.
    An immediate change stops the unfinished special action it switches off (L-12.2)."""
    if state["status"] == "finished":
        raise GameConflict("the session is over")
    if key not in BASE_RULES:
        raise InvalidMove(f"unknown base rule {key!r}", fields={"key": ["not a base rule (L-13)"]})
    value = BASE_RULES[key].check(key, value)
    if applies not in ("now", "next_round"):
        raise InvalidMove("applies must be 'now' or 'next_round'", fields={"applies": ["now or next_round"]})
    st = _clone(state)
    if not _deal_fits({**st["rules"], **st["next_rules"], key: value}, st["players"]):
        raise InvalidMove(
            "the cards dealt would not fit the deck (L-13)", fields={"value": ["too many cards dealt"]}
        )
    if applies == "next_round" or key in NEXT_ROUND_RULES:
        st["next_rules"][key] = value
        return st
    st["rules"][key] = value
    st["next_rules"].pop(key, None)
    if key == "seven_plays_low" and not value:
        st["low_lock"] = False
    if key == "three_redirects" and not value:
        st["obligation"] = None
    return st


class _Ctx:
    """One `apply` call: the state being changed, the move-log events and the base events fired."""

    def __init__(self, state: dict):
        self.state = state
        self.events: list[dict] = []
        self.fired: list[dict] = []

    def log(self, event: dict) -> None:
        self.events.append(event)


def _fire(ctx: _Ctx, event: str, timing: str, **facts) -> None:
    """A base event of L-11.7 ("before" or "after" it happens). House rules (L-11) hook in here;
    the base game only records it."""
    ctx.fired.append({"event": event, "timing": timing, **facts})


# --- table geometry --------------------------------------------------------------------------


def _next_active(st: dict, seat: int) -> int:
    """L-1.5 / L-13 `direction`: the next seat in play order that is not out."""
    step = 1 if st["rules"]["direction"] == "clockwise" else -1
    n = st["players"]
    s = seat
    for _ in range(n):
        s = (s + step) % n
        if not st["out"][s]:
            return s
    return seat


def _run_length(st: dict) -> int:
    """L-5: cards of the top rank lying consecutively at the top of the pile."""
    pile = st["pile"]
    if not pile:
        return 0
    top = _rank(pile[-1])
    run = 0
    for card in reversed(pile):
        if _rank(card) != top:
            break
        run += 1
    return run


def _has_cards(st: dict, seat: int) -> bool:
    return bool(st["hands"][seat]) or any(st["face_up"][seat]) or any(st["face_down"][seat])


def _face_down_phase(st: dict, seat: int) -> bool:
    """L-4.2 / L-9.1: no hand cards and no face-up cards left."""
    return not st["hands"][seat] and not any(st["face_up"][seat])


def _illegal_reason(st: dict, seat: int, rank: str, count: int) -> tuple[str, str] | None:
    """L-5: None when `count` cards of `rank` may be played now, else (message, rule id)."""
    rules = st["rules"]
    redirect = rank == "3" and rules["three_redirects"]
    if st["obligation"] == seat:  # L-5.1
        return None if redirect else ("a 3-obligation is on you: play 3s or take the pile", "L-5.1")
    if redirect or not st["pile"]:  # L-5.2, L-5.3
        return None
    top = _rank(st["pile"][-1])
    if rank == top:  # L-5.4, for every rank
        top_count = st["top_count"]
        if count > top_count or _run_length(st) + count == 4:
            return None
        if count == top_count and not rules["match_needs_more"]:
            return None
        return (f"on {top_count} x {top} play more {top}s or complete the four", "L-5.4")
    if st["low_lock"]:  # L-5.5: rank before count, so a 10 cannot follow a 7 either
        if RANK_VALUE[rank] < RANK_VALUE["7"]:
            return None
        return ("after a 7 the next play must be lower than 7", "L-5.5")
    if (
        (rank == "2" and rules["two_resets"])
        or (rank == "7" and rules["seven_plays_low"])
        or (rank == "10" and rules["ten_clears"])
    ):  # L-5.6
        return None
    if RANK_VALUE[rank] > RANK_VALUE[top]:  # L-5.7 (after a 2 every other rank is higher: L-6.1)
        return None
    return (f"play a rank higher than {top}", "L-5.7")


# --- pending effects (each change is logged) ---------------------------------------------------


def _set_chain_empty(ctx: _Ctx) -> None:
    """L-6.2: the 3-chain's 3s stay out of the round; only the visible chain is emptied."""
    st = ctx.state
    if st["three_chain"]:
        st["discarded"].extend(st["three_chain"])
        st["three_chain"] = []
        ctx.log({"type": "three_chain", "cards": []})


def _set_obligation(ctx: _Ctx, seat: int | None) -> None:
    if ctx.state["obligation"] != seat:
        ctx.state["obligation"] = seat
        ctx.log({"type": "obligation", "seat": seat})


def _set_lock(ctx: _Ctx, on: bool) -> None:
    if ctx.state["low_lock"] != on:
        ctx.state["low_lock"] = on
        ctx.log({"type": "low_lock", "on": on})


# --- the turn state machine --------------------------------------------------------------------


def _start_turn(ctx: _Ctx, seat: int) -> None:
    st = ctx.state
    st["turn"] = seat
    st["played"] = False
    st["extra_plays"] = 0
    _fire(ctx, "turn_start", "before", seat=seat)
    _fire(ctx, "turn_start", "after", seat=seat)


def _clear(ctx: _Ctx, seat: int, cause: str) -> None:
    """L-7.2: the pile leaves the round with every pending 3/7 effect; one extra play."""
    st = ctx.state
    _fire(ctx, "clear", "before", seat=seat, cause=cause)
    cards = st["pile"]
    st["cleared"].extend(cards)
    st["pile"] = []
    st["top_count"] = 0
    _set_chain_empty(ctx)
    _set_obligation(ctx, None)
    _set_lock(ctx, False)
    ctx.log(
        {"type": "clear", "seat": seat, "cause": cause, "cards": cards, "cleared_count": len(st["cleared"])}
    )
    if st["rules"]["extra_play_on_clear"]:
        st["extra_plays"] += 1
    _fire(ctx, "clear", "after", seat=seat, cause=cause)


def _take_pile(ctx: _Ctx, seat: int) -> None:
    """L-4.5: the whole pile goes to the hand (3s never: they are not on it); the turn ends."""
    st = ctx.state
    _fire(ctx, "take_pile", "before", seat=seat)
    cards = st["pile"]
    st["hands"][seat] = sorted(st["hands"][seat] + cards, key=card_key)
    st["pile"] = []
    st["top_count"] = 0
    _set_chain_empty(ctx)  # L-6.2
    _set_obligation(ctx, None)
    _set_lock(ctx, False)
    ctx.log({"type": "take_pile", "seat": seat, "cards": cards})
    _fire(ctx, "take_pile", "after", seat=seat, count=len(cards))
    _start_turn(ctx, _next_active(st, seat))


def _lay(ctx: _Ctx, seat: int, cards: list[str]) -> None:
    """A play that lies on the pile: every rank but a 3 with its power (L-6.2)."""
    st = ctx.state
    rules = st["rules"]
    rank = _rank(cards[0])
    _set_chain_empty(ctx)  # L-6.2: a non-3 play empties the chain
    st["pile"].extend(cards)
    st["top_count"] = len(cards)
    _set_lock(ctx, rank == "7" and rules["seven_plays_low"])  # L-6.3: each 7 restarts it
    if rank == "10" and rules["ten_clears"]:  # L-6.4
        _clear(ctx, seat, "ten")
    elif rules["four_of_a_kind_clears"] and _run_length(st) >= 4:  # L-5.4, L-7.1 (four 7s included)
        _clear(ctx, seat, "four_of_a_kind")


def _redirect(ctx: _Ctx, seat: int, cards: list[str]) -> None:
    """L-6.2: 3s are discarded into the chain; the top of the pile is unchanged."""
    st = ctx.state
    st["three_chain"].extend(cards)
    ctx.log({"type": "three_chain", "cards": list(st["three_chain"])})
    if len(st["three_chain"]) >= 4:
        # Ruling: the chain of four 3s belongs to the 3's power (L-6.2), not to
        # `four_of_a_kind_clears`, which L-7.1 lists separately.
        _clear(ctx, seat, "four_threes")
    elif st["pile"]:
        # One play moves one obligation one player on, even from a player going out (L-10.2).
        _set_obligation(ctx, _next_active(st, seat))


def _settle_out(ctx: _Ctx, seat: int) -> bool:
    """L-10.1: out at once after a legal play of the last card."""
    st = ctx.state
    if _has_cards(st, seat):
        return False
    _fire(ctx, "go_out", "before", seat=seat)
    st["out"][seat] = True
    st["places"].append(seat)
    ctx.log({"type": "go_out", "seat": seat, "place": len(st["places"])})
    _fire(ctx, "go_out", "after", seat=seat, place=len(st["places"]))
    return True


def _draw(ctx: _Ctx, seat: int) -> None:
    """L-4.4 (and L-13 `draw_rule`): after the first legal play of the turn."""
    st = ctx.state
    rules = st["rules"]
    hand = st["hands"][seat]
    if rules["draw_rule"] == "none" or not st["draw_pile"] or len(hand) >= rules["hand_size"]:
        return
    want = 1 if rules["draw_rule"] == "one_per_turn" else rules["hand_size"] - len(hand)
    _fire(ctx, "draw", "before", seat=seat)
    drawn = st["draw_pile"][:want]
    del st["draw_pile"][:want]
    st["hands"][seat] = sorted(hand + drawn, key=card_key)
    ctx.log(
        {
            "type": "draw",
            "seat": seat,
            "count": len(drawn),
            "draw_pile_count": len(st["draw_pile"]),
            "secret": {"cards": drawn},
            "secret_to": [seat],
        }
    )
    _fire(ctx, "draw", "after", seat=seat, count=len(drawn))


def _face_up_pickup(ctx: _Ctx, seat: int) -> None:
    """L-8.1: an empty hand takes all the face-up cards once the draw opportunity has passed."""
    st = ctx.state
    if st["hands"][seat] or not any(st["face_up"][seat]):
        return
    _fire(ctx, "face_up_pickup", "before", seat=seat)
    cards = [c for c in st["face_up"][seat] if c]
    st["face_up"][seat] = [None] * len(st["face_up"][seat])
    st["hands"][seat] = sorted(cards, key=card_key)
    ctx.log({"type": "face_up_pickup", "seat": seat, "cards": cards})
    _fire(ctx, "face_up_pickup", "after", seat=seat, count=len(cards))


def _play(ctx: _Ctx, seat: int, cards: list[str], source: str) -> None:
    """A legal play, from the hand or a face-down position already revealed.

    Order of L-7: the play and its effects (clear, chain, lock) -> going out (L-10.1) -> the
    draw (first play only, L-4.4) -> the face-up pickup (L-8) -> an extra play or the next turn."""
    st = ctx.state
    rank = _rank(cards[0])
    first = not st["played"]
    if not first:
        st["extra_plays"] -= 1
    st["played"] = True
    facts = {"seat": seat, "rank": rank, "count": len(cards), "source": source}
    _fire(ctx, "play", "before", **facts)
    ctx.log({"type": "play", **facts, "cards": cards})
    if rank == "3" and st["rules"]["three_redirects"]:
        _redirect(ctx, seat, cards)
    else:
        _lay(ctx, seat, cards)
    out = _settle_out(ctx, seat)
    _fire(ctx, "play", "after", **facts)
    if not out:
        if first:
            _draw(ctx, seat)
        _face_up_pickup(ctx, seat)
    if _round_over(st):
        _end_round(ctx)
    elif out or st["extra_plays"] <= 0:  # L-7.5: a player who is out gets no extra play
        _start_turn(ctx, _next_active(st, seat))


def _play_face_down(ctx: _Ctx, seat: int, index: int) -> None:
    """L-9: turned blind and shown to all; legal -> an ordinary play, else onto the pile and
    the player takes the pile."""
    st = ctx.state
    _fire(ctx, "face_down_reveal", "before", seat=seat, index=index)
    card = st["face_down"][seat][index]
    st["face_down"][seat][index] = None
    legal = _illegal_reason(st, seat, _rank(card), 1) is None  # L-9.2, L-9.3
    ctx.log({"type": "face_down_reveal", "seat": seat, "index": index, "card": card, "legal": legal})
    _fire(ctx, "face_down_reveal", "after", seat=seat, index=index, card=card, legal=legal)
    if legal:
        _play(ctx, seat, [card], "face_down")  # L-9.5: a first legal play, with its draw
    else:
        st["pile"].append(card)
        _take_pile(ctx, seat)


def _round_over(st: dict) -> bool:
    """L-10.3: the first player out ends the round, or the last place with play_for_places."""
    if not st["rules"]["play_for_places"]:
        return bool(st["places"])
    return st["out"].count(False) <= 1


def _end_round(ctx: _Ctx) -> None:
    """L-2.2: score the round, then deal the next one (L-2.3) unless `rounds` is reached."""
    st = ctx.state
    if st["rules"]["play_for_places"]:
        st["places"].extend(s for s in range(st["players"]) if not st["out"][s])
    winner = st["places"][0]  # L-10.1: the first out is the only winner
    st["round_wins"][winner] += 1
    st["last_round_winner"] = winner
    st["turn"] = None
    ctx.log(
        {
            "type": "round_end",
            "round": st["round"],
            "winner": winner,
            "places": list(st["places"]),
            "round_wins": list(st["round_wins"]),
        }
    )
    limit = st["options"]["rounds"]
    if limit and st["round"] >= limit:
        best = max(st["round_wins"])
        st["winners"] = [s for s in range(st["players"]) if st["round_wins"][s] == best]
        st["status"] = "finished"
        st["phase"] = "finished"
        ctx.log({"type": "game_end", "winners": st["winners"], "round_wins": list(st["round_wins"])})
        return
    st["round"] += 1
    st["dealer"] = (st["dealer"] + 1) % st["players"]  # L-2.3
    _deal(ctx, shuffled(standard_deck(), st["seed"], st["round"] - 1))


def _deal(ctx: _Ctx, deck: list[str]) -> None:
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
    st.update(
        pile=[],
        top_count=0,
        three_chain=[],
        discarded=[],
        cleared=[],
        low_lock=False,
        obligation=None,
        turn=None,
        played=False,
        extra_plays=0,
        out=[False] * n,
        places=[],
        swaps_left=[rules["swaps_allowed"]] * n,
        swap_done=[False] * n,
    )
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
        }
    )
    _fire(ctx, "round_start", "before", round=st["round"])
    _fire(ctx, "round_start", "after", round=st["round"])
    if not swapping:
        _start_turn(ctx, st["first_player"])


# --- move parsing ----------------------------------------------------------------------------


def _parse(move: object) -> dict:
    """Shape checks only (InvalidMove); holdings and rules are checked later."""
    if not isinstance(move, dict):
        raise InvalidMove("a move must be an object", fields={"type": ["required"]})
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_FIELDS:
        raise InvalidMove(
            f"unknown move type {kind!r}", fields={"type": [f"must be one of {sorted(MOVE_FIELDS)}"]}
        )
    extra = sorted(set(move) - MOVE_FIELDS[kind])
    if extra:
        raise InvalidMove(f"unexpected field(s) {extra}", fields={k: ["unexpected field"] for k in extra})
    missing = sorted(MOVE_FIELDS[kind] - set(move))
    if missing:
        raise InvalidMove(f"missing field(s) {missing}", fields={k: ["required"] for k in missing})
    if kind == "swap":
        for field in ("hand_card", "face_up_card"):
            if not is_card(move[field]):
                raise InvalidMove(f"{field} must be a card code", fields={field: ["not a card code"]})
    elif kind == "play":
        cards = move["cards"]
        if not isinstance(cards, list) or not cards or not all(is_card(c) for c in cards):
            raise InvalidMove("cards must be a non-empty list of card codes", fields={"cards": ["bad cards"]})
        if len(set(cards)) != len(cards):
            raise InvalidMove("a card is listed twice", fields={"cards": ["duplicate card"]})
    elif kind == "play_face_down":
        index = move["index"]
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= 2:
            raise InvalidMove("index must be 0, 1 or 2", fields={"index": ["must be 0, 1 or 2"]})
    return move


def _check_holdings(st: dict, seat: int, move: dict) -> None:
    kind = move["type"]
    hand = st["hands"][seat]
    if kind == "swap":
        if move["hand_card"] not in hand:
            raise InvalidMove(
                f"you do not hold {move['hand_card']}", fields={"hand_card": ["not in your hand"]}
            )
        if move["face_up_card"] not in st["face_up"][seat]:
            raise InvalidMove(
                f"{move['face_up_card']} is not one of your face-up cards",
                fields={"face_up_card": ["not one of your face-up cards"]},
            )
    elif kind == "play":
        missing = [c for c in move["cards"] if c not in hand]
        if missing:
            raise InvalidMove(f"you do not hold {missing}", fields={"cards": ["not in your hand"]})
    elif kind == "play_face_down":
        row = st["face_down"][seat]
        if move["index"] >= len(row) or row[move["index"]] is None:
            raise InvalidMove(
                f"you have no face-down card at position {move['index']}",
                fields={"index": ["no face-down card there"]},
            )


def _check_forbidden(st: dict, seat: int, move: dict) -> None:
    """IllegalMove for a well-formed move, with cards the mover holds, that the rules forbid now."""
    kind = move["type"]
    if st["phase"] == "swap":
        if kind not in ("swap", "keep"):
            raise IllegalMove("play starts when every player has swapped or kept", rule="L-3.3")
        return
    if kind in ("swap", "keep"):
        raise IllegalMove("the swap phase is over", rule="L-3.3")
    if kind == "take_pile":
        if not st["pile"]:
            raise IllegalMove("the pile is empty: there is nothing to take", rule="L-4.5")
    elif kind == "play":
        ranks = {_rank(c) for c in move["cards"]}
        if len(ranks) != 1:
            raise IllegalMove("a play is cards of a single rank", rule="L-4.2")
        reason = _illegal_reason(st, seat, ranks.pop(), len(move["cards"]))
        if reason:
            raise IllegalMove(reason[0], rule=reason[1])
    elif not _face_down_phase(st, seat):
        raise IllegalMove("face-down cards come after the hand and face-up cards", rule="L-9.1")


class Lopti(Game):
    slug = "lopti"
    name = "Lopti"
    min_players = 2
    max_players = 5
    options = {
        **BASE_RULES,
        "rounds": Option(
            "int",
            0,
            "Rounds in the session; 0 plays round after round with no limit. The seats with most "
            "round wins win the table.",
            minimum=0,
        ),
    }

    def validate_options(self, options: dict | None) -> dict:
        opts = super().validate_options(options)
        if not _deal_fits(opts, self.max_players):
            raise InvalidMove(
                "hand_size + face_up_count + face_down_count cards for 5 players must fit 52 cards (L-13)",
                fields={"hand_size": ["the deal does not fit the deck"]},
            )
        return opts

    # --- lifecycle ------------------------------------------------------------------------------
    def new_game(self, *, players, options, seed, deck=None, first_dealer=None) -> dict:
        if not self.min_players <= players <= self.max_players:
            raise InvalidMove("Lopti is for 2 to 5 players (L-1.1)", fields={"seats": ["2 to 5"]})
        options = self.validate_options(options)
        if deck is not None:
            deck = check_fixed_deck(deck, standard_deck())
        else:
            deck = shuffled(standard_deck(), seed, 0)
        if first_dealer is None:
            first_dealer = deal_rng(seed, -1).randrange(players)
        elif not 0 <= first_dealer < players:
            raise InvalidMove("first_dealer must be a seat", fields={"first_dealer": ["not a seat"]})
        state = {
            "game": self.slug,
            "players": players,
            "seed": seed,
            "status": "active",
            "options": options,
            "rules": {key: options[key] for key in BASE_RULES},  # L-2.1: defaults or table options
            "next_rules": {},
            "round": 1,
            "dealer": first_dealer,
            "round_wins": [0] * players,
            "last_round_winner": None,
            "winners": [],
        }
        _deal(_Ctx(state), deck)
        return state

    def to_act(self, state: dict) -> list[int]:
        if state["status"] == "finished":
            return []
        if state["phase"] == "swap":
            return [s for s in range(state["players"]) if not state["swap_done"][s]]
        return [state["turn"]]

    def is_finished(self, state: dict) -> bool:
        return state["status"] == "finished"

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        if state["phase"] == "swap":
            moves = [
                {"type": "swap", "hand_card": h, "face_up_card": f}
                for h in state["hands"][seat]
                for f in state["face_up"][seat]
                if f
            ]
            return moves + [{"type": "keep"}]
        moves = []
        hand = state["hands"][seat]
        if hand:
            for rank, group in itertools.groupby(hand, key=_rank):
                group = list(group)
                for k in range(1, len(group) + 1):
                    if _illegal_reason(state, seat, rank, k) is None:
                        moves.extend(
                            {"type": "play", "cards": list(c)} for c in itertools.combinations(group, k)
                        )
        elif _face_down_phase(state, seat):
            moves.extend(
                {"type": "play_face_down", "index": i} for i, c in enumerate(state["face_down"][seat]) if c
            )
        if state["pile"]:  # L-4.5, L-9.4
            moves.append({"type": "take_pile"})
        return moves

    def timeout_move(self, state: dict, seat: int, rng=None) -> dict:
        """L-3.3: keep in the swap phase. Otherwise take the pile if allowed, else the lowest
        legal single card, else the first face-down card."""
        moves = self.legal_moves(state, seat)
        for kind in ("keep", "take_pile"):
            if {"type": kind} in moves:
                return {"type": kind}
        singles = [m for m in moves if m["type"] == "play" and len(m["cards"]) == 1]
        if singles:
            return min(singles, key=lambda m: card_key(m["cards"][0]))
        return next(m for m in moves if m["type"] == "play_face_down")

    def apply(self, state: dict, seat: int, move: dict) -> tuple[dict, list[dict]]:
        ctx = self.apply_in_context(state, seat, move)
        return ctx.state, ctx.events

    def apply_in_context(self, state: dict, seat: int, move: dict) -> _Ctx:
        """`apply`, returning the whole context: the new state, the events and the base events
        fired on the way (for house rules and tests). Every check runs on the untouched input;
        only a move that passes them is applied to a copy."""
        if state["status"] == "finished":
            raise GameConflict("the session is over")
        if seat not in self.to_act(state):
            raise NotYourTurn("it is not your turn")
        move = _parse(move)
        _check_holdings(state, seat, move)
        _check_forbidden(state, seat, move)
        ctx = _Ctx(_clone(state))
        kind = move["type"]
        if kind in ("swap", "keep"):
            self._swap_phase(ctx, seat, move)
        elif kind == "take_pile":
            _take_pile(ctx, seat)
        elif kind == "play":
            cards = sorted(move["cards"], key=card_key)
            ctx.state["hands"][seat] = [c for c in ctx.state["hands"][seat] if c not in cards]
            _play(ctx, seat, cards, "hand")
        else:
            _play_face_down(ctx, seat, move["index"])
        return ctx

    def _swap_phase(self, ctx: _Ctx, seat: int, move: dict) -> None:
        """L-3.3: simultaneous; each player swaps up to `swaps_allowed` times or keeps."""
        st = ctx.state
        if move["type"] == "keep":
            st["swap_done"][seat] = True
            ctx.log({"type": "keep", "seat": seat})
        else:
            hand = st["hands"][seat]
            position = st["face_up"][seat].index(move["face_up_card"])
            hand.remove(move["hand_card"])
            st["hands"][seat] = sorted(hand + [move["face_up_card"]], key=card_key)
            st["face_up"][seat][position] = move["hand_card"]
            st["swaps_left"][seat] -= 1
            st["swap_done"][seat] = st["swaps_left"][seat] == 0
            ctx.log(
                {
                    "type": "swap",
                    "seat": seat,
                    "hand_card": move["hand_card"],
                    "face_up_card": move["face_up_card"],
                    "position": position,
                }
            )
        if all(st["swap_done"]):
            st["phase"] = "play"
            ctx.log({"type": "play_start", "first_player": st["first_player"]})
            _start_turn(ctx, st["first_player"])

    # --- views ----------------------------------------------------------------------------------------
    def view(self, state: dict, seat: int | None) -> dict:
        st = state
        n = st["players"]
        swapping = st["phase"] == "swap"
        seats = []
        for s in range(n):
            info = {
                "hand_count": len(st["hands"][s]),
                "face_up": list(st["face_up"][s]),
                "face_down_positions": [i for i, c in enumerate(st["face_down"][s]) if c],
                "out": st["out"][s],
                "place": st["places"].index(s) + 1 if s in st["places"] else None,
                "round_wins": st["round_wins"][s],
            }
            if swapping:
                info["swap_done"] = st["swap_done"][s]
            seats.append(info)
        you = None
        if seat is not None:
            you = {
                "seat": seat,
                "hand": sorted(st["hands"][seat], key=card_key),
                "face_down_positions": seats[seat]["face_down_positions"],
            }
            if swapping:
                you["swaps_left"] = st["swaps_left"][seat]
        pile = st["pile"]
        public = {
            "pile": list(pile),
            "top_rank": _rank(pile[-1]) if pile else None,
            "top_count": st["top_count"] if pile else 0,
            "run": _run_length(st),
            "three_chain": list(st["three_chain"]),
            "low_lock": st["low_lock"],
            "obligation": st["obligation"],
            "extra_plays": st["extra_plays"],
            "draw_pile_count": len(st["draw_pile"]),
            "cleared_count": len(st["cleared"]),
            "discarded_count": len(st["discarded"]),
            "rules": dict(st["rules"]),
            "next_rules": dict(st["next_rules"]),
            "rounds": st["options"]["rounds"],
            "round": st["round"],
            "dealer": st["dealer"],
            "first_player": st["first_player"],
            "last_round_winner": st["last_round_winner"],
            "round_wins": list(st["round_wins"]),
            "out": [s for s in range(n) if st["out"][s]],
            "places": list(st["places"]),
        }
        if st["status"] == "finished":
            public["winners"] = list(st["winners"])
        return {
            "phase": st["phase"],
            "turn": st["turn"] if st["phase"] == "play" else None,
            "dealer": st["dealer"],
            "round": st["round"],
            "you": you,
            "seats": seats,
            "public": public,
            "scores": list(st["round_wins"]),
            "legal_moves": self.legal_moves(state, seat) if seat is not None else [],
        }


GAME = register(Lopti())
