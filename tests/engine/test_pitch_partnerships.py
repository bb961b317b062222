"""Scenario tests for Auction Pitch partnerships (docs/rules/pitch.md A-9.1 .. A-9.5), built from
fixed decks so every situation is exact. Sides: seats 0+2 (side 0) and 1+3 (side 1)."""

from __future__ import annotations

import json

import pytest

from games.engine.base import InvalidMove

from .test_pitch import SEED, G, auction, bid, deck_for, illegal, new, of_type, play_all, scored

# Hand P1 (dealer 3, so seat 0 speaks first; seat 0 bids 2, the rest pass). Worked by hand:
#  T1 s0 2S, s1 3S, s2 AS, s3 4S   -> s2 (trump spades)   T4 s1 JS, s2 9C, s3 6H, s0 6D -> s1
#  T2 s2 10H, s3 5H, s0 4H, s1 2C  -> s2                  T5 s1 AC, s2 3C, s3 7H, s0 7D -> s1
#  T3 s2 8C, s3 10C, s0 5D, s1 KS  -> s1                  T6 s1 4D, s2 2H, s3 8H, s0 10D -> s0
# Game counts by seat: s0 10D 10; s1 10C 10 + KS 3 + JS 1 + AC 4 = 18; s2 AS 4 + 10H 10 = 14;
# s3 0. By side: side 0 (s0+s2) 24, side 1 (s1+s3) 18. Seat 1 has the highest count of any seat,
# yet side 0 takes Game.
# High AS: won by s2 (side 0). Low 2S: won by s2 (and dealt to s0), side 0 either way.
# Jack JS: s1 (side 1). Game: side 0. Side 0 has 3 points, side 1 has 1.
P1 = [
    ["2S", "4H", "5D", "6D", "7D", "10D"],
    ["3S", "2C", "KS", "JS", "AC", "4D"],
    ["AS", "10H", "8C", "9C", "3C", "2H"],
    ["4S", "5H", "10C", "6H", "7H", "8H"],
]
P1_DEALER = 3
P1_BIDS = [(0, 2), (1, 0), (2, 0), (3, 0)]
P1_PLAYS = [
    (0, "2S"), (1, "3S"), (2, "AS"), (3, "4S"),
    (2, "10H"), (3, "5H"), (0, "4H"), (1, "2C"),
    (2, "8C"), (3, "10C"), (0, "5D"), (1, "KS"),
    (1, "JS"), (2, "9C"), (3, "6H"), (0, "6D"),
    (1, "AC"), (2, "3C"), (3, "7H"), (0, "7D"),
    (1, "4D"), (2, "2H"), (3, "8H"), (0, "10D"),
]  # fmt: skip

# Hand P2 (dealer 0, so seat 1 speaks first; seat 1 bids 3, the rest pass). Worked by hand:
#  T1 s1 AH, s2 2H, s3 5H, s0 6H   -> s1 (trump hearts)   T4 s3 10D, s0 4D, s1 5D, s2 AD -> s2
#  T2 s1 KC, s2 2C, s3 3C, s0 JH   -> s0                  T5 s2 7S, s3 8S, s0 9S, s1 4S  -> s0
#  T3 s0 10S, s1 2S, s2 3S, s3 AS  -> s3                  T6 s0 7D, s1 8D, s2 9D, s3 6D  -> s2
# Game counts by seat: s0 KC 3 + JH 1 = 4; s1 AH 4; s2 10D 10 + AD 4 = 14; s3 10S 10 + AS 4 = 14.
# By side: side 0 18, side 1 18: a tie, nobody scores Game.
# High AH: s1 (side 1). Low 2H: won by s1 (side 1) but dealt to s2 (side 0). Jack JH: s0 (side 0).
# low_to=winner: side 1 has 2 points (< 3: set back by 3), side 0 has 1.
# low_to=dealt: side 1 has 1 point (set back by 3), side 0 has 2.
P2 = [
    ["6H", "JH", "10S", "4D", "9S", "7D"],
    ["AH", "KC", "2S", "5D", "4S", "8D"],
    ["2H", "2C", "3S", "AD", "7S", "9D"],
    ["5H", "3C", "AS", "10D", "8S", "6D"],
]
P2_DEALER = 0
P2_BIDS = [(1, 3), (2, 0), (3, 0), (0, 0)]
P2_PLAYS = [
    (1, "AH"), (2, "2H"), (3, "5H"), (0, "6H"),
    (1, "KC"), (2, "2C"), (3, "3C"), (0, "JH"),
    (0, "10S"), (1, "2S"), (2, "3S"), (3, "AS"),
    (3, "10D"), (0, "4D"), (1, "5D"), (2, "AD"),
    (2, "7S"), (3, "8S"), (0, "9S"), (1, "4S"),
    (0, "7D"), (1, "8D"), (2, "9D"), (3, "6D"),
]  # fmt: skip


