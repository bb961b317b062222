"""President (also Scum, Capitalism): a climbing card game for 4-7 players.

Rules from `docs/rules/president.md` (rule ids P-1 .. P-9):

- P-1 One 52-card deck (54 with `jokers`, P-9.5). Ranks low to high 3 4 5 6 7 8 9 10 J Q K A 2;
  suits never matter.
- P-2 The first dealer is drawn from the seed (or fixed by the table); from the second hand on
  the previous President deals (P-2.1). Every card is dealt one at a time from the dealer's
  left, the first players dealt get the extra cards (P-2.2). `seating: by_rank` moves the
  players into finishing order after each hand, President in seat 0 (P-2.3).
- P-3 From the second hand, after the deal: the last-placed player's highest card goes to the
  President automatically, and the President gives back any one card (`give` move, P-3.1).
  `exchange: none` skips it, `two` doubles it (two cards between President and Scum, one
  between Vice President and Vice-scum, P-3.2). Timeout: the lowest card(s) (P-3.3).
- P-4 The dealer's left leads the first trick (P-4.1); the leader plays one card or a set of
  one rank and may not pass (P-4.2); the others beat it with as many cards of a higher rank
  (P-4.3) or pass, which never stops them later in the trick (P-4.4). The trick ends when
  every other player holding cards has passed since the last play; the last player leads the
  next trick, or the next player holding cards if they went out (P-4.5, P-4.6). Players
  without cards are skipped (P-4.7). Timeout: pass, or the lowest single card when leading
  (P-4.8).
- P-5 Playing one's last card goes out with the next finishing place (P-5.1); the hand ends
  when one player still holds cards, who takes last place (P-5.2).
- P-6 Roles by place (President, Vice President, neutrals, Vice-scum, Scum / Super scum) score
  +2, +1, 0, -1, -2.
- P-7 The game ends after the hand in which someone reaches `target_score` (or after `hands`
  hands when set) once one player leads alone; tied leaders play on hand by hand.
- P-8 Public: plays, passes, counts, places, roles, scores, variations, revolution. Private:
  the own hand and the cards of one's own exchange.
- P-9 Variations (options, off by default): `larger_sets_beat_lower` (P-9.1),
  `larger_sets_beat_any` (P-9.2), `equal_rank_beats` with the skip (P-9.3), `revolution`
  (P-9.4), `jokers` (P-9.5), `twos_high_and_low` (P-9.6), `clear_threes` (P-9.7). A play is
  legal when any enabled rule allows it, jokers and clear threes being decided first.

State keys are per *current* seat; `seat_players` maps each seat to the player sitting there
and is permuted, with the scores and the previous places, when `by_rank` reseats. The layout
is `PresidentState` below; nothing outside this module reads it.

Module style (as Pitch): the rules are module functions over the state (`parse`, `check`,
`step`, `beats`, ...); `President` only wires them to the interface of `base.Game`, whose
`apply` makes the shared checks (game over: GameConflict; a move type President does not
have: InvalidMove from any seat; a seat not to act: NotYourTurn, before its move is parsed), then `parse_move` (InvalidMove), `check_move` (IllegalMove with
the rule id) and the unchecked `step`.
"""

from __future__ import annotations

import itertools
from typing import NotRequired, TypedDict

from . import cards, fairness
from .base import Game, IllegalMove, InvalidMove, Option, turn_of
from .president_types import TYPES
from .registry import register

# P-1.2: the natural order, low to high.
ORDER = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
JOKER = "joker"
SUIT_INDEX = {"C": 0, "D": 1, "H": 2, "S": 3}
# Ruling: the two jokers are one rank (P-9.5 "two jokers make a pair"); when a tie between them
# must be broken (the Scum's highest card, sorting) RJ comes first, as in the standard deck.
JOKER_INDEX = {"RJ": 0, "BJ": 1}

# P-6: roles by finishing place, and the points of each role.
ROLES = {
    4: ("president", "vice_president", "vice_scum", "scum"),
    5: ("president", "vice_president", "neutral", "vice_scum", "scum"),
    6: ("president", "vice_president", "upper_neutral", "lower_neutral", "vice_scum", "scum"),
    7: (
        "president",
        "vice_president",
        "upper_neutral",
        "neutral",
        "lower_neutral",
        "vice_scum",
        "super_scum",
    ),
}
POINTS = {
    "president": 2,
    "vice_president": 1,
    "upper_neutral": 0,
    "neutral": 0,
    "lower_neutral": 0,
    "vice_scum": -1,
    "scum": -2,
    "super_scum": -2,
}

VARIATIONS = (
    "larger_sets_beat_lower",
    "larger_sets_beat_any",
    "equal_rank_beats",
    "revolution",
    "jokers",
    "twos_high_and_low",
    "clear_threes",
)


def rank_of(card: str) -> str:
    return JOKER if card in cards.JOKERS else cards.rank_of(card)


def card_key(card: str) -> tuple[int, int]:
    """Hands and moves are sorted in the natural rank order, then suit C D H S."""
    if card in cards.JOKERS:
        return (len(ORDER), JOKER_INDEX[card])
    return (ORDER.index(cards.rank_of(card)), SUIT_INDEX[cards.suit_of(card)])


def rank_value(rank: str, revolution: bool) -> int:
    # Ruling: jokers stay above every other card during a revolution (P-9.5 "beats every other
    # card"); only the 13 ordinary ranks are reversed by P-9.4.
    if rank == JOKER:
        return len(ORDER)
    value = ORDER.index(rank)
    return len(ORDER) - 1 - value if revolution else value


