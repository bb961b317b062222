"""Scenario tests for the President variations P-9.1 .. P-9.7 and their interplay."""

from __future__ import annotations

import pytest

from games.engine import cards
from games.engine.base import InvalidMove

from .test_president_rules import G, dealt_hand, illegal, pass_, play, run_timeouts, start, types, with_hands


def legal_cards(state, seat):
    return [m["cards"] for m in G.legal_moves(state, seat) if m["type"] == "play"]


# --- P-9.1 larger_sets_beat_lower -----------------------------------------------------------------
def test_P_9_1_larger_set_of_higher_rank_beats():
    deal = {1: ["7C"], 2: ["9C", "9D", "5C", "5D", "6C"]}
    state, _ = play(start(deal=deal, larger_sets_beat_lower=True), 1, "7C")
    after, events = play(state, 2, "9C", "9D")
    assert after["trick"]["standing"]["count"] == 2 and after["trick"]["standing"]["rank"] == "9"
    illegal(state, 2, {"type": "play", "cards": ["5C", "5D"]}, "P-4.3")
    illegal(state, 2, {"type": "play", "cards": ["6C"]}, "P-4.3")  # same size still needs a higher rank
    assert ["9C", "9D"] in legal_cards(state, 2) and ["5C", "5D"] not in legal_cards(state, 2)
    # Off by default.
    state, _ = play(start(deal=deal), 1, "7C")
    illegal(state, 2, {"type": "play", "cards": ["9C", "9D"]}, "P-4.3")


def test_P_9_1_next_player_must_beat_the_larger_set():
    deal = {1: ["7C"], 2: ["9C", "9D"], 3: ["KC", "10C", "10D"]}
    state, _ = play(start(deal=deal, larger_sets_beat_lower=True), 1, "7C")
    state, _ = play(state, 2, "9C", "9D")
    illegal(state, 3, {"type": "play", "cards": ["KC"]}, "P-4.3")
    play(state, 3, "10C", "10D")


# --- P-9.2 larger_sets_beat_any -----------------------------------------------------------------
def test_P_9_2_larger_set_beats_whatever_rank():
    deal = {1: ["AC"], 2: ["4C", "4D", "5C"]}
    state, _ = play(start(deal=deal, larger_sets_beat_any=True), 1, "AC")
    after, _ = play(state, 2, "4C", "4D")
    assert after["trick"]["standing"]["rank"] == "4"
    illegal(state, 2, {"type": "play", "cards": ["5C"]}, "P-4.3")
    state, _ = play(start(deal=deal), 1, "AC")
    illegal(state, 2, {"type": "play", "cards": ["4C", "4D"]}, "P-4.3")


def test_P_9_2_smaller_set_never_beats():
    deal = {1: ["5C", "5D"], 2: ["2C"]}
    state, _ = play(start(deal=deal, larger_sets_beat_any=True, larger_sets_beat_lower=True), 1, "5C", "5D")
    illegal(state, 2, {"type": "play", "cards": ["2C"]}, "P-4.3")


# --- P-9.3 equal_rank_beats -----------------------------------------------------------------------
def test_P_9_3_equal_rank_beats_and_skips_next_player():
    deal = {1: ["8C"], 2: ["8D"], 3: ["9C"]}
    state, _ = play(start(deal=deal, equal_rank_beats=True), 1, "8C")
    after, events = play(state, 2, "8D")
    assert {"type": "skip", "seat": 3} in events
    assert G.to_act(after) == [0]
    assert G.view(after, 0)["seats"][3]["passed"] is True
    state_off, _ = play(start(deal=deal), 1, "8C")
    illegal(state_off, 2, {"type": "play", "cards": ["8D"]}, "P-4.3")


def test_P_9_3_skipped_player_counts_as_passed():
    state = start(deal={1: ["8C", "4C"], 2: ["8D", "5C"], 3: ["9C"]}, equal_rank_beats=True)
    state = with_hands(state, {0: []})
    state, _ = play(state, 1, "8C")
    state, _ = play(state, 2, "8D")  # seat 3 skipped
    assert G.to_act(state) == [1]
    state, events = pass_(state, 1)
    assert events[-1] == {"type": "trick_end", "winner": 2, "leader": 2}