def p1(**options) -> dict:
    return new(P1, P1_DEALER, partnerships=True, **options)


def p2(**options) -> dict:
    return new(P2, P2_DEALER, partnerships=True, **options)


def hand_p1(scores: list[int] | None = None, **options) -> tuple[dict, list[dict]]:
    st = auction(p1(**options), P1_BIDS)
    if scores is not None:
        st["scores"] = scores
    return play_all(st, P1_PLAYS)


def hand_p2(scores: list[int] | None = None, **options) -> tuple[dict, list[dict]]:
    st = auction(p2(**options), P2_BIDS)
    if scores is not None:
        st["scores"] = scores
    return play_all(st, P2_PLAYS)


# --- A-9.1 ---------------------------------------------------------------------------------------
def test_A_9_1_option_in_catalogue_off_by_default():
    cat = G.catalogue()["options"]["partnerships"]
    assert cat["type"] == "bool" and cat["default"] is False and "4 seats" in cat["description"]
    assert G.validate_options({})["partnerships"] is False
    with pytest.raises(InvalidMove) as exc:
        G.validate_options({"partnerships": "yes"})
    assert "partnerships" in exc.value.fields


@pytest.mark.parametrize("players", [3, 5, 6, 7])
def test_A_9_1_only_with_four_seats(players):
    options = G.validate_options({"partnerships": True})
    with pytest.raises(InvalidMove) as exc:
        G.validate_table_options(options, players=players)
    assert list(exc.value.fields) == ["partnerships"] and "A-9.1" in exc.value.message
    with pytest.raises(InvalidMove) as exc:
        G.new_game(players=players, options=options, seed=SEED)
    assert list(exc.value.fields) == ["partnerships"]
    # Playing alone is still open to every size.
    G.validate_table_options({}, players=players)
    G.new_game(players=players, options=G.validate_options({}), seed=SEED)


def test_A_9_1_partners_sit_opposite_and_views_name_the_sides():
    st = p1()
    G.validate_table_options(st["options"], players=4)
    for seat in (0, 1, 2, 3, None):
        view = G.view(st, seat)
        public = view["public"]
        assert public["partnerships"] is True
        assert public["sides"] == [[0, 2], [1, 3]]
        assert public["side_scores"] == [0, 0]
        assert [s["side"] for s in view["seats"]] == [0, 1, 0, 1]


def test_A_9_1_off_keeps_the_individual_game_and_old_tables_replay():
    st = new(P1, P1_DEALER)
    # Off: the state is the one of a table stored before the option existed (no new key).
    assert st["options"] == {"target_score": 7, "low_to": "winner"}
    old = G.new_game(players=4, options={"target_score": 7, "low_to": "winner"}, seed=SEED, deck=deck_for(P1, 3), first_dealer=3)
    assert old == st
    view = G.view(st, None)
    assert view["public"]["partnerships"] is False
    assert view["public"]["sides"] is None and view["public"]["side_scores"] is None
    assert [s["side"] for s in view["seats"]] == [None] * 4
    # The same hand played alone: Game goes to seat 1 (the highest single count), and the
    # pitcher, seat 0, won no point: set back.
    st, events = play_all(auction(st, P1_BIDS), P1_PLAYS)
    ev = scored(events)
    assert ev["game"] == {"seat": 1, "counts": [10, 18, 14, 0]}
    assert ev["high"] == {"seat": 2, "card": "AS"} and "side_points" not in ev
    assert ev["deltas"] == [-2, 2, 2, 0] and st["scores"] == [-2, 2, 2, 0]