# --- the state layout ---------------------------------------------------------------------------
class Standing(TypedDict):
    """The play to beat in the current trick."""

    seat: int
    cards: list[str]
    count: int
    rank: str  # the rank it counts as (3s that beat a play take its rank, P-9.7)


class Play(TypedDict):
    seat: int
    cards: list[str]


class Trick(TypedDict):
    standing: Standing | None  # None: the trick is to be led
    plays: list[Play]  # every play of the trick, in order
    passed: list[int]  # seats that passed since the last play (P-4.4); a skipped seat too (P-9.3)
    run: dict | None  # P-9.4: {"rank", "count"} of successive single cards of one rank


class LastTrick(TypedDict):
    plays: list[Play]
    winner: int


class Pending(TypedDict):
    seat: int  # the giver (President or Vice President)
    to: int  # the receiver
    count: int


# One transfer of the exchange; "from" is a Python keyword, hence the functional form.
Transfer = TypedDict("Transfer", {"from": int, "to": int, "cards": list[str]})


class Exchange(TypedDict):
    pending: list[Pending]  # the gives still due this hand (P-3)
    log: list[Transfer]  # every transfer of this hand, the automatic ones first


class PresidentState(TypedDict):
    """President's state (JSON). Lists indexed by seat are by *current* seat; `by_rank`
    (P-2.3) permutes `seat_players`, `scores` and `prev_places` together at the end of a hand.
    Stored tables of every earlier version have exactly these keys."""

    players: int
    seed: int | None  # never shown: every deal comes from it (None: a replay from revealed secrets)
    # fair deals (engine/fairness.py): the current deal's commitment, the shuffle version, the
    # deal's starting hands; absent in states dealt before fair deals (the old generator)
    fairness: NotRequired[dict]
    status: str  # "active" | "finished"
    options: dict  # the validated table options (President.options)
    phase: str  # "exchange" | "play" | "finished"
    hand_no: int  # 1-based
    dealer: int
    turn: int | None  # None in the exchange with `two` and when finished (the view's `turn` is `to_act`'s)
    seat_players: list[int]  # seat -> player (the seat taken at the start)
    scores: list[int]  # totals so far (P-6)
    prev_places: list[int | None]  # the previous hand's places (1 = President); None in hand 1
    overtime: bool  # P-7: the end is due, tied leaders play on
    winners: list[int]  # the winning seat once finished
    hands: list[list[str]]  # sorted by card_key
    places: list[int | None]  # this hand's finishing places so far
    finish_order: list[int]  # seats in the order they went out this hand
    revolution: bool  # P-9.4
    trick: Trick
    last_trick: LastTrick | None
    exchange: Exchange


def _copy_state(state: dict) -> dict:
    """A copy that `step` may mutate, made in O(cards) on the hot path. The rules replace the
    small dicts nested in the trick, the exchange and `last_trick` instead of editing them, so
    the containers they edit in place (the lists) are the ones copied here."""
    st = dict(state)
    st["options"] = dict(state["options"])
    for key in ("seat_players", "scores", "prev_places", "places", "finish_order", "winners"):
        st[key] = list(state[key])
    st["hands"] = [list(h) for h in state["hands"]]
    trick = state["trick"]
    st["trick"] = {**trick, "plays": list(trick["plays"]), "passed": list(trick["passed"])}
    exchange = state["exchange"]
    st["exchange"] = {"pending": list(exchange["pending"]), "log": list(exchange["log"])}
    return st


def clone(value):
    """A deep copy of JSON data, several times faster than copy.deepcopy."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def role_of(players: int, place: int | None) -> str | None:
    return None if place is None else ROLES[players][place - 1]


def deck_of(options: dict) -> list[str]:
    """The table's deck (P-1.1, P-9.5)."""
    return cards.standard_deck(jokers=options["jokers"])


def pending_of(state: dict, seat: int) -> Pending:
    """The give `seat` still owes in the exchange."""
    return next(p for p in state["exchange"]["pending"] if p["seat"] == seat)


# --- the rules of a play (P-4, P-9) ---------------------------------------------------------------
def beats(options: dict, revolution: bool, rank: str, size: int, standing: dict) -> str | None:
    """The rank the play takes when `size` cards of `rank` beat `standing` (a dict with "rank"
    and "count") under the table's `options` and the revolution state, else None."""
    s_rank, s_size = standing["rank"], standing["count"]
    # Jokers and clear threes are decided first (P-9 interplay).
    # Ruling: a standing joker play can be beaten only by jokers, whatever other variation
    # is on (P-9.5 "a joker beats every other card"); between jokers the other rules apply.
    if s_rank == JOKER and rank != JOKER:
        return None
    if options["clear_threes"] and rank == "3" and size == s_size:
        return s_rank  # P-9.7: the 3s take the rank of the play they beat
    mine, theirs = rank_value(rank, revolution), rank_value(s_rank, revolution)
    legal = (
        (size == s_size and mine > theirs)  # P-4.3
        or (options["larger_sets_beat_lower"] and size > s_size and mine > theirs)  # P-9.1
        or (options["larger_sets_beat_any"] and size > s_size)  # P-9.2
        or (options["equal_rank_beats"] and size == s_size and mine == theirs)  # P-9.3
        or (options["twos_high_and_low"] and size == s_size and "2" in (rank, s_rank))  # P-9.6
    )
    return rank if legal else None


def to_act(state: dict) -> list[int]:
    if state["status"] == "finished":
        return []
    if state["phase"] == "exchange":
        return sorted(p["seat"] for p in state["exchange"]["pending"])
    return [state["turn"]]


