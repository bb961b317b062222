"""The President bots (games/bots/president.py): legal moves from random positions, only the
seat's view used, easy's sensible choices in set positions, and a strength check against
random play. Pure engine tests, no Django."""

from __future__ import annotations

import copy
import json
import random

import pytest

from games.bots import choose_move, random_move
from games.bots import president as bots
from games.engine import cards
from games.engine.president import VARIATIONS, card_key

from .test_president_rules import G, next_hand, play, start, with_hands


@pytest.fixture
def small_budget(monkeypatch):
    """The hard bot with a few playouts: legality does not depend on the budget."""
    monkeypatch.setattr(bots, "DETERMINIZATIONS", 3)
    monkeypatch.setattr(bots, "MIN_DETERMINIZATIONS", 2)
    monkeypatch.setattr(bots, "PLAYOUT_BUDGET", 8)


def random_options(rng):
    opts = {v: rng.random() < 0.35 for v in VARIATIONS}
    opts["exchange"] = rng.choice(["none", "one", "two"])
    opts["seating"] = rng.choice(["fixed", "by_rank"])
    opts["hands"] = rng.choice([2, 3])
    return G.validate_options(opts)


def positions(seed, games, every=1):
    """(state, seat) for every seat that must act, at every `every`-th step of random games
    (4-7 players, random variations, moves half random, half easy)."""
    rng = random.Random(seed)
    for g in range(games):
        n = 4 + g % 4
        state = G.new_game(players=n, options=random_options(rng), seed=rng.randrange(2**40))
        step = 0
        while state["status"] != "finished":
            actors = G.to_act(state)
            if step % every == 0:
                for seat in actors:
                    yield state, seat
            seat = rng.choice(actors)
            view = G.view(state, seat)
            policy = random_move if rng.random() < 0.5 else bots.easy
            state, _ = G.apply(state, seat, policy(view, rng))
            step += 1


def view_of(state, seat):
    return G.view(state, seat)


# --- (a) legal moves, never an error ---------------------------------------------------------
def test_easy_always_returns_a_listed_move():
    count = 0
    for state, seat in positions(seed=11, games=24):
        view = view_of(state, seat)
        move = bots.easy(view, random.Random(count))
        assert move in view["legal_moves"]
        count += 1
    assert count > 1500


def test_hard_always_returns_a_listed_move(small_budget):
    count = 0
    phases = set()
    for state, seat in positions(seed=12, games=10, every=5):
        view = view_of(state, seat)
        move = bots.hard(view, random.Random(count))
        assert move in view["legal_moves"]
        phases.add(view["phase"])
        count += 1
    assert count > 150 and phases == {"play", "exchange"}


def test_hard_with_its_full_budget_returns_a_listed_move():
    rng = random.Random(13)
    picked = [p for p in positions(seed=13, games=4, every=7)]
    for state, seat in rng.sample(picked, 8):
        view = view_of(state, seat)
        assert bots.hard(view, random.Random(1)) in view["legal_moves"]


def test_choose_move_reaches_both_policies():
    state = start(n=5, dealer=0)
    seat = G.to_act(state)[0]
    view = view_of(state, seat)
    for level in ("easy", "hard"):
        assert choose_move("president", level, view, random.Random(0)) in view["legal_moves"]


# --- (b) only the view -----------------------------------------------------------------------
def swapped(state, seat, rng):
    """The same state with cards swapped between two other seats' hands (same counts), or None."""
    others = [s for s in range(state["players"]) if s != seat and state["hands"][s]]
    if len(others) < 2:
        return None
    a, b = rng.sample(others, 2)
    k = min(len(state["hands"][a]), len(state["hands"][b]))
    other = json.loads(json.dumps(state))
    ha, hb = other["hands"][a], other["hands"][b]
    other["hands"][a] = sorted(hb[:k] + ha[k:], key=card_key)
    other["hands"][b] = sorted(ha[:k] + hb[k:], key=card_key)
    return other if other["hands"] != state["hands"] else None


