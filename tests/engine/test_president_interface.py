"""President behind the engine front door (docs/architecture.md): the interface methods agree with `apply`
and with the views on seeded random games (4-7 players, random variations), and the refusals
keep their precedence. Pure engine tests."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from games.engine import cards
from games.engine.base import EngineError, GameConflict, IllegalMove, InvalidMove, NotYourTurn, Result
from games.engine.president import VARIATIONS, card_key, rank_of

from .test_president_rules import CARD_TOKEN, G, next_hand, play, start


def random_options(rng):
    opts = {v: rng.random() < 0.35 for v in VARIATIONS}
    opts["exchange"] = rng.choice(["none", "one", "two"])
    opts["seating"] = rng.choice(["fixed", "by_rank"])
    if rng.random() < 0.7:
        opts["hands"] = rng.choice([1, 2, 3])
    else:
        opts["target_score"] = rng.choice([2, 3])
    return G.validate_options(opts)


def random_games(seed, games):
    """(state, seat, move, result) for every step of `games` random games, moves mostly plays."""
    rng = random.Random(seed)
    for g in range(games):
        n = 4 + g % 4
        state = G.new_game(players=n, options=random_options(rng), seed=rng.randrange(2**40))
        for _ in range(20000):
            if G.is_over(state):
                break
            seat = rng.choice(G.to_act(state))
            legal = G.legal_moves(state, seat)
            plays = [m for m in legal if m["type"] != "pass"]
            move = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(legal)
            result = G.apply(state, seat, move)
            yield state, seat, move, result
            state = result.state
        assert G.is_over(state)


def key(move):
    return (move["type"], frozenset(move.get("cards", ())))


def accepted(state, seat, move):
    try:
        G.apply(state, seat, move)
    except EngineError:
        return False
    return True


def test_step_after_check_move_equals_apply():
    steps = 0
    for state, seat, move, result in random_games(seed=1, games=12):
        parsed = G.parse_move(state, seat, move)
        G.check_move(state, seat, parsed)
        snapshot = json.dumps(state)
        new, events = G.step(state, seat, parsed)
        assert json.dumps(state) == snapshot  # step leaves its input alone
        assert (new, events) == (result.state, result.events)
        assert isinstance(result, Result)
        assert result.to_act == tuple(G.to_act(new)) and result.phase == G.view(new, None)["phase"]
        assert result.seat_players == tuple(p["player"] for p in G.view(new, None)["seats"])
        steps += 1
    assert steps > 1000


def test_legal_moves_list_exactly_what_apply_accepts():
    """Every listed move applies; every other well-formed move of up to four held cards (all
    of them at a sample of steps, a random few elsewhere) and an unlisted pass is refused."""
    rng = random.Random(2)
    checked = 0
    for i, (state, seat, _move, _result) in enumerate(random_games(seed=2, games=8)):
        legal = G.legal_moves(state, seat)
        listed = {key(m) for m in legal}
        assert all(accepted(state, seat, m) for m in legal)
        hand = state["hands"][seat]
        if i % 25 == 0:
            sets = [list(c) for k in range(1, 5) for c in itertools.combinations(hand, k)]
        else:
            sets = [rng.sample(hand, rng.randint(1, min(4, len(hand)))) for _ in range(6)]
        moves = [{"type": t, "cards": sorted(c, key=card_key)} for c in sets for t in ("play", "give")]
        moves.append({"type": "pass"})
        for m in moves:
            assert accepted(state, seat, m) == (key(m) in listed), m
            checked += 1
    assert checked > 20000


def test_determinize_gives_the_same_view_and_plays_on_to_the_end():
    rng = random.Random(3)
    checked = 0
    for i, (state, seat, _move, _result) in enumerate(random_games(seed=3, games=8)):
        if i % 7:
            continue
        view = G.view(state, seat)
        sample = G.determinize(view, rng)
        assert json.loads(json.dumps(sample)) == sample
        assert G.view(sample, seat) == view
        assert sorted(G.cards(sample)) == sorted(G.cards(state))
        held = [c for h in sample["hands"] for c in h]
        assert len(held) == len(set(held))
        if checked % 10 == 0:  # the sample plays on with the checked door to the end
            for _ in range(20000):
                if G.is_over(sample):
                    break
                s = G.to_act(sample)[0]
                sample = G.apply(sample, s, rng.choice(G.legal_moves(sample, s))).state
            assert G.is_over(sample)
        checked += 1
    assert checked > 150


def test_determinize_of_an_exchange_and_with_a_prior():
    state = start(n=5, dealer=0, hands=3, exchange="two")
    state, _ = next_hand(state)
    assert G.phase(state) == "exchange"
    for seat in range(5):
        view = G.view(state, seat)
        for i in range(5):
            prior = {c: (5.0 if rank_of(c) == "2" else 1.0) for c in cards.standard_deck()}
            sample = G.determinize(view, random.Random(i), prior if i % 2 else None)
            assert G.view(sample, seat) == view
    # One giver left: the views name them (`turn`); the sample's stored `turn` stays the
    # exchange's, as in the state it stands for.
    giver = G.to_act(state)[-1]
    state = G.apply(state, giver, G.legal_moves(state, giver)[0]).state
    for seat in range(5):
        sample = G.determinize(G.view(state, seat), random.Random(seat))
        assert G.view(sample, seat) == G.view(state, seat) and G.view(sample, seat)["turn"] is not None
        assert sample["turn"] == state["turn"] is None


def test_cards_is_the_whole_deck_at_every_step():
    for state, _seat, _move, result in random_games(seed=4, games=8):
        for st in (state, result.state):
            assert sorted(G.cards(st)) == sorted(cards.standard_deck(jokers=st["options"]["jokers"]))


def test_secret_cards_never_shown():
    """No card of secret_cards(state, seat) is in the seat's view or in an event as it sees it.
    The cards dealt for a new hand after a play are checked against the state before the step,
    less the cards that step played (public)."""
    for state, _mover, move, result in random_games(seed=5, games=8):
        new, events = result.state, result.events
        n = new["players"]
        last_deal = max((i for i, e in enumerate(events) if e["type"] == "deal"), default=-1)
        for seat in [*range(n), None]:
            secret = G.secret_cards(new, seat)
            assert not secret & set(CARD_TOKEN.findall(json.dumps(G.view(new, seat))))
            before = G.secret_cards(state, seat) - set(move.get("cards", ()) if move["type"] == "play" else ())
            for i, e in enumerate(events):
                shown = set(CARD_TOKEN.findall(json.dumps(G.view_event(e, seat))))
                assert not shown & (secret if i > last_deal else before), (seat, e)
            if seat is not None:
                assert not set(new["hands"][seat]) & secret
                others = {c for s, h in enumerate(new["hands"]) if s != seat for c in h}
                assert others - secret <= {c for e in new["exchange"]["log"] if e["from"] == seat for c in e["cards"]}


def test_secret_cards_are_the_others_hands_less_what_the_seat_gave():
    state = start(n=4, dealer=0, hands=3)
    state, _ = next_hand(state)
    president = state["prev_places"].index(1)
    scum = state["prev_places"].index(4)
    gift = state["hands"][president][:1]
    state = G.apply(state, president, {"type": "give", "cards": gift}).state
    assert set(gift) <= set(state["hands"][scum])
    assert not set(gift) & G.secret_cards(state, president)
    assert set(gift) <= G.secret_cards(state, (scum + 1) % 4 if (scum + 1) % 4 != president else (scum + 2) % 4)
    assert G.secret_cards(state, None) == {c for h in state["hands"] for c in h}


def test_finishing_order_and_winners_agree_with_the_view():
    finished = 0
    for _state, _seat, _move, result in random_games(seed=6, games=16):
        if not result.over:
            assert result.winners == () and result.finishing_order == ()
            assert G.finishing_order(result.state) == [] and G.winners(result.state) == []
            continue
        view = G.view(result.state, None)
        scores = G.scores(result.state)
        assert scores == view["scores"]
        assert list(result.winners) == G.winners(result.state) == view["public"]["winners"]
        order = G.finishing_order(result.state)
        assert [list(p) for p in result.finishing_order] == order
        assert order[0] == list(result.winners)  # the winner is first, alone (P-7.1)
        assert sorted(s for place in order for s in place) == list(range(len(scores)))
        totals = [scores[place[0]] for place in order]
        assert totals == sorted(set(totals), reverse=True)  # best first, ties grouped
        assert all(scores[s] == scores[place[0]] for place in order for s in place)
        assert G.phase(result.state) == "finished" and result.to_act == ()
        finished += 1
    assert finished == 16


def test_finishing_order_groups_ties():
    state = start(n=5, dealer=0, hands=1)
    state, _ = next_hand(state)
    assert G.is_over(state)
    # P-6 with 5 players: +2 +1 0 -1 -2, so no two seats tie after one hand; make two tie
    st = json.loads(json.dumps(state))
    st["scores"] = [2, 0, 0, -1, -1]
    assert G.finishing_order(st) == [[0], [1, 2], [3, 4]]


# --- the precedence of refusals (the door's shared checks come before the game's) --------------
def test_a_seat_that_may_not_act_gets_not_your_turn_before_its_move_is_parsed():
    state = start(n=4, dealer=3)  # seat 0 leads
    for move in ({"type": "play", "cards": ["ZZ"]}, {"type": "play"}, {"type": "pass", "cards": []}, {"type": "pass"}):
        with pytest.raises(NotYourTurn):
            G.apply(state, 1, move)
    with pytest.raises(NotYourTurn):
        G.apply(state, None, {"type": "pass"})


def test_a_move_type_the_game_does_not_have_is_malformed_for_every_seat():
    # api.md: a move type the game does not have is 400 `invalid`, whoever sends it
    state = start(n=4, dealer=3)  # seat 0 leads
    for seat in (0, 1, None):
        for move in ({"type": "dance"}, {"type": "bid", "value": 1}, {"cards": ["3C"]}, {"type": ["play"]}, "x"):
            with pytest.raises(InvalidMove) as exc:
                G.apply(state, seat, move)
            assert "type" in exc.value.fields or not isinstance(move, dict), (seat, move)


def test_a_malformed_move_is_invalid_before_the_rules_judge_it():
    state = start(n=4, dealer=3, deal={0: ["3C", "4D"]})
    # a pass by the leader is illegal (P-4.2), but an extra field makes it malformed first
    with pytest.raises(InvalidMove):
        G.apply(state, 0, {"type": "pass", "cards": []})
    # two ranks is illegal (P-4.2), but a card not held makes it malformed first
    with pytest.raises(InvalidMove):
        G.apply(state, 0, {"type": "play", "cards": ["3C", "AS"]})
    with pytest.raises(IllegalMove) as exc:
        G.apply(state, 0, {"type": "play", "cards": ["3C", "4D"]})
    assert exc.value.rule == "P-4.2"
    # in the exchange a give is checked for its size (P-3.1) only once its cards are held
    state = start(n=4, dealer=0, hands=3)
    state, _ = next_hand(state)
    president = state["prev_places"].index(1)
    other = next(c for c in cards.standard_deck() if c not in state["hands"][president])
    with pytest.raises(InvalidMove):
        G.apply(state, president, {"type": "play", "cards": [other]})
    with pytest.raises(IllegalMove) as exc:
        G.apply(state, president, {"type": "play", "cards": state["hands"][president][:1]})
    assert exc.value.rule == "P-3.1"


def test_the_game_over_comes_first():
    state = start(n=4, dealer=0, hands=1)
    state, _ = next_hand(state)
    assert G.is_over(state)
    with pytest.raises(GameConflict):
        G.apply(state, 0, {"type": "dance"})


def test_parse_move_normalises_the_cards_order():
    state = start(n=4, dealer=3, deal={0: ["3C", "3D", "3S"]})
    parsed = G.parse_move(state, 0, {"type": "play", "cards": ["3S", "3C"]})
    assert parsed == {"type": "play", "cards": ["3C", "3S"]}
    assert G.step(state, 0, parsed) == tuple(play(state, 0, "3S", "3C"))
