"""Lopti engine tests for the variable base rules (L-13) and `set_base_rule`, the move forms
and error order of the API, timeout moves, the view layout and hidden information (L-14), and
the base-event hooks that house rules (L-11.7) will use."""

from __future__ import annotations

import json

import pytest

from games.engine import lopti
from games.engine.base import GameConflict, IllegalMove, InvalidMove, NotYourTurn

from .test_lopti_support import (
    FULL,
    G,
    deck_for,
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
    strings,
    table,
    take,
    types,
)

TAKE = {"type": "take_pile"}


def p(*cards_: str) -> dict:
    return {"type": "play", "cards": list(cards_)}


# --- L-13 options ------------------------------------------------------------------------------


def test_L_13_options_and_defaults():
    cat = G.catalogue()["options"]
    assert {k: v["default"] for k, v in cat.items()} == {
        "hand_size": 3,
        "face_up_count": 3,
        "face_down_count": 3,
        "draw_rule": "one_per_turn",
        "swaps_allowed": 1,
        "match_needs_more": True,
        "two_resets": True,
        "three_redirects": True,
        "seven_plays_low": True,
        "ten_clears": True,
        "four_of_a_kind_clears": True,
        "extra_play_on_clear": True,
        "direction": "clockwise",
        "play_for_places": False,
        "rounds": 0,
    }
    assert (cat["hand_size"]["minimum"], cat["hand_size"]["maximum"]) == (1, 5)
    assert (cat["face_up_count"]["minimum"], cat["face_up_count"]["maximum"]) == (0, 3)
    assert (cat["face_down_count"]["minimum"], cat["face_down_count"]["maximum"]) == (1, 3)
    assert (cat["swaps_allowed"]["minimum"], cat["swaps_allowed"]["maximum"]) == (0, 3)
    assert cat["draw_rule"]["choices"] == ["one_per_turn", "refill", "none"]


@pytest.mark.parametrize(
    "bad",
    [
        {"hand_size": 6},
        {"hand_size": 0},
        {"face_up_count": 4},
        {"face_down_count": 0},
        {"swaps_allowed": 4},
        {"draw_rule": "all"},
        {"direction": "left"},
        {"ten_clears": 1},
        {"rounds": -1},
        {"colour": "red"},
        {"hand_size": 4, "face_up_count": 3, "face_down_count": 3, "swaps_allowed": 1, "rounds": 2, "x": 1},
    ],
)
def test_L_13_bad_options(bad):
    with pytest.raises(InvalidMove):
        G.validate_options(bad)


def test_L_13_deal_must_fit_the_deck_for_five_players():
    assert G.validate_table_options({"hand_size": 4}, players=5)["hand_size"] == 4
    assert G.validate_table_options({"hand_size": 5, "face_up_count": 2}, players=5)["hand_size"] == 5
    st = G.new_game(players=5, options=G.validate_options({"hand_size": 4}), seed=3)
    assert len(st["draw_pile"]) == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_L_13_the_deal_is_checked_for_the_tables_own_seats(players):
    """5 + 3 + 3 = 11 cards each fit the deck for 2, 3 and 4 players (22, 33, 44 <= 52), not for
    five (55): the check uses the table's number of seats, not the game's largest table."""
    opts = {"hand_size": 5, "face_up_count": 3, "face_down_count": 3}
    assert G.validate_options(opts)["hand_size"] == 5  # options alone: they fit some table
    clean = G.validate_table_options(opts, players=players)
    st = G.new_game(players=players, options=clean, seed=3)
    assert [len(h) for h in st["hands"]] == [5] * players
    assert len(st["draw_pile"]) == 52 - 11 * players


def test_L_13_a_deal_too_large_for_the_seats_names_the_three_fields():
    opts = {"hand_size": 5, "face_up_count": 3, "face_down_count": 3}
    with pytest.raises(InvalidMove) as exc:
        G.validate_table_options(opts, players=5)
    assert set(exc.value.fields) == {"hand_size", "face_up_count", "face_down_count"}
    assert "55" in exc.value.message and "L-13" in exc.value.message
    with pytest.raises(InvalidMove):  # the deal itself checks the same way
        G.new_game(players=5, options=G.validate_options(opts), seed=3)


def test_L_13_hand_size_is_also_the_draw_threshold():
    st = table(
        hands={0: ["5C", "6C", "8C", "9C"]}, draw=["KD", "QD"], options={"hand_size": 5, "face_up_count": 2}
    )
    st, events = play(st, 0, "5C")
    assert first(events, "draw")["count"] == 1 and len(st["hands"][0]) == 4