def test_bots_decide_from_the_view_alone(small_budget):
    rng = random.Random(21)
    checked = 0
    for i, (state, seat) in enumerate(positions(seed=21, games=8, every=6)):
        other = swapped(state, seat, rng)
        if other is None:
            continue
        view, view2 = view_of(state, seat), view_of(other, seat)
        assert view == view2
        kept = copy.deepcopy(view)
        for policy in (bots.easy, bots.hard):
            first = policy(view, random.Random(i))
            assert view == kept  # the view is left alone
            assert policy(view2, random.Random(i)) == first
        checked += 1
    assert checked > 60


def test_hard_is_deterministic_given_rng():
    state = start(n=4, dealer=3)
    view = view_of(state, 0)
    moves = {json.dumps(bots.hard(view, random.Random(5))) for _ in range(2)}
    assert len(moves) == 1


def test_determinization_is_consistent_with_the_view():
    """Each sampled state gives the seat the same view (up to the exchange log, which the
    sample leaves empty), deals every seat its card count and no card twice, and never deals
    a card the seat holds or saw played."""
    rng = random.Random(31)
    checked = 0
    for state, seat in positions(seed=31, games=10, every=5):
        view = view_of(state, seat)
        if view["phase"] != "play":
            continue
        sample = G.determinize(view, rng)
        assert sample is not None
        again, expected = G.view(sample, seat), copy.deepcopy(view)
        for v in (again, expected):
            v["you"]["received"] = v["you"]["gave"] = None
            v["public"]["exchange"]["done"] = None
        assert again == expected
        assert sample["trick"] == state["trick"]  # with the revolution run rebuilt from the plays
        held = [c for h in sample["hands"] for c in h]
        assert len(held) == len(set(held))
        assert [len(h) for h in sample["hands"]] == [s["card_count"] for s in view["seats"]]
        seen = bots.visible_played(view["public"])
        assert not seen & set(held)
        assert set(held) <= set(cards.standard_deck(jokers=sample["options"]["jokers"]))
        checked += 1
    assert checked > 100


def test_determinization_keeps_what_the_exchange_told():
    """The President got the Scum's highest card: the Scum is dealt nothing higher; and the card
    the President gave back is with the Scum at the start of play."""
    state = start(n=4, dealer=0, hands=2)
    state, _ = next_hand(state)
    assert state["phase"] == "exchange"
    president = state["prev_places"].index(1)
    scum = state["prev_places"].index(4)
    view = view_of(state, president)
    gift = bots.easy(view, random.Random(0))
    state, _ = G.apply(state, president, gift)
    view = view_of(state, president)
    top = max(card_key(c)[0] for c in view["you"]["received"])
    for i in range(20):
        sample = G.determinize(view, random.Random(i))
        assert set(gift["cards"]) <= set(sample["hands"][scum])
        assert all(card_key(c)[0] <= top for c in sample["hands"][scum])


# --- (c) easy's choices ----------------------------------------------------------------------
def lead_state(hand, n=4, **opts):
    """Seat 0 to lead with `hand` (the dealer is seat n-1)."""
    state = start(n=n, dealer=n - 1, **opts)
    return with_hands(state, {0: hand})


def follow_state(led, hand, **opts):
    """Seat 0 led `led`; seat 1 to act with `hand`."""
    state = start(n=4, dealer=3, deal={0: led}, **opts)
    state, _ = play(state, 0, *led)
    return with_hands(state, {1: hand})


def easy_move(state, seat):
    view = view_of(state, seat)
    move = bots.easy(view, random.Random(0))
    assert move in view["legal_moves"]
    return move


def cards_of(move):
    return sorted(move.get("cards", []), key=card_key)


def test_easy_leads_its_lowest_card():
    state = lead_state(["7S", "3H", "9D", "KC", "2C", "5S", "JD"])
    assert cards_of(easy_move(state, 0)) == ["3H"]


def test_easy_leads_a_low_set_whole():
    state = lead_state(["4C", "4H", "9D", "KC", "2C", "JD", "QS"])
    assert cards_of(easy_move(state, 0)) == ["4C", "4H"]