def test_P_9_3_two_players_left_matcher_plays_again():
    state = start(deal={1: ["8C", "4C"], 0: ["8D", "5C"]}, equal_rank_beats=True)
    state = with_hands(state, {2: [], 3: []})
    state, _ = play(state, 1, "8C")
    assert G.to_act(state) == [0]
    state, events = play(state, 0, "8D")
    assert events[-2:] == [{"type": "skip", "seat": 1}, {"type": "trick_end", "winner": 0, "leader": 0}]
    assert G.to_act(state) == [0] and state["trick"]["standing"] is None


# --- P-9.4 revolution ---------------------------------------------------------------------------
QUAD_8 = ["8C", "8D", "8H", "8S"]
QUAD_5 = ["5C", "5D", "5H", "5S"]
QUAD_9 = ["9C", "9D", "9H", "9S"]


def test_P_9_4_four_of_a_kind_reverses_order_and_direction():
    state = start(deal={1: QUAD_8 + ["10C"], 0: QUAD_5 + QUAD_9, 2: ["2C"]}, revolution=True)
    after, events = play(state, 1, *QUAD_8)
    assert {"type": "revolution", "active": True} in events
    assert after["revolution"] is True
    view = G.view(after, 0)
    assert view["public"]["revolution"] is True and view["public"]["direction"] == "counterclockwise"
    # Direction reversed: seat 0, not seat 2, is next; the trick continues under the new order.
    assert G.to_act(after) == [0]
    assert QUAD_5 in legal_cards(after, 0) and QUAD_9 not in legal_cards(after, 0)
    illegal(after, 0, {"type": "play", "cards": QUAD_9}, "P-4.3")
    # A second revolution restores order and direction.
    restored, events = play(after, 0, *QUAD_5)
    assert {"type": "revolution", "active": False} in events
    assert restored["revolution"] is False and G.to_act(restored) == [1]


def test_P_9_4_reversed_rank_order_for_singles():
    state = start(deal={1: QUAD_8 + ["10C"], 0: ["9C", "JC", "3C"], 3: ["2C"]}, revolution=True)
    state, _ = play(state, 1, *QUAD_8)
    for seat in (0, 3, 2):
        state, _ = pass_(state, seat)
    assert G.to_act(state) == [1]
    state, _ = play(state, 1, "10C")
    illegal(state, 0, {"type": "play", "cards": ["JC"]}, "P-4.3")
    play(state, 0, "9C")
    state, _ = pass_(state, 0)
    illegal(state, 3, {"type": "play", "cards": ["2C"]}, "P-4.3")  # the 2 is now the lowest


def test_P_9_4_three_is_highest_during_revolution():
    state = start(deal={1: QUAD_8 + ["AC"], 0: ["3C"]}, revolution=True)
    state, _ = play(state, 1, *QUAD_8)
    for seat in (0, 3, 2):
        state, _ = pass_(state, seat)
    state, _ = play(state, 1, "AC")
    play(state, 0, "3C")


def test_P_9_4_timeout_lead_is_lowest_in_order_in_force():
    state = start(deal={1: QUAD_8 + ["2C", "3D"]}, revolution=True)
    state, _ = play(state, 1, *QUAD_8)
    for seat in (0, 3, 2):
        state, _ = pass_(state, seat)
    assert G.timeout_move(state, 1) == {"type": "play", "cards": ["2C"]}


def test_P_9_4_four_successive_singles_start_a_revolution():
    deal = {1: ["3C"], 2: ["3D"], 3: ["3H"], 0: ["3S"]}
    # clear_threes lets a 3 beat a 3 without the equal-rank skip.
    state = start(deal=deal, revolution=True, clear_threes=True)
    for seat, card in ((1, "3C"), (2, "3D"), (3, "3H")):
        state, events = play(state, seat, card)
        assert "revolution" not in types(events)
    state, events = play(state, 0, "3S")
    assert {"type": "revolution", "active": True} in events
    assert G.to_act(state) == [3]  # counterclockwise from seat 0