@pytest.mark.parametrize(("rule", "drawn"), [("one_per_turn", 1), ("refill", 2), ("none", 0)])
def test_L_13_draw_rule(rule, drawn):
    opts = {"hand_size": 4, "draw_rule": rule}
    st = table(hands={0: ["5C", "5D", "9C", "JC"]}, draw=["KD", "QD", "AD"], options=opts)
    st, events = play(st, 0, "5C", "5D")
    assert len(st["hands"][0]) == 2 + drawn and len(st["draw_pile"]) == 3 - drawn
    assert ("draw" in types(events)) == bool(drawn)


def test_L_13_refill_only_after_the_first_play():
    opts = {"hand_size": 4, "draw_rule": "refill"}
    st = table(hands={0: ["10C", "5D"]}, draw=["KD", "QD", "AD", "JD"], options=opts)
    st, _ = play(st, 0, "10C")
    assert st["hands"][0] == ["5D", "QD", "KD", "AD"]
    st, events = play(st, 0, "5D")
    assert "draw" not in types(events) and st["draw_pile"] == ["JD"]


def test_L_13_match_needs_more_off_allows_the_same_count():
    st = table(hands={0: ["8C", "9C"]}, pile=["8H"], options={"match_needs_more": False})
    legal(st, 0, p("8C"))
    st = table(hands={0: ["8C", "8D"]}, pile=["8H", "8S"], top_count=2, options={"match_needs_more": False})
    legal(st, 0, p("8C", "8D"))
    st = table(
        hands={0: ["8C", "8D", "5C"]}, pile=["8H", "8S"], top_count=2, options={"match_needs_more": False}
    )
    illegal(st, 0, p("8C"), "L-5.4")


def test_L_13_two_resets_off():
    st = table(hands={0: ["2C", "4C"]}, pile=["AD"], options={"two_resets": False})
    illegal(st, 0, p("2C"), "L-5.7")
    st = table(hands={0: ["2C", "4C"]}, pile=["AD"])
    legal(st, 0, p("2C"))
    st = table(hands={0: ["2C", "4C"]}, pile=["7D"], options={"two_resets": False})
    legal(st, 0, p("2C"))  # lower than 7 under the low lock


def test_L_13_three_redirects_off_makes_the_three_an_ordinary_low_card():
    opts = {"three_redirects": False}
    st = table(hands={0: ["3C", "9C"]}, pile=["9D"], options=opts)
    illegal(st, 0, p("3C"), "L-5.7")
    st = table(players=3, hands={0: ["3C", "9C"]}, pile=["2D"], options=opts)
    st, events = play(st, 0, "3C")
    assert st["pile"] == ["2D", "3C"] and st["three_chain"] == [] and st["obligation"] is None
    assert st["turn"] == 1 and "obligation" not in types(events)
    st = table(hands={0: ["3C", "9C"]}, pile=["3D", "3H", "3S"], options=opts)
    st, events = play(st, 0, "3C")
    assert first(events, "clear")["cause"] == "four_of_a_kind"


def test_L_13_seven_plays_low_off():
    opts = {"seven_plays_low": False}
    st = table(hands={0: ["7C", "9C"]}, pile=["9D"], options=opts)
    illegal(st, 0, p("7C"), "L-5.7")
    st = table(hands={0: ["7C", "9C"]}, pile=["5D"], options=opts)
    st, events = play(st, 0, "7C")
    assert st["low_lock"] is False and "low_lock" not in types(events)
    st = table(turn=1, hands={1: ["8C", "5C"]}, pile=["7D"], options=opts)
    legal(st, 1, p("8C"))
    illegal(st, 1, p("5C"), "L-5.7")


def test_L_13_ten_clears_off():
    opts = {"ten_clears": False}
    st = table(hands={0: ["10C", "5C"]}, pile=["JD"], options=opts)
    illegal(st, 0, p("10C"), "L-5.7")
    st = table(hands={0: ["10C", "5C"]}, pile=["9D"], options=opts)
    st, events = play(st, 0, "10C")
    assert "clear" not in types(events) and st["pile"] == ["9D", "10C"] and st["turn"] == 1


