"""Lopti behind the engine front door (docs/architecture.md): `step` after `check_move` is `apply`,
`legal_moves` is what `apply` accepts, `determinize` agrees with the view, the card list is the
deck, secret cards never show, and the table's result agrees with its view. Plus the orders of
refusals that the move table had to keep (parse before check, except where a refusal of
another class came first)."""

from __future__ import annotations

import random

import pytest

from games.engine.base import EngineError, GameConflict, NotPermitted, NotYourTurn
from games.engine.lopti.legality import set_base_rule

from .test_lopti_house_rules import window
from .test_lopti_random import choose, random_move, random_options
from .test_lopti_rules import finish_round
from .test_lopti_support import FULL, G, strings, table

SEEDS = range(6)
MAX_STEPS = 4000


def playthrough(seed: int):
    """Yield (state, seat, move) along a random game, the move being the one played."""
    rng = random.Random(seed)
    players = rng.randint(2, 5)
    opts = random_options(rng)
    opts["rounds"] = rng.randint(1, 2)
    st = G.new_game(players=players, options=opts, seed=seed)
    for _ in range(MAX_STEPS):
        if G.is_over(st):
            return
        seat = rng.choice(G.to_act(st))
        moves = G.legal_moves(st, seat)
        mv = choose(rng, moves) if moves[0]["type"] in ("play", "play_face_down", "take_pile") else rng.choice(moves)
        yield st, seat, mv, rng
        st = G.apply(st, seat, mv).state
    raise AssertionError("the random game did not end")


def table_facts(view: dict) -> dict:
    """The view without what a determinization cannot rebuild: the Rule Vote records (the
    sample has none; the random games here open no vote)."""
    public = {k: v for k, v in view["public"].items() if k not in ("vote", "duel")}
    return {**view, "public": public}


@pytest.mark.parametrize("seed", SEEDS)
def test_step_after_check_move_is_apply_and_cards_are_the_deck(seed):
    for st, seat, mv, _ in playthrough(seed):
        assert sorted(G.cards(st)) == sorted(FULL)
        parsed = G.parse_move(st, seat, mv)
        G.check_move(st, seat, parsed)
        result = G.apply(st, seat, mv)
        assert G.step(st, seat, parsed) == (result.state, result.events)
        assert result.phase == G.phase(result.state) and result.to_act == tuple(G.to_act(result.state))


@pytest.mark.parametrize("seed", SEEDS)
def test_legal_moves_are_exactly_what_apply_accepts(seed):
    checked = 0
    for st, seat, _, rng in playthrough(seed):
        if rng.random() > 0.2:
            continue
        listed = G.legal_moves(st, seat)
        for mv in listed:
            G.apply(st, seat, mv)
        for _ in range(5):
            mv = random_move(rng, st, seat)
            try:
                G.apply(st, seat, mv)
                accepted = True
            except EngineError:
                accepted = False
            assert accepted == (mv in listed), mv
            checked += 1
        other = (seat + 1) % st["players"]
        if other not in G.to_act(st):
            assert G.legal_moves(st, other) == []
    assert checked


@pytest.mark.parametrize("seed", SEEDS)
def test_determinize_agrees_with_the_view_and_plays_to_the_end(seed):
    played = 0
    for st, seat, _, rng in playthrough(seed):
        if rng.random() > 0.1:
            continue
        view = G.view(st, seat)
        sample = G.determinize(view, random.Random(seed), prior={"7": 1.5, "10": 0.5})
        assert table_facts(G.view(sample, seat)) == table_facts(view)
        assert sorted(G.cards(sample)) == sorted(FULL)
        # the hidden cards are resampled, the seen ones stay
        assert not (G.secret_cards(sample, seat) & (strings(view) & set(FULL)))
        for _ in range(MAX_STEPS):
            if G.is_over(sample):
                break
            s = G.to_act(sample)[0]
            moves = G.legal_moves(sample, s)
            mv = choose(rng, moves) if moves[0]["type"] in ("play", "play_face_down", "take_pile") else moves[0]
            sample = G.apply(sample, s, mv).state
        assert G.is_over(sample)
        played += 1
    assert played


@pytest.mark.parametrize("seed", SEEDS)
def test_secret_cards_never_show_in_views_or_events(seed):
    for st, seat, mv, _ in playthrough(seed):
        result = G.apply(st, seat, mv)
        for viewer in [None, *range(st["players"])]:
            secret = G.secret_cards(result.state, viewer)
            assert not secret & strings(G.view(result.state, viewer))
            # an event may show a card that is secret only afterwards (a card taken into a
            # hand was seen on the pile): check against the secrets of before and after
            # together, less the face-down card L-9 turns for all to see
            turned = {e["card"] for e in result.events if e["type"] == "face_down_reveal"}
            hidden = (secret & G.secret_cards(st, viewer)) - turned
            for event in result.events:
                assert not hidden & strings(G.view_event(event, viewer)), event