def test_P_9_4_singles_must_be_successive_plays():
    """P-9.4: four single 2s in one trick start a revolution only when no other play comes between
    them (twos_high_and_low lets a 2 beat a 2 and a 4 beat a 2)."""
    deal = {1: ["2C", "2S"], 2: ["2D"], 3: ["2H"], 0: ["4C"]}
    state = start(deal=deal, revolution=True, twos_high_and_low=True)
    for seat, card in ((1, "2C"), (2, "2D"), (3, "2H"), (0, "4C"), (1, "2S")):
        state, events = play(state, seat, card)
        assert "revolution" not in types(events)
    deal = {1: ["2C"], 2: ["2D"], 3: ["2H"], 0: ["2S"]}
    state = start(deal=deal, revolution=True, twos_high_and_low=True)
    for seat, card in ((1, "2C"), (2, "2D"), (3, "2H"), (0, "2S")):
        state, events = play(state, seat, card)
    assert {"type": "revolution", "active": True} in events


def test_P_9_4_four_singles_with_equal_rank_skips():
    deal = {1: ["9C"], 2: ["9D", "9S"], 0: ["9H"]}
    state = start(deal=deal, revolution=True, equal_rank_beats=True)
    state, _ = play(state, 1, "9C")
    state, _ = play(state, 2, "9D")  # skips 3
    state, _ = play(state, 0, "9H")  # skips 1
    state, events = play(state, 2, "9S")
    assert {"type": "revolution", "active": True} in events
    # Revolution first, then the skip in the new direction: seat 1 skipped, seat 0 to act.
    assert {"type": "skip", "seat": 1} in events and G.to_act(state) == [0]


def test_P_9_4_off_by_default_and_reset_at_next_deal():
    state = start(deal={1: QUAD_8})
    after, events = play(state, 1, *QUAD_8)
    assert "revolution" not in types(events) and after["revolution"] is False
    state = start(deal={1: QUAD_8}, revolution=True, exchange="none")
    state, _ = play(state, 1, *QUAD_8)
    assert state["revolution"] is True
    state, _ = run_timeouts(state, lambda s: s["hand_no"] == 2)
    assert state["revolution"] is False and G.view(state, 0)["public"]["direction"] == "clockwise"


# --- P-9.5 jokers ---------------------------------------------------------------------------------
def test_P_9_5_jokers_join_the_deck():
    state = G.new_game(players=5, options=G.validate_options({"jokers": True}), seed=12345678901)
    assert sorted(c for h in state["hands"] for c in h) == sorted(cards.standard_deck(jokers=True))
    state = start(jokers=True, deal={1: ["RJ", "BJ"]})
    assert state["hands"][1][-2:] == ["RJ", "BJ"]
    assert G.view(state, 1)["public"]["variations"] == ["jokers"]


def test_P_9_5_joker_beats_a_two_and_nothing_but_jokers_beats_a_joker():
    state = start(jokers=True, deal={1: ["2C", "RJ"], 2: ["BJ", "2D", "3C", "4C", "4D"]})
    after, _ = play(state, 1, "2C")
    play(after, 2, "BJ")
    after, _ = play(state, 1, "RJ")
    exc = illegal(after, 2, {"type": "play", "cards": ["2D"]}, "P-9.5")
    assert "RJ" not in exc.message
    illegal(after, 2, {"type": "play", "cards": ["BJ"]}, "P-9.5")  # equal rank needs P-9.3
    for opts in ({"twos_high_and_low": True}, {"clear_threes": True}, {"larger_sets_beat_any": True}):
        deal = {1: ["RJ"], 2: ["2D", "3C", "4C", "4D"]}
        after, _ = play(start(jokers=True, deal=deal, **opts), 1, "RJ")
        assert legal_cards(after, 2) == []
        illegal(after, 2, {"type": "play", "cards": ["2D"]}, "P-9.5")
        illegal(after, 2, {"type": "play", "cards": ["3C"]}, "P-9.5")
        illegal(after, 2, {"type": "play", "cards": ["4C", "4D"]}, "P-9.5")


def test_P_9_5_two_jokers_make_a_pair():
    state = start(jokers=True, deal={1: ["2C", "2D"], 2: ["RJ", "BJ"]})
    state, _ = play(state, 1, "2C", "2D")
    assert ["RJ", "BJ"] in legal_cards(state, 2)
    after, events = play(state, 2, "RJ", "BJ")
    assert events[0]["rank"] == "joker"
    illegal(state, 2, {"type": "play", "cards": ["RJ"]}, "P-4.3")