def test_L_13_four_of_a_kind_clears_off():
    opts = {"four_of_a_kind_clears": False}
    st = table(hands={0: ["8C", "5C"]}, pile=["8D", "8H", "8S"], top_count=3, options=opts)
    st, events = play(st, 0, "8C")
    assert "clear" not in types(events) and len(st["pile"]) == 4 and st["turn"] == 1
    st = table(hands={0: ["7C", "5C"]}, pile=["7D", "7H", "7S"], top_count=3, options=opts)
    st, events = play(st, 0, "7C")
    assert "clear" not in types(events) and st["low_lock"] is True
    # Ruling: the chain of four 3s is the 3's own power (L-6.2)
    st = table(hands={0: ["3C", "5C"]}, pile=["9D"], chain=["3D", "3H", "3S"], options=opts)
    st, events = play(st, 0, "3C")
    assert first(events, "clear")["cause"] == "four_threes"


def test_L_13_extra_play_on_clear_off():
    st = table(hands={0: ["10C", "5C"]}, pile=["JD"], options={"extra_play_on_clear": False})
    st, events = play(st, 0, "10C")
    assert "clear" in types(events) and st["turn"] == 1 and st["extra_plays"] == 0


def test_L_13_direction_counterclockwise():
    opts = {"direction": "counterclockwise"}
    st = table(players=3, hands={0: ["5C", "9C"]}, options=opts)
    st, _ = play(st, 0, "5C")
    assert st["turn"] == 2
    st = table(players=3, hands={0: ["3C", "9C"]}, pile=["5D"], options=opts)
    st, _ = play(st, 0, "3C")
    assert st["obligation"] == 2 and st["turn"] == 2
    # Ruling: the deal and the dealer's rotation stay clockwise.
    deck = list(FULL)
    st = G.new_game(players=3, options=G.validate_options(opts), seed=1, deck=deck, first_dealer=0)
    want = expected_deal(deck, 3, 0, st["rules"])
    assert st["face_down"] == want["face_down"] and st["hands"] == want["hand"]


# --- set_base_rule (for the Rule Vote, L-12 / L-13) ------------------------------------------------


def test_L_13_set_base_rule_now_applies_at_once():
    st = table(hands={0: ["10C", "5C"]}, pile=["9D"])
    changed = lopti.set_base_rule(st, "ten_clears", False, "now")
    assert st["rules"]["ten_clears"] is True, "input mutated"
    assert changed["rules"]["ten_clears"] is False and changed["next_rules"] == {}
    changed, events = play(changed, 0, "10C")
    assert "clear" not in types(events)


def test_L_13_set_base_rule_next_round_waits_for_the_deal():
    st = table(players=2, turn=0, face_down={0: ["9D", None, None]})
    st = lopti.set_base_rule(st, "ten_clears", False, "next_round")
    st = lopti.set_base_rule(st, "hand_size", 5, "now")  # deal-touching: always the next round
    st = lopti.set_base_rule(st, "face_up_count", 1, "now")
    assert st["rules"]["ten_clears"] is True and st["rules"]["hand_size"] == 3
    assert st["next_rules"] == {"ten_clears": False, "hand_size": 5, "face_up_count": 1}
    assert G.view(st, 0)["public"]["next_rules"] == st["next_rules"]
    st, _ = face_down(st, 0, 0)
    st, events = decline(st)
    assert st["round"] == 2 and st["next_rules"] == {}
    assert st["rules"]["ten_clears"] is False and st["rules"]["hand_size"] == 5
    assert all(len(h) == 5 for h in st["hands"]) and all(len(f) == 1 for f in st["face_up"])
    assert first(events, "deal")["rules"]["hand_size"] == 5


def test_L_13_set_base_rule_now_stops_pending_effects():
    st = table(hands={0: ["9C"]}, pile=["7D"])
    st = lopti.set_base_rule(st, "seven_plays_low", False, "now")
    assert st["low_lock"] is False
    legal(st, 0, p("9C"))
    st = table(hands={0: ["9C", "3C"]}, pile=["5D"], chain=["3D"], obligation=0)
    st = lopti.set_base_rule(st, "three_redirects", False, "now")
    assert st["obligation"] is None
    legal(st, 0, p("9C"))


