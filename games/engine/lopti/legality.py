"""Lopti's base rules as options (L-13) and what a move may be: the shapes of the game moves,
the cards the mover must hold, and the legality of a play (L-4, L-5, L-9.1, L-3.3)."""

from __future__ import annotations

from ..base import GameConflict, IllegalMove, InvalidMove, Option
from ..cards import is_card
from .state import DECK_SIZE, RANK_VALUE, _clone, _face_down_phase, _rank, _run_length

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