def test_P_9_5_joker_on_joker_with_equal_rank_beats():
    state = start(jokers=True, equal_rank_beats=True, deal={1: ["RJ"], 2: ["BJ"]})
    state, _ = play(state, 1, "RJ")
    after, events = play(state, 2, "BJ")
    assert {"type": "skip", "seat": 3} in events


def test_P_9_5_joker_stays_highest_during_revolution():
    state = start(jokers=True, revolution=True, deal={1: QUAD_8 + ["3C"], 0: ["RJ"]})
    state, _ = play(state, 1, *QUAD_8)
    for seat in (0, 3, 2):
        state, _ = pass_(state, seat)
    state, _ = play(state, 1, "3C")
    play(state, 0, "RJ")


def test_P_9_5_joker_codes_need_the_option():
    state = start(deal={1: ["4C"]})
    with pytest.raises(InvalidMove):
        G.apply(state, 1, {"type": "play", "cards": ["BJ"]})


# --- P-9.6 twos_high_and_low -----------------------------------------------------------------------
def test_P_9_6_anything_beats_a_standing_two():
    deal = {1: ["2C", "2D"], 2: ["4C", "5C", "5D"]}
    state, _ = play(start(deal=deal, twos_high_and_low=True), 1, "2C")
    play(state, 2, "4C")
    state, _ = play(start(deal=deal, twos_high_and_low=True), 1, "2C", "2D")
    play(state, 2, "5C", "5D")
    illegal(state, 2, {"type": "play", "cards": ["4C"]}, "P-4.3")  # same size still required
    state, _ = play(start(deal=deal), 1, "2C")
    illegal(state, 2, {"type": "play", "cards": ["4C"]}, "P-4.3")


def test_P_9_6_two_beats_anything_even_in_a_revolution():
    deal = {1: QUAD_8 + ["KC"], 0: ["2C"]}
    for on in (True, False):
        state = start(deal=deal, revolution=True, twos_high_and_low=on)
        state, _ = play(state, 1, *QUAD_8)
        for seat in (0, 3, 2):
            state, _ = pass_(state, seat)
        state, _ = play(state, 1, "KC")
        if on:
            play(state, 0, "2C")
        else:
            illegal(state, 0, {"type": "play", "cards": ["2C"]}, "P-4.3")


# --- P-9.7 clear_threes ------------------------------------------------------------------------
def test_P_9_7_three_beats_any_single_and_takes_its_rank():
    deal = {1: ["KC"], 2: ["3D"], 3: ["QC", "AC"]}
    state, _ = play(start(deal=deal, clear_threes=True), 1, "KC")
    state, events = play(state, 2, "3D")
    assert events[0] == {"type": "play", "seat": 2, "cards": ["3D"], "rank": "K"}
    assert G.view(state, 3)["public"]["trick"]["rank"] == "K"
    illegal(state, 3, {"type": "play", "cards": ["QC"]}, "P-4.3")
    play(state, 3, "AC")
    state, _ = play(start(deal=deal), 1, "KC")
    illegal(state, 2, {"type": "play", "cards": ["3D"]}, "P-4.3")


def test_P_9_7_set_of_threes_beats_same_size_set():
    deal = {1: ["QC", "QD"], 2: ["3C", "3D", "3H"]}
    state, _ = play(start(deal=deal, clear_threes=True), 1, "QC", "QD")
    after, _ = play(state, 2, "3C", "3H")
    assert after["trick"]["standing"]["rank"] == "Q"
    illegal(state, 2, {"type": "play", "cards": ["3C"]}, "P-4.3")
    illegal(state, 2, {"type": "play", "cards": ["3C", "3D", "3H"]}, "P-4.3")


def test_P_9_7_led_three_is_the_lowest_card():
    state, _ = play(start(deal={1: ["3C"], 2: ["4C"]}, clear_threes=True), 1, "3C")
    after, _ = play(state, 2, "4C")
    assert after["trick"]["standing"]["rank"] == "4"