# --- A-9.2 ---------------------------------------------------------------------------------------
def test_A_9_2_a_player_may_bid_over_the_partner():
    st = p1()
    st, _ = bid(st, 0, 2)
    st, _ = bid(st, 1, 0)
    # Seat 2 outbids its partner, seat 0: the ordinary rule, nothing more.
    assert [m["value"] for m in G.legal_moves(st, 2) if m["type"] == "bid"] == [0, 3, 4]
    illegal(st, 2, {"type": "bid", "value": 2}, "A-3.1")
    st, _ = bid(st, 2, 3)
    # The dealer (seat 3) may still take the bid at 3 or pass.
    assert [m["value"] for m in G.legal_moves(st, 3) if m["type"] == "bid"] == [0, 3, 4]
    st, events = bid(st, 3, 0)
    assert st["pitcher"] == 2 and st["contract"] == 3 and G.to_act(st) == [2]
    assert of_type(events, "contract") == [{"type": "contract", "pitcher": 2, "contract": 3}]


def test_A_9_2_partners_do_not_see_each_others_hands():
    st = p1()
    for seat in range(4):
        partner = (seat + 2) % 4
        view = G.view(st, seat)
        assert view["you"]["hand"] == st["hands"][seat]
        blob = json.dumps(view)
        for card in st["hands"][partner]:
            assert f'"{card}"' not in blob
    # The deal's events give each hand to its own seat only.
    st, events = play_all(auction(p1(target_score=21), P1_BIDS), P1_PLAYS)
    for e in of_type(events, "hand"):
        assert e["secret_to"] == [e["seat"]]
        assert "cards" not in G.view_event(e, (e["seat"] + 2) % 4)


# --- A-9.3 ---------------------------------------------------------------------------------------
def test_A_9_3_high_low_jack_to_the_side_of_the_winner_game_by_side_counts():
    st, events = hand_p1()
    ev = scored(events)
    assert ev["high"] == {"seat": 2, "card": "AS", "side": 0}
    assert ev["low"] == {"seat": 2, "card": "2S", "side": 0}
    assert ev["jack"] == {"seat": 1, "card": "JS", "side": 1}
    # Seat 1 has the best count of any seat (18), but side 0's 24 beats side 1's 18.
    assert ev["game"] == {"side": 0, "counts": [10, 18, 14, 0], "side_counts": [24, 18]}
    assert ev["side_points"] == [3, 1] and ev["points"] == [3, 1, 3, 1]


def test_A_9_3_game_tied_between_the_sides_scores_nothing():
    _, events = hand_p2()
    ev = scored(events)
    assert ev["game"] == {"side": None, "counts": [4, 4, 14, 14], "side_counts": [18, 18]}
    assert ev["high"] == {"seat": 1, "card": "AH", "side": 1}
    assert ev["jack"] == {"seat": 0, "card": "JH", "side": 0}
    # low_to=winner: seat 1 won the 2H, which seat 2 was dealt.
    assert ev["low"] == {"seat": 1, "card": "2H", "side": 1}
    assert ev["side_points"] == [1, 2]


def test_A_9_3_low_dealt_goes_to_the_side_of_the_player_dealt_it():
    _, events = hand_p2(low_to="dealt")
    ev = scored(events)
    assert ev["low"] == {"seat": 2, "card": "2H", "side": 0}
    assert ev["side_points"] == [2, 1] and ev["points"] == [2, 1, 2, 1]


