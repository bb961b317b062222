"""Scenario tests for the base rules of Lopti (docs/rules/lopti.md L-1 .. L-10 and the common
rulings), one or more per numbered rule, each on an exact table (a fixed deck through new_game,
or a mid-round table built directly)."""

from __future__ import annotations

import pytest

from games.engine import fairness, lopti
from games.engine.base import IllegalMove, InvalidMove, NotYourTurn

from .test_lopti_support import (
    FULL,
    SEED,
    G,
    decline,
    expected_deal,
    face_down,
    first,
    illegal,
    keep_all,
    legal,
    move,
    new,
    play,
    table,
    take,
    types,
)

PLAY = "play"


def p(*cards_: str) -> dict:
    return {"type": PLAY, "cards": list(cards_)}


TAKE = {"type": "take_pile"}


# --- L-1 Players, cards, notation ------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 6])
def test_L_1_1_two_to_five_players(players):
    assert (G.min_players, G.max_players) == (2, 5)
    with pytest.raises(InvalidMove):
        G.new_game(players=players, options=G.validate_options({}), seed=1)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_L_1_1_one_deck_of_52_cards_dealt(players):
    st = G.new_game(players=players, options=G.validate_options({}), seed=players)
    dealt = []
    for s in range(players):
        dealt += st["hands"][s] + st["face_up"][s] + st["face_down"][s]
    assert sorted(dealt + st["draw_pile"]) == sorted(FULL)
    assert len(st["draw_pile"]) == 52 - 9 * players


def test_L_1_2_natural_rank_order_ace_high():
    st = table(hands={0: ["QC", "AC"]}, pile=["KD"])
    legal(st, 0, p("AC"))
    e = illegal(st, 0, p("QC"), "L-5.7")
    assert "K" in e.message
    st = table(hands={0: ["KC", "9C"]}, pile=["AD"])
    illegal(st, 0, p("KC"), "L-5.7")
    st = table(hands={0: ["9C"]}, pile=["8D"])
    legal(st, 0, p("9C"))


def test_L_1_4_card_codes():
    st = table(hands={0: ["10H", "JH"]}, pile=["9D"])
    st2, _ = play(st, 0, "10H")
    assert "10H" in st2["cleared"]
    with pytest.raises(InvalidMove):
        G.apply(st, 0, p("1H"))
    with pytest.raises(InvalidMove):
        G.apply(st, 0, p("10X"))


def test_L_1_5_next_player_is_seat_plus_one_skipping_players_out():
    st = table(players=4, turn=3, hands={3: ["5C", "9C"]})
    st, _ = play(st, 3, "5C")
    assert st["turn"] == 0
    st = table(players=3, turn=0, hands={0: ["5C", "9C"]}, out=[1], options={"play_for_places": True})
    st, _ = play(st, 0, "5C")
    assert st["turn"] == 2


# --- L-2 Sessions and rounds ---------------------------------------------------------------------


def test_L_2_1_session_starts_with_every_base_rule_at_its_default():
    st = G.new_game(players=3, options=G.validate_options({}), seed=5)
    defaults = {k: o.default for k, o in lopti.BASE_RULES.items()}
    assert st["rules"] == defaults and st["next_rules"] == {}
    assert G.view(st, 0)["public"]["rules"] == defaults
    assert st["round_wins"] == [0, 0, 0] and st["last_round_winner"] is None


def finish_round(st: dict, winner: int) -> tuple[dict, list[dict]]:
    """`winner` (to move, with an empty pile) turns its only face-down card and goes out; when
    that ends the round and the table goes on, the window is declined and the next round dealt.
    With `play_for_places`, each call puts the next seat out."""
    st, events = face_down(ready_to_go_out(st, winner), winner, 0)
    if st["phase"] != "house_rule":
        return st, events
    st, dealt = decline(st)  # L-11.1: the winner's window closes, the next round is dealt
    return st, events + dealt


def ready_to_go_out(st: dict, winner: int) -> dict:
    """The position before `winner` goes out: its turn, an empty pile, and its only card the
    face-down one at index 0 (the move {"type": "play_face_down", "index": 0})."""
    st = dict(st)
    n = st["players"]
    fd = st["rules"]["face_down_count"]
    st["hands"] = [list(h) for h in st["hands"]]
    st["face_up"] = [list(f) for f in st["face_up"]]
    st["face_down"] = [list(f) for f in st["face_down"]]
    st["cleared"] = list(st["cleared"]) + st["hands"][winner] + [c for c in st["face_up"][winner] if c]
    st["hands"][winner] = []
    st["face_up"][winner] = [None] * len(st["face_up"][winner])
    kept = [c for c in st["face_down"][winner] if c]
    st["cleared"] += kept[1:]
    st["face_down"][winner] = [kept[0]] + [None] * (fd - 1)
    st["cleared"] += st["pile"]
    st.update(pile=[], top_count=0, low_lock=False, obligation=None, turn=winner, played=False, extra_plays=0)
    st.update(phase="play", swap_done=[True] * n)
    return st