def test_easy_leads_a_low_pair_before_a_slightly_lower_single():
    state = lead_state(["3C", "5C", "5D", "9D", "KC", "2C", "JD", "QS"])
    assert cards_of(easy_move(state, 0)) == ["5C", "5D"]


def test_easy_keeps_2s_and_aces_for_the_lead_when_it_has_low_cards():
    state = lead_state(["2C", "AD", "AS", "8H", "KC", "JD"])
    assert cards_of(easy_move(state, 0)) == ["8H"]


def test_easy_beats_with_the_cheapest_card_and_keeps_the_2():
    state = follow_state(["8C"], ["4S", "9H", "2D", "KD", "5C", "6C", "JH", "QS", "10C", "3D"])
    assert cards_of(easy_move(state, 1)) == ["9H"]


def test_easy_passes_rather_than_spend_a_2_early():
    state = follow_state(["KC"], ["4S", "5H", "2D", "6D", "7C", "8C", "9H", "10S", "JC", "3D"])
    assert easy_move(state, 1) == {"type": "pass"}


def test_easy_passes_rather_than_break_a_pair_early():
    state = follow_state(["8C"], ["4S", "5H", "6D", "7C", "9H", "9S", "3D", "3C", "4D", "5S"])
    assert easy_move(state, 1) == {"type": "pass"}


def test_easy_spends_a_2_when_few_cards_are_left():
    state = follow_state(["KC"], ["2D", "5H", "6D"])
    assert cards_of(easy_move(state, 1)) == ["2D"]


def test_easy_goes_out_when_it_can():
    state = follow_state(["KC", "KD"], ["AS", "AD"])
    assert cards_of(easy_move(state, 1)) == ["AD", "AS"]


def test_easy_leads_an_unbeatable_set_before_its_last_card():
    # nothing beats a single 2 (an equal rank does not): 2 first, then the 5 goes out
    assert cards_of(easy_move(lead_state(["2S", "5C"]), 0)) == ["2S"]
    # an ace can be beaten by a 2 it has not seen, a 2 by a joker: the low card first
    assert cards_of(easy_move(lead_state(["AS", "5C"]), 0)) == ["5C"]
    assert cards_of(easy_move(lead_state(["2S", "5C"], jokers=True), 0)) == ["5C"]
    # ... unless every card that could beat it has been seen played
    state = lead_state(["AS", "5C"])
    state["last_trick"] = {
        "plays": [
            {"seat": s, "cards": [c]} for s, c in zip((1, 2, 3, 1), ("2C", "2D", "2H", "2S"), strict=True)
        ],
        "winner": 1,
    }
    for s in (1, 2, 3):
        state["hands"][s] = [c for c in state["hands"][s] if not c.startswith("2")]
    assert cards_of(easy_move(state, 0)) == ["AS"]


def test_easy_beats_a_pair_with_the_cheapest_pair():
    hand = ["9C", "9D", "JC", "JS", "AC", "AD", "4C", "5D", "6S", "7H"]
    state = follow_state(["8C", "8D"], hand)
    assert cards_of(easy_move(state, 1)) == ["9C", "9D"]


def test_easy_uses_the_variations_legal_moves():
    # clear_threes: a 3 beats the K but is kept for later (like a 2) while the hand is long
    state = follow_state(
        ["KC"], ["3S", "4H", "5D", "6D", "7C", "8C", "9H", "10S", "JC", "QD"], clear_threes=True
    )
    assert easy_move(state, 1) == {"type": "pass"}
    # twos_high_and_low: anything beats a standing 2, so the lowest card goes on it
    state = follow_state(
        ["2C"], ["4H", "5D", "6D", "7C", "8C", "9H", "10S", "JC", "QD", "KD"], twos_high_and_low=True
    )
    assert cards_of(easy_move(state, 1)) == ["4H"]