def legal_moves(state: dict, seat: int) -> list[dict]:
    """Every move `seat` may make now; [] when it may not act."""
    if seat not in to_act(state):
        return []
    hand = state["hands"][seat]
    if state["phase"] == "exchange":
        count = pending_of(state, seat)["count"]
        return [{"type": "give", "cards": list(c)} for c in itertools.combinations(hand, count)]
    standing = state["trick"]["standing"]
    opts, rev = state["options"], state["revolution"]
    moves = []
    for rank, group in itertools.groupby(hand, key=rank_of):
        group = list(group)
        for size in range(1, len(group) + 1):
            if standing is not None and beats(opts, rev, rank, size, standing) is None:
                continue
            moves.extend({"type": "play", "cards": list(c)} for c in itertools.combinations(group, size))
    if standing is not None:
        moves.append({"type": "pass"})
    return moves


MOVE_TYPES = ("play", "pass", "give")


def parse(state: dict, seat: int, move: object) -> dict:
    """InvalidMove for a malformed move; else the move normalised ({"type": "pass"} or
    {"type": "play" | "give", "cards": [...] sorted by card_key})."""
    if not isinstance(move, dict):
        raise InvalidMove("a move must be an object")
    kind = move.get("type")
    if kind not in MOVE_TYPES:
        raise InvalidMove("unknown move type", fields={"type": ["must be play, pass or give"]})
    allowed = {"type"} if kind == "pass" else {"type", "cards"}
    extra = sorted(str(k) for k in move if k not in allowed)
    if extra:
        raise InvalidMove(f"unexpected field(s) {extra}", fields={k: ["unexpected field"] for k in extra})
    if kind == "pass":
        return {"type": "pass"}
    played = move.get("cards")
    if "cards" not in move:
        raise InvalidMove("cards is required", fields={"cards": ["required"]})
    if not isinstance(played, list) or not played:
        raise InvalidMove(
            "cards must be a non-empty list of card codes", fields={"cards": ["must be a non-empty list"]}
        )
    jokers = state["options"]["jokers"]
    if not all(cards.is_card(c, jokers=jokers) for c in played):
        raise InvalidMove("cards holds an unknown card code", fields={"cards": ["unknown card code"]})
    if len(set(played)) != len(played):
        raise InvalidMove("cards holds a card twice", fields={"cards": ["duplicate card"]})
    if not set(played) <= set(state["hands"][seat]):
        raise InvalidMove("you do not hold every card you sent", fields={"cards": ["not in your hand"]})
    return {"type": kind, "cards": sorted(played, key=card_key)}


def check(state: dict, seat: int, move: dict) -> None:
    """IllegalMove (with the rule id) for a parsed move the rules forbid. The order of the
    refusals is the rules' precedence: the phase first, then the move's shape, then beating."""
    kind, played = move["type"], move.get("cards", [])
    if state["phase"] == "exchange":
        if kind != "give":
            raise IllegalMove("the card exchange comes before the first lead", rule="P-3.1")
        count = pending_of(state, seat)["count"]
        if len(played) != count:
            rule = "P-3.2" if state["options"]["exchange"] == "two" else "P-3.1"
            raise IllegalMove(f"give exactly {count} card(s)", rule=rule)
        return
    if kind == "give":
        raise IllegalMove("cards are exchanged only after the deal, before the first lead", rule="P-3.1")
    standing = state["trick"]["standing"]
    if kind == "pass":
        if standing is None:
            raise IllegalMove("the leader must play", rule="P-4.2")
        return
    ranks = {rank_of(c) for c in played}
    if len(ranks) != 1:
        raise IllegalMove("a play is one card or a set of cards of one rank", rule="P-4.2")
    if standing is None:
        return
    if beats(state["options"], state["revolution"], ranks.pop(), len(played), standing) is None:
        rule = "P-9.5" if standing["rank"] == JOKER else "P-4.3"
        raise IllegalMove("that play does not beat the standing play", rule=rule)


def step(state: dict, seat: int, move: dict) -> tuple[dict, list[dict]]:
    """The effect of a parsed, legal move (unchecked)."""
    st = _copy_state(state)
    return st, _effect(st, seat, move)


def _effect(st: dict, seat: int, move: dict) -> list[dict]:
    """`step`'s changes, made to `st` in place; its events."""
    events: list[dict] = []
    kind = move["type"]
    if kind == "give":
        _give(st, seat, move["cards"], events)
    elif kind == "pass":
        _pass(st, seat, events)
    else:
        _play(st, seat, move["cards"], events)
    return events


# --- the exchange (P-3) ---------------------------------------------------------------------------
def _transfer(st, giver, receiver, given, events, auto):
    st["hands"][giver] = [c for c in st["hands"][giver] if c not in given]
    st["hands"][receiver] = sorted(st["hands"][receiver] + given, key=card_key)
    st["exchange"]["log"].append({"from": giver, "to": receiver, "cards": given})
    events.append(
        {
            "type": "give",
            "from": giver,
            "to": receiver,
            "count": len(given),
            "auto": auto,
            "secret": {"cards": list(given)},
            "secret_to": sorted([giver, receiver]),
        }
    )