def test_L_2_2_round_ends_with_a_winner_and_the_next_is_dealt():
    st = table(players=3, turn=1, face_down={1: [None, "9C", None]})
    st, events = face_down(st, 1, 1)
    assert types(events)[-3:] == ["round_end", "deal_revealed", "house_rule_window"]
    assert st["phase"] == "house_rule" and st["round"] == 1
    st, dealt = decline(st)
    assert types(dealt)[1] == "deal"
    end = first(events, "round_end")
    assert end["winner"] == 1 and end["round"] == 1
    assert st["round"] == 2 and st["round_wins"] == [0, 1, 0]
    assert st["last_round_winner"] == 1 and st["status"] == "active"
    assert G.view(st, 0)["scores"] == [0, 1, 0]
    assert G.view(st, 0)["round"] == 2


def test_L_2_2_rounds_option_finishes_the_table_with_most_round_wins():
    st = table(players=3, turn=2, face_down={2: ["9C", None, None]}, options={"rounds": 1})
    st, events = face_down(st, 2, 0)
    assert st["status"] == "finished" and G.is_finished(st)
    assert G.view(st, 0)["public"]["winners"] == [2]
    assert types(events)[-1] == "game_end" and G.to_act(st) == []
    st = table(players=3, turn=2, face_down={2: ["9C", None, None]}, options={"rounds": 2})
    st["round_wins"], st["round"] = [1, 0, 0], 2
    st, _ = face_down(st, 2, 0)
    assert st["status"] == "finished" and st["winners"] == [0, 2]


def test_L_2_2_rounds_zero_means_no_limit():
    st = table(players=2, turn=0, face_down={0: ["9C", None, None]})
    for r in range(1, 6):
        st["round"] = 40 * r
        st, _ = finish_round(st, r % 2)
        assert st["status"] == "active" and st["round"] == 40 * r + 1


def test_L_2_3_first_dealer_from_the_seed_then_rotates_clockwise():
    for seed in range(20):
        st = G.new_game(players=4, options=G.validate_options({}), seed=seed)
        assert st["dealer"] == fairness.draw_dealer(fairness.deal_secret(seed, 0), 4)
    st = new(players=3, dealer=2)
    assert st["dealer"] == 2
    st = keep_all(st)
    st, events = finish_round(st, 1)
    assert st["dealer"] == 0 and first(events, "deal")["dealer"] == 0
    st, _ = finish_round(keep_all(st), 2)
    assert st["dealer"] == 1


def test_L_2_3_later_deals_come_from_the_seed_and_deal_number():
    st = keep_all(new(players=3, dealer=0))
    st, _ = finish_round(st, 0)
    want = expected_deal(fairness.shuffle(FULL, fairness.deal_secret(SEED, 1)), 3, 1, st["rules"])
    assert st["hands"] == want["hand"] and st["face_up"] == want["face_up"]
    assert st["face_down"] == want["face_down"] and st["draw_pile"] == want["draw_pile"]


def test_L_2_4_dealer_plays_first_then_the_previous_winner():
    st = keep_all(new(players=3, dealer=1))
    assert st["turn"] == 1 and G.view(st, 0)["turn"] == 1
    st, events = finish_round(st, 2)
    assert st["dealer"] == 2
    st, _ = finish_round(keep_all(st), 0)
    assert st["dealer"] == 0 and st["last_round_winner"] == 0
    st = keep_all(st)
    assert st["turn"] == 0
    st, _ = finish_round(st, 2)
    st = keep_all(st)
    assert st["dealer"] == 1 and st["turn"] == 2 and st["first_player"] == 2


# --- L-3 The deal ----------------------------------------------------------------------------------


def test_L_3_1_deal_order_and_draw_pile_from_a_fixed_deck():
    deck = list(FULL)
    st = G.new_game(players=3, options=G.validate_options({}), seed=1, deck=deck, first_dealer=1)
    # dealer 1: seats 2, 0, 1 in turn; three face-down rounds, three face-up, three hand rounds
    assert st["face_down"][2] == [deck[0], deck[3], deck[6]]
    assert st["face_down"][0] == [deck[1], deck[4], deck[7]]
    assert st["face_up"][1] == [deck[11], deck[14], deck[17]]
    assert sorted(st["hands"][2]) == sorted([deck[18], deck[21], deck[24]])
    assert st["draw_pile"] == deck[27:]
    st = keep_all(st)
    hand = st["hands"][1]
    st, events = play(st, 1, hand[0])
    draw = first(events, "draw")
    assert draw["secret"] == {"cards": [deck[27]]} and draw["secret_to"] == [1]
    assert deck[27] in st["hands"][1]


def test_L_3_1_counts_follow_the_rules():
    opts = {"hand_size": 5, "face_up_count": 1, "face_down_count": 2}
    deck = list(reversed(FULL))
    st = G.new_game(players=4, options=G.validate_options(opts), seed=1, deck=deck, first_dealer=3)
    want = expected_deal(deck, 4, 3, st["rules"])
    assert st["hands"] == want["hand"] and all(len(h) == 5 for h in st["hands"])
    assert st["face_up"] == want["face_up"] and all(len(f) == 1 for f in st["face_up"])
    assert st["face_down"] == want["face_down"]
    assert st["draw_pile"] == want["draw_pile"] and len(st["draw_pile"]) == 52 - 32


def test_L_3_1_fixed_deck_is_checked():
    with pytest.raises(InvalidMove):
        G.new_game(players=2, options=G.validate_options({}), seed=1, deck=FULL[:-1] + ["2C"])