def test_L_13_set_base_rule_validates():
    st = table(players=5)
    with pytest.raises(InvalidMove):
        lopti.set_base_rule(st, "jokers", True, "now")
    with pytest.raises(InvalidMove):
        lopti.set_base_rule(st, "hand_size", 9, "next_round")
    with pytest.raises(InvalidMove):
        lopti.set_base_rule(st, "ten_clears", False, "someday")
    with pytest.raises(InvalidMove):
        lopti.set_base_rule(st, "hand_size", 5, "next_round")  # 55 cards for 5 players
    st2 = table(players=2)
    assert lopti.set_base_rule(st2, "hand_size", 5, "next_round")["next_rules"] == {"hand_size": 5}
    st2["status"] = "finished"
    with pytest.raises(GameConflict):
        lopti.set_base_rule(st2, "ten_clears", False, "now")


def test_L_13_pending_direction_change_applies_to_play_order_next_round():
    st = table(players=3, turn=0, face_down={0: ["9D", None, None]})
    st = lopti.set_base_rule(st, "direction", "counterclockwise", "next_round")
    assert st["rules"]["direction"] == "clockwise"
    st, _ = face_down(st, 0, 0)
    st = keep_all(decline(st)[0])
    assert st["turn"] == 0
    card = st["hands"][0][0]
    st, _ = play(st, 0, card)
    assert st["turn"] == 2


# --- API: move forms, error order, timeouts ---------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        "play",
        {},
        {"type": "pass"},
        {"type": ["play"]},
        {"type": None},
        {"type": "play"},
        {"type": "play", "cards": "5C"},
        {"type": "play", "cards": []},
        {"type": "play", "cards": ["5X"]},
        {"type": "play", "cards": ["5C", "5C"]},
        {"type": "play", "cards": ["5C"], "expected_version": 3},
        {"type": "take_pile", "cards": []},
        {"type": "keep", "seat": 0},
        {"type": "play_face_down", "index": True},
        {"type": "play_face_down", "index": "0"},
        {"type": "play_face_down", "index": 3},
        {"type": "play_face_down", "index": -1},
        {"type": "swap", "hand_card": "5C"},
        {"type": "swap", "hand_card": "5C", "face_up_card": "ZZ"},
        {"type": "play", "cards": ["KH"]},  # not held
    ],
)
def test_malformed_moves_are_invalid(bad):
    st = table(hands={0: ["5C", "5D"]}, pile=["4C"])
    with pytest.raises(InvalidMove):
        G.apply(st, 0, bad)


def test_unknown_field_is_named():
    st = table(hands={0: ["5C", "5D"]})
    with pytest.raises(InvalidMove) as exc:
        G.apply(st, 0, {"type": "play", "cards": ["5C"], "why": "x"})
    assert "why" in exc.value.fields


def test_error_order_finished_turn_malformed_forbidden():
    st = table(players=3, hands={0: ["5C"], 1: ["9C"]}, pile=["7C"])
    with pytest.raises(NotYourTurn):
        G.apply(st, 1, {"type": "play", "cards": "nonsense"})
    with pytest.raises(InvalidMove):  # api.md: a type Lopti does not have, from any seat
        G.apply(st, 1, {"type": "nonsense"})
    with pytest.raises(InvalidMove):
        G.apply(st, 0, p("9C"))  # seat 1's card
    illegal(st, 0, {"type": "keep"}, "L-3.3")
    st["status"] = "finished"
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "nonsense"})


def test_error_messages_never_name_unseen_cards():
    st = table(
        hands={0: ["5C", "6C"], 1: ["KH"]}, face_down={0: ["AS", "AH", None]}, pile=["9C"], draw=["QD"]
    )
    messages = []
    for mv in (
        p("5C"),
        p("5C", "6C"),
        p("KH"),
        {"type": "play_face_down", "index": 2},
        {"type": "play_face_down", "index": 0},
    ):
        with pytest.raises((IllegalMove, InvalidMove)) as exc:
            G.apply(st, 0, mv)
        messages.append(exc.value.message)
    for text in messages:
        assert "AS" not in text and "AH" not in text and "QD" not in text


def test_timeout_moves():
    assert G.timeout_move(new(players=2), 1) == {"type": "keep"}
    st = table(hands={0: ["AC", "5C"]}, pile=["4C"])
    assert G.timeout_move(st, 0) == TAKE
    st = table(hands={0: ["AC", "5D", "4H", "4C", "2S"]})
    assert G.timeout_move(st, 0) == p("2S")
    st = table(hands={0: ["AC", "5D", "4H"]})
    assert G.timeout_move(st, 0) == p("4H")
    st = table(face_down={0: [None, "9C", "4D"]})
    assert G.timeout_move(st, 0) == {"type": "play_face_down", "index": 1}
    st = table(face_down={0: [None, "9C", "4D"]}, pile=["5C"])
    assert G.timeout_move(st, 0) == TAKE