@pytest.mark.parametrize("mode,count", [("one", 1), ("two", 2)])
def test_easy_gives_the_lowest_cards_in_the_exchange(mode, count):
    state = start(n=4, dealer=0, hands=2, exchange=mode)
    state, _ = next_hand(state)
    assert state["phase"] == "exchange"
    president = state["prev_places"].index(1)
    hand = state["hands"][president]
    move = easy_move(state, president)
    assert move["type"] == "give" and cards_of(move) == sorted(hand, key=card_key)[:count]


def test_hard_goes_out_at_once_and_falls_back_to_easy_in_the_exchange():
    state = follow_state(["KC", "KD"], ["AS", "AD"])
    view = view_of(state, 1)
    assert cards_of(bots.hard(view, random.Random(0))) == ["AD", "AS"]
    state = start(n=4, dealer=0, hands=2)
    state, _ = next_hand(state)
    president = state["prev_places"].index(1)
    view = view_of(state, president)
    assert bots.hard(view, random.Random(0)) == bots.easy(view, random.Random(0))


def test_playout_view_gives_easy_the_same_decision_as_the_engine_view():
    for state, seat in positions(seed=41, games=10, every=2):
        if state["phase"] != "play":
            continue
        full = bots.easy(G.view(state, seat), random.Random(0))
        assert bots.easy(bots.playout_view(state, seat), random.Random(0)) == full


def test_the_playout_policy_makes_easys_move_without_listing_the_moves():
    """`_policy` reads easy's (rank, size) choices from the state instead of the legal moves:
    the same move, every phase, variation and table size."""
    checked = 0
    for state, seat in positions(seed=43, games=24):
        expected = bots.easy(bots.playout_view(state, seat), random.Random(0))
        assert bots._policy_for(state["options"])(state, seat, random.Random(0)) == expected, (state, seat)
        checked += 1
    assert checked > 2000


# --- (d) strength ----------------------------------------------------------------------------
def mean_place(policy, others, games, seed):
    """The mean finishing place of `policy` (0 first .. 1 last) in one-hand games against
    `others`, rotating the seat and the table size."""
    rng = random.Random(seed)
    total = 0.0
    for g in range(games):
        n = 4 + g % 4
        state = G.new_game(players=n, options=G.validate_options({"hands": 1}), seed=seed * 1000 + g)
        me = g % n
        while state["status"] == "active" and state["hand_no"] == 1:
            seat = G.to_act(state)[0]
            view = G.view(state, seat)
            state, events = G.apply(state, seat, (policy if seat == me else others)(view, rng))
            for e in events:
                if e["type"] == "out" and e["seat"] == me:
                    total += (e["place"] - 1) / (n - 1)
    return total / games


def test_easy_beats_random_play():
    assert mean_place(bots.easy, random_move, games=60, seed=5) < 0.35
    assert mean_place(random_move, bots.easy, games=60, seed=6) > 0.6


# --- (e) the engine's public interface only ----------------------------------------------------
def test_the_bot_uses_no_private_name_of_the_engine():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(bots))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("games.engine")
        for alias in node.names
    ]
    assert "beats" in imported and not [n for n in imported if n.startswith("_")]
    private = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("ENGINE", "cards")
        and node.attr.startswith("_")
    ]
    assert private == []


# --- the hard bot's memory and inference (docs/bots.md) ----------------------------------------
def played_everywhere_but(hands: dict[int, list[str]]) -> list[dict]:
    """A history in which every card not in `hands` was played in earlier tricks of the hand."""
    held = {c for h in hands.values() for c in h}
    gone = [c for c in cards.standard_deck() if c not in held]
    return [{"type": "play", "seat": 1 + i % 3, "cards": [c], "rank": c[:-1]} for i, c in enumerate(gone)]


def test_hard_leads_the_king_nothing_left_can_beat_where_easy_leads_its_low_card():
    # Seat 0 leads with K and 5; every A and 2 was played earlier in the hand (the history
    # says so, the view does not). Leading the king wins the trick, then the 5 goes out
    # first; leading the 5 lets an opponent beat it and go out with its last card.
    hands = {0: ["KS", "5H"], 1: ["3C"], 2: ["4D"], 3: ["6S"]}
    state = with_hands(start(n=4, dealer=3), hands)
    view = view_of(state, 0)
    history = played_everywhere_but(hands)
    assert cards_of(bots.easy(view, random.Random(0))) == ["5H"]
    for seed in range(3):
        assert cards_of(bots.hard(view, random.Random(seed), history=history)) == ["KS"]


