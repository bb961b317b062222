"""Lopti's base rules (L-1 to L-10, L-13): the deal, the turn state machine and legality.

Every base event of L-11.7 goes through `_fire`, which hands it to the house-rule engine
(`ctx.hook`, see house_rules.py) unless it happened inside a house rule's own effect. The
pieces of state that house rules change between base events live here too, because the turn
machine honours them: pending skips (`skips`), hands shown to everyone (`revealed`), the
reversed order of play (`reversed`), the per-turn bound on house-rule work (`rule_firings`)
and the seats that may not receive cards while they go out (`ctx.protected`).
"""

from __future__ import annotations

import marshal

from ..base import GameConflict, IllegalMove, InvalidMove, Option
from ..cards import RANKS, SUITS, is_card, rank_of, shuffled, standard_deck

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


DEAL_KEYS = ("hand_size", "face_up_count", "face_down_count")


def _deal_fits(rules: dict, players: int) -> bool:
    dealt = sum(rules[key] for key in DEAL_KEYS)
    return dealt * players <= DECK_SIZE


def check_deal_fits(rules: dict, players: int) -> None:
    """L-13: the cards dealt to `players` seats must fit the deck; InvalidMove names the three
    keys whose sum is too large."""
    if _deal_fits(rules, players):
        return
    each = sum(rules[key] for key in DEAL_KEYS)
    message = (
        f"hand_size + face_up_count + face_down_count = {each} cards for each of {players} players: "
        f"{each * players} cards do not fit the {DECK_SIZE}-card deck (L-13)"
    )
    raise InvalidMove(message, fields={key: [message] for key in DEAL_KEYS})


def check_base_rule(state: dict, key: str, value, applies: str):
    """L-13: the checked value of a base-rule change, or InvalidMove naming the field. The vote
    procedure and `rounds` are not base rules, so no vote can change them (L-12.2)."""
    if key not in BASE_RULES:
        raise InvalidMove(f"unknown base rule {key!r}", fields={"key": ["not a base rule (L-13)"]})
    try:
        value = BASE_RULES[key].check(key, value)
    except InvalidMove as exc:
        raise InvalidMove(
            exc.message, fields={"value": [m for ms in exc.fields.values() for m in ms]}
        ) from exc
    if applies not in ("now", "next_round"):
        raise InvalidMove("applies must be 'now' or 'next_round'", fields={"applies": ["now or next_round"]})
    if not _deal_fits({**state["rules"], **state["next_rules"], key: value}, state["players"]):
        raise InvalidMove(
            "the cards dealt would not fit the deck (L-13)", fields={"value": ["too many cards dealt"]}
        )
    return value


def change_base_rule(st: dict, key: str, value, applies: str) -> str:
    """Change one checked base rule in place; returns "now" or "next_round", when it applies.
    An immediate change stops the unfinished special action it switches off (L-12.2)."""
    if applies == "next_round" or key in NEXT_ROUND_RULES:
        st["next_rules"][key] = value
        return "next_round"
    st["rules"][key] = value
    st["next_rules"].pop(key, None)
    if key == "seven_plays_low" and not value:
        st["low_lock"] = False
    if key == "three_redirects" and not value:
        st["obligation"] = None
    return "now"


def set_base_rule(state: dict, key: str, value, applies: str) -> dict:
    """Return a new state with one base rule (L-13) changed, as a passed Rule Vote does (L-12).

    `applies` is "now" or "next_round"; keys of NEXT_ROUND_RULES always wait for the next deal."""
    if state["status"] == "finished":
        raise GameConflict("the session is over")
    value = check_base_rule(state, key, value, applies)
    st = _clone(state)
    change_base_rule(st, key, value, applies)
    return st


class _Ctx:
    """One `apply` call: the state being changed, the move-log events, the base events fired,
    and the house-rule engine (`hook`, None for the table's first deal, which has no rules)."""

    def __init__(self, state: dict, hook=None):
        self.state = state
        self.events: list[dict] = []
        self.fired: list[dict] = []
        self.hook = hook
        self.in_effect = False  # L-11.7: effects of house rules never trigger house rules
        self.protected: set[int] = set()  # seats playing their last card (L-11.3: no rule stops a win)
        self.rule_extra = 0  # extra plays that house-rule clears gave during this call (L-7.4)

    def log(self, event: dict) -> None:
        self.events.append(event)

    def log_cards_moved(self, event: dict) -> None:
        """Log an event whose cards only the seats of `secret_to` see (a draw, a card given),
        unless one of those seats has an open hand (L-11.7 reveal_hand): then every viewer sees
        the cards move.

        Ruling (18.11, L-11.7 / L-14): `reveal_hand` makes the target's *hand* public until its
        next turn, so the hand lies open: the `reveal_hand` event shows the cards it holds at
        that moment, and every card that enters or leaves it while it is open (a draw, a rule's
        draw, a card given to or from it) is shown to all as it moves. The move log thus shows
        each viewer what the state's `revealed_hand` showed at the time, no more (a draw before
        the reveal, or after its end, stays the drawer's) and no less (the state never shows a
        card the log hid). Played, taken and returned cards are public anyway."""
        open_hands = {r["seat"] for r in self.state["revealed"]}
        if open_hands & set(event.get("secret_to", ())):
            event = {k: v for k, v in event.items() if k not in ("secret", "secret_to")} | event["secret"]
        self.events.append(event)


