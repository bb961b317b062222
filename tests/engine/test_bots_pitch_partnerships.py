"""The Auction Pitch bots with partnerships (A-9): easy leaves its partner's winning bid alone
unless its own hand is worth a pitched 4, gives points to a trick its partner is sure to win,
and the hard bot's playouts score by side. No Django, no database."""

from __future__ import annotations

import random

from games.bots import pitch as bots

from .test_bots_pitch import FILL, STRONG, VERY_STRONG, G, act, card, new, play_game, run
from .test_pitch_partnerships import P1, P1_BIDS, P1_DEALER, P1_PLAYS


def test_easy_does_not_outbid_its_partner_without_reason():
    # Dealer 0: seat 1 speaks first; seat 3, holding STRONG (alone it would bid 3 here), is
    # seat 1's partner.
    hands = [FILL[0], FILL[1], FILL[2], STRONG]
    assert int(bots.estimate(STRONG, "H", 4, partnerships=True) + bots.BID_SLACK) == 3
    st = run(new(hands, 0, partnerships=True), [(1, 2), (2, 0)])
    assert act(st, bots.easy) == {"type": "bid", "value": 0}
    # The same bid by an opponent (seat 2) is outbid.
    st = run(new(hands, 0, partnerships=True), [(1, 0), (2, 2)])
    assert act(st, bots.easy) == {"type": "bid", "value": 3}
    # A hand strong enough to pitch a 4 names trump itself, over the partner's bid.
    st = run(new([FILL[0], FILL[1], FILL[2], VERY_STRONG], 0, partnerships=True), [(1, 2), (2, 0)])
    assert act(st, bots.easy) == {"type": "play", "card": "AS"}


def test_hard_does_not_outbid_its_partner_on_a_search_that_ignores_the_partners_bid():
    hands = [FILL[0], FILL[1], FILL[2], STRONG]
    st = run(new(hands, 0, partnerships=True), [(1, 2), (2, 0)])
    assert [bots.hard(G.view(st, 3), random.Random(k)) for k in range(3)] == [{"type": "bid", "value": 0}] * 3
    # Over an opponent's 2 it searches every bid as usual, and outbids it.
    st = run(new(hands, 0, partnerships=True), [(1, 0), (2, 2)])
    assert bots.hard(G.view(st, 3), random.Random(0)) == {"type": "bid", "value": 3}
    # A pitch-strength hand still pitches over the partner: easy's choice.
    st = run(new([FILL[0], FILL[1], FILL[2], VERY_STRONG], 0, partnerships=True), [(1, 2), (2, 0)])
    assert bots.hard(G.view(st, 3), random.Random(0)) == {"type": "play", "card": "AS"}


def test_easy_dealer_does_not_take_its_partners_bid():
    hands = [STRONG, FILL[0], FILL[1], FILL[2]]
    # Seat 2, the dealer's partner, holds the bid at 2: the dealer passes.
    st = run(new(hands, 0, partnerships=True), [(1, 0), (2, 2), (3, 0)])
    assert act(st, bots.easy) == {"type": "bid", "value": 0}
    # An opponent's 2 the dealer takes, as when playing alone.
    st = run(new(hands, 0, partnerships=True), [(1, 2), (2, 0), (3, 0)])
    assert act(st, bots.easy) == {"type": "bid", "value": 2}


def test_easy_gives_points_to_a_trick_its_partner_is_sure_to_win():
    hands = [
        ["2C", "3C", "10C", "AC", "4H", "5H"],
        ["2D", "3D", "4D", "5D", "6D", "7D"],
        ["AS", "KS", "QS", "JS", "10S", "9S"],
        ["6C", "7C", "8C", "9C", "6H", "7H"],
    ]
    # Dealer 1: seat 2 speaks first and pitches AS, the top trump; seat 3 follows with a club.
    # Seat 0, void in spades, may play anything and cannot beat the ace.
    st = run(new(hands, 1, partnerships=True), [(2, "AS"), (3, "6C")])
    assert card(act(st, bots.easy)) == "10C"  # its partner's trick: the 10 counts for the side
    st = run(new(hands, 1), [(2, "AS"), (3, "6C")])
    assert card(act(st, bots.easy)) == "2C"  # alone, the same trick is an opponent's


def test_hard_playouts_score_by_side():
    # P1 up to its last card: seat 0's 10D ends the hand, side 0 +3, side 1 +1 (A-9.4).
    st = run(new(P1, P1_DEALER, partnerships=True, target_score=21), P1_BIDS + P1_PLAYS[:-1])
    last = {"type": "play", "card": "10D"}
    # Side 0's 3 against side 1's 1; the partner's +3 is not a rival's.
    hand = G.view(st, 0)["round"]
    assert bots.hand_score(G.step(st, 0, last)[0], 0, hand) == 2.0
    # Side 0 reaches 21: a win counts for both partners (WIN_BONUS).
    st["scores"] = [18, 0, 18, 0]
    assert bots.hand_score(G.step(st, 0, last)[0], 0, hand) == 2.0 + bots.WIN_BONUS


def test_bots_of_every_level_finish_partnership_games(monkeypatch):
    monkeypatch.setattr(bots, "MOVE_BUDGET", 60)  # a tiny search: this checks legality, not strength
    monkeypatch.setattr(bots, "MIN_DETERMINIZATIONS", 1)
    monkeypatch.setattr(bots, "MAX_DETERMINIZATIONS", 2)
    for seed, levels in ((11, ["hard", "easy", "hard", "easy"]), (12, ["random", "easy", "random", "hard"])):
        st = G.new_game(players=4, options=G.validate_options({"partnerships": True}), seed=seed)
        st = play_game(st, levels, random.Random(seed), 3000)
        assert G.is_finished(st) and st["winners"] in ([0, 2], [1, 3])
