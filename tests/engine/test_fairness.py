"""Fair deals in the engines (docs/fair-deals.md): the shuffle reimplemented here from the
document alone deals every game's cards exactly as the engines do, for the first deal and the
later ones; each deal gets a fresh commitment, revealed once its hand or round is over; tables
dealt before fair deals (shuffle 0) keep their old generator."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random

import pytest

from games.engine import cards, fairness, registry
from tests.services.helpers import pick

SEED = 2**62 + 424242


# --- docs/fair-deals.md, reimplemented without the engine's code --------------------------------------
def doc_secret(seed: int, deal: int) -> bytes:
    return hmac.new(str(seed).encode(), str(deal).encode(), hashlib.sha256).digest()


def doc_below(secret: bytes, label: bytes):
    words = (
        int.from_bytes(hashlib.sha256(secret + label + c.to_bytes(8, "big")).digest()[i : i + 4], "big")
        for c in itertools.count()
        for i in range(0, 32, 4)
    )

    def below(n: int) -> int:
        return next(w % n for w in words if w < 2**32 - 2**32 % n)

    return below


def doc_shuffle(secret: bytes, jokers: bool = False) -> list[str]:
    deck = [r + s for s in "CDHS" for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]]
    deck += ["RJ", "BJ"] if jokers else []
    below = doc_below(secret, b"shuffle")
    for i in range(len(deck) - 1, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def doc_layout(game: str, deck: list[str], dealer: int, n: int, rules: dict | None = None) -> dict:
    """Each game's deal order, as docs/fair-deals.md states it (hands compared as sets)."""
    order = [(dealer + 1 + i) % n for i in range(n)]
    if game == "president":  # card k to the k-th seat from the dealer's left, round and round
        return {"hands": [sorted(c for k, c in enumerate(deck) if order[k % n] == s) for s in range(n)]}
    if game == "pitch":
        hands = {s: [] for s in range(n)}
        packets = iter(deck[i : i + 3] for i in range(0, 6 * n, 3))
        for _ in range(2):
            for s in order:
                hands[s] += next(packets)
        return {"hands": [sorted(hands[s]) for s in range(n)], "undealt": deck[6 * n :]}
    it = iter(deck)
    down = {s: [] for s in range(n)}
    up = {s: [] for s in range(n)}
    hand = {s: [] for s in range(n)}
    for target, count in ((down, rules["face_down_count"]), (up, rules["face_up_count"]), (hand, rules["hand_size"])):
        for _ in range(count):
            for s in order:
                target[s].append(next(it))
    return {"hands": [sorted(hand[s]) for s in range(n)], "face_down": [down[s] for s in range(n)],
            "face_up": [up[s] for s in range(n)], "draw_pile": list(it)}


def engine_layout(state: dict) -> dict:
    dealt = fairness.dealt_hands(state)
    return {k: [sorted(v) for v in vals] if k == "hands" else vals for k, vals in dealt.items()}


CASES = [("president", 5, {"hands": 3}), ("president", 4, {"hands": 2, "jokers": True}),
         ("pitch", 4, {"target_score": 5}), ("lopti", 3, {"rounds": 3})]