def test_legal_moves_list_each_card_set_once():
    st = table(hands={0: ["8C", "8D", "8H", "8S", "KC"]})
    plays = [m["cards"] for m in G.legal_moves(st, 0) if m["type"] == "play"]
    assert len(plays) == 15 + 1 and len({tuple(c) for c in plays}) == 16
    assert ["8C", "8D", "8H", "8S"] in plays
    assert G.legal_moves(st, 1) == []


# --- views and hidden information (L-14) --------------------------------------------------------------


def test_view_layout():
    st = new(players=3, dealer=0)
    view = G.view(st, 1)
    assert set(view) == {
        "phase",
        "turn",
        "dealer",
        "round",
        "you",
        "seats",
        "public",
        "scores",
        "legal_moves",
    }
    assert set(view["you"]) == {"seat", "hand", "face_down_positions", "swaps_left"}
    assert set(view["seats"][0]) == {
        "hand_count",
        "face_up",
        "face_down_positions",
        "out",
        "place",
        "round_wins",
        "revealed_hand",  # L-11.7 reveal_hand
        "skips",  # L-11.7 skip_next_turn
        "swap_done",
    }
    st = keep_all(st)
    view = G.view(st, 1)
    assert "swap_done" not in view["seats"][0] and "swaps_left" not in view["you"]
    assert set(view["public"]) == {
        "pile",
        "top_rank",
        "top_count",
        "run",
        "three_chain",
        "low_lock",
        "obligation",
        "extra_plays",
        "draw_pile_count",
        "cleared_count",
        "discarded_count",
        "rules",
        "next_rules",
        "rounds",
        "round",
        "dealer",
        "first_player",
        "last_round_winner",
        "round_wins",
        "out",
        "places",
        # house rules and the Rule Vote (L-11, L-12); test_lopti_house_rules covers them
        "direction_reversed",
        "session",
        "window",
        "house_rules",
        "rule_history",
        "pending_changes",
        "vote_used",
        "vote",
        "duel",
        "pause",
        # fair deals (docs/fair-deals.md): the deal's number and commitment
        "deal",
        "deal_commitment",
        "fixed_deck",
    }
    assert view["turn"] == 0 and view["legal_moves"] == [] and view["scores"] == [0, 0, 0]
    spectator = G.view(st, None)
    assert spectator["you"] is None and spectator["legal_moves"] == []
    assert G.view(st, 0)["legal_moves"] == G.legal_moves(st, 0)


def test_view_public_pile_state():
    st = table(
        players=3,
        turn=1,
        hands={1: ["3H", "4C"]},
        pile=["9C", "9D"],
        chain=["3C"],
        obligation=1,
        draw=["KD", "QD"],
    )
    pub = G.view(st, 2)["public"]
    assert (
        pub["pile"] == ["9C", "9D"] and pub["top_rank"] == "9" and pub["top_count"] == 2 and pub["run"] == 2
    )
    assert pub["three_chain"] == ["3C"] and pub["obligation"] == 1 and pub["draw_pile_count"] == 2


def test_L_14_views_hide_hands_face_down_cards_and_the_draw_pile():
    st = table(
        players=3,
        hands={0: ["5C", "6C"], 1: ["KH"]},
        face_up={2: ["AD", None, "4D"]},
        face_down={0: ["AS", "AH", None], 1: ["2H", None, None]},
        draw=["QD", "JD"],
        pile=["9C"],
    )
    for seat in (None, 0, 1, 2):
        text = strings(G.view(st, seat))
        own = set(st["hands"][seat]) if seat is not None else set()
        hidden = (set(st["draw_pile"]) | {c for fd in st["face_down"] for c in fd if c}) - own
        for s in range(3):
            if s != seat:
                hidden |= set(st["hands"][s])
        assert not text & hidden, (seat, text & hidden)
        assert {"AD", "4D", "9C"} <= text
    assert set(G.view(st, 0)["you"]["hand"]) == {"5C", "6C"}


def test_L_14_a_drawn_card_is_seen_by_the_drawer_only():
    st = table(players=3, hands={0: ["5C", "6C"]}, draw=["QD", "JD"])
    st, events = play(st, 0, "5C")
    draw = first(events, "draw")
    assert G.view_event(draw, 0)["cards"] == ["QD"]
    for seat in (None, 1, 2):
        assert "QD" not in strings(G.view_event(draw, seat))
        assert "QD" not in strings(G.view(st, seat))
    assert "QD" in G.view(st, 0)["you"]["hand"]