def _start_exchange(st, events):
    seat_of = {place: s for s, place in enumerate(st["prev_places"])}
    n = st["players"]
    # P-3.1: the last place (Scum, or Super scum with 7) trades with the President; P-3.2:
    # with `two` also the next-to-last (Vice-scum) with the Vice President.
    pairs = [(seat_of[n], seat_of[1], 1)]
    if st["options"]["exchange"] == "two":
        pairs = [(seat_of[n], seat_of[1], 2), (seat_of[n - 1], seat_of[2], 1)]
    for low, high, count in pairs:
        # P-3.1: the server picks the highest cards, ties by suit C, D, H, S.
        hand = sorted(st["hands"][low], key=lambda c: (-card_key(c)[0], card_key(c)[1]))
        _transfer(st, low, high, sorted(hand[:count], key=card_key), events, auto=True)
        st["exchange"]["pending"].append({"seat": high, "to": low, "count": count})
    st["phase"] = "exchange"
    # The stored `turn` of the exchange: the giver with `one`, None with `two` (stored tables
    # replay with it as it was). The view's `turn` follows the givers still pending instead
    # (`view`: api.md's ruling, the last giver left with `two` included).
    st["turn"] = pairs[0][1] if len(pairs) == 1 else None


def _give(st, seat, given, events):
    pending = pending_of(st, seat)
    _transfer(st, seat, pending["to"], given, events, auto=False)
    st["exchange"]["pending"].remove(pending)
    if not st["exchange"]["pending"]:
        _begin_play(st, events)


# --- play (P-4, P-5, P-9) -------------------------------------------------------------------------
def _begin_play(st, events):
    st["phase"] = "play"
    st["turn"] = (st["dealer"] + 1) % st["players"]  # P-4.1, everybody holds cards now
    events.append({"type": "lead", "seat": st["turn"]})


def next_holder(state: dict, seat: int) -> int:
    """The next seat in the direction of play that still holds cards (P-4.7)."""
    n = state["players"]
    step = -1 if state["revolution"] else 1  # P-9.4 reverses the direction
    for i in range(1, n + 1):
        nxt = (seat + step * i) % n
        if state["hands"][nxt]:
            return nxt
    return seat


def _pass(st, seat, events):
    st["trick"]["passed"].append(seat)  # P-4.4
    events.append({"type": "pass", "seat": seat})
    _advance(st, seat, events)


def _play(st, seat, played, events):
    rank = rank_of(played[0])
    trick = st["trick"]
    standing = trick["standing"]
    taken = rank if standing is None else beats(st["options"], st["revolution"], rank, len(played), standing)
    # P-9.3. Ruling: the skip follows every same-size play of the standing play's rank while
    # equal_rank_beats is on, whichever rule made it legal (a 2 on a 2 with P-9.6 too).
    skip = (
        standing is not None
        and st["options"]["equal_rank_beats"]
        and len(played) == standing["count"]
        and rank == standing["rank"]
    )
    st["hands"][seat] = [c for c in st["hands"][seat] if c not in played]
    trick["standing"] = {"seat": seat, "cards": played, "count": len(played), "rank": taken}
    trick["plays"].append({"seat": seat, "cards": played})
    trick["passed"] = []
    events.append({"type": "play", "seat": seat, "cards": list(played), "rank": taken})
    _check_revolution(st, rank, len(played), events)
    if not st["hands"][seat]:
        _go_out(st, seat, events)  # P-5.1
    if sum(1 for h in st["hands"] if h) <= 1:
        _end_hand(st, events)  # P-5.2
        return
    cursor = seat
    if skip:
        # Ruling: with only two players holding cards, skipping the other one ends the trick
        # (every other player has passed, P-4.5), so the matcher "plays again" by leading.
        cursor = next_holder(st, seat)
        trick["passed"].append(cursor)
        events.append({"type": "skip", "seat": cursor})
    _advance(st, cursor, events)


def _check_revolution(st, rank, size, events):
    """P-9.4. Ruling: the four single cards must be successive plays of one trick (passes
    between them do not break the run); the run counts natural ranks, so 3s that took
    another rank (P-9.7) still count as 3s."""
    if not st["options"]["revolution"]:
        return
    trick = st["trick"]
    run = _next_run(trick["run"], rank, size)
    trick["run"] = run
    if size == 4 or (run and run["count"] == 4):
        # Ruling: the trick in progress goes on under the new order and direction (the spec's
        # ruling); the revolution state is reset at every deal.
        st["revolution"] = not st["revolution"]
        trick["run"] = None
        events.append({"type": "revolution", "active": st["revolution"]})


def _next_run(run: dict | None, rank: str, size: int) -> dict | None:
    """P-9.4: the run of successive single cards of one rank after a play of `size` `rank`s."""
    if size != 1:
        return None
    return {"rank": rank, "count": run["count"] + 1 if run and run["rank"] == rank else 1}


def _go_out(st, seat, events):
    st["finish_order"].append(seat)
    st["places"][seat] = len(st["finish_order"])
    events.append({"type": "out", "seat": seat, "place": st["places"][seat]})


def _advance(st, cursor, events):
    """After a play or a pass: end the trick (P-4.5) or hand the turn on from `cursor`."""
    trick = st["trick"]
    last = trick["standing"]["seat"]
    others = [s for s in range(st["players"]) if st["hands"][s] and s != last]
    if all(s in trick["passed"] for s in others):
        # P-4.5, P-4.6. Ruling: "the next player clockwise" follows the direction of play
        # in force (reversed during a revolution).
        leader = last if st["hands"][last] else next_holder(st, last)
        st["last_trick"] = {"plays": trick["plays"], "winner": last}
        st["trick"] = _empty_trick()
        st["turn"] = leader
        events.append({"type": "trick_end", "winner": last, "leader": leader})
    else:
        st["turn"] = next_holder(st, cursor)


def _empty_trick() -> Trick:
    return {"standing": None, "plays": [], "passed": [], "run": None}


