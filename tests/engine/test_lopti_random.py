"""Random Lopti sessions (2-5 players, random L-13 settings and random base-rule changes in
mid-session) checked at every step: card conservation, JSON state, termination of every round,
legal_moves/apply agreement, the timeout move, one winner per round (L-10.1), and hidden
information (L-3.2, L-14) in views, viewed events and viewed moves."""

from __future__ import annotations

import json
import random

import pytest

from games.engine import cards, lopti
from games.engine.base import IllegalMove, InvalidMove

from .test_lopti_support import FULL, G, check_conservation, strings

MAX_STEPS_PER_ROUND = 3000
BOOL_RULES = [k for k, o in lopti.BASE_RULES.items() if o.type == "bool"]


def random_options(rng: random.Random) -> dict:
    while True:
        hand, up, down = rng.randint(1, 5), rng.randint(0, 3), rng.randint(1, 3)
        if (hand + up + down) * 5 <= 52:
            break
    opts = {
        "hand_size": hand,
        "face_up_count": up,
        "face_down_count": down,
        "draw_rule": rng.choice(["one_per_turn", "refill", "none"]),
        "swaps_allowed": rng.randint(0, 3),
        "direction": rng.choice(["clockwise", "counterclockwise"]),
        "rounds": rng.randint(1, 6),
    }
    for key in BOOL_RULES:
        opts[key] = rng.random() < (0.3 if key == "play_for_places" else 0.75)
    return G.validate_options(opts)


def random_rule_change(rng: random.Random, st: dict) -> dict:
    """A Rule Vote's base-rule change (L-12/L-13), valid or refused for the table size."""
    key = rng.choice(sorted(lopti.BASE_RULES))
    option = lopti.BASE_RULES[key]
    if option.type == "bool":
        value = rng.random() < 0.5
    elif option.type == "choice":
        value = rng.choice(option.choices)
    else:
        value = rng.randint(option.minimum, option.maximum)
    try:
        return lopti.set_base_rule(st, key, value, rng.choice(["now", "next_round"]))
    except InvalidMove:
        total = {**st["rules"], **st["next_rules"], key: value}
        assert (total["hand_size"] + total["face_up_count"] + total["face_down_count"]) * st["players"] > 52
        return st


def choose(rng: random.Random, moves: list[dict]) -> dict:
    """Mostly the lowest play (as players do, so rounds end), sometimes anything listed."""
    plays = [m for m in moves if m["type"] != "take_pile"]
    r = rng.random()
    if not plays or r < 0.04:
        return rng.choice(moves)
    if r < 0.75 and plays[0]["type"] == "play":
        return min(plays, key=lambda m: (lopti.RANK_VALUE[cards.rank_of(m["cards"][0])], -len(m["cards"])))
    return rng.choice(plays)


def random_move(rng: random.Random, st: dict, seat: int) -> dict:
    """A well-formed move, often one the rules forbid."""
    kind = rng.choice(["play", "play", "play_face_down", "take_pile", "swap", "keep"])
    hand = st["hands"][seat]
    if kind == "play":
        pool = hand if hand and rng.random() < 0.8 else FULL
        k = rng.randint(1, min(3, len(pool)))
        # legal_moves lists each card set once, in hand order; apply takes any order
        return {"type": "play", "cards": sorted(rng.sample(pool, k), key=lopti.card_key)}
    if kind == "play_face_down":
        return {"type": "play_face_down", "index": rng.randint(0, 2)}
    if kind == "swap":
        face = [c for c in st["face_up"][seat] if c] or FULL
        return {"type": "swap", "hand_card": rng.choice(hand or FULL), "face_up_card": rng.choice(face)}
    return {"type": kind}


def hidden_from(st: dict, seat: int | None) -> set[str]:
    """Cards `seat` may not see in the state (L-14): other hands, every face-down card (the
    owner's included, L-3.2) and the draw pile."""
    hidden = set(st["draw_pile"]) | {c for row in st["face_down"] for c in row if c}
    for s in range(st["players"]):
        if s != seat:
            hidden |= set(st["hands"][s])
    return hidden


def public_cards(st: dict) -> set[str]:
    found = set(st["pile"]) | set(st["three_chain"]) | set(st["discarded"]) | set(st["cleared"])
    return found | {c for row in st["face_up"] for c in row if c}


