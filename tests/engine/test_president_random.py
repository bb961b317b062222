"""Random full games of President across 4-7 players and random option combinations.

At every step: JSON round trip, card conservation, apply leaves its input alone, the listed
legal moves are distinct, sorted and (a sample of them) apply, a random well-formed move that
is not listed is rejected with IllegalMove, the timeout move is listed, and the game ends within
a bound of steps. Hidden information: no viewed event or viewed move (every step) and no view
(a sample of steps, every seat and a spectator) shows a seat a card it cannot see, and no view
holds the seed.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.engine import cards
from games.engine.base import IllegalMove
from games.engine.president import VARIATIONS, card_key, rank_of

from .test_president_rules import CARD_TOKEN, G, card_strings

HANDS_PER_PLAYER_COUNT = 500  # 2000 hands in all
MAX_HANDS_PER_GAME = 40


def random_options(rng):
    opts = {v: rng.random() < 0.35 for v in VARIATIONS}
    opts["exchange"] = rng.choice(["none", "one", "two"])
    opts["seating"] = rng.choice(["fixed", "by_rank"])
    if rng.random() < 0.8:
        opts["hands"] = rng.choice([1, 2, 3])
    else:
        opts["target_score"] = rng.choice([2, 3, 4])
    return G.validate_options(opts)


def key(move):
    return (move["type"], frozenset(move.get("cards", ())))


def random_candidate(rng, hand):
    """A well-formed move of cards the seat holds, often a set of one rank."""
    kind = rng.choice(["play", "play", "play", "pass", "give"])
    if kind == "pass":
        return {"type": "pass"}
    first = rng.choice(hand)
    pool = [c for c in hand if c != first]
    if rng.random() < 0.7:
        pool = [c for c in pool if rank_of(c) == rank_of(first)]
    chosen = [first] + rng.sample(pool, rng.randint(0, min(3, len(pool))))
    return {"type": kind, "cards": sorted(chosen, key=card_key)}


def check_views(state, seed):
    n = state["players"]
    log = state["exchange"]["log"]
    for viewer in [*range(n), None]:
        view = G.view(state, viewer)
        dumped = json.dumps(view)
        assert str(seed) not in dumped
        hidden = {c for s in range(n) if s != viewer for c in state["hands"][s]}
        if viewer is not None:
            assert view["you"]["hand"] == state["hands"][viewer]
            hidden -= {c for e in log if e["from"] == viewer for c in e["cards"]}
            assert view["legal_moves"] == G.legal_moves(state, viewer)
        assert not set(CARD_TOKEN.findall(dumped)) & hidden, viewer
        assert len(view["seats"]) == n and len(view["scores"]) == n


def check_events(rng, events, move, mover, n):
    viewers = [*range(n), None]
    for e in events:
        if "secret" not in e:
            assert G.view_event(e, None) == e == G.view_event(e, rng.randrange(n))
            assert card_strings(e) == (set(e["cards"]) if e["type"] == "play" else set())
            continue
        assert e["type"] == "give" and e["secret_to"] == sorted([e["from"], e["to"]])
        public = {k: v for k, v in e.items() if k not in ("secret", "secret_to")}
        assert card_strings(public) == set()
        for viewer in viewers:
            seen = card_strings(G.view_event(e, viewer))
            assert seen == (set(e["secret"]["cards"]) if viewer in e["secret_to"] else set())
    if move["type"] == "give":
        receiver = next(e["to"] for e in events if e["type"] == "give" and not e["auto"])
        for viewer in viewers:
            seen = G.view_move(move, mover, events, viewer)
            if viewer in (mover, receiver):
                assert seen == move
            else:
                assert card_strings(seen) == set() and seen["cards_count"] == len(move["cards"])
    else:
        assert G.view_move(move, mover, events, None) == move


def play_game(rng, n, opts, counts, view_every):
    seed = rng.randrange(10**15, 2**62)
    state = G.new_game(players=n, options=opts, seed=seed)
    deck = set(cards.standard_deck(jokers=opts["jokers"]))
    played: set[str] = set()
    hands = 0
    step_bound = (len(deck) * n + 10) * MAX_HANDS_PER_GAME
    for step in range(step_bound):
        if state["status"] == "finished":
            break
        snapshot = json.loads(json.dumps(state))
        assert snapshot == state
        held = [c for h in state["hands"] for c in h]
        assert len(held) == len(set(held)) and not set(held) & played and set(held) | played == deck

        actors = G.to_act(state)
        assert actors and all(state["hands"][s] for s in actors)
        idle = [s for s in range(n) if s not in actors]
        if idle and step % 8 == 0:
            assert G.legal_moves(state, rng.choice(idle)) == []
        seat = rng.choice(actors)
        legal = G.legal_moves(state, seat)
        keys = {key(m) for m in legal}
        assert legal and len(keys) == len(legal)
        assert G.timeout_move(state, seat) in legal
        G.apply(state, seat, rng.choice(legal))
        candidate = random_candidate(rng, state["hands"][seat])
        if key(candidate) in keys:
            G.apply(state, seat, candidate)
        else:
            with pytest.raises(IllegalMove) as exc:
                G.apply(state, seat, candidate)
            assert exc.value.rule.startswith("P-")

        plays = [m for m in legal if m["type"] != "pass"]
        move = rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(legal)
        new, events = G.apply(state, seat, move)
        assert state == snapshot
        check_events(rng, events, move, seat, n)
        if step % view_every == 0:
            assert all(m.get("cards", []) == sorted(m.get("cards", []), key=card_key) for m in legal)
            check_views(new, seed)
        for e in events:
            counts[e["type"]] += 1
            if e["type"] == "play":
                played |= set(e["cards"])
            elif e["type"] == "deal":
                played = set()
            elif e["type"] == "hand_end":
                hands += 1
        state = new
    assert state["status"] == "finished", "game did not end within the step bound"
    assert hands <= MAX_HANDS_PER_GAME
    assert G.to_act(state) == [] and len(state["winners"]) == 1
    assert state["scores"][state["winners"][0]] == max(state["scores"])
    assert state["scores"].count(max(state["scores"])) == 1
    check_views(state, seed)
    return hands


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_random_full_games(n):
    rng = random.Random(20240 + n)
    counts: Counter = Counter()
    hands = games = 0
    while hands < HANDS_PER_PLAYER_COUNT:
        hands += play_game(rng, n, random_options(rng), counts, view_every=6 if games % 8 == 0 else 30)
        games += 1
    # The random games reach every automatic step and variation effect.
    for kind in ("give", "lead", "skip", "revolution", "trick_end", "out", "hand_end", "reseat", "game_end"):
        assert counts[kind] > 0, kind


def test_timeout_only_games_end():
    rng = random.Random(7)
    for n in (4, 5, 6, 7):
        opts = random_options(rng)
        state = G.new_game(players=n, options=opts, seed=rng.randrange(2**62))
        for _ in range(20000):
            if G.is_finished(state):
                break
            seat = G.to_act(state)[0]
            state, _ = G.apply(state, seat, G.timeout_move(state, seat))
        assert G.is_finished(state)