def test_L_3_2_face_down_cards_hidden_from_their_owner():
    st = new(players=2, face_down={0: ["AS", "KS", "QS"]})
    view = G.view(st, 0)
    assert view["you"]["face_down_positions"] == [0, 1, 2]
    assert view["seats"][0]["face_down_positions"] == [0, 1, 2]
    text = repr(view)
    assert "'AS'" not in text and "'KS'" not in text and "'QS'" not in text


def test_L_3_3_swap_phase_is_simultaneous_once_each():
    st = new(players=2, dealer=1, hands={0: ["4C", "5C", "6C"]}, face_up={0: ["KD", "AD", "QD"]})
    assert st["phase"] == "swap" and G.to_act(st) == [0, 1]
    view = G.view(st, 0)
    assert view["turn"] is None and view["phase"] == "swap"
    assert view["seats"][0]["swap_done"] is False
    moves = G.legal_moves(st, 0)
    assert len(moves) == 3 * 3 + 1 and {"type": "keep"} in moves
    illegal(st, 0, p("4C"), "L-3.3")
    st, events = move(st, 0, {"type": "swap", "hand_card": "4C", "face_up_card": "AD"})
    assert st["hands"][0] == ["5C", "6C", "AD"] and st["face_up"][0] == ["KD", "4C", "QD"]
    assert events[0] == {"type": "swap", "seat": 0, "hand_card": "4C", "face_up_card": "AD", "position": 1}
    assert G.to_act(st) == [1] and G.legal_moves(st, 0) == []
    # api.md's ruling: the last player still to swap has the turn, in every view (who has
    # swapped is public: `swap_done`).
    for seat in (0, 1, None):
        assert G.view(st, seat)["turn"] == 1 and G.view(st, seat)["phase"] == "swap"
    assert [s["swap_done"] for s in G.view(st, None)["seats"]] == [True, False]
    with pytest.raises(NotYourTurn):
        G.apply(st, 0, {"type": "keep"})
    with pytest.raises(NotYourTurn):
        G.apply(st, 0, {"type": "swap", "hand_card": "5C", "face_up_card": "KD"})
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "swap", "hand_card": "5C", "face_up_card": "KD"})
    st, events = move(st, 1, {"type": "keep"})
    assert st["phase"] == "play" and st["turn"] == 1 and G.to_act(st) == [1]
    assert types(events) == ["keep", "play_start"]
    illegal(st, 1, {"type": "keep"}, "L-3.3")
    card = st["hands"][1][0]
    face = st["face_up"][1][0]
    illegal(st, 1, {"type": "swap", "hand_card": card, "face_up_card": face}, "L-3.3")


def test_L_3_3_timeout_declines():
    st = new(players=3)
    assert all(G.timeout_move(st, s) == {"type": "keep"} for s in range(3))


def test_L_3_3_several_swaps_when_allowed_and_none_when_off():
    st = new(players=2, options={"swaps_allowed": 2}, hands={0: ["4C", "5C", "6C"]})
    face = st["face_up"][0]
    st, _ = move(st, 0, {"type": "swap", "hand_card": "4C", "face_up_card": face[0]})
    assert G.to_act(st) == [0, 1] and G.view(st, 0)["you"]["swaps_left"] == 1
    st, _ = move(st, 0, {"type": "swap", "hand_card": "5C", "face_up_card": face[1]})
    assert G.to_act(st) == [1]
    assert st["face_up"][0][:2] == ["4C", "5C"]
    st = new(players=2, options={"swaps_allowed": 0})
    assert st["phase"] == "play" and st["turn"] == 0
    # Ruling: no face-up cards, nothing to swap: the phase is skipped.
    st = new(players=2, options={"face_up_count": 0})
    assert st["phase"] == "play"


# --- L-4 Turns -------------------------------------------------------------------------------


def test_L_4_1_play_or_take_then_the_turn_passes():
    st = table(players=3, hands={0: ["9C", "4C"]}, pile=["8D"])
    after, _ = play(st, 0, "9C")
    assert after["turn"] == 1
    after, _ = take(st, 0)
    assert after["turn"] == 1 and after["hands"][0] == ["4C", "8D", "9C"]


def test_L_4_2_one_rank_per_play_and_face_down_only_without_hand():
    st = table(hands={0: ["9C", "9D", "JC"]}, pile=["8D"])
    illegal(st, 0, p("9C", "JC"), "L-4.2")
    illegal(st, 0, {"type": "play_face_down", "index": 0}, "L-9.1")
    legal(st, 0, p("9C", "9D"))
    st = table(hands={0: ["9C"]}, face_up={0: ["4C", None, None]})
    illegal(st, 0, {"type": "play_face_down", "index": 0}, "L-9.1")


def test_L_4_3_empty_pile_any_single_rank_any_count():
    st = table(hands={0: ["4C", "4D", "4H", "KC", "AC"]})
    moves = G.legal_moves(st, 0)
    plays = [m for m in moves if m["type"] == "play"]
    assert len(plays) == 7 + 2  # every subset of the 4s, the K, the A
    assert TAKE not in moves
    st, _ = play(st, 0, "4C", "4H")
    assert st["pile"] == ["4C", "4H"] and st["top_count"] == 2


def test_L_4_4_one_draw_after_the_first_play_below_hand_size():
    st = table(hands={0: ["5C", "6C", "9C"]}, draw=["KD", "QD"])
    st, events = play(st, 0, "5C")
    assert st["hands"][0] == ["6C", "9C", "KD"] and st["draw_pile"] == ["QD"]
    assert first(events, "draw")["count"] == 1