# --- hands and the game (P-2, P-6, P-7) -----------------------------------------------------------
def _start_hand(st, events, deck=None):
    n = st["players"]
    deal_no = st["hand_no"] - 1
    deck, committed = fairness.deal_deck(st, deck_of(st["options"]), deal_no, deck if deal_no == 0 else None)
    hands = [[] for _ in range(n)]
    for i, card in enumerate(deck):
        hands[(st["dealer"] + 1 + i) % n].append(card)  # P-2.2
    st["hands"] = [sorted(h, key=card_key) for h in hands]
    fairness.record_hands(st, {"hands": st["hands"]})
    st["places"] = [None] * n
    st["finish_order"] = []
    st["revolution"] = False
    st["trick"] = _empty_trick()
    st["last_trick"] = None
    st["exchange"] = {"pending": [], "log": []}
    events.append(
        {
            "type": "deal",
            "hand": st["hand_no"],
            "dealer": st["dealer"],
            "card_counts": [len(h) for h in st["hands"]],
            **committed,
        }
    )
    if st["hand_no"] > 1 and st["options"]["exchange"] != "none":
        _start_exchange(st, events)  # P-3
    else:
        _begin_play(st, events)


def _end_hand(st, events):
    n = st["players"]
    for s in range(n):
        if st["hands"][s]:
            _go_out(st, s, events)  # P-5.2: the last holder takes last place
    points = [POINTS[role_of(n, p)] for p in st["places"]]  # P-6
    st["scores"] = [a + b for a, b in zip(st["scores"], points, strict=True)]
    st["prev_places"] = list(st["places"])
    events.append(
        {
            "type": "hand_end",
            "hand": st["hand_no"],
            "places": list(st["places"]),
            "roles": [role_of(n, p) for p in st["places"]],
            "points": points,
            "scores": list(st["scores"]),
        }
    )
    events.extend(fairness.reveal(st))
    opts = st["options"]
    if opts["hands"] is not None:
        st["overtime"] = st["overtime"] or st["hand_no"] >= opts["hands"]  # P-7.2
    else:
        st["overtime"] = st["overtime"] or max(st["scores"]) >= opts["target_score"]  # P-7.1
    top = max(st["scores"])
    # Ruling: once the end is due, tied leaders play on until one leads alone, even if the
    # lead total has meanwhile dropped below the target.
    if st["overtime"] and st["scores"].count(top) == 1:
        st["status"] = "finished"
        st["phase"] = "finished"
        st["turn"] = None
        st["winners"] = [st["scores"].index(top)]
        events.append({"type": "game_end", "winners": list(st["winners"]), "scores": list(st["scores"])})
        return
    st["dealer"] = st["finish_order"][0]  # P-2.1
    if opts["seating"] == "by_rank":
        # P-2.3: new seat i takes the player who finished i-th. Ruling: the reseating is
        # clockwise whatever the revolution state, which ends with the hand anyway.
        order = list(st["finish_order"])
        for key in ("seat_players", "scores", "prev_places"):
            st[key] = [st[key][old] for old in order]
        st["dealer"] = 0
        events.append({"type": "reseat", "from_seats": order, "seat_players": list(st["seat_players"])})
    st["hand_no"] += 1
    _start_hand(st, events)


def finishing_order(state: dict) -> list[list[int]]:
    """The seats by total score, best first, ties grouped (a finished game has one leader,
    P-7.1: the winner, alone in first place)."""
    by_score: dict[int, list[int]] = {}
    for seat, score in sorted(enumerate(state["scores"]), key=lambda x: -x[1]):
        by_score.setdefault(score, []).append(seat)
    return list(by_score.values())


# --- what a seat may not see, and sampling it (for the search) ------------------------------------
def visible_played(public: dict) -> set[str]:
    """The cards a view shows played: the current trick and the last one (P-8)."""
    played = {c for p in public["trick_plays"] for c in p["cards"]}
    if public["last_trick"]:
        played.update(c for p in public["last_trick"]["plays"] for c in p["cards"])
    return played


def cards_of(state: dict) -> list[str]:
    """Every card of the deck, each once: the hands, the current and last tricks, and the
    cards played in earlier tricks of the hand. The state does not keep those (P-8: a view
    shows the current and the last trick only), so they are the deck's remaining cards; a
    card held or shown twice is therefore listed twice."""
    held = [c for h in state["hands"] for c in h]
    held += [c for p in state["trick"]["plays"] for c in p["cards"]]
    if state["last_trick"]:
        held += [c for p in state["last_trick"]["plays"] for c in p["cards"]]
    seen = set(held)
    return held + [c for c in deck_of(state["options"]) if c not in seen]


def secret_cards(state: dict, seat: int | None) -> set[str]:
    """P-8: the other seats' hands (every hand for a spectator), less the cards this seat gave
    in the exchange (its view lists them as `gave`). The cards of an exchange the seat was not
    part of are in hands until played, and played cards are public."""
    gave = {c for e in state["exchange"]["log"] if e["from"] == seat for c in e["cards"]}
    return {c for s, h in enumerate(state["hands"]) if s != seat for c in h} - gave


def _dealt_count(view: dict, seat: int) -> int:
    n = len(view["seats"])
    total = len(view_deck(view))
    return total // n + (1 if (seat - view["dealer"] - 1) % n < total % n else 0)


def view_deck(view: dict) -> list[str]:
    """The table's deck as a view tells it (the `jokers` variation, P-9.5)."""
    return cards.standard_deck(jokers="jokers" in view["public"]["variations"])