# --- interplay -----------------------------------------------------------------------------------
def test_P_9_any_enabled_rule_makes_a_play_legal():
    deal = {1: ["7C"], 2: ["7D", "9C", "9D"]}
    state, _ = play(start(deal=deal, larger_sets_beat_lower=True, equal_rank_beats=True), 1, "7C")
    moves = legal_cards(state, 2)
    assert ["7D"] in moves and ["9C", "9D"] in moves and ["9C"] in moves


def test_P_9_clear_threes_apply_first_even_in_a_revolution():
    state = start(deal={1: QUAD_8 + ["KC"], 0: ["3C"], 3: ["QC", "AC"]}, revolution=True, clear_threes=True)
    state, _ = play(state, 1, *QUAD_8)
    for seat in (0, 3, 2):
        state, _ = pass_(state, seat)
    state, _ = play(state, 1, "KC")
    state, events = play(state, 0, "3C")
    assert events[0]["rank"] == "K"  # takes the rank rather than ranking as the top card
    illegal(state, 3, {"type": "play", "cards": ["AC"]}, "P-4.3")
    play(state, 3, "QC")


def test_P_9_three_on_a_two_then_anything_beats_it():
    deal = {1: ["2C"], 2: ["3C"], 3: ["4C"]}
    state, _ = play(start(deal=deal, clear_threes=True, twos_high_and_low=True), 1, "2C")
    state, events = play(state, 2, "3C")
    assert events[0]["rank"] == "2"
    play(state, 3, "4C")


# --- P-9 interplay ruling (settled): jokers, larger sets, clear threes, revolutions ----------------
# One test per point of the ruling under P-9 "Rule interplay" in president.md.
@pytest.mark.parametrize("rule", ["larger_sets_beat_lower", "larger_sets_beat_any"])
def test_P_9_5_ruling_a_single_joker_is_beaten_only_by_jokers_under_larger_sets_beat(rule):
    """Only jokers beat jokers. With the two jokers of P-9.5 a standing single joker leaves one
    joker, so "more jokers" can never be played on it: under P-9.1/P-9.2 nothing beats it, and
    the other joker alone needs P-9.3 (equal rank)."""
    deal = {1: ["RJ"], 2: ["BJ", "2C", "2D", "2H", "3C", "3D"]}
    state, _ = play(start(jokers=True, deal=deal, **{rule: True}), 1, "RJ")
    assert legal_cards(state, 2) == []
    for played in (["2C", "2D"], ["2C", "2D", "2H"], ["3C", "3D"], ["BJ"]):
        illegal(state, 2, {"type": "play", "cards": played}, "P-9.5")
    state, _ = play(start(jokers=True, deal=deal, equal_rank_beats=True, **{rule: True}), 1, "RJ")
    assert legal_cards(state, 2) == [["BJ"]]


@pytest.mark.parametrize(
    "opts",
    [
        {"twos_high_and_low": True},
        {"clear_threes": True},
        {"larger_sets_beat_any": True},
        {"larger_sets_beat_lower": True},
        {"equal_rank_beats": True},
        {"revolution": True},
        {v: True for v in ("twos_high_and_low", "clear_threes", "larger_sets_beat_any",
                           "larger_sets_beat_lower", "equal_rank_beats", "revolution")},
    ],
)
def test_P_9_5_ruling_a_standing_pair_of_jokers_is_beaten_by_nothing(opts):
    deal = {1: ["RJ", "BJ"], 2: ["2C", "2D", "2H", "3C", "3D", "3H", "3S", "AC", "AD"]}
    state, _ = play(start(jokers=True, deal=deal, **opts), 1, "RJ", "BJ")
    assert legal_cards(state, 2) == []
    for played in (["2C", "2D"], ["3C", "3D"], ["2C", "2D", "2H"], ["3C", "3D", "3H", "3S"], ["AC", "AD"]):
        exc = illegal(state, 2, {"type": "play", "cards": played}, "P-9.5")
        assert "RJ" not in exc.message and "BJ" not in exc.message