def test_played_this_hand_counts_the_plays_since_the_deal():
    history = [
        {"type": "play", "seat": 1, "cards": ["4C"], "rank": "4"},
        {"type": "deal", "hand": 2, "dealer": 1, "card_counts": [13, 13, 13, 13]},
        {"type": "play", "seat": 2, "cards": ["9C", "9D"], "rank": "9"},
        {"type": "pass", "seat": 3},
        {"type": "play", "seat": 0, "cards": ["JH", "JS"], "rank": "J"},
    ]
    assert bots.played_this_hand(history) == {"9C", "9D", "JH", "JS"}
    assert bots.played_this_hand(history[:1]) == {"4C"}  # the first hand's deal is no event
    assert bots.played_this_hand(None) == set()


def test_a_card_seen_played_is_never_dealt_to_another_seat():
    hands = {0: ["KS", "5H"], 1: ["3C", "7C"], 2: ["4D"], 3: ["6S", "8H", "9H"]}
    state = with_hands(start(n=4, dealer=3), hands)
    view = view_of(state, 0)
    played = {c for e in played_everywhere_but(hands) for c in e["cards"]}
    rng = random.Random(3)
    blind = [G.determinize(view, rng) for _ in range(30)]
    assert any(set(h) & played for s in blind for h in s["hands"][1:]), "without memory, played cards get dealt"
    for _ in range(30):
        sample = G.determinize(view, rng, dict.fromkeys(played, 0.0))
        dealt = {c for h in sample["hands"][1:] for c in h}
        assert not dealt & played
        assert [len(h) for h in sample["hands"]] == [2, 2, 1, 3]


def test_a_deal_that_contradicts_a_pass_is_refused():
    # Seat 1 passed on a single 7 (easy beats with a whole ordinary set whenever it holds one).
    history = [
        {"type": "play", "seat": 0, "cards": ["7C"], "rank": "7"},
        {"type": "pass", "seat": 1},
        {"type": "play", "seat": 2, "cards": ["9D"], "rank": "9"},
        {"type": "trick_end", "winner": 2, "leader": 2},
        {"type": "play", "seat": 1, "cards": ["3H"], "rank": "3"},
    ]
    accept = bots._fits(bots._pass_evidence(history), me=0)

    def sample(hand_1):
        return {"hands": [["KS"], hand_1, ["4D"], ["6S"]]}

    assert not accept(sample(["8S"]))  # a single 8 would have beaten the 7
    assert not accept(sample(["QH", "4C"]))
    assert accept(sample(["8S", "8H"]))  # a pair: easy does not break it early
    assert accept(sample(["AS", "4C"]))  # control cards are kept
    assert accept(sample(["5S", "6C"]))  # nothing above the 7
    # The 3 it led later was in its hand when it passed: a single 3 is below the 7 anyway; a
    # 9 played later by seat 1 would count (it held it then).
    later = history + [{"type": "trick_end", "winner": 1, "leader": 1},
                       {"type": "play", "seat": 1, "cards": ["9S"], "rank": "9"}]
    assert not bots._fits(bots._pass_evidence(later), me=0)(sample(["5S"]))
    # A revolution changes the order: no evidence is drawn.
    assert bots._pass_evidence(history + [{"type": "revolution", "active": True}]) == []