def _shuffle(pool: list[str], rng, prior: dict | None) -> None:
    """Shuffle `pool` in place; with a prior, a card of weight w comes early in proportion to
    w (weighted sampling without replacement, Efraimidis-Spirakis keys)."""
    if not prior:
        rng.shuffle(pool)
        return
    keys = {c: rng.random() ** (1.0 / max(1e-9, float(prior.get(c, 1.0)))) for c in pool}
    pool.sort(key=keys.__getitem__, reverse=True)


def determinize(view: dict, rng, prior: dict | None = None) -> dict:
    """A full state that gives `view` to its seat, the other hands dealt at random.

    The cards the seat has not seen (its hand, the current and the last trick removed) are
    dealt to the other seats with their card counts; the rest were played in earlier tricks.
    What the exchange told the seat is used (P-3): a card it gave is with its receiver unless
    it was played since (chance: the receiver's cards left over those it was dealt), and a
    seat that had to give it its highest card(s) holds nothing higher. `prior` (optional):
    {card: weight >= 0}, how likely an unseen card is to be still in a hand (default 1); a
    weight of 0 says the card is in no hand (a bot that read the move log saw it played in an
    earlier trick of this hand, P-8: every play is public).
    The seed is sampled too (it decides later deals), and `overtime` (not shown) is read as
    "a total has reached the target" (P-7).
    """
    public, you = view["public"], view["you"]
    me = you["seat"]
    n = len(view["seats"])
    counts = [s["card_count"] for s in view["seats"]]
    hand = list(you["hand"])
    seen = set(hand) | visible_played(public)
    unknown = [c for c in view_deck(view) if c not in seen]
    if prior:
        gone = [c for c in unknown if prior.get(c, 1.0) <= 0]
        # Only as many as earlier tricks can hold: a prior that claims more is not this hand's.
        if gone and len(unknown) - len(gone) >= sum(counts[s] for s in range(n) if s != me):
            gone_set = set(gone)
            unknown = [c for c in unknown if c not in gone_set]
        prior = {c: w for c, w in prior.items() if w > 0} or None
    _shuffle(unknown, rng, prior)
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[me] = hand
    taken: set[str] = set()
    # The cards played in tricks this seat cannot see any more, among `unknown`.
    played_unseen = len(unknown) - sum(counts[s] for s in range(n) if s != me)
    # A card this seat gave is still with its receiver unless it was played since.
    for e in public["exchange"]["done"]:
        if e["from"] != me:
            continue
        to = e["to"]
        for c in you["gave"]:
            if c not in unknown or c in taken or len(hands[to]) >= counts[to]:
                continue
            kept = counts[to] / max(1, _dealt_count(view, to))
            if played_unseen <= 0 or rng.random() < kept:
                hands[to].append(c)
            else:
                played_unseen -= 1
            taken.add(c)
    # A seat that gave its highest card(s) to this seat (P-3.1) holds nothing higher.
    limits: dict[int, int] = {}
    prev = public["previous_hand"]
    if prev and you["received"]:
        for e in public["exchange"]["done"]:
            if e["to"] == me and prev["places"][e["from"]] > prev["places"][me]:
                limits[e["from"]] = min(rank_value(rank_of(c), False) for c in you["received"])
    rest = [c for c in unknown if c not in taken]
    for s in sorted(limits):
        need = counts[s] - len(hands[s])
        allowed = [c for c in rest if rank_value(rank_of(c), False) <= limits[s]]
        if len(allowed) < need:
            continue  # inconsistent with what we assumed: deal this seat freely below
        got = allowed[:need]
        hands[s].extend(got)
        got_set = set(got)
        rest = [c for c in rest if c not in got_set]
    for s in range(n):
        if s == me:
            continue
        need = counts[s] - len(hands[s])
        if need > len(rest):
            raise ValueError("the view's card counts do not fit the deck")
        hands[s].extend(rest[:need])
        rest = rest[need:]
    hands = [sorted(h, key=card_key) for h in hands]
    return _state_from_view(view, hands, rng)


def _state_from_view(view: dict, hands: list[list[str]], rng) -> dict:
    public = view["public"]
    you = view["you"]
    me = you["seat"]
    n = len(view["seats"])
    options = {v: v in public["variations"] for v in VARIATIONS}
    options.update(
        target_score=public["target_score"],
        hands=public["hands"],
        seating=public["seating"],
        exchange=public["exchange"]["mode"],
    )
    prev = public["previous_hand"]
    run = None
    if options["revolution"]:
        # P-9.4: the run of single cards is replayed from the trick's plays
        for p in public["trick_plays"]:
            size = len(p["cards"])
            run = _next_run(run, rank_of(p["cards"][0]), size)
            if size == 4 or (run and run["count"] == 4):
                run = None
    log = []
    for e in public["exchange"]["done"]:
        if e["from"] == me:
            given = list(you["gave"])
        elif e["to"] == me:
            given = list(you["received"])
        else:
            # not this seat's exchange: any cards of the receiver's stand for them
            pool = hands[e["to"]] if len(hands[e["to"]]) >= e["count"] else [c for h in hands for c in h]
            given = sorted(pool[: e["count"]], key=card_key)
        log.append({"from": e["from"], "to": e["to"], "cards": given})
    finished = view["phase"] == "finished"
    scores = list(view["scores"])
    if options["hands"] is not None:
        overtime = public["hand"] > options["hands"]
    else:
        overtime = max(scores) >= options["target_score"]
    return {
        "players": n,
        "seed": rng.randrange(1 << 40),
        "status": "finished" if finished else "active",
        "options": options,
        "phase": view["phase"],
        "hand_no": public["hand"],
        "dealer": view["dealer"],
        # the stored `turn` of a `two` exchange is None, whatever the view shows (_start_exchange)
        "turn": None if view["phase"] == "exchange" and options["exchange"] == "two" else view["turn"],
        "seat_players": [s["player"] for s in view["seats"]],
        "scores": scores,
        "prev_places": list(prev["places"]) if prev else [None] * n,
        "overtime": overtime or finished,
        "winners": list(public["winners"]),
        "hands": hands,
        "places": [s["place"] for s in view["seats"]],
        "finish_order": list(public["finish_order"]),
        "revolution": bool(public["revolution"]),
        "trick": {
            "standing": clone(public["trick"]),
            "plays": clone(public["trick_plays"]),
            "passed": list(public["passed"]),
            "run": run,
        },
        "last_trick": clone(public["last_trick"]),
        "exchange": {"pending": clone(public["exchange"]["pending"]), "log": log},
        **({} if (fair := fairness.from_view(public)) is None else {"fairness": fair}),
    }