def _fire(ctx: _Ctx, event: str, timing: str, **facts) -> None:
    """A base event of L-11.7 ("before" or "after" it happens); `facts["seat"]` is its actor.
    House rules act here, except on the base events that their own effects cause."""
    ctx.fired.append({"event": event, "timing": timing, **facts})
    if ctx.hook is not None and not ctx.in_effect:
        ctx.hook(ctx, event, timing, facts)


# --- table geometry --------------------------------------------------------------------------


def _step(st: dict) -> int:
    """L-1.5 / L-13 `direction`, turned round while a house rule's reverse_direction holds."""
    step = 1 if st["rules"]["direction"] == "clockwise" else -1
    return -step if st["reversed"] else step


def _next_active(st: dict, seat: int, step: int | None = None) -> int:
    """L-1.5: the next seat in play order that is not out (`step` -1: the previous one)."""
    step = _step(st) if step is None else step
    n = st["players"]
    s = seat
    for _ in range(n):
        s = (s + step) % n
        if not st["out"][s]:
            return s
    return seat


def _prev_active(st: dict, seat: int) -> int:
    return _next_active(st, seat, -_step(st))


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


def held(st: dict, seat: int) -> int:
    """Every card a seat holds: hand, face-up and face-down (all public counts)."""
    return (
        len(st["hands"][seat])
        + sum(1 for c in st["face_up"][seat] if c)
        + sum(1 for c in st["face_down"][seat] if c)
    )


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


def _end_reveal(ctx: _Ctx, seat: int) -> None:
    """L-11.7 reveal_hand: a hand is public until its owner's next turn."""
    st = ctx.state
    if any(r["seat"] == seat for r in st["revealed"]):
        st["revealed"] = [r for r in st["revealed"] if r["seat"] != seat]
        ctx.log({"type": "reveal_end", "seat": seat})


def _start_turn(ctx: _Ctx, seat: int, keep_extra: bool = False) -> None:
    """A new turn for `seat`, or for the next seat that has no skip pending (L-11.7
    skip_next_turn: each skip is used up by one turn of its seat, so this ends). `keep_extra`
    keeps the extra plays that house-rule clears gave the first player at the round's start.

    Ruling (L-11.3, no rule may prevent winning): a seat never loses two turns in a row; a skip
    that would take its second is void. Otherwise a rule skipping everyone else at every turn
    would lock players out of the round."""
    st = ctx.state
    for _ in range(len(st["skips"]) + 1):
        _end_reveal(ctx, seat)
        skip = next((k for k in st["skips"] if k["seat"] == seat), None)
        if skip is None:
            break
        st["skips"].remove(skip)
        if seat in st["skipped"]:
            ctx.log({"type": "skip_void", "seat": seat, "rule_id": skip["rule_id"]})
            break
        st["skipped"].append(seat)
        nxt = _next_active(st, seat)
        ctx.log({"type": "turn_skipped", "seat": seat, "rule_id": skip["rule_id"]})
        if st["obligation"] == seat:
            # Ruling: a 3-obligation binds the next player who plays (L-6.2), so it passes
            # on with a skipped turn; the low lock binds the next play anyway.
            _set_obligation(ctx, nxt)
        seat = nxt
    if seat in st["skipped"]:
        st["skipped"].remove(seat)
    st["turn"] = seat
    st["played"] = False
    if not keep_extra:
        st["extra_plays"] = 0
    st["rule_firings"] = 0
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
        if cause == "house_rule":
            ctx.rule_extra += 1
    _fire(ctx, "clear", "after", seat=seat, cause=cause)