def check_hidden(before: dict, after: dict, seat_moved: int, mv: dict, events: list[dict]) -> None:
    """No view, viewed event or viewed move shows `seat` a card it could not see."""
    n = after["players"]
    revealed = set()
    if mv["type"] == "play_face_down":
        revealed.add(before["face_down"][seat_moved][mv["index"]])
    moved = set(mv.get("cards", [])) | {mv[k] for k in ("hand_card", "face_up_card") if k in mv}
    shared = public_cards(before) | public_cards(after) | revealed | moved
    for seat in [None, *range(n)]:
        view = G.view(after, seat)
        json.dumps(view)
        leak = strings(view) & hidden_from(after, seat)
        assert not leak, (seat, leak)
        assert str(after["seed"]) not in json.dumps(view)
        own = set(before["hands"][seat]) | set(after["hands"][seat]) if seat is not None else set()
        allowed = shared | own
        seen = strings([G.view_event(e, seat) for e in events]) | strings(
            G.view_move(mv, seat_moved, events, seat)
        )
        leak = {c for c in seen if cards.is_card(c)} - allowed
        assert not leak, (seat, leak, events)
        if seat is not None and seat != seat_moved:
            for e in events:
                if e["type"] == "draw":
                    assert "cards" not in G.view_event(e, seat)


def run_sessions(seed: int, sessions: int, hidden_every: int) -> int:
    rng = random.Random(seed)
    rounds_played = step = 0
    for session in range(sessions):
        players = rng.randint(2, 5)
        options = random_options(rng)
        first_dealer = rng.choice([None, rng.randrange(players)])
        st = G.new_game(
            players=players, options=options, seed=rng.randrange(2**62), first_dealer=first_dealer
        )
        check_conservation(st)
        heavy = session % hidden_every == 0
        steps_this_round = 0
        wins = sum(st["round_wins"])
        first_out = None
        while not G.is_finished(st):
            if rng.random() < 0.004:
                st = random_rule_change(rng, st)
            to_act = G.to_act(st)
            assert to_act, "an active table always has someone to act"
            if st["phase"] == "play":
                assert to_act == [st["turn"]] and not st["out"][st["turn"]]
            elif st["phase"] == "house_rule":  # L-11.1: only the winner acts in the window
                assert to_act == [st["window"]["winner"]] == [G.view(st, None)["turn"]]
            else:  # votes, duels: `turn` names the one seat with a decision due, else null
                assert G.view(st, None)["turn"] == (to_act[0] if len(to_act) == 1 else None)
            seat = rng.choice(to_act)
            moves = G.legal_moves(st, seat)
            assert moves, "a player to act always has a move"
            assert G.timeout_move(st, seat) in moves
            if heavy:
                for other in range(players):
                    if other not in to_act:
                        assert G.legal_moves(st, other) == []
            # every listed move applies (the chosen one, and another on every third step);
            # a random well-formed move not listed fails
            if step % 3 == 0:
                G.apply(st, seat, rng.choice(moves))
            bad = random_move(rng, st, seat)
            if bad not in moves:
                with pytest.raises((IllegalMove, InvalidMove)):
                    G.apply(st, seat, bad)
            mv = choose(rng, moves) if rng.random() > 0.05 else G.timeout_move(st, seat)
            before = st
            st, events = G.apply(st, seat, mv)
            step += 1
            if step % 4 == 0 or heavy:
                assert json.loads(json.dumps(st)) == st
            check_conservation(st)
            if heavy:
                check_hidden(before, st, seat, mv, events)
            steps_this_round += 1
            assert steps_this_round <= MAX_STEPS_PER_ROUND, "a round did not end"
            for e in events:
                if e["type"] == "go_out" and first_out is None:
                    first_out = e["seat"]
                if e["type"] == "round_end":
                    # L-10.1: exactly one winner, the first player out
                    assert e["winner"] == first_out
                    assert sum(e["round_wins"]) == wins + 1
                    wins += 1
                    rounds_played += 1
                    steps_this_round = 0
                    first_out = None
                    if before["rules"]["play_for_places"]:
                        assert sorted(e["places"]) == list(range(players))
                    else:
                        assert e["places"] == [e["winner"]]
        assert st["round"] == options["rounds"] == wins
        best = max(st["round_wins"])
        assert st["winners"] == [s for s in range(players) if st["round_wins"][s] == best]
    return rounds_played


@pytest.mark.parametrize("seed", [11, 22, 33, 44])
def test_random_sessions(seed):
    rounds = run_sessions(seed, sessions=150, hidden_every=15)
    assert rounds >= 450  # about 2,100 rounds over the four seeds