# --- views ----------------------------------------------------------------------------------------
def view(state: dict, seat: int | None) -> dict:
    n = state["players"]
    trick = state["trick"]
    passed = set(trick["passed"])
    roles = [role_of(n, p) for p in state["prev_places"]]
    you = None
    if seat is not None:
        log = state["exchange"]["log"]
        pending = [p["count"] for p in state["exchange"]["pending"] if p["seat"] == seat]
        you = {
            "seat": seat,
            "hand": list(state["hands"][seat]),
            "received": [c for e in log if e["to"] == seat for c in e["cards"]],
            "gave": [c for e in log if e["from"] == seat for c in e["cards"]],
            "must_give": pending[0] if pending else 0,
        }
    seats = [
        {
            "player": state["seat_players"][s],
            "card_count": len(state["hands"][s]),
            "out": state["places"][s] is not None and not state["hands"][s],
            "place": state["places"][s],
            "role": roles[s],
            "passed": s in passed,
        }
        for s in range(n)
    ]
    opts = state["options"]
    previous = None
    if state["prev_places"][0] is not None:
        previous = {
            "places": list(state["prev_places"]),
            "roles": roles,
            "points": [POINTS[r] for r in roles],
        }
    public = {
        "hand": state["hand_no"],
        "trick": clone(trick["standing"]),
        "trick_plays": clone(trick["plays"]),
        "passed": list(trick["passed"]),
        "last_trick": clone(state["last_trick"]),
        "finish_order": list(state["finish_order"]),
        "previous_hand": previous,
        "revolution": state["revolution"],
        "direction": "counterclockwise" if state["revolution"] else "clockwise",
        "variations": [v for v in VARIATIONS if opts[v]],
        "exchange": {
            "mode": opts["exchange"],
            "pending": [
                {"seat": p["seat"], "to": p["to"], "count": p["count"]}
                for p in state["exchange"]["pending"]
            ],
            "done": [
                {"from": e["from"], "to": e["to"], "count": len(e["cards"])}
                for e in state["exchange"]["log"]
            ],
        },
        "seating": opts["seating"],
        "target_score": opts["target_score"],
        "hands": opts["hands"],
        "winners": list(state["winners"]),
        **fairness.public(state),
    }
    return {
        "phase": state["phase"],
        # api.md: the one seat with a decision due (a giver of P-3 included), else null; who
        # still has to give is public (`public.exchange.pending`, P-8 hides only the cards).
        "turn": turn_of(to_act(state)),
        "dealer": state["dealer"],
        "round": state["hand_no"],
        "you": you,
        "seats": seats,
        "public": public,
        "scores": list(state["scores"]),
        "legal_moves": legal_moves(state, seat) if seat is not None else [],
    }


# --- for the bots' playouts ---------------------------------------------------------------------------
def playout_view(state: dict, seat: int) -> dict:
    """The part of `view(state, seat)` a bot's playout policy reads (phase, own hand, the
    current and last trick, revolution, variations, legal moves), sharing the state's lists
    instead of copying them: a playout never keeps or edits it, and the full view would
    double the search's cost. The caller must not modify it."""
    trick = state["trick"]
    opts = state["options"]
    return {
        "phase": state["phase"],
        "you": {"seat": seat, "hand": state["hands"][seat]},
        "public": {
            "trick": trick["standing"],
            "trick_plays": trick["plays"],
            "last_trick": state["last_trick"],
            "revolution": state["revolution"],
            "variations": [v for v in VARIATIONS if opts[v]],
        },
        "legal_moves": legal_moves(state, seat),
    }


def place_in_hand(state: dict, player: int, hand_no: int) -> int | None:
    """The finishing place of `player` (by the seat taken at the start) in hand `hand_no`
    once the state knows it: the hand's places while it runs, the previous hand's right after
    it (found by player, as `by_rank` may have moved them, P-2.3); else None."""
    seat = state["seat_players"].index(player)
    if state["hand_no"] == hand_no:
        return state["places"][seat]
    if state["hand_no"] == hand_no + 1:
        return state["prev_places"][seat]
    return None


