"""Lopti's state layout (in one documented place) and the facts read off it: every card
it holds, the cards a seat may not see, the places of a round.

The state is a JSON dict; `LoptiState` documents it. Nothing outside the engine package reads
its keys. Old stored states (before a key was added) must keep replaying: keys added later are
read with `.get` and their old meaning.
"""

from __future__ import annotations

import marshal
from typing import Literal, TypedDict

from ..cards import RANKS, SUITS, rank_of, standard_deck


class Window(TypedDict):
    """L-11.1: the winner's window after a round."""

    winner: int
    open: bool
    rule_id: int | None  # the rule written in it, if any


class RuleRecord(TypedDict):
    """L-11: one house rule (house_rules.py); copies of earlier sessions' rules sit in
    `rule_history` (L-12.5)."""

    id: int
    author: int
    rule: dict  # the machine form, normalised by house_rules.validate_rule
    status: Literal["active", "removed", "deleted"]
    session: int
    created_session: int
    created_round: int
    hidden: bool  # moderated: the description is hidden, the effect stays
    edit_round: int  # the author may edit until this round's first card play (L-11.5)


class Skip(TypedDict):
    seat: int
    rule_id: int | None


class LoptiState(TypedDict):
    # --- the table
    game: Literal["lopti"]
    players: int
    seed: int  # never in a view
    status: Literal["active", "finished"]
    options: dict  # the table's options (BASE_RULES and `rounds`)
    rules: dict  # L-13: the base rules now in force
    next_rules: dict  # L-13: changes waiting for the next deal
    session: int
    fixed_dealer: int | None
    deal_number: int  # deal n of the table is shuffled from (seed, n)
    round: int
    dealer: int
    first_player: int
    round_wins: list[int]
    last_round_winner: int | None
    winners: list[int]  # L-2.2, once finished
    # each ended round's places (round_places at its end), for the ratings; absent from the
    # states stored before 2026-12-01 (read with .get: none recorded)
    round_results: list[list[list[int]]]
    phase: Literal["swap", "play", "house_rule", "setup", "finished"]
    window: Window | None
    # --- L-11 house rules and L-12 votes (votes.py documents a vote and a duel record)
    house_rules: list[RuleRecord]
    rule_history: list[RuleRecord]
    next_rule_id: int
    votes: list[dict]  # vote id n is votes[n - 1]
    duels: list[dict]  # duel id n is duels[n - 1]
    open_vote: int | None
    pending_changes: list[dict]
    setup_votes: list[int]
    # --- the cards (L-3): one list per seat; a None is an empty face-up / face-down position
    hands: list[list[str]]  # sorted by card_key
    face_up: list[list[str | None]]
    face_down: list[list[str | None]]
    draw_pile: list[str]  # next card first; in `setup` the whole undealt deck
    pile: list[str]  # bottom first
    three_chain: list[str]  # L-6.2: the visible chain of 3s
    discarded: list[str]  # 3s of emptied chains (out of the round)
    cleared: list[str]  # cleared piles (out of the round)
    # --- the round (core.fresh_round_fields)
    top_count: int  # cards of the top play
    low_lock: bool  # L-6.3
    obligation: int | None  # L-6.2: the seat under a 3-obligation
    turn: int | None
    played: bool  # the turn's first play is made
    extra_plays: int  # L-7.2
    out: list[bool]
    places: list[int]  # seats in the order they went out (then the rest, L-10.3)
    swaps_left: list[int]
    swap_done: list[bool]
    skips: list[Skip]  # L-11.7 skip_next_turn, pending
    skipped: list[int]  # seats whose last turn was skipped (never two in a row)
    revealed: list[Skip]  # L-11.7 reveal_hand: hands open until their owner's next turn
    reversed: bool  # L-11.7 reverse_direction
    rule_firings: int  # house rules run this turn (MAX_RULE_FIRINGS_PER_TURN)
    round_started: bool  # a card was played this round (L-11.5)
    vote_used: bool  # L-12.1: this round's vote


def all_cards(st: dict) -> list[str]:
    """Every card of the state, wherever it lies (L-1.1: the 52 of the deck)."""
    found = list(st["draw_pile"]) + st["pile"] + st["three_chain"] + st["discarded"] + st["cleared"]
    for s in range(st["players"]):
        found += st["hands"][s] + [c for c in st["face_up"][s] if c] + [c for c in st["face_down"][s] if c]
    return found


def secret_cards(st: dict, seat: int | None) -> set[str]:
    """L-14: the cards `seat` may not see now: other players' hands (unless a house rule laid
    them open), every face-down card (its owner's too), the draw pile (in `setup`: the whole
    undealt deck). Cleared and discarded cards were played face up, so they are not secret."""
    open_hands = {r["seat"] for r in st["revealed"]}
    secret = set(st["draw_pile"])
    for s in range(st["players"]):
        if s != seat and s not in open_hands:
            secret.update(st["hands"][s])
        secret.update(c for c in st["face_down"][s] if c)
    return secret


def round_places(st: dict) -> list[list[int]]:
    """The places of the round that ended last (or is being played, once someone is out):
    with `play_for_places` each seat in the order it went out, else the winner first and the
    others tied (L-10.1, L-10.3)."""
    places = st["places"]
    if not places:
        return []
    if st["rules"]["play_for_places"] and len(places) == st["players"]:
        return [[s] for s in places]
    rest = [s for s in range(st["players"]) if s != places[0]]
    return [[places[0]], rest] if rest else [[places[0]]]


# --- shared by the rule modules: card order, the move context, table geometry -------------

RANK_VALUE = {rank: i for i, rank in enumerate(RANKS)}  # L-1.2: cards.RANKS is 2..A
SUIT_VALUE = {suit: i for i, suit in enumerate(SUITS)}
DECK_SIZE = 52


def _clone(obj):
    """A deep copy of JSON-shaped data (marshal copies dict/list/str/int/bool/None in C, several
    times faster than copy.deepcopy on this hot path)."""
    return marshal.loads(marshal.dumps(obj))


# Looked up in C (dict.__getitem__) on the hot paths instead of calling Python functions.
_RANK = {card: rank_of(card) for card in standard_deck()}
_KEY = {card: (RANK_VALUE[rank_of(card)], SUIT_VALUE[card[-1]]) for card in standard_deck()}
_rank = _RANK.__getitem__
card_key = _KEY.__getitem__  # hands sort by natural rank order, then suit C D H S


class _Ctx:
    """One `apply` call: the state being changed, the move-log events, the base events fired,
    and the house-rule engine (`hook`, None for the table's first deal, which has no rules)."""

    def __init__(self, state: dict, hook=None, record: bool = True):
        """`record=False`: the base events fired are not kept (`fired` is None), for a step
        whose caller reads only the new state (`Game.advance`)."""
        self.state = state
        self.events: list[dict] = []
        self.fired: list[dict] | None = [] if record else None
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
    if ctx.fired is not None:
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