def _take_pile(ctx: _Ctx, seat: int) -> None:
    """L-4.5: the whole pile goes to the hand (3s never: they are not on it); the turn ends,
    extra plays of earlier clears included.

    Ruling: the extra plays that house-rule clears give during this very call (after the take,
    or after the reveal of an illegal face-down card) are kept, and the taker plays them before
    the turn ends: no house rule may cost the clearer its extra play (L-7.4). (A clear just
    before a take is refused by validate_rule: it would cancel the take, L-11.2.)"""
    st = ctx.state
    st["extra_plays"] = min(st["extra_plays"], ctx.rule_extra)
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
    if st["extra_plays"] > 0:
        st["played"] = True  # L-7.3: an extra play is no new turn and gives no draw
    else:
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
    ctx.protected.add(seat)
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
    # the draw decided above happens (L-11.2); `before` effects may have changed the hand
    drawn = st["draw_pile"][:want]
    del st["draw_pile"][:want]
    st["hands"][seat] = sorted(st["hands"][seat] + drawn, key=card_key)
    ctx.log_cards_moved(
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
    # the hand is empty unless a `before` house-rule effect has just given it cards
    st["hands"][seat] = sorted(st["hands"][seat] + cards, key=card_key)
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
    if not _has_cards(st, seat):
        ctx.protected.add(seat)  # L-11.3: the last card's play goes out, whatever rules add
    _fire(ctx, "play", "before", **facts)
    ctx.log({"type": "play", **facts, "cards": cards})
    if rank == "3" and st["rules"]["three_redirects"]:
        _redirect(ctx, seat, cards)
    else:
        _lay(ctx, seat, cards)
    out = _settle_out(ctx, seat)
    ctx.protected.discard(seat)
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
    if held(st, seat) == 1:
        # L-11.3: a last face-down card may win; the protection depends on public counts
        # only, so it tells nothing about the hidden card.
        ctx.protected.add(seat)
    _fire(ctx, "face_down_reveal", "before", seat=seat, index=index)
    card = st["face_down"][seat][index]
    st["face_down"][seat][index] = None
    legal = _illegal_reason(st, seat, _rank(card), 1) is None  # L-9.2, L-9.3
    ctx.log({"type": "face_down_reveal", "seat": seat, "index": index, "card": card, "legal": legal})
    _fire(ctx, "face_down_reveal", "after", seat=seat, index=index, card=card, legal=legal)
    if legal:
        _play(ctx, seat, [card], "face_down")  # L-9.5: a first legal play, with its draw
    else:
        ctx.protected.discard(seat)
        st["pile"].append(card)
        _take_pile(ctx, seat)


def _round_over(st: dict) -> bool:
    """L-10.3: the first player out ends the round, or the last place with play_for_places."""
    if not st["rules"]["play_for_places"]:
        return bool(st["places"])
    return st["out"].count(False) <= 1


def _end_round(ctx: _Ctx) -> None:
    """L-2.2: score the round; then the winner's window of L-11.1 opens (phase `house_rule`),
    unless `rounds` is reached."""
    st = ctx.state
    if st["rules"]["play_for_places"]:
        st["places"].extend(s for s in range(st["players"]) if not st["out"][s])
    winner = st["places"][0]  # L-10.1: the first out is the only winner
    st["round_wins"][winner] += 1
    st["last_round_winner"] = winner
    st["turn"] = None
    st["revealed"] = []  # the round's hands are dead: nothing stays public (L-11.7 reveal_hand)
    st["skips"] = []
    st["skipped"] = []
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
        # Ruling: the last round of the table opens no window: a house rule lasts for the
        # session (L-11.1), and the session has no round left for it to act in.
        ctx.log({"type": "game_end", "winners": st["winners"], "round_wins": list(st["round_wins"])})
        return
    st["phase"] = "house_rule"
    st["window"] = {"winner": winner, "open": True, "rule_id": None}
    ctx.log({"type": "house_rule_window", "winner": winner})


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
    _deal(ctx, shuffled(standard_deck(), st["seed"], st["deal_number"]))


def fresh_round_fields(n: int) -> dict:
    """The per-round table state before any play: empty pile, no pending effects, nobody
    out, and the house-rule and Rule Vote bookkeeping of the round (L-11.7, L-12.1)."""
    return {
        "pile": [],
        "top_count": 0,
        "three_chain": [],
        "discarded": [],
        "cleared": [],
        "low_lock": False,
        "obligation": None,
        "turn": None,
        "played": False,
        "extra_plays": 0,
        "out": [False] * n,
        "places": [],
        "swaps_left": [0] * n,
        "swap_done": [True] * n,
        "skips": [],
        "skipped": [],
        "revealed": [],
        "reversed": False,
        "rule_firings": 0,
        "round_started": False,
        "vote_used": False,
    }


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
        }
    )
    # Ruling: the actor of round_start (for house rules) is the round's first player (L-2.4).
    _fire(ctx, "round_start", "before", seat=st["first_player"], round=st["round"])
    _fire(ctx, "round_start", "after", seat=st["first_player"], round=st["round"])
    if not swapping:
        _start_turn(ctx, st["first_player"], keep_extra=True)


# --- move parsing ----------------------------------------------------------------------------


def parse_fields(
    move: object, table: dict[str, set[str]], optional: dict[str, set[str]] | None = None
) -> str:
    """The move's type, after checking it is known and carries exactly its fields (`optional`
    ones may be left out); InvalidMove names the field otherwise."""
    if not isinstance(move, dict):
        raise InvalidMove("a move must be an object", fields={"type": ["required"]})
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in table:
        raise InvalidMove(f"unknown move type {kind!r}", fields={"type": [f"must be one of {sorted(table)}"]})
    extra = sorted(set(move) - table[kind])
    if extra:
        raise InvalidMove(f"unexpected field(s) {extra}", fields={k: ["unexpected field"] for k in extra})
    missing = sorted(table[kind] - (optional or {}).get(kind, set()) - set(move))
    if missing:
        raise InvalidMove(f"missing field(s) {missing}", fields={k: ["required"] for k in missing})
    return kind


def _parse(move: object) -> dict:
    """Shape checks only (InvalidMove); holdings and rules are checked later."""
    kind = parse_fields(move, MOVE_FIELDS)
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
    if st["phase"] == "house_rule":
        raise IllegalMove("the round is over: the winner writes or declines a house rule", rule="L-11.1")
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