@pytest.mark.parametrize("slug, n, options", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_documented_shuffle_deals_the_same_cards_as_the_engine_every_deal(slug, n, options):
    game = registry.get(slug)
    state = game.new_game(players=n, options=game.validate_table_options(options, players=n), seed=SEED)
    assert state["dealer"] == doc_below(doc_secret(SEED, 0), b"dealer")(n)
    jokers = bool(options.get("jokers"))
    rng = random.Random(slug)
    checked = set()
    while True:
        deal = state["fairness"]["deal"]
        if deal not in checked:
            checked.add(deal)
            rules = state.get("rules")
            want = doc_layout(slug, doc_shuffle(doc_secret(SEED, deal), jokers), state["dealer"], n, rules)
            assert engine_layout(state) == want, f"deal {deal}"
            assert state["fairness"]["commitment"] == hashlib.sha256(doc_secret(SEED, deal)).hexdigest()
        if game.is_over(state):
            break
        seat = rng.choice(game.to_act(state))
        state = game.apply(state, seat, pick(game.legal_moves(state, seat), rng)).state
    assert len(checked) >= 2


@pytest.mark.parametrize("slug, n, options", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_each_deal_is_committed_afresh_and_revealed_when_its_hand_ends(slug, n, options):
    game = registry.get(slug)
    state = game.new_game(players=n, options=game.validate_table_options(options, players=n), seed=SEED)
    commitments = [game.view(state, None)["public"]["deal_commitment"]]
    revealed = []
    rng = random.Random(1)
    while not game.is_over(state):
        seat = rng.choice(game.to_act(state))
        state, events = game.apply(state, seat, pick(game.legal_moves(state, seat), rng))
        for event in events:
            if event["type"] == "deal_revealed":
                # the secret of the deal just over, whose commitment was published before it
                assert event["deal"] == len(revealed) and event["deal_commitment"] == commitments[-1]
                assert hashlib.sha256(bytes.fromhex(event["deal_secret"])).hexdigest() == commitments[-1]
                revealed.append(event["deal_secret"])
            if event["type"] == "deal":
                assert len(revealed) == len(commitments), "a deal before the last one's reveal"
                commitments.append(event["deal_commitment"])
        assert game.view(state, None)["public"]["deal_commitment"] == commitments[-1]
    assert len(revealed) == len(commitments) == len(set(commitments)) >= 2


def test_lopti_a_new_sessions_dealer_is_drawn_from_its_first_deals_secret():
    game = registry.get("lopti")
    state = game.new_game(players=3, options=game.validate_table_options({"rounds": 0}, players=3), seed=SEED)
    rng = random.Random(4)
    while state["phase"] != "house_rule":
        seat = rng.choice(game.to_act(state))
        state = game.apply(state, seat, pick(game.legal_moves(state, seat), rng)).state
    next_deal = state["deal_number"] + 1
    state = game.apply(state, None, {"type": "new_session"}).state
    assert state["dealer"] == doc_below(doc_secret(SEED, next_deal), b"dealer")(3)
    state = game.apply(state, None, {"type": "start_session"}).state
    assert state["fairness"]["deal"] == next_deal
    want = doc_layout("lopti", doc_shuffle(doc_secret(SEED, next_deal)), state["dealer"], 3, state["rules"])
    assert engine_layout(state) == want


def test_the_stream_rejects_words_that_would_bias_the_draw():
    # A stream whose first word is at or over the largest multiple of n must skip it.
    class Fixed(fairness.Stream):
        def __init__(self, words):
            self._queue = list(words)

        def word(self):
            return self._queue.pop(0)

    limit = 2**32 - 2**32 % 3
    assert Fixed([limit, limit + 1, 7]).below(3) == 1
    assert Fixed([limit - 1]).below(3) == (limit - 1) % 3


# --- tables dealt before fair deals --------------------------------------------------------------------
@pytest.mark.parametrize("slug, n, options", CASES[:1] + CASES[2:], ids=["president", "pitch", "lopti"])
def test_shuffle_0_keeps_the_old_generator_for_every_deal(slug, n, options):
    game = registry.get(slug)
    opts = game.validate_table_options(options, players=n)
    state = game.new_game(players=n, options=opts, seed=SEED, shuffle=0)
    assert "fairness" not in state
    assert state["dealer"] == cards.deal_rng(SEED, -1).randrange(n)
    assert game.view(state, 0)["public"]["deal_commitment"] is None
    jokers = bool(options.get("jokers"))
    deck = cards.standard_deck(jokers=jokers)
    assert sorted(game.cards(state)) == sorted(deck)
    old_first = cards.shuffled(deck, SEED, 0)
    rules = state.get("rules")
    assert doc_layout(slug, old_first, state["dealer"], n, rules)["hands"] == [sorted(h) for h in state["hands"]]
    rng = random.Random(2)
    while not game.is_over(state):
        seat = rng.choice(game.to_act(state))
        state, events = game.apply(state, seat, pick(game.legal_moves(state, seat), rng))
        assert "fairness" not in state
        assert not [e for e in events if e["type"] == "deal_revealed" or "deal_commitment" in e]