def test_L_4_4_several_cards_still_one_draw():
    st = table(hands={0: ["5C", "5D", "5H", "9C"]}, draw=["KD", "QD", "JD"])
    st, _ = play(st, 0, "5C", "5D", "5H")
    assert st["hands"][0] == ["9C", "KD"] and len(st["draw_pile"]) == 2


def test_L_4_4_no_draw_with_three_or_more_or_empty_draw_pile():
    st = table(hands={0: ["5C", "6C", "8C", "9C"]}, draw=["KD"])
    st, events = play(st, 0, "5C")
    assert "draw" not in types(events) and st["draw_pile"] == ["KD"]
    st = table(hands={0: ["5C", "6C"]})
    st, events = play(st, 0, "5C")
    assert "draw" not in types(events) and st["hands"][0] == ["6C"]


def test_L_4_4_no_draw_on_extra_plays_or_taking():
    st = table(hands={0: ["10C", "5C", "6C"]}, draw=["KD", "QD", "JD"])
    st, events = play(st, 0, "10C")
    assert st["hands"][0] == ["5C", "6C", "KD"] and st["turn"] == 0 and st["extra_plays"] == 1
    st, events = play(st, 0, "5C")
    assert "draw" not in types(events) and st["hands"][0] == ["6C", "KD"]
    assert st["turn"] == 1 and st["draw_pile"] == ["QD", "JD"]
    st = table(hands={0: ["5C"]}, pile=["9C"], draw=["KD"])
    st, events = take(st, 0)
    assert "draw" not in types(events) and st["hands"][0] == ["5C", "9C"]


def test_L_4_5_taking_ends_the_turn_even_during_extra_plays():
    st = table(players=3, hands={0: ["5C", "9D"]}, extra_plays=2, played=True)
    st, _ = play(st, 0, "5C")
    assert st["turn"] == 0 and st["extra_plays"] == 1
    legal(st, 0, TAKE)
    st, events = take(st, 0)
    assert st["turn"] == 1 and st["extra_plays"] == 0 and st["hands"][0] == ["5C", "9D"]
    assert first(events, "take_pile") == {"type": "take_pile", "seat": 0, "cards": ["5C"]}


def test_L_4_5_voluntary_take_allowed_empty_pile_never():
    st = table(hands={0: ["AC"]}, pile=["5C"])
    legal(st, 0, p("AC"))
    legal(st, 0, TAKE)
    st = table(hands={0: ["AC"]})
    illegal(st, 0, TAKE, "L-4.5")
    st = table(hands={0: ["AC"]}, chain=["3C"])
    illegal(st, 0, TAKE, "L-4.5")


# --- L-5 Which plays are legal -----------------------------------------------------------------------


def test_L_5_1_obligation_only_threes_or_take():
    st = table(
        players=3, hands={1: ["3C", "10C", "2C", "7C", "AC"]}, pile=["5D"], chain=["3D"], obligation=1, turn=1
    )
    for card in ("10C", "2C", "7C", "AC"):
        illegal(st, 1, p(card), "L-5.1")
    assert G.legal_moves(st, 1) == [p("3C"), TAKE]


def test_L_5_2_a_three_is_legal_on_anything():
    for pile in (["AD"], ["7D"], ["9C", "9D"], ["2D"], ["10D"]):
        st = table(hands={0: ["3C", "3H"]}, pile=pile, top_count=len(pile))
        legal(st, 0, p("3C"))
        legal(st, 0, p("3C", "3H"))


def test_L_5_3_empty_pile_anything():
    st = table(hands={0: ["4C", "7C", "10C", "2C", "AC"]})
    assert len(G.legal_moves(st, 0)) == 5


def test_L_5_4_matching_needs_more_cards_or_completes_four():
    st = table(hands={0: ["8C", "8D", "9C"]}, pile=["8H"])
    illegal(st, 0, p("8C"), "L-5.4")
    legal(st, 0, p("8C", "8D"))
    legal(st, 0, p("9C"))
    # on three 8s in one play, a single 8 completes four
    st = table(hands={0: ["8C", "5C"]}, pile=["8D", "8H", "8S"], top_count=3)
    legal(st, 0, p("8C"))
    # on 8 then 8 8: top count 2, run 3; a single 8 completes four
    st = table(hands={0: ["8C", "5C"]}, pile=["8D", "8H", "8S"], top_count=2)
    st, events = play(st, 0, "8C")
    assert first(events, "clear")["cause"] == "four_of_a_kind"
    # a pair on a pair is not more, but it completes four
    st = table(hands={0: ["8C", "8D"]}, pile=["5C", "8H", "8S"], top_count=2)
    legal(st, 0, p("8C", "8D"))
    # a pair on a single 8 lying on another 8 is more, but a single 8 there is neither
    st = table(hands={0: ["8C", "8D"]}, pile=["8H", "8S"], top_count=1)
    illegal(st, 0, p("8C"), "L-5.4")
    legal(st, 0, p("8C", "8D"))


@pytest.mark.parametrize("rank", ["2", "7", "10", "A"])
def test_L_5_4_matching_holds_for_every_rank_specials_included(rank):
    opts = {"ten_clears": False} if rank == "10" else {}
    st = table(hands={0: [rank + "C", rank + "D"]}, pile=[rank + "H"], options=opts)
    illegal(st, 0, p(rank + "C"), "L-5.4")
    legal(st, 0, p(rank + "C", rank + "D"))


