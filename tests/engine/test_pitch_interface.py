"""Auction Pitch behind the engine front door (docs/architecture.md): `parse_move` / `check_move` / `step`
agree with `apply`, `legal_moves` lists exactly what `apply` accepts, `determinize` gives back
the seat's view and a playable state, `cards` is the deck, `secret_cards` never shows, and
`winners` / `finishing_order` / `scores` agree with the view. Seeded random games (3, 4 with
partnerships, 5 and 7 seats) plus scenarios for the order of refusals."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path

import pytest

from games.engine import cards, pitch
from games.engine.base import GameConflict, IllegalMove, InvalidMove, NotYourTurn

from .test_pitch import H1, H1_BIDS, H1_PLAYS, auction, new, play_all
from .test_pitch_random import CARD_STRING, choose

G = pitch.GAME
DECK = sorted(cards.standard_deck())
# Every well-formed move a seat could send: the bids and a play of each card.
EVERY_MOVE = [{"type": "bid", "value": v} for v in range(5)] + [{"type": "play", "card": c} for c in DECK]
CONFIGS = [
    (3, {"target_score": 5}),
    (4, {"target_score": 5, "partnerships": True}),
    (5, {"target_score": 4, "low_to": "dealt"}),
    (7, {"target_score": 3}),
]


def shown(obj: object) -> set[str]:
    return set(CARD_STRING.findall(json.dumps(obj)))


def table_view(view: dict) -> dict:
    """The view without the record of the previous hand. Ruling: `public.last_hand` names the
    cards of a hand that is over; they have been shuffled and dealt again since, so a code
    there says nothing of where that card lies now (A-8 shows every played card)."""
    return {**view, "public": {k: v for k, v in view["public"].items() if k != "last_hand"}}


def games(seed: str, n: int, options: dict):
    """(state, seat to act, move, result of apply) for each move of one seeded random game."""
    rng = random.Random(seed)
    st = G.new_game(players=n, options=G.validate_options(options), seed=rng.getrandbits(40))
    while not G.is_over(st):
        (seat,) = G.to_act(st)
        mv = choose(rng, st, seat, G.legal_moves(st, seat), st["phase"])
        result = G.apply(st, seat, mv)
        yield st, seat, mv, result
        st = result.state


@pytest.mark.parametrize("n,options", CONFIGS)
def test_step_after_the_checks_is_apply_and_leaves_the_state_alone(n, options):
    rng = random.Random(n)
    for st, seat, mv, result in games(f"step-{n}", n, options):
        before = json.dumps(st, sort_keys=True)
        for move in [mv, *rng.sample(G.legal_moves(st, seat), 1)]:
            parsed = G.parse_move(st, seat, move)
            assert G.check_move(st, seat, parsed) is None
            stepped, events = G.step(st, seat, parsed)
            applied = G.apply(st, seat, move)
            assert (stepped, events) == (applied.state, applied.events)
            assert json.loads(json.dumps(stepped)) == stepped
        assert json.dumps(st, sort_keys=True) == before  # neither step nor apply touched it
        assert result.to_act == tuple(G.to_act(result.state)) and result.phase == G.phase(result.state)
        assert result.phase == G.view(result.state, None)["phase"]


@pytest.mark.parametrize("n,options", CONFIGS)
def test_legal_moves_are_exactly_the_moves_apply_accepts(n, options):
    rng = random.Random(n)
    for k, (st, seat, _mv, _result) in enumerate(games(f"legal-{n}", n, options)):
        legal = G.legal_moves(st, seat)
        sample = EVERY_MOVE if k % 7 == 0 else rng.sample(EVERY_MOVE, 8) + legal
        for move in sample:
            if move in legal:
                G.apply(st, seat, move)
            else:
                # A card the seat does not hold is malformed for it; any other refusal is a rule's.
                held = move["type"] == "bid" or move["card"] in st["hands"][seat]
                with pytest.raises(IllegalMove if held else InvalidMove):
                    G.apply(st, seat, move)
        other = (seat + 1) % n
        assert G.legal_moves(st, other) == []
        with pytest.raises(NotYourTurn):
            G.apply(st, other, legal[0])


@pytest.mark.parametrize("n,options", CONFIGS)
def test_determinize_gives_back_the_view_and_plays_on_to_the_end(n, options):
    rng = random.Random(n)
    played_out = 0
    for k, (st, seat, _mv, _result) in enumerate(games(f"det-{n}", n, options)):
        if k % 3:
            continue
        for s in (seat, (seat + 1) % n, None):
            view = G.view(st, s)
            sample = G.determinize(view, rng)
            assert G.view(sample, s) == view
            assert sorted(G.cards(sample)) == DECK
            # The hidden cards are sampled: the seat's own hand is the only hand it keeps.
            assert G.secret_cards(sample, s) == set(DECK) - set(view["you"]["hand"] if s is not None else []) - {
                c for t in view["public"]["tricks"] for c in [p["card"] for p in t["cards"]]
            } - {p["card"] for p in view["public"]["trick"]}
        if k % 30 == 0:
            sample = G.determinize(G.view(st, seat), rng)
            while not G.is_over(sample):
                (actor,) = G.to_act(sample)
                legal = G.legal_moves(sample, actor)
                sample = G.apply(sample, actor, choose(rng, sample, actor, legal, sample["phase"])).state
            played_out += 1
    assert played_out >= 1


def test_determinize_honours_the_suits_a_seat_showed_out_of():
    # H1 (3 seats): seat 1 pitches spades; after the first trick each seat that did not play
    # a trump on the trump lead is known to hold none.
    st = auction(new(H1), H1_BIDS)
    st, _ = play_all(st, H1_PLAYS[:9])
    view = G.view(st, 0)
    voids = pitch.shown_out(view["public"]["tricks"], view["public"]["trick"], view["public"]["trump"], 3)
    assert any(voids), "the scenario must reveal a void"
    for s, hand in enumerate(st["hands"]):
        assert not any(cards.suit_of(c) in voids[s] for c in hand)
    rng = random.Random(5)
    for _ in range(50):
        sample = G.determinize(view, rng)
        for s in range(3):
            assert not any(cards.suit_of(c) in voids[s] for c in sample["hands"][s])


def test_determinize_follows_the_prior():
    st = G.new_game(players=4, options=G.validate_options({}), seed=9)
    seat = st["turn"]
    view = G.view(st, seat)
    # The first seat dealt after the viewer's (seats choose in order; a later one could find
    # the wanted cards taken by an earlier seat without a prior).
    other = 0 if seat != 0 else 1
    unseen = [c for c in DECK if c not in view["you"]["hand"]]
    wanted = unseen[:6]
    # Weight 0 everywhere but six cards: the seat is dealt exactly those.
    prior = {other: {c: (1.0 if c in wanted else 0.0) for c in unseen}}
    for k in range(20):
        sample = G.determinize(view, random.Random(k), prior)
        assert sorted(sample["hands"][other]) == sorted(wanted)
        assert G.view(sample, seat) == view
    # A strong weight makes a card far likelier there than the uniform 6 in 46.
    prior = {other: {unseen[10]: 1000.0}}
    hits = sum(unseen[10] in G.determinize(view, random.Random(k), prior)["hands"][other] for k in range(40))
    assert hits >= 35


@pytest.mark.parametrize("n,options", CONFIGS)
def test_the_deck_is_conserved_and_secret_cards_are_never_shown(n, options):
    seats = [*range(n), None]
    for st, _seat, mv, result in games(f"secret-{n}", n, options):
        assert sorted(G.cards(st)) == DECK
        after = result.state
        for s in seats:
            hidden = G.secret_cards(st, s)
            assert hidden == set(DECK) - shown({"own": [] if s is None else st["hands"][s]}) - shown(
                {"played": [st["trick"], st["tricks"]]}
            )
            assert not hidden & shown(table_view(G.view(st, s)))
            # A card hidden from `s` before the move (but the card it plays) and still hidden
            # after it (the next deal may hand it to someone else) is in no event `s` sees.
            still = (hidden - {mv.get("card")}) & G.secret_cards(after, s)
            for event in result.events:
                assert not still & shown(G.view_event(event, s)), (event["type"], s)
    assert sorted(G.cards(result.state)) == DECK


@pytest.mark.parametrize("n,options", CONFIGS)
def test_winners_finishing_order_and_scores_agree_with_the_view(n, options):
    for game in range(3):
        for st, _seat, _mv, result in games(f"end-{n}-{game}", n, options):
            assert G.scores(st) == G.view(st, None)["scores"]
            assert G.winners(st) == [] and G.finishing_order(st) == []
            assert result.over or (result.winners, result.finishing_order) == ((), ())
        end = result.state
        public = G.view(end, None)["public"]
        order = G.finishing_order(end)
        assert result.over and list(result.winners) == G.winners(end) == public["winners"]
        assert [list(p) for p in result.finishing_order] == order and order[0] == G.winners(end)
        assert G.scores(end) == G.view(end, None)["scores"]
        # The rules name a winner and no second place: every other seat shares the last place
        # whatever its score; with partnerships that is the losing side.
        assert order == [G.winners(end), [s for s in range(n) if s not in G.winners(end)]]
        assert G.rating_matches(end) == [order]
        if options.get("partnerships"):
            assert sorted(map(sorted, order)) == [[0, 2], [1, 3]]


def test_finishing_order_puts_the_winner_alone_first_on_a_tied_score():
    # seat 1, the pitcher, makes its bid (+3) and reaches 7; seat 2 takes the jack and
    # reaches 7 on the same hand. The pitcher counts first: it wins, alone in first place, and
    # seat 2 shares the last place with seat 0 on 0 points (no second place, A-7.1).
    st = auction(new(H1), H1_BIDS)
    st["scores"] = [0, 4, 6]
    st, _ = play_all(st, H1_PLAYS)
    assert G.winners(st) == [1] and G.scores(st) == [0, 7, 7]
    assert G.finishing_order(st) == [[1], [0, 2]] and G.rating_matches(st) == [[[1], [0, 2]]]


def test_the_order_of_refusals():
    """apply: the game is over, then not the seat's turn, then a malformed move (a card not
    held included), then the rules. Each step is proven on a move that fails several."""
    st = auction(new(H1), H1_BIDS)
    st, _ = play_all(st, H1_PLAYS[:4])  # seat 2 to act, seat 1 led a spade (trump)
    (seat,) = G.to_act(st)
    not_held = next(c for c in st["hands"][0] if cards.suit_of(c) != "S")
    with pytest.raises(NotYourTurn):  # not its turn, and malformed too
        G.apply(st, (seat + 1) % 3, {"type": "bid", "value": 9})
    with pytest.raises(InvalidMove):  # a card of another seat, that also breaks
        G.apply(st, seat, {"type": "play", "card": not_held})
    with pytest.raises(InvalidMove):  # a bad bid value after the auction: malformed first
        G.apply(st, seat, {"type": "bid", "value": 7})
    with pytest.raises(IllegalMove) as exc:  # a well-formed bid after the auction (A-3.1 ruling)
        G.apply(st, seat, {"type": "bid", "value": 0})
    assert exc.value.rule == "A-3.1"
    with pytest.raises(NotYourTurn):
        G.apply(st, None, {"type": "bid", "value": 0})
    finished, _ = play_all(auction(new(H1), H1_BIDS), H1_PLAYS)
    finished["scores"] = [0, 9, 0]
    finished["status"] = finished["phase"] = "finished"
    with pytest.raises(GameConflict):  # over, whoever sends whatever
        G.apply(finished, 5, "not a move")


def test_the_bot_uses_only_the_engines_public_names():
    tree = ast.parse(Path(pitch.__file__).parent.parent.joinpath("bots", "pitch.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("games.engine"):
            assert not [a.name for a in node.names if a.name.startswith("_")], node.module
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ENGINE":
            assert not node.attr.startswith("_")