# --- the interface ----------------------------------------------------------------------------------
class President(Game):
    """The interface wired to the rules above (module functions over the state)."""

    slug = "president"
    name = "President"
    move_types = frozenset(MOVE_TYPES)
    types = TYPES  # what the views, moves, events and log show (president_types.py)
    min_players = 4
    max_players = 7
    options = {
        # P-7.1/P-7.2 name no upper bound; 100 (as Pitch's target_score) is far beyond any real
        # game and keeps a table from being created that could never end.
        "target_score": Option(
            "int", 11, "P-7.1: the game ends after the hand in which a player reaches this total.",
            minimum=1, maximum=100,
        ),
        "hands": Option(
            "int",
            None,
            "P-7.2: when set, the game ends after this many hands instead of by target_score "
            "(tied leaders play on).",
            minimum=1,
            maximum=100,
            nullable=True,
        ),
        "seating": Option(
            "choice",
            "fixed",
            "P-2.3: 'fixed' keeps the seats; 'by_rank' moves the players into finishing order "
            "after each hand, President in seat 0.",
            choices=("fixed", "by_rank"),
        ),
        "exchange": Option(
            "choice",
            "one",
            "P-3: card exchange from the second hand: 'none'; 'one' (Scum's highest card to the "
            "President, who gives one back); 'two' (two cards between President and Scum, one "
            "between Vice President and Vice-scum).",
            choices=("none", "one", "two"),
        ),
        "larger_sets_beat_lower": Option(
            "bool", False, "P-9.1: a play of more cards beats a smaller play of a strictly lower rank."
        ),
        "larger_sets_beat_any": Option("bool", False, "P-9.2: a play of more cards beats any smaller play."),
        "equal_rank_beats": Option(
            "bool",
            False,
            "P-9.3: a play of the same size and equal rank beats the standing play and skips the next player.",
        ),
        "revolution": Option(
            "bool",
            False,
            "P-9.4: four of a kind (in one play, or four single cards of one rank in a row) reverses "
            "the rank order and the direction of play; another one restores them.",
        ),
        "jokers": Option("bool", False, "P-9.5: two jokers join the deck and beat every other card."),
        "twos_high_and_low": Option(
            "bool",
            False,
            "P-9.6: a 2 beats any play of its size, and any play beats a standing 2 of its size.",
        ),
        "clear_threes": Option(
            "bool",
            False,
            "P-9.7: 3s beat any play of their size and take its rank; a led 3 is the lowest card.",
        ),
    }

    def new_game(self, *, players, options, seed, deck=None, first_dealer=None, shuffle=fairness.VERSION, replay=None):
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise InvalidMove("President needs 4 to 7 players", fields={"seats": ["must be 4 to 7"]})
        options = self.validate_options(options)
        if deck is not None:
            deck = cards.check_fixed_deck(deck, deck_of(options))
        fair = fairness.setup(seed, shuffle, replay)
        seeded = {"seed": seed} if fair is None else {"seed": seed, "fairness": fair}
        first_dealer = fairness.first_dealer(seeded, first_dealer, players)  # P-2.1
        state = {
            "players": players,
            **seeded,
            "status": "active",
            "options": options,
            "phase": "play",
            "hand_no": 1,
            "dealer": first_dealer,
            "turn": None,
            "seat_players": list(range(players)),
            "scores": [0] * players,
            "prev_places": [None] * players,
            "overtime": False,
            "winners": [],
        }
        _start_hand(state, [], deck)
        return state

    def to_act(self, state):
        return to_act(state)

    def phase(self, state):
        return state["phase"]

    def is_over(self, state):
        return state["status"] == "finished"

    def winners(self, state):
        """The one seat leading alone once the game is over (P-7.1), else []."""
        return list(state["winners"])

    def finishing_order(self, state):
        """By total score, best first, ties grouped (P-7: the winner is the one leader); []
        until the game is over. The places of the last hand do not order the table."""
        return finishing_order(state) if state["status"] == "finished" else []

    def scores(self, state):
        """The players' totals (P-6), by current seat."""
        return list(state["scores"])

    def seat_players(self, state):
        return list(state["seat_players"])

    def legal_moves(self, state, seat):
        return legal_moves(state, seat)

    def parse_move(self, state, seat, move):
        return parse(state, seat, move)

    def check_move(self, state, seat, move):
        check(state, seat, move)

    def step(self, state, seat, move):
        return step(state, seat, move)

    def advance(self, state, seat, move):
        _effect(state, seat, move)
        return state

    def timeout_move(self, state, seat, rng=None):
        hand = state["hands"][seat]
        if state["phase"] == "exchange":
            # P-3.3: hands are kept in ascending order, and no revolution is on before the first lead.
            return {"type": "give", "cards": hand[: pending_of(state, seat)["count"]]}
        if state["trick"]["standing"] is not None:
            return {"type": "pass"}  # P-4.8
        # P-4.8. Ruling: "lowest" is in the order in force, so during a revolution it is a 2.
        lowest = min(hand, key=lambda c: (rank_value(rank_of(c), state["revolution"]), card_key(c)[1]))
        return {"type": "play", "cards": [lowest]}

    def view(self, state, seat):
        return view(state, seat)

    def determinize(self, view, rng, prior=None):
        return determinize(view, rng, prior)

    def cards(self, state):
        return cards_of(state)

    def secret_cards(self, state, seat):
        return secret_cards(state, seat)

    def view_move(self, move, mover, events, seat):
        """P-8: the cards of a `give` are seen only by the giver and the receiver."""
        if not isinstance(move, dict) or move.get("type") != "give":
            return clone(move)
        receiver = next(
            (
                e["to"]
                for e in events
                if e.get("type") == "give" and e.get("from") == mover and not e.get("auto")
            ),
            None,
        )
        if seat is not None and seat in (mover, receiver):
            return clone(move)
        given = move.get("cards")
        return {"type": "give", "cards_count": len(given) if isinstance(given, list) else 0}


GAME = register(President())