def test_L_5_5_after_a_seven_play_lower():
    st = table(hands={0: ["2C", "4C", "5C", "6C", "8C", "10C", "AC"]}, pile=["7D"])
    assert G.view(st, 0)["public"]["low_lock"] is True
    for card in ("2C", "4C", "5C", "6C"):
        legal(st, 0, p(card))
    for card in ("8C", "10C", "AC"):
        illegal(st, 0, p(card), "L-5.5")


def test_L_5_6_two_seven_ten_on_anything():
    for card in ("2C", "7C", "10C"):
        st = table(hands={0: [card]}, pile=["AD"])
        legal(st, 0, p(card))


def test_L_5_7_otherwise_higher():
    st = table(hands={0: ["9C", "QC", "5C"]}, pile=["9D", "JD"])
    illegal(st, 0, p("9C"), "L-5.7")
    illegal(st, 0, p("5C"), "L-5.7")
    legal(st, 0, p("QC"))
    st = table(hands={0: ["QC"]}, pile=["JD"])
    legal(st, 0, p("QC"))


def test_L_5_rank_before_count_on_a_seven():
    st = table(hands={0: ["8C", "8D", "8H", "8S"]}, pile=["7D"])
    illegal(st, 0, p("8C", "8D", "8H", "8S"), "L-5.5")
    st = table(hands={0: ["6C", "6D", "6H", "6S", "KC"]}, pile=["7D"])
    st, events = play(st, 0, "6C", "6D", "6H", "6S")
    assert first(events, "clear")["cause"] == "four_of_a_kind"
    assert st["pile"] == [] and st["low_lock"] is False and st["extra_plays"] == 1


# --- L-6 Special cards --------------------------------------------------------------------------------


def test_L_6_1_two_resets_and_stays():
    st = table(hands={0: ["2C", "KC"]}, pile=["AD"])
    st, _ = play(st, 0, "2C")
    assert st["pile"] == ["AD", "2C"]
    st = table(turn=1, hands={1: ["4C", "5C", "2D"]}, pile=["AD", "2C"])
    legal(st, 1, p("4C"))
    illegal(st, 1, p("2D"), "L-5.4")


def test_L_6_2_three_on_a_pile_is_discarded_and_obliges_the_next_player():
    st = table(players=3, hands={0: ["3C", "4C"], 1: ["9C", "KC"]}, pile=["5D", "9D"])
    st, events = play(st, 0, "3C")
    assert st["pile"] == ["5D", "9D"] and st["three_chain"] == ["3C"]
    assert st["obligation"] == 1 and st["turn"] == 1
    assert {"type": "obligation", "seat": 1} in events
    assert G.view(st, 1)["public"]["top_rank"] == "9"  # the top is unchanged by 3s
    illegal(st, 1, p("KC"), "L-5.1")
    st, events = take(st, 1)
    assert st["hands"][1] == ["5D", "9C", "9D", "KC"]  # the 3 is never taken
    assert st["three_chain"] == [] and st["discarded"] == ["3C"]
    assert st["obligation"] is None and st["turn"] == 2
    assert {"type": "three_chain", "cards": []} in events


def test_L_6_2_several_threes_move_one_obligation_one_player():
    st = table(players=3, hands={0: ["3C", "3D"], 1: ["3H", "9C"]}, pile=["5D"])
    st, _ = play(st, 0, "3C", "3D")
    assert st["obligation"] == 1 and st["turn"] == 1
    st, _ = play(st, 1, "3H")
    assert st["obligation"] == 2 and st["turn"] == 2
    assert st["three_chain"] == ["3C", "3D", "3H"]


def test_L_6_2_three_on_an_empty_pile_creates_no_obligation():
    st = table(players=3, hands={0: ["3C", "4C"], 1: ["4D", "9C"]})
    st, events = play(st, 0, "3C")
    assert st["obligation"] is None and st["turn"] == 1 and st["three_chain"] == ["3C"]
    assert "obligation" not in types(events)
    st, events = play(st, 1, "4D")
    assert st["three_chain"] == [] and st["pile"] == ["4D"]


def test_L_6_2_four_threes_clear_even_an_empty_pile():
    st = table(hands={0: ["3S", "9C"]}, chain=["3C", "3D", "3H"])
    st, events = play(st, 0, "3S")
    clear = first(events, "clear")
    assert clear["cause"] == "four_threes" and clear["cards"] == []
    assert st["turn"] == 0 and st["extra_plays"] == 1 and st["three_chain"] == []
    assert sorted(st["discarded"]) == ["3C", "3D", "3H", "3S"]


def test_L_6_2_four_threes_clear_the_pile_under_the_chain():
    st = table(
        players=3, turn=1, hands={1: ["3H", "3S", "9C"]}, pile=["5D", "9D"], chain=["3C", "3D"], obligation=1
    )
    st, events = play(st, 1, "3H", "3S")
    assert first(events, "clear")["cards"] == ["5D", "9D"]
    assert st["obligation"] is None and st["pile"] == [] and st["turn"] == 1 and st["extra_plays"] == 1
    assert st["cleared"][-2:] == ["5D", "9D"]