# --- A-9.4 ---------------------------------------------------------------------------------------
def test_A_9_4_pitchers_side_makes_the_bid_with_the_sides_points():
    # Seat 0 bid 2 and won no point itself: its partner's High and Low make the bid.
    st, events = hand_p1()
    ev = scored(events)
    assert ev["pitcher"] == 0 and ev["made"] and not ev["set_back"]
    assert ev["side_deltas"] == [3, 1] and ev["deltas"] == [3, 1, 3, 1]
    assert st["scores"] == [3, 1, 3, 1] and ev["side_scores"] == [3, 1]


def test_A_9_4_pitchers_side_set_back_by_the_bid_other_side_scores_what_it_won():
    # Seat 1 bid 3; its side won High and Low (2 < 3): set back by 3; side 0 scores its Jack.
    st, events = hand_p2(scores=[2, 1, 2, 1])
    ev = scored(events)
    assert ev["pitcher"] == 1 and ev["set_back"] and not ev["made"]
    assert ev["side_deltas"] == [1, -3] and ev["deltas"] == [1, -3, 1, -3]
    assert st["scores"] == [3, -2, 3, -2] and ev["side_scores"] == [3, -2]
    # With low_to=dealt the other side also scores the Low it was dealt.
    st, events = hand_p2(low_to="dealt")
    assert scored(events)["side_deltas"] == [2, -3] and st["scores"] == [2, -3, 2, -3]


# --- A-9.5 ---------------------------------------------------------------------------------------
def test_A_9_5_scores_per_side_shown_per_seat():
    st, _ = hand_p1(target_score=21)
    assert st["status"] == "active" and st["hand_no"] == 1
    view = G.view(st, 3)
    assert view["scores"] == [3, 1, 3, 1]
    assert view["public"]["side_scores"] == [3, 1]
    assert view["public"]["last_hand"]["side_scores"] == [3, 1]


def test_A_9_5_first_side_to_the_target_wins_both_partners_listed():
    st, events = hand_p1(scores=[4, 0, 4, 0])
    assert st["status"] == "finished" and st["winners"] == [0, 2]
    assert events[-1] == {"type": "game_over", "winners": [0, 2], "scores": [7, 1, 7, 1]}
    view = G.view(st, 1)
    assert view["public"]["winners"] == [0, 2] and view["public"]["side_scores"] == [7, 1]


def test_A_9_5_pitchers_side_counts_first():
    # Both sides reach 7 on this hand (side 1 with the Jack, counted before Game), but the
    # pitcher's side, which made its bid, counts first.
    st, _ = hand_p1(scores=[5, 6, 5, 6])
    assert st["scores"] == [8, 7, 8, 7] and st["winners"] == [0, 2]


def test_A_9_5_other_side_wins_when_the_pitchers_side_falls_short():
    # Side 0 makes its bid but reaches only 3; side 1 reaches 7 with its Jack.
    st, _ = hand_p1(scores=[0, 6, 0, 6])
    assert st["scores"] == [3, 7, 3, 7] and st["winners"] == [1, 3]


def test_A_9_5_set_back_side_cannot_win():
    # Side 1 (the pitcher's) would reach 7 with High and Low but is set back; side 0 reaches 7
    # with its Jack (low_to=winner), or from 5 with its Low and its Jack (low_to=dealt).
    st, _ = hand_p2(scores=[6, 5, 6, 5])
    assert st["scores"] == [7, 2, 7, 2] and st["winners"] == [0, 2]
    st, _ = hand_p2(scores=[5, 5, 5, 5], low_to="dealt")
    assert st["scores"] == [7, 2, 7, 2] and st["winners"] == [0, 2]
    # One short: the game goes on, the deal passes to the left.
    st, _ = hand_p2(scores=[5, 5, 5, 5])
    assert st["status"] == "active" and st["scores"] == [6, 2, 6, 2] and st["dealer"] == 1