def test_the_redeals_judge_a_hand_as_consistent_does():
    """`_agrees` (the redeals' counts per strength) answers `_consistent` on every kind of
    decision: leads, passes and follows, with hands large and small, going out included."""
    rng = random.Random(7)
    deck = cards.standard_deck()
    ranks = [r for r in bots.ORDER]
    seen = {True: 0, False: 0}
    for _ in range(20000):
        pool = rng.sample(deck, rng.randint(1, 18))
        cut = rng.randint(0, len(pool))
        hand, later = pool[:cut], pool[cut:]
        kind = rng.choice(["lead", "pass", "follow"])
        standing = None if kind == "lead" else (rng.randrange(13), rng.randint(1, 4))
        played = None
        if kind != "pass":
            held = [bots._RANK[c] for c in pool]
            rank = rng.choice(held) if rng.random() < 0.8 else rng.choice(ranks)
            played = (rank, rng.randint(1, 4) if rng.random() < 0.3 else max(1, held.count(rank) - rng.randint(0, 1)))
        expected = bots._consistent(bots._counts(hand, later), kind, standing, played)
        now = [0] * 14
        for c in hand:
            now[bots._STRENGTH_OF[c]] += 1
        assert bots._agrees(now, len(hand), bots._check(kind, standing, played, later)) == expected, (
            hand, later, kind, standing, played)
        seen[expected] += 1
    assert min(seen.values()) > 2000


# --- the hard bot's score in a hand that can end the game (P-6 points, P-7 the end) -------------
def _at(state, *, places=None, scores=None):
    st = copy.deepcopy(state)
    if places is not None:
        st["places"] = list(places)
    if scores is not None:
        st["scores"] = list(scores)
    return st


def test_hard_knows_which_hands_can_end_the_game():
    """P-7.2: with `hands`, the last counted hand (and any after it); P-7.1: by target score,
    a hand in which some total can reach the target with a President's +2."""
    one_hand = start(hands=1)
    assert bots._deciding(view_of(one_hand, 0))
    assert not bots._deciding(view_of(start(hands=2), 0))
    by_target = start(target_score=11)
    assert not bots._deciding(view_of(_at(by_target, scores=[8, 0, 0, 0]), 0))
    assert bots._deciding(view_of(_at(by_target, scores=[0, 9, 0, 0]), 0))


def test_hard_scores_a_deciding_hand_by_the_table_not_the_place():
    """One-hand game (P-7.2): going out first wins the table (+2, P-6), anyone else out first
    loses it for seat 0 at once, before seat 0's own place is known."""
    state = start(hands=1)
    hand = state["hand_no"]
    assert bots._table_outcome(state, 0, hand) is None
    assert bots._table_outcome(_at(state, places=[1, None, None, None]), 0, hand) == 1.0
    assert bots._table_outcome(_at(state, places=[None, None, 1, None]), 0, hand) == 0.0
    # Totals carried into the last hand: seat 1 leads by 3. Seat 0 out first (+2) can still be
    # caught or passed by seat 1 (3 - 2 .. 3 + 1), so it is open; seat 1 second (+1) settles it.
    carried = _at(state, scores=[0, 3, 0, 0], places=[1, None, None, None])
    assert bots._table_outcome(carried, 0, hand) is None
    assert bots._table_outcome(_at(carried, places=[1, 2, None, None]), 0, hand) == 0.0
    # Seat 2 second (+1): seat 1 may still tie seat 0 at 2 (third, -1), so it stays open;
    # seat 1 last (-2) settles it for seat 0.
    assert bots._table_outcome(_at(carried, places=[1, None, 2, None]), 0, hand) is None
    assert bots._table_outcome(_at(carried, places=[1, 4, 2, 3]), 0, hand) == 1.0


def test_hard_reads_a_finished_game_and_a_tied_lead_after_the_hand():
    """P-7: the winner of a finished game; a hand that ended with the lead tied (play goes on)
    is worth TIE_VALUE, neither a win nor a loss."""
    state = start(hands=1)
    hand = state["hand_no"]
    finished, _ = next_hand(state)
    assert finished["status"] == "finished"
    winner = finished["seat_players"][finished["winners"][0]]
    loser = next(p for p in finished["seat_players"] if p != winner)
    assert bots._table_outcome(finished, winner, hand) == 1.0
    assert bots._table_outcome(finished, loser, hand) == 0.0
    tied = _at(state)
    tied["hand_no"] = hand + 1
    assert bots._table_outcome(tied, 0, hand) == bots.TIE_VALUE