def test_L_6_3_seven_locks_only_the_next_play():
    st = table(players=3, hands={0: ["7C", "4C"], 1: ["5C", "9C"], 2: ["9D", "8D"]}, pile=["KD"])
    st, events = play(st, 0, "7C")
    assert st["low_lock"] is True and {"type": "low_lock", "on": True} in events
    illegal(st, 1, p("9C"), "L-5.5")
    st, events = play(st, 1, "5C")
    assert st["low_lock"] is False and {"type": "low_lock", "on": False} in events
    legal(st, 2, p("9D"))


def test_L_6_3_each_new_seven_restarts_the_lock_and_four_sevens_clear():
    st = table(turn=1, hands={1: ["7C", "7D", "8C"], 0: ["8D", "7S", "4C"]}, pile=["7H"])
    st, _ = play(st, 1, "7C", "7D")
    assert st["low_lock"] is True and st["top_count"] == 2
    illegal(st, 0, p("8D"), "L-5.5")
    st, events = play(st, 0, "7S")
    assert first(events, "clear")["cause"] == "four_of_a_kind"
    assert st["low_lock"] is False and st["turn"] == 0


def test_L_6_3_seven_not_under_an_obligation():
    st = table(hands={0: ["7C", "3C"]}, pile=["5D"], chain=["3D"], obligation=0)
    illegal(st, 0, p("7C"), "L-5.1")


def test_L_6_4_ten_clears_and_leaves_with_the_pile():
    st = table(hands={0: ["10C", "4C"]}, pile=["5D", "KD"])
    st, events = play(st, 0, "10C")
    assert first(events, "clear") == {
        "type": "clear",
        "seat": 0,
        "cause": "ten",
        "cards": ["5D", "KD", "10C"],
        "cleared_count": len(st["cleared"]),
    }
    assert st["pile"] == [] and st["turn"] == 0 and st["extra_plays"] == 1
    assert G.view(st, 1)["public"]["cleared_count"] == len(st["cleared"])


def test_L_6_4_ten_on_an_empty_pile_still_clears():
    st = table(hands={0: ["10C", "4C"]})
    st, events = play(st, 0, "10C")
    assert first(events, "clear")["cause"] == "ten" and st["turn"] == 0 and st["extra_plays"] == 1


def test_L_6_4_ten_not_on_a_seven_nor_under_an_obligation():
    st = table(hands={0: ["10C", "4C"]}, pile=["7D"])
    illegal(st, 0, p("10C"), "L-5.5")
    st = table(hands={0: ["10C", "3C"]}, pile=["5D"], chain=["3D"], obligation=0)
    illegal(st, 0, p("10C"), "L-5.1")


# --- L-7 Clearing the pile ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "pile", "top_count", "chain", "cards_", "cause"),
    [
        (["10C", "4C"], ["5D"], 1, [], ["10C"], "ten"),
        (["9C", "4C"], ["9D", "9H", "9S"], 3, [], ["9C"], "four_of_a_kind"),
        (["7C", "4C"], ["7D", "7H", "7S"], 3, [], ["7C"], "four_of_a_kind"),
        (["3C", "4C"], ["5D"], 1, ["3D", "3H", "3S"], ["3C"], "four_threes"),
    ],
)
def test_L_7_1_what_clears(hand, pile, top_count, chain, cards_, cause):
    st = table(hands={0: hand}, pile=pile, top_count=top_count, chain=chain)
    st, events = play(st, 0, *cards_)
    assert first(events, "clear")["cause"] == cause
    assert st["pile"] == [] and st["extra_plays"] == 1 and st["turn"] == 0


def test_L_7_2_clear_cancels_pending_effects_and_gives_an_extra_play_now():
    st = table(
        players=3, turn=1, hands={1: ["3H", "4C"]}, pile=["7D"], chain=["3C", "3D", "3S"], obligation=1
    )
    assert st["low_lock"] is True
    st, events = play(st, 1, "3H")
    assert st["obligation"] is None and st["low_lock"] is False and st["three_chain"] == []
    assert {"type": "obligation", "seat": None} in events and {"type": "low_lock", "on": False} in events
    assert st["turn"] == 1 and G.legal_moves(st, 1) == [p("4C")]


def test_L_7_3_extra_play_must_be_used_and_several_clears_chain():
    st = table(players=3, hands={0: ["10C", "10D", "5C", "5D"]}, pile=["KD"])
    st, _ = play(st, 0, "10C")
    assert TAKE not in G.legal_moves(st, 0)
    st, _ = play(st, 0, "10D")
    assert st["turn"] == 0 and st["extra_plays"] == 1
    st, _ = play(st, 0, "5C")
    assert st["turn"] == 1 and st["extra_plays"] == 0 and st["pile"] == ["5C"]


def test_L_7_4_cleared_cards_stay_out():
    st = table(players=2, hands={0: ["10C", "4C"], 1: ["JC"]}, pile=["5D", "KD"])
    before = len(st["cleared"])
    st, _ = play(st, 0, "10C")
    assert len(st["cleared"]) == before + 3
    st, _ = play(st, 0, "4C")
    st, _ = take(st, 1)
    assert st["hands"][1] == ["4C", "JC"]


def test_L_7_5_clearing_with_the_last_card_goes_out_without_extra_play():
    st = table(
        players=3,
        hands={0: ["10C"]},
        face_down={0: [None, None, None]},
        pile=["5D"],
        options={"play_for_places": True},
    )
    st, events = play(st, 0, "10C")
    assert st["out"][0] and st["extra_plays"] == 0 and st["turn"] == 1 and st["pile"] == []
    assert types(events).index("clear") < types(events).index("go_out")
    assert {"type": "take_pile"} not in G.legal_moves(st, 1)