def test_L_14_taken_and_revealed_cards_are_public():
    st = table(players=3, face_down={0: ["4D", None, None]}, pile=["KC"])
    st, events = face_down(st, 0, 0)
    for seat in (None, 1, 2):
        seen = [G.view_event(e, seat) for e in events]
        assert first(seen, "face_down_reveal")["card"] == "4D"
        assert first(seen, "take_pile")["cards"] == ["KC", "4D"]


def test_L_14_the_seed_never_appears():
    seed = 987654321987654
    st = G.new_game(players=3, options=G.validate_options({}), seed=seed)
    for seat in (None, 0, 1, 2):
        assert str(seed) not in json.dumps(G.view(st, seat))


# --- base-event hooks for house rules (L-11.7) ---------------------------------------------------------

HOOK_EVENTS = {
    "round_start",
    "turn_start",
    "play",
    "clear",
    "take_pile",
    "draw",
    "face_up_pickup",
    "face_down_reveal",
    "go_out",
}


def test_L_11_7_every_base_event_goes_through_fire():
    st = table(players=3, face_down={0: ["9D", None, None]}, pile=["5C"], options={"play_for_places": True})
    ctx = G.apply_in_context(st, 0, {"type": "play_face_down", "index": 0})
    fired = [(f["event"], f["timing"]) for f in ctx.fired]
    assert fired == [
        ("face_down_reveal", "before"),
        ("face_down_reveal", "after"),
        ("play", "before"),
        ("go_out", "before"),
        ("go_out", "after"),
        ("play", "after"),
        ("turn_start", "before"),
        ("turn_start", "after"),
    ]
    assert ctx.fired[1]["legal"] is True and ctx.fired[2]["source"] == "face_down"
    assert ctx.fired[2]["rank"] == "9" and ctx.fired[2]["count"] == 1
    st = table(players=2, turn=1, face_down={1: ["4D", None, "9S"]}, pile=["KC"])
    ctx = G.apply_in_context(st, 1, {"type": "play_face_down", "index": 0})
    assert [f["event"] for f in ctx.fired][:4] == [
        "face_down_reveal",
        "face_down_reveal",
        "take_pile",
        "take_pile",
    ]
    assert ctx.fired[1]["legal"] is False
    st = table(players=2, turn=0, face_down={0: ["9D", None, None]})
    st, _ = face_down(st, 0, 0)
    ctx = G.apply_in_context(st, 0, {"type": "decline_rule"})  # the next deal (L-11.1)
    names = [f["event"] for f in ctx.fired]
    assert "round_start" in names and set(names) <= HOOK_EVENTS


def test_L_11_7_clear_causes_are_reported():
    causes = []
    for hand, pile, chain in (
        (["10C", "5C"], [], []),
        (["9C", "5C"], ["9D", "9H", "9S"], []),
        (["3C", "5C"], ["8C"], ["3D", "3H", "3S"]),
    ):
        st = table(hands={0: hand}, pile=pile, chain=chain, top_count=len(pile))
        ctx = G.apply_in_context(st, 0, p(hand[0]))
        causes += [f["cause"] for f in ctx.fired if f["event"] == "clear" and f["timing"] == "after"]
    assert causes == ["ten", "four_of_a_kind", "four_threes"]


def test_swap_phase_moves_are_public_in_the_log():
    st = new(players=2, hands={0: ["4C", "5C", "6C"]}, face_up={0: ["KD", "AD", "QD"]})
    st, events = move(st, 0, {"type": "swap", "hand_card": "4C", "face_up_card": "KD"})
    assert G.view_event(events[0], 1)["hand_card"] == "4C"
    assert G.view(st, 1)["seats"][0]["face_up"][0] == "4C"


def test_deck_helper_deals_what_it_names():
    rules = G.validate_options({})
    deck = deck_for(
        3, 2, rules, hands={1: ["AS", "KS", "QS"]}, face_down={0: ["2C", "3C", "4C"]}, draw=["JH"]
    )
    want = expected_deal(deck, 3, 2, rules)
    assert want["hand"][1] == ["QS", "KS", "AS"] and want["face_down"][0] == ["2C", "3C", "4C"]
    assert want["draw_pile"][0] == "JH"
    st = take(table(hands={0: ["5C"]}, pile=["9C"]), 0)[0]
    assert st["hands"][0] == ["5C", "9C"]