@pytest.mark.parametrize("seed", SEEDS)
def test_the_result_agrees_with_the_view(seed):
    last = None
    for st, seat, mv, _ in playthrough(seed):
        last = G.apply(st, seat, mv)
        if not last.over:
            assert last.winners == () and last.finishing_order == ()
    view = G.view(last.state, None)
    assert list(last.winners) == view["public"]["winners"] == G.winners(last.state)
    assert G.scores(last.state) == view["scores"]
    order = G.finishing_order(last.state)
    assert order[0] == G.winners(last.state)
    assert sorted(s for place in order for s in place) == list(range(last.state["players"]))
    wins = [view["scores"][place[0]] for place in order]
    assert wins == sorted(wins, reverse=True)
    # docs/ratings.md: rated round by round, each round's places over every seat
    matches = G.rating_matches(last.state)
    assert len(matches) == last.state["round"] == len(last.state["round_results"])
    assert all(sorted(s for place in m for s in place) == list(range(last.state["players"])) for m in matches)


def test_a_table_is_rated_round_by_round_by_the_places_each_rounds_rules_gave():
    """Ruling (docs/ratings.md): one rated match per round, in round order, by that round's places:
    with `play_for_places` every seat in the order it went out (L-10.3), else the winner first
    and the rest tied (L-10.1). The rule may change between rounds (a vote, L-13), so each
    round's places are kept when it ends; the table's own order stays by round wins (L-2.2)."""
    st = table(players=3, turn=2, options={"play_for_places": True, "rounds": 2})
    st, _ = finish_round(st, 2)
    st = set_base_rule(st, "play_for_places", False, "next_round")  # as a passed vote does
    st, _ = finish_round(st, 0)  # seat 1 is the last left: round 1 ends
    assert st["round"] == 2 and st["rules"]["play_for_places"] is False
    assert st["round_results"] == [[[2], [0], [1]]] and G.rating_matches(st) == []
    st, _ = finish_round(st, 1)
    assert G.is_over(st) and G.finishing_order(st) == [[1, 2], [0]]
    assert G.rating_matches(st) == [[[2], [0], [1]], [[1], [0, 2]]]
    assert G.result(st, []).rating_matches == (((2,), (0,), (1,)), ((1,), (0, 2)))


def test_a_state_stored_before_rounds_were_recorded_is_rated_once_by_the_tables_order():
    """States stored before `round_results` existed never gain it (their replay stays the
    stored state) and are rated as they were: once, by the order by round wins."""
    st = table(players=3, turn=1, options={"play_for_places": True, "rounds": 2})
    del st["round_results"]
    for seat in (1, 2, 1, 0):
        st, _ = finish_round(st, seat)
    assert G.is_over(st) and "round_results" not in st
    assert G.rating_matches(st) == [G.finishing_order(st)] == [[[1], [0, 2]]]


def test_round_places_with_and_without_play_for_places():
    st = table(players=3, turn=0, face_down={0: ["9C", None, None]})
    st = G.apply(st, 0, {"type": "play_face_down", "index": 0}).state
    assert G.round_places(st) == [[0], [1, 2]] and G.round_winner(st) == 0


# --- precedence the move table keeps ---------------------------------------------------------------


def test_a_non_winners_malformed_rule_is_refused_as_not_theirs_before_its_fields():
    st = window(players=3, winner=1)
    with pytest.raises(NotPermitted):
        G.apply(st, 2, {"type": "write_rule", "rule": "not a rule", "extra": 1})
    with pytest.raises(NotYourTurn):  # the server does not write rules
        G.apply(st, None, {"type": "write_rule", "rule": "not a rule"})


def test_the_winner_outside_the_window_gets_the_conflict_before_the_rule_is_read():
    st = window(players=3, winner=1)
    st = G.apply(st, 1, {"type": "decline_rule"}).state
    with pytest.raises(GameConflict) as exc:
        G.apply(st, 1, {"type": "write_rule", "rule": {"bad": True}})
    assert exc.value.rule == "L-11.1"


def test_a_malformed_game_move_during_an_open_vote_is_the_pause_conflict():
    st = table(players=3, turn=0, hands={0: ["9C"], 1: ["4D"], 2: ["KD"]})
    vote = {"type": "propose_vote", "kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    st = G.apply(st, 1, vote).state
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "play", "cards": "nonsense"})
    with pytest.raises(GameConflict):  # not its turn either: the pause comes first (L-12.2)
        G.apply(st, 2, {"type": "take_pile", "extra": 1})


def test_the_bot_uses_only_the_engines_public_names():
    """The hard bot searches through the interface; it imports no private engine name
    and calls no private method or module function of the engine."""
    import ast
    from pathlib import Path

    import games.bots.lopti as bot

    tree = ast.parse(Path(bot.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("games.engine"):
            assert not [a.name for a in node.names if a.name.startswith("_")], node.module
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in ("ENGINE", "_cards"):
                assert not node.attr.startswith("_"), f"{node.value.id}.{node.attr}"