def test_L_7_order_inside_a_turn():
    """L-7: first play -> its effects -> the draw -> the face-up pickup -> the extra play."""
    st = table(hands={0: ["10C", "5C"]}, draw=["KD"])
    ctx = G.apply_in_context(st, 0, p("10C"))
    order = [(f["event"], f["timing"]) for f in ctx.fired]
    assert order == [
        ("play", "before"),
        ("clear", "before"),
        ("clear", "after"),
        ("play", "after"),
        ("draw", "before"),
        ("draw", "after"),
    ]
    assert ctx.state["turn"] == 0 and ctx.state["extra_plays"] == 1
    st = table(hands={0: ["10C"]}, face_up={0: ["4C", None, "9D"]})
    ctx = G.apply_in_context(st, 0, p("10C"))
    assert [f["event"] for f in ctx.fired] == [
        "play",
        "clear",
        "clear",
        "play",
        "face_up_pickup",
        "face_up_pickup",
    ]
    assert ctx.state["hands"][0] == ["4C", "9D"] and ctx.state["turn"] == 0
    assert types(ctx.events) == ["play", "clear", "face_up_pickup"]


# --- L-8 Face-up cards ---------------------------------------------------------------------------------


def test_L_8_1_empty_hand_takes_every_face_up_card():
    st = table(hands={0: ["5C"]}, face_up={0: ["4C", "9D", None]})
    st, events = play(st, 0, "5C")
    assert st["hands"][0] == ["4C", "9D"] and st["face_up"][0] == [None, None, None]
    assert first(events, "face_up_pickup") == {"type": "face_up_pickup", "seat": 0, "cards": ["4C", "9D"]}
    assert G.view(st, 1)["seats"][0]["face_up"] == [None, None, None]


def test_L_8_1_pickup_during_extra_plays_while_the_draw_pile_lasts():
    st = table(
        hands={0: ["8C", "8D"]}, face_up={0: ["4C", None, "9D"]}, draw=["KD"], extra_plays=1, played=True
    )
    st, events = play(st, 0, "8C", "8D")
    assert "draw" not in types(events)
    assert st["hands"][0] == ["4C", "9D"] and st["draw_pile"] == ["KD"]


def test_L_8_2_draw_first_then_pickup_only_if_still_empty():
    st = table(hands={0: ["5C"]}, face_up={0: ["4C", "9D", "JD"]}, draw=["KD"])
    st, events = play(st, 0, "5C")
    assert st["hands"][0] == ["KD"] and st["face_up"][0] == ["4C", "9D", "JD"]
    assert "face_up_pickup" not in types(events)


# --- L-9 Face-down cards ---------------------------------------------------------------------------------


def test_L_9_1_blind_by_position_revealed_to_all():
    st = table(players=3, face_down={0: ["AC", None, "4D"]}, pile=["2D"])
    assert G.legal_moves(st, 0) == [
        {"type": "play_face_down", "index": 0},
        {"type": "play_face_down", "index": 2},
        TAKE,
    ]
    with pytest.raises(InvalidMove):
        G.apply(st, 0, {"type": "play_face_down", "index": 1})
    st, events = face_down(st, 0, 2)
    assert first(events, "face_down_reveal") == {
        "type": "face_down_reveal",
        "seat": 0,
        "index": 2,
        "card": "4D",
        "legal": True,
    }
    assert st["face_down"][0] == ["AC", None, None] and st["pile"] == ["2D", "4D"]
    assert G.view(st, 1)["seats"][0]["face_down_positions"] == [0]


def test_L_9_2_illegal_face_down_goes_onto_the_pile_which_is_taken():
    st = table(players=3, face_down={0: ["4D", "9H", None]}, pile=["5C", "KC"], draw=["QH"])
    st, events = face_down(st, 0, 0)
    assert types(events) == ["face_down_reveal", "take_pile"]
    assert first(events, "face_down_reveal")["legal"] is False
    assert first(events, "take_pile")["cards"] == ["5C", "KC", "4D"]
    assert st["hands"][0] == ["4D", "5C", "KC"] and st["turn"] == 1 and st["draw_pile"] == ["QH"]


def test_L_9_3_under_an_obligation_only_a_face_down_three():
    st = table(players=3, face_down={0: ["3D", "10H", None]}, pile=["5C"], chain=["3C"], obligation=0)
    after, events = face_down(st, 0, 0)
    assert first(events, "face_down_reveal")["legal"] is True
    assert after["obligation"] == 1 and after["three_chain"] == ["3C", "3D"]
    after, events = face_down(st, 0, 1)
    assert first(events, "face_down_reveal")["legal"] is False
    assert after["hands"][0] == ["5C", "10H"] and after["obligation"] is None and after["turn"] == 1


def test_L_9_4_take_instead_of_turning():
    st = table(face_down={0: ["3D", "10H", None]}, pile=["5C"])
    st, _ = take(st, 0)
    assert st["hands"][0] == ["5C"] and st["face_down"][0] == ["3D", "10H", None]


