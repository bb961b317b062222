"""Lopti's state layout (issue 11: one documented place) and the facts read off it: every card
it holds, the cards a seat may not see, the places of a round.

The state is a JSON dict; `LoptiState` documents it. Nothing outside the engine package reads
its keys. Old stored states (before a key was added) must keep replaying: keys added later are
read with `.get` and their old meaning.
"""

from __future__ import annotations

from typing import Literal, TypedDict


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