def test_P_9_7_ruling_a_larger_set_of_threes_keeps_rank_three_under_larger_sets_beat_any():
    deal = {1: ["KC"], 2: ["3C", "3D"], 3: ["4C", "4D", "AC"]}
    state, _ = play(start(deal=deal, clear_threes=True, larger_sets_beat_any=True), 1, "KC")
    state, events = play(state, 2, "3C", "3D")  # P-9.2 makes it legal; P-9.7 is for same size
    assert events[0]["rank"] == "3" and state["trick"]["standing"]["rank"] == "3"
    assert G.view(state, 3)["public"]["trick"]["rank"] == "3"
    after, events = play(state, 3, "4C", "4D")  # a pair of 4s beats a pair of rank 3
    assert events[0]["rank"] == "4"
    # a same-size play of 3s still takes the rank (P-9.7)
    deal = {1: ["KC"], 2: ["3C"], 3: ["AC"]}
    state, _ = play(start(deal=deal, clear_threes=True, larger_sets_beat_any=True), 1, "KC")
    state, events = play(state, 2, "3C")
    assert events[0]["rank"] == "K"


def test_P_9_7_ruling_threes_take_the_rank_under_a_revolution_with_sets():
    state = start(deal={1: QUAD_8 + ["KC", "KD"], 0: ["3C", "3D"], 3: ["QC", "QD", "AC", "AD"]},
                  revolution=True, clear_threes=True)
    state, _ = play(state, 1, *QUAD_8)
    for seat in (0, 3, 2):
        state, _ = pass_(state, seat)
    state, _ = play(state, 1, "KC", "KD")
    state, events = play(state, 0, "3C", "3D")
    assert state["revolution"] is True and events[0]["rank"] == "K"
    illegal(state, 3, {"type": "play", "cards": ["AC", "AD"]}, "P-4.3")  # reversed: A is below K
    play(state, 3, "QC", "QD")


def test_P_9_4_ruling_a_revolution_ends_with_the_hand():
    state = start(deal={1: QUAD_8}, revolution=True, exchange="none")
    state, events = play(state, 1, *QUAD_8)
    assert {"type": "revolution", "active": True} in events
    state, events = run_timeouts(state, lambda s: s["hand_no"] == 2)
    view = G.view(state, 0)["public"]
    assert state["revolution"] is False and view["revolution"] is False and view["direction"] == "clockwise"
    assert {"type": "revolution", "active": False} not in events  # it ends with the deal, not by a play
    # normal order and direction in the new hand: the lowest card is the lowest in natural
    # order (hands are sorted 3 first), and the play goes on to seat + 1
    leader = state["turn"]
    assert leader == (state["dealer"] + 1) % 4
    lead = G.timeout_move(state, leader)["cards"]
    assert lead == [state["hands"][leader][0]]
    state, _ = play(state, leader, *lead)
    assert state["turn"] == (leader + 1) % 4


def _scum_with_jokers(count, held):
    """A seed whose second deal gives the Scum of a timeout-played first hand exactly `held`
    among the jokers, with `exchange: one` or `two` by `count`."""
    exchange = "one" if count == 1 else "two"
    for seed in range(1, 400):
        state = G.new_game(players=4, options=G.validate_options({"jokers": True, "exchange": exchange}),
                           seed=seed, first_dealer=0)
        state, events = run_timeouts(state, lambda s: s["hand_no"] == 2)
        auto = next(e for e in events if e["type"] == "give" and e["auto"] and e["count"] == count)
        scum_dealt = dealt_hand(seed, 1, 4, state["dealer"], auto["from"], jokers=True)
        if sorted(c for c in scum_dealt if c in ("RJ", "BJ")) == sorted(held):
            return auto
    raise AssertionError("no such seed")


def test_P_3_1_ruling_among_the_two_jokers_the_scums_highest_card_is_either():
    # both jokers held: the server gives one of them (RJ, its fixed tie-break), never a 2
    auto = _scum_with_jokers(1, ["RJ", "BJ"])
    assert auto["secret"]["cards"] in (["RJ"], ["BJ"])
    # one joker held: that joker is the highest card
    assert _scum_with_jokers(1, ["BJ"])["secret"]["cards"] == ["BJ"]
    assert _scum_with_jokers(1, ["RJ"])["secret"]["cards"] == ["RJ"]
    # exchange two: both jokers are the two highest cards
    assert sorted(_scum_with_jokers(2, ["RJ", "BJ"])["secret"]["cards"]) == ["BJ", "RJ"]