def test_L_9_5_legal_face_down_play_draws_and_hand_comes_first():
    st = table(face_down={0: ["9D", "10H", None]}, pile=["5C"], draw=["QH", "KH"])
    st, events = face_down(st, 0, 0)
    assert first(events, "draw")["secret"] == {"cards": ["QH"]}
    assert st["hands"][0] == ["QH"] and st["turn"] == 1
    st = st | {"turn": 0}
    illegal(st, 0, {"type": "play_face_down", "index": 1}, "L-9.1")


# --- L-10 Going out and winning ---------------------------------------------------------------------


def test_L_10_1_first_out_wins_before_the_draw():
    st = table(
        players=3,
        face_down={0: [None, "9D", None]},
        pile=["5C"],
        draw=["QH", "KH"],
        options={"play_for_places": True},
    )
    st, events = face_down(st, 0, 1)
    assert "draw" not in types(events)
    assert st["out"][0] and st["places"] == [0] and st["hands"][0] == [] and st["draw_pile"] == ["QH", "KH"]
    assert first(events, "go_out") == {"type": "go_out", "seat": 0, "place": 1}
    assert G.view(st, 2)["seats"][0]["place"] == 1


def test_L_10_1_illegal_last_face_down_card_is_not_out():
    st = table(players=2, face_down={0: [None, "4D", None]}, pile=["9C"])
    st, events = face_down(st, 0, 1)
    assert not st["out"][0] and st["hands"][0] == ["4D", "9C"] and st["round"] == 1


def test_L_10_2_the_last_cards_effect_still_happens():
    opts = {"play_for_places": True}
    st = table(players=3, hands={0: ["3C"]}, face_down={0: [None] * 3}, pile=["9C"], options=opts)
    st, _ = play(st, 0, "3C")
    assert st["out"][0] and st["obligation"] == 1 and st["turn"] == 1
    st = table(
        players=3, hands={0: ["7C"], 1: ["8C", "5C"]}, face_down={0: [None] * 3}, pile=["9C"], options=opts
    )
    st, _ = play(st, 0, "7C")
    assert st["out"][0] and st["low_lock"] is True
    illegal(st, 1, p("8C"), "L-5.5")


def test_L_10_3_play_for_places():
    opts = {"play_for_places": True}
    st = table(players=3, face_down={0: ["9D", None, None], 1: ["JD", None, None]}, options=opts)
    st, events = face_down(st, 0, 0)
    assert st["round"] == 1 and st["turn"] == 1 and "round_end" not in types(events)
    st, events = face_down(st, 1, 0)
    end = first(events, "round_end")
    assert end["places"] == [0, 1, 2] and end["winner"] == 0
    assert st["round_wins"] == [1, 0, 0] and st["phase"] == "house_rule"
    assert st["round"] == 1 and decline(st)[0]["round"] == 2
    st = table(players=3, face_down={0: ["9D", None, None]})
    st, events = face_down(st, 0, 0)
    assert first(events, "round_end")["places"] == [0] and decline(st)[0]["round"] == 2


def test_L_10_4_the_winner_is_recorded_for_the_house_rule():
    st = table(players=3, turn=2, face_down={2: ["9D", None, None]})
    st, _ = face_down(st, 2, 0)
    assert G.view(st, 0)["public"]["last_round_winner"] == 2


# --- Common rulings ---------------------------------------------------------------------------------------


def test_common_ruling_three_on_an_empty_pile():
    """A 3 on an empty pile: discarded, nothing to take, nobody loses a turn (L-6.2)."""
    st = table(players=2, hands={0: ["3C", "9C"], 1: ["4D", "5D"]})
    st, _ = play(st, 0, "3C")
    assert st["turn"] == 1 and st["obligation"] is None and st["pile"] == []
    assert TAKE not in G.legal_moves(st, 1) and p("4D") in G.legal_moves(st, 1)


def test_common_ruling_one_card_onto_three_matching_completes_four_and_clears():
    st = table(hands={0: ["QC", "4C"]}, pile=["QD", "QH", "QS"], top_count=3)
    st, events = play(st, 0, "QC")
    assert first(events, "clear")["cause"] == "four_of_a_kind" and st["extra_plays"] == 1


def test_common_ruling_four_high_cards_cannot_clear_a_seven():
    st = table(hands={0: ["8C", "8D", "8H", "8S"]}, pile=["7D"])
    illegal(st, 0, p("8C", "8D", "8H", "8S"), "L-5.5")
    st = table(hands={0: ["6C", "6D", "6H", "6S"]}, face_up={0: ["AC", None, None]}, pile=["7D"])
    st, events = play(st, 0, "6C", "6D", "6H", "6S")
    assert first(events, "clear")["cause"] == "four_of_a_kind"


def test_common_ruling_several_threes_one_obligation_each_counts_for_the_chain():
    st = table(players=4, hands={0: ["3C", "3D", "3H"], 1: ["3S", "9C"]}, pile=["5D"])
    st, _ = play(st, 0, "3C", "3D", "3H")
    assert st["obligation"] == 1 and len(st["three_chain"]) == 3
    st, events = play(st, 1, "3S")
    assert first(events, "clear")["cause"] == "four_threes" and st["turn"] == 1


def test_illegal_move_keeps_the_state():
    st = table(hands={0: ["4C"]}, pile=["9C"])
    with pytest.raises(IllegalMove):
        G.apply(st, 0, p("4C"))
    assert st["hands"][0] == ["4C"]
