"""Lopti house rules (L-11): the winner's window (L-11.1), the machine form and its validation
(L-11.7), every trigger, filter, condition, effect and target, the guarantees of L-11.2-11.4
and L-7.4 (no rule prevents an event, a win, a clear or the clearer's extra play; effects never
trigger rules; nothing loops), the author's edit and delete (L-11.5, L-11.6) and moderation.
Tables are built directly or from fixed decks (see test_lopti_support)."""

from __future__ import annotations

import copy

import pytest

from games.engine import lopti
from games.engine.base import GameConflict, IllegalMove, InvalidMove, NotPermitted, NotYourTurn

from .test_lopti_support import (
    G,
    check_conservation,
    decline,
    face_down,
    first,
    keep_all,
    move,
    play,
    strings,
    table,
    take,
    types,
)

EXAMPLE = {
    "description": "After an ace, the next player draws a card.",
    "when": {"event": "play", "timing": "after", "ranks": ["A"], "min_cards": 1},
    "if": {"pile_at_least": 0},
    "then": [{"effect": "draw", "target": "next_player", "count": 1}],
}


def rule(event: str, *effects: dict, timing: str = "after", cond: dict | None = None, **filters) -> dict:
    out = {"description": f"test rule on {event}", "when": {"event": event, "timing": timing, **filters}}
    if cond is not None:
        out["if"] = cond
    out["then"] = list(effects) or [{"effect": "announce"}]
    return out


def eff(name: str, target: str | None = None, **fields) -> dict:
    out = {"effect": name, **fields}
    if target is not None:
        out["target"] = target
    return out


def with_rules(st: dict, *rules: dict, author: int = 0) -> dict:
    """The state with these rules active in the session, as if written in earlier windows."""
    st = copy.deepcopy(st)
    for r in rules:
        st["house_rules"].append(
            {
                "id": st["next_rule_id"],
                "author": author,
                "rule": lopti.validate_rule(r),
                "status": "active",
                "session": st["session"],
                "created_session": st["session"],
                "created_round": 0,
                "hidden": False,
                "edit_round": None,
            }
        )
        st["next_rule_id"] += 1
    return st


def fired(events: list[dict]) -> list[tuple[int, str]]:
    return [(e["rule_id"], e["timing"]) for e in events if e["type"] == "rule_fired"]


def fired_ids(events: list[dict]) -> list[int]:
    return [e["rule_id"] for e in events if e["type"] == "rule_fired"]


def window(players: int = 3, winner: int = 1, options: dict | None = None) -> dict:
    """A round just won by `winner` (its last face-down card): the winner's window is open."""
    st = table(players=players, turn=winner, face_down={winner: ["9C", None, None]}, options=options)
    st, _ = face_down(st, winner, 0)
    return st


# --- L-11.7 validation ---------------------------------------------------------------------------------


def test_L_11_7_the_spec_example_is_valid_and_normalised():
    assert lopti.validate_rule(EXAMPLE) == EXAMPLE
    short = {
        "description": "  Shout  ",
        "when": {"event": "go_out"},
        "then": [{"effect": "draw", "target": "actor"}],
    }
    assert lopti.validate_rule(short) == {
        "description": "Shout",
        "when": {"event": "go_out", "timing": "after"},  # timing defaults to after
        "if": {},
        "then": [{"effect": "draw", "target": "actor", "count": 1}],  # count defaults to 1
    }


def _bad(**changes) -> dict:
    r = copy.deepcopy(EXAMPLE)
    for path, value in changes.items():
        obj, keys = r, path.split("__")
        for key in keys[:-1]:
            obj = obj[int(key)] if isinstance(obj, list) else obj[key]
        last = keys[-1]
        if value is ...:
            del obj[last]
        elif isinstance(obj, list):
            obj[int(last)] = value
        else:
            obj[last] = value
    return r


@pytest.mark.parametrize(
    ("rule_", "field"),
    [
        (_bad(description=...), "rule.description"),
        (_bad(description=""), "rule.description"),
        (_bad(description="   "), "rule.description"),
        (_bad(description="x" * 281), "rule.description"),
        (_bad(description=7), "rule.description"),
        (_bad(description="bell\x07"), "rule.description"),
        (_bad(author="me"), "rule.author"),
        (_bad(when=...), "rule.when"),
        (_bad(when="play"), "rule.when"),
        (_bad(when__event=...), "rule.when.event"),
        (_bad(when__event="explode"), "rule.when.event"),
        (_bad(when__timing="during"), "rule.when.timing"),
        (_bad(when__ranks=[]), "rule.when.ranks"),
        (_bad(when__ranks=["1"]), "rule.when.ranks"),
        (_bad(when__ranks=["A", "A"]), "rule.when.ranks"),
        (_bad(when__min_cards=0), "rule.when.min_cards"),
        (_bad(when__min_cards=5), "rule.when.min_cards"),
        (_bad(when__min_cards=True), "rule.when.min_cards"),
        (_bad(when__min_cards=3, when__max_cards=2), "rule.when.max_cards"),
        (_bad(when__source="pocket"), "rule.when.source"),
        (_bad(when__player=2), "rule.when.player"),
        (rule("clear", ranks=["A"]), "rule.when.ranks"),  # a filter of another event
        (rule("clear", causes=["bomb"]), "rule.when.causes"),
        (rule("clear", causes=[]), "rule.when.causes"),
        (rule("face_down_reveal", legal="yes"), "rule.when.legal"),
        (rule("face_down_reveal", timing="before", legal=True), "rule.when.legal"),
        (_bad(**{"if": []}), "rule.if"),
        (_bad(if__seat=1), "rule.if.seat"),
        (_bad(if__actor_phase="face_up"), "rule.if.actor_phase"),
        (_bad(if__pile_at_least=-1), "rule.if.pile_at_least"),
        (_bad(if__draw_pile_empty=1), "rule.if.draw_pile_empty"),
        (_bad(if__actor_hand_at_most="3"), "rule.if.actor_hand_at_most"),
        (_bad(then=...), "rule.then"),
        (_bad(then=[]), "rule.then"),
        (_bad(then=[{"effect": "announce"}] * 4), "rule.then"),
        (_bad(then={"effect": "announce"}), "rule.then"),
        (_bad(then__0="draw"), "rule.then[0]"),
        (_bad(then__0__effect=...), "rule.then[0].effect"),
        (_bad(then__0__effect="steal_all"), "rule.then[0].effect"),
        (_bad(then__0__target=...), "rule.then[0].target"),  # draw needs a target
        (_bad(then__0__count=0), "rule.then[0].count"),
        (_bad(then__0__count=4), "rule.then[0].count"),
        (_bad(then__0__which="lowest"), "rule.then[0].which"),  # draw takes no `which`
        (_bad(then__0__until="forever"), "rule.then[0].until"),
        (rule("play", eff("clear_pile", "actor")), "rule.then[0].target"),  # refused
        (rule("play", eff("reverse_direction", "actor")), "rule.then[0].target"),
        (rule("play", eff("announce", "all_players")), "rule.then[0].target"),
        (rule("play", eff("skip_next_turn", "actor", count=2)), "rule.then[0].count"),
        (rule("play", eff("give_card", "next_player")), "rule.then[0].which"),
        (rule("play", eff("give_card", "next_player", which="best")), "rule.then[0].which"),
        (rule("play", eff("reveal_hand")), "rule.then[0].target"),
        (rule("play", eff("return_cleared")), "rule.then[0].target"),
        (rule("take_pile", eff("announce"), eff("clear_pile"), timing="before"), "rule.then[1].effect"),
    ],
)
def test_L_11_7_validation_names_the_field(rule_, field):
    with pytest.raises(InvalidMove) as exc:
        lopti.validate_rule(rule_)
    assert field in exc.value.fields, exc.value.fields
    assert field in exc.value.message or len(exc.value.fields) > 1


@pytest.mark.parametrize("person", ["Alice", "seat_2", "player 3", 2, "the host", "winner_of_2023"])
def test_L_11_4_targets_are_game_roles_never_people(person):
    with pytest.raises(InvalidMove) as exc:
        lopti.validate_rule(rule("play", eff("draw", person)))
    assert "rule.then[0].target" in exc.value.fields


def test_L_11_7_every_violation_is_reported_at_once():
    bad = {
        "description": "",
        "when": {"event": "boom"},
        "then": [{"effect": "draw", "target": "Bob"}],
        "x": 1,
    }
    with pytest.raises(InvalidMove) as exc:
        lopti.validate_rule(bad)
    assert set(exc.value.fields) == {"rule.description", "rule.when.event", "rule.then[0].target", "rule.x"}
    with pytest.raises(InvalidMove):
        lopti.validate_rule(["not", "a", "rule"])


# --- L-11.1 the winner's window --------------------------------------------------------------------


def test_L_11_1_the_winner_writes_in_the_window():
    st = window(winner=1)
    assert st["phase"] == "house_rule" and G.to_act(st) == [1]
    assert G.legal_moves(st, 1) == [{"type": "decline_rule"}] and G.legal_moves(st, 0) == []
    view = G.view(st, None)
    assert view["turn"] == 1 and view["public"]["window"] == {"winner": 1, "open": True, "rule_id": None}
    for other in (0, 2):  # api.md: anyone but the round's winner -> 403 forbidden
        with pytest.raises(NotPermitted) as exc:
            G.apply(st, other, {"type": "write_rule", "rule": EXAMPLE})
        assert "L-11.1" in exc.value.message
        with pytest.raises(NotPermitted):
            G.apply(st, other, {"type": "decline_rule"})
        with pytest.raises(NotPermitted):  # whatever the body: not theirs to write
            G.apply(st, other, {"type": "write_rule"})
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 1, {"type": "take_pile"})  # the round is over: only the rule is left
    assert exc.value.rule == "L-11.1"
    with pytest.raises(InvalidMove) as exc:
        G.apply(st, 1, {"type": "write_rule", "rule": _bad(then=[])})
    assert "rule.then" in exc.value.fields
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "write_rule"})
    st, events = move(st, 1, {"type": "write_rule", "rule": EXAMPLE})
    written = first(events, "rule_written")["rule"]
    assert written["id"] == 1 and written["author"] == 1 and written["rule"] == EXAMPLE
    # the next round is dealt at once (L-11.1 ruling)
    assert "deal" in types(events) and st["round"] == 2 and st["phase"] == "swap"
    (shown,) = G.view(st, 0)["public"]["house_rules"]
    assert shown["id"] == 1 and shown["author"] == 1 and shown["status"] == "active"
    assert shown["created_round"] == 1 and shown["rule"] == EXAMPLE and shown["session"] == 1
    assert G.view(st, 0)["public"]["window"] == {"winner": 1, "open": False, "rule_id": 1}
    assert lopti.house_rules_view(st) == G.view(st, 2)["public"]["house_rules"]
    with pytest.raises(GameConflict) as exc:  # the window is closed: 409 conflict
        G.apply(st, 1, {"type": "write_rule", "rule": EXAMPLE})
    assert exc.value.rule == "L-11.1" and "L-11.1" in exc.value.message
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "decline_rule"})
    for other in (0, 2):  # the others outside the window: still not theirs (403)
        with pytest.raises(NotPermitted):
            G.apply(st, other, {"type": "write_rule", "rule": EXAMPLE})


def test_L_11_1_before_any_round_ends_nobody_writes_a_rule():
    st = table(players=3, turn=0, hands={0: ["9C", "5C"]})
    assert st["window"] is None
    for seat in range(3):
        with pytest.raises(NotPermitted):
            G.apply(st, seat, {"type": "write_rule", "rule": EXAMPLE})
        with pytest.raises(NotPermitted):
            G.apply(st, seat, {"type": "decline_rule"})


def test_L_11_1_window_timeout_declines_no_rule():
    st = window(winner=2)
    mv = G.timeout_move(st, 2)
    assert mv == {"type": "decline_rule"} and mv in G.legal_moves(st, 2)
    st, events = move(st, 2, mv)
    assert first(events, "rule_declined")["seat"] == 2
    assert st["house_rules"] == [] and st["round"] == 2 and st["first_player"] == 2


def test_L_11_1_the_last_round_of_the_table_opens_no_window():
    st = window(winner=1, options={"rounds": 1})
    assert st["status"] == "finished" and G.to_act(st) == []
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "write_rule", "rule": EXAMPLE})


# --- L-11.5 / L-11.6 the author's edit and delete ------------------------------------------------------


def test_L_11_5_author_edits_only_before_the_next_round_begins():
    st = window(winner=1)
    st, _ = move(st, 1, {"type": "write_rule", "rule": EXAMPLE})
    edited = rule("turn_start", eff("announce"))
    # the next round's swap phase: still before its first play
    assert G.view(st, 1)["public"]["house_rules"][0]["editable"] is True
    with pytest.raises(NotPermitted):  # not the author: 403 "not your rule"
        G.apply(st, 0, {"type": "edit_rule", "rule_id": 1, "rule": edited})
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "edit_rule", "rule_id": 1, "rule": _bad(when__event="boom")})
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "edit_rule", "rule_id": 9, "rule": edited})
    st, events = move(st, 1, {"type": "edit_rule", "rule_id": 1, "rule": edited})
    assert first(events, "rule_edited")["rule"]["rule"] == lopti.validate_rule(edited)
    st = keep_all(st)
    st, _ = move(st, 1, {"type": "edit_rule", "rule_id": 1, "rule": EXAMPLE})  # no card played yet
    first_player = st["turn"]
    st, _ = move(st, first_player, G.timeout_move(st, first_player))  # the round begins
    assert G.view(st, 1)["public"]["house_rules"][0]["editable"] is False
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 1, {"type": "edit_rule", "rule_id": 1, "rule": edited})
    assert exc.value.rule == "L-11.5"


def test_L_11_6_author_deletes_any_time_without_a_vote():
    st = table(players=3, turn=0, hands={0: ["9C", "9D", "5C"], 1: ["KD"]}, draw=["2H"])
    st = with_rules(st, rule("play", eff("draw", "actor")), author=2)
    st, events = play(st, 0, "9C")
    assert fired_ids(events) == [1]
    with pytest.raises(NotPermitted):
        G.apply(st, 0, {"type": "delete_rule", "rule_id": 1})  # only the author
    st, events = move(st, 2, {"type": "delete_rule", "rule_id": 1})  # mid-round, not in turn
    assert first(events, "rule_deleted") == {"type": "rule_deleted", "rule_id": 1, "seat": 2}
    assert st["house_rules"][0]["status"] == "deleted" and st["vote_used"] is False
    assert G.view(st, 0)["public"]["house_rules"][0]["status"] == "deleted"
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 2, {"type": "delete_rule", "rule_id": 1})
    assert exc.value.rule == "L-11.6"
    with pytest.raises(InvalidMove):
        G.apply(st, 2, {"type": "delete_rule", "rule_id": 5})
    with pytest.raises(InvalidMove):
        G.apply(st, 2, {"type": "delete_rule", "rule_id": "1"})
    st, events = play(st, 1, "KD")
    assert fired_ids(events) == []  # a deleted rule no longer acts


# --- L-11.7 triggers ----------------------------------------------------------------------------------------


def test_L_11_7_round_start_before_and_after():
    st = window(winner=1)
    st = with_rules(st, rule("round_start", eff("draw", "actor"), timing="before"), rule("round_start"))
    st, events = decline(st)
    assert fired(events) == [(1, "before"), (2, "after")]
    assert types(events).index("deal") < types(events).index("rule_fired")
    # the actor of round_start is the round's first player (the last winner, L-2.4)
    assert st["first_player"] == 1 and len(st["hands"][1]) == 4 and len(st["hands"][0]) == 3


def test_L_11_7_round_start_clear_keeps_the_first_players_extra_play():
    st = with_rules(window(winner=1), rule("round_start", eff("clear_pile")))
    st, events = decline(st)
    assert first(events, "clear")["cause"] == "house_rule"
    st = keep_all(st)
    assert st["turn"] == 1 and st["extra_plays"] == 1  # L-7.2 / L-7.4


def test_L_11_7_turn_start_before_and_after():
    st = table(
        players=3, turn=0, hands={0: ["5C", "9C", "JC"], 1: ["6C", "KD"], 2: ["7D"]}, draw=["2H", "4H"]
    )
    st = with_rules(st, rule("turn_start", timing="before"), rule("turn_start", eff("draw", "actor")))
    st, events = play(st, 0, "5C")
    assert fired(events) == [(1, "before"), (2, "after")]
    assert all(e["seat"] == 1 for e in events if e["type"] == "rule_fired")
    assert st["hands"][0] == ["2H", "9C", "JC"] and st["hands"][1] == ["4H", "6C", "KD"]


@pytest.mark.parametrize(
    ("hand", "cards", "expected"),
    [
        (["9C", "5D", "6D"], ["9C"], [1, 3, 5]),
        (["8C", "8D", "6D"], ["8C", "8D"], [2, 5]),
        (["AC", "AD", "AH"], ["AC", "AD", "AH"], [1, 2, 5]),
    ],
)
def test_L_11_7_play_filters(hand, cards, expected):
    st = table(players=2, turn=0, hands={0: hand})
    st = with_rules(
        st,
        rule("play", ranks=["9", "A"]),
        rule("play", min_cards=2),
        rule("play", max_cards=1),
        rule("play", source="face_down"),
        rule("play"),  # no filter: every play
    )
    st, events = play(st, 0, *cards)
    assert fired_ids(events) == expected


def test_L_11_7_play_source_face_down():
    st = table(players=2, turn=0, face_down={0: ["9C", "4D", None]})
    st = with_rules(st, rule("play", source="face_down"), rule("play", source="hand"))
    st, events = face_down(st, 0, 0)
    assert fired_ids(events) == [1]


def test_L_11_7_clear_causes():
    rules_ = (
        rule("clear", causes=["ten"]),
        rule("clear", causes=["four_of_a_kind", "four_threes"]),
        rule("clear"),
    )
    st = with_rules(table(hands={0: ["10C", "5C"]}), *rules_)
    assert fired_ids(play(st, 0, "10C")[1]) == [1, 3]
    st = with_rules(table(hands={0: ["9C", "5C"]}, pile=["9D", "9H", "9S"]), *rules_)
    assert fired_ids(play(st, 0, "9C")[1]) == [2, 3]
    st = with_rules(table(hands={0: ["3C", "5C"]}, pile=["8C"], chain=["3D", "3H", "3S"]), *rules_)
    assert fired_ids(play(st, 0, "3C")[1]) == [2, 3]


def test_L_11_7_house_rule_cause_never_fires():
    """Ruling: `house_rule` is in the vocabulary, but a clear made by a rule triggers no rule."""
    st = table(hands={0: ["9C", "5C"]})
    st = with_rules(st, rule("play", eff("clear_pile"), ranks=["9"]), rule("clear", causes=["house_rule"]))
    st, events = play(st, 0, "9C")
    assert first(events, "clear")["cause"] == "house_rule" and fired_ids(events) == [1]


def test_L_11_7_take_pile_before_and_after():
    st = table(players=2, turn=0, hands={0: ["5C"]}, pile=["9C", "KD"])
    st = with_rules(st, rule("take_pile", timing="before"), rule("take_pile", eff("announce")))
    st, events = take(st, 0)
    names = types(events)
    assert fired(events) == [(1, "before"), (2, "after")]
    before, after = (i for i, n in enumerate(names) if n == "rule_fired")
    assert before < names.index("take_pile") < after


def test_L_11_7_draw_trigger_follows_the_draw_of_L_4_4():
    st = table(players=2, turn=0, hands={0: ["5C", "6C"], 1: ["KD"]}, draw=["2H", "3H"])
    st = with_rules(st, rule("draw", eff("announce")))
    st, events = play(st, 0, "5C")
    assert fired_ids(events) == [1] and types(events).index("draw") < types(events).index("rule_fired")
    st, events = play(st, 1, "KD")  # a last hand card with the draw: hand 0 < 3 -> draws
    assert fired_ids(events) == [1]
    st = with_rules(table(players=2, turn=0, hands={0: ["5C", "6C", "7C", "8C"]}, draw=["2H"]), rule("draw"))
    assert fired_ids(play(st, 0, "5C")[1]) == []  # 3 cards left: no draw, no trigger


def test_L_11_7_face_up_pickup_trigger():
    st = table(players=2, turn=0, hands={0: ["5C"]}, face_up={0: ["9D", None, "JD"]})
    st = with_rules(st, rule("face_up_pickup", eff("announce")))
    st, events = play(st, 0, "5C")
    assert types(events).index("face_up_pickup") < types(events).index("rule_fired")
    assert fired_ids(events) == [1]


def test_L_11_7_face_down_reveal_legal_filter():
    rules_ = (
        rule("face_down_reveal", timing="before"),
        rule("face_down_reveal", legal=True),
        rule("face_down_reveal", legal=False),
    )
    st = with_rules(table(players=2, turn=0, face_down={0: ["9D", "4D", None]}), *rules_)
    assert fired(face_down(st, 0, 0)[1]) == [(1, "before"), (2, "after")]
    st = with_rules(table(players=2, turn=0, face_down={0: ["9D", "4D", None]}, pile=["KC"]), *rules_)
    assert fired(face_down(st, 0, 1)[1]) == [(1, "before"), (3, "after")]


def test_L_11_7_go_out_before_and_after_and_the_win_stands():
    st = table(players=3, turn=0, face_down={0: ["9D", None, None]}, draw=["2H", "3H", "4H"])
    st = with_rules(
        st,
        rule("go_out", eff("draw", "actor", count=3), timing="before"),
        rule(
            "go_out",
            eff("draw", "all_players", count=1),
            eff("give_card", "all_other_players", which="lowest"),
        ),
    )
    st, events = face_down(st, 0, 0)
    assert fired(events) == [(1, "before"), (2, "after")]
    # L-11.3: nobody stops a win; the player going out receives no card
    assert st["out"][0] and st["hands"][0] == [] and first(events, "round_end")["winner"] == 0
    assert st["phase"] == "house_rule" and st["window"]["winner"] == 0


def test_L_11_7_timing_order_before_after_and_the_draw():
    """L-11.7: before effects run just before the event; after effects after it and its base
    effects (the clear), before what follows (the draw of L-4.4)."""
    st = table(players=2, turn=0, hands={0: ["10C", "5C"]}, draw=["KD"])
    st = with_rules(st, rule("play", timing="before"), rule("play", eff("announce")))
    st, events = play(st, 0, "10C")
    names = types(events)
    positions = [i for i, n in enumerate(names) if n == "rule_fired"]
    assert positions[0] < names.index("play") < names.index("clear") < positions[1] < names.index("draw")


# --- L-11.7 conditions ---------------------------------------------------------------------------------------


def test_L_11_7_condition_actor_phase():
    rules_ = (rule("play", cond={"actor_phase": "face_down"}), rule("play", cond={"actor_phase": "hand"}))
    st = with_rules(table(players=2, turn=0, face_down={0: ["9D", "4D", None]}), *rules_)
    assert fired_ids(face_down(st, 0, 0)[1]) == [1]
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D"]}), *rules_)
    assert fired_ids(play(st, 0, "4D")[1]) == [2]


def test_L_11_7_condition_pile_at_least():
    rules_ = (rule("play", cond={"pile_at_least": 3}),)
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D"]}, pile=["5C", "6C"]), *rules_)
    assert fired_ids(play(st, 0, "9D")[1]) == [1]
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D"]}, pile=["5C"]), *rules_)
    assert fired_ids(play(st, 0, "9D")[1]) == []


def test_L_11_7_condition_draw_pile_empty():
    rules_ = (rule("play", cond={"draw_pile_empty": True}), rule("play", cond={"draw_pile_empty": False}))
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D", "5D", "6D"]}), *rules_)
    assert fired_ids(play(st, 0, "9D")[1]) == [1]
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D", "5D", "6D"]}, draw=["KH"]), *rules_)
    assert fired_ids(play(st, 0, "9D")[1]) == [2]


def test_L_11_7_condition_actor_hand_at_most():
    rules_ = (rule("play", cond={"actor_hand_at_most": 1}),)
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D"]}), *rules_)
    assert fired_ids(play(st, 0, "9D")[1]) == [1]
    st = with_rules(table(players=2, turn=0, hands={0: ["9D", "4D", "5D"]}), *rules_)
    assert fired_ids(play(st, 0, "9D")[1]) == []


# --- L-11.7 effects ---------------------------------------------------------------------------------------------


def test_L_11_7_effect_draw_while_the_draw_pile_lasts_and_secret():
    st = table(players=3, turn=0, hands={0: ["9C", "9D", "5C", "6C"], 1: ["4D"]}, draw=["KH"])
    st = with_rules(st, rule("play", eff("draw", "next_player", count=2), ranks=["9"]))
    st, events = play(st, 0, "9C")
    drawn = [e for e in events if e["type"] == "draw"]
    assert len(drawn) == 1 and drawn[0]["seat"] == 1 and drawn[0]["count"] == 1 and drawn[0]["rule_id"] == 1
    assert st["hands"][1] == ["4D", "KH"] and st["draw_pile"] == []
    assert G.view_event(drawn[0], 1)["cards"] == ["KH"]
    for seat in (0, 2, None):
        assert "KH" not in strings(G.view_event(drawn[0], seat))


def test_L_11_7_effect_skip_next_turn():
    st = table(players=3, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D", "KD"], 2: ["7D", "8D"]})
    st = with_rules(st, rule("play", eff("skip_next_turn", "previous_player"), ranks=["9"]))
    st, events = play(st, 0, "9C")
    assert first(events, "skip_next_turn")["seat"] == 2 and G.view(st, 0)["seats"][2]["skips"] == 1
    assert st["turn"] == 1
    st, events = play(st, 1, "KD")
    assert first(events, "turn_skipped")["seat"] == 2  # used up by seat 2's turn
    assert st["turn"] == 0 and st["skips"] == [] and G.view(st, 0)["seats"][2]["skips"] == 0


def test_L_11_7_skip_passes_a_3_obligation_on():
    """Ruling: the 3-obligation binds the player who plays next, past a skipped seat."""
    st = table(players=3, turn=0, hands={0: ["3C", "5C", "6C"], 1: ["4D"], 2: ["7D"]}, pile=["8C"])
    st = with_rules(st, rule("play", eff("skip_next_turn", "next_player"), ranks=["3"]))
    st, events = play(st, 0, "3C")
    assert first(events, "turn_skipped")["seat"] == 1
    assert st["turn"] == 2 and st["obligation"] == 2
    assert G.legal_moves(st, 2) == [{"type": "take_pile"}]


def test_L_11_7_effect_reverse_direction_until_the_round_ends():
    st = table(players=3, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D"], 2: ["KD"]})
    st = with_rules(st, rule("play", eff("reverse_direction"), ranks=["9"]))
    st, events = play(st, 0, "9C")
    assert first(events, "reverse_direction")["direction"] == "counterclockwise"
    assert st["turn"] == 2 and G.view(st, 0)["public"]["direction_reversed"] is True
    assert st["rules"]["direction"] == "clockwise"  # the base rule is untouched
    st = table(players=3, turn=1, face_down={1: ["9C", None, None]})
    st["reversed"] = True
    st, _ = face_down(st, 1, 0)
    st, _ = decline(st)
    assert st["reversed"] is False  # every deal starts in the base rule's direction


def test_L_11_7_effect_clear_pile_is_a_clear_with_its_extra_play():
    """L-7.1 / L-7.2 / L-7.4: a custom clear removes the pile and the low lock, and gives the
    actor an extra play (no draw)."""
    st = table(players=2, turn=0, hands={0: ["7C", "5C", "6C"], 1: ["KD"]}, pile=["5D"], draw=["QH", "QS"])
    st = with_rules(st, rule("play", eff("clear_pile"), ranks=["7"]))
    st, events = play(st, 0, "7C")
    clear = first(events, "clear")
    assert clear["cause"] == "house_rule" and clear["seat"] == 0 and clear["cards"] == ["5D", "7C"]
    assert st["pile"] == [] and st["low_lock"] is False and st["turn"] == 0 and st["extra_plays"] == 1
    assert st["hands"][0] == ["5C", "6C", "QH"]  # the first play's draw still happened
    st, events = play(st, 0, "QH")  # the extra play: no draw
    assert "draw" not in types(events) and st["turn"] == 1
    st = table(
        players=2, turn=0, hands={0: ["7C", "5C"]}, pile=["5D"], options={"extra_play_on_clear": False}
    )
    st = with_rules(st, rule("play", eff("clear_pile"), ranks=["7"]))
    st, _ = play(st, 0, "7C")
    assert st["pile"] == [] and st["turn"] == 1  # L-13 switches the extra play off for every clear


def test_L_11_7_clear_pile_cancels_a_3_obligation():
    st = table(players=2, turn=0, hands={0: ["3C", "5C"], 1: ["KD"]}, pile=["8C"])
    st = with_rules(st, rule("play", eff("clear_pile"), ranks=["3"]))
    st, events = play(st, 0, "3C")
    assert st["obligation"] is None and st["three_chain"] == [] and st["turn"] == 0
    assert "3C" in st["discarded"] and "8C" in st["cleared"]


def test_L_11_7_take_with_a_house_rule_clear_keeps_the_extra_play():
    """Ruling (L-7.4 over L-4.5): a clear made by a rule around a take gives the taker the
    extra play anyway."""
    st = table(players=2, turn=0, hands={0: ["5C"], 1: ["KD"]}, pile=["9C", "4C"], draw=["2S"])
    st = with_rules(st, rule("take_pile", eff("clear_pile")))
    st, events = take(st, 0)
    assert types(events).index("take_pile") < types(events).index("clear")
    assert st["hands"][0] == ["4C", "5C", "9C"] and st["turn"] == 0 and st["extra_plays"] == 1
    st, events = play(st, 0, "4C")
    assert "draw" not in types(events) and st["turn"] == 1  # an extra play, not a new turn


def test_L_11_7_effect_give_card_lowest_and_highest():
    st = table(
        players=3,
        turn=0,
        hands={0: ["9C", "5C", "6C"], 1: ["4D", "KD"], 2: ["6S"]},
        face_up={2: ["QH", None, None]},
    )
    st = with_rules(st, rule("play", eff("give_card", "all_other_players", which="lowest"), ranks=["9"]))
    st, events = play(st, 0, "9C")
    gifts = [e for e in events if e["type"] == "give_card"]
    assert [(e["seat"], e["to"]) for e in gifts] == [(1, 0), (2, 0)]
    assert st["hands"][0] == ["4D", "5C", "6C", "6S"] and st["hands"][1] == ["KD"]
    assert st["hands"][2] == ["QH"]  # L-8.1: the emptied hand takes its face-up cards at once
    assert G.view_event(gifts[0], 1)["card"] == "4D" and G.view_event(gifts[0], 0)["card"] == "4D"
    assert "card" not in G.view_event(gifts[0], 2) and "card" not in G.view_event(gifts[0], None)
    st = table(players=2, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D", "KD"]})
    st = with_rules(st, rule("play", eff("give_card", "next_player", which="highest")))
    st, _ = play(st, 0, "9C")
    assert st["hands"][1] == ["4D"] and "KD" in st["hands"][0]


def test_L_11_7_give_card_never_takes_a_last_card():
    st = table(players=2, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D"]}, face_down={1: [None] * 3})
    st = with_rules(st, rule("play", eff("give_card", "next_player", which="lowest")))
    st, events = play(st, 0, "9C")
    assert "give_card" not in types(events) and st["hands"][1] == ["4D"]
    assert G.legal_moves(st, 1)  # the player can still move (and win by playing it)


def test_L_11_7_effect_return_cleared():
    st = table(players=2, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D"]})
    recent = st["cleared"][-2:]
    st = with_rules(st, rule("play", eff("return_cleared", "actor", count=2)))
    st, events = play(st, 0, "9C")
    ret = first(events, "return_cleared")
    assert ret["cards"] == recent and ret["seat"] == 0
    assert set(recent) <= set(st["hands"][0]) and not set(recent) & set(st["cleared"])


def test_L_11_7_effect_reveal_hand_until_the_targets_next_turn():
    st = table(players=3, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D", "KD"], 2: ["7D", "8D"]})
    st = with_rules(st, rule("play", eff("reveal_hand", "previous_player"), ranks=["9"]))
    st, events = play(st, 0, "9C")
    assert first(events, "reveal_hand")["cards"] == ["7D", "8D"]
    for seat in (None, 0, 1, 2):
        assert G.view(st, seat)["seats"][2]["revealed_hand"] == ["7D", "8D"]
        assert G.view(st, seat)["seats"][1]["revealed_hand"] is None
    st, events = play(st, 1, "KD")  # seat 2's turn begins: the hand is private again
    assert first(events, "reveal_end")["seat"] == 2
    assert G.view(st, 0)["seats"][2]["revealed_hand"] is None
    assert not {"7D", "8D"} & strings(G.view(st, 0)) and not {"7D", "8D"} & strings(G.view(st, None))


def _shown_cards(event: dict, seat) -> set[str]:
    return {c for c in strings(G.view_event(event, seat)) if c in lopti.core._KEY}


def test_L_11_7_reveal_hand_then_play_and_draw_in_one_move_log_matches_the_state():
    """18.11 ruling: a revealed hand lies open until its owner's next turn. The `reveal_hand`
    event shows the hand as it is at that moment (in a `before` play rule the cards being played
    have left it: the play event shows them), and a card that enters or leaves the hand while it
    is open is shown to everyone as it moves, so the log tells every viewer exactly what
    `revealed_hand` shows."""
    st = table(players=3, turn=0, hands={0: ["9C", "5C"], 1: ["KD"], 2: ["QH"]}, draw=["2H", "4S", "6D"])
    st = with_rules(st, rule("play", eff("reveal_hand", "actor"), timing="before", ranks=["9"]))
    st, events = play(st, 0, "9C")
    assert types(events)[:4] == ["rule_fired", "reveal_hand", "play", "draw"]
    reveal, draw = first(events, "reveal_hand"), first(events, "draw")
    for viewer in (None, 0, 1, 2):
        # revealed, then played in the same move: the reveal shows the rest of the hand, the
        # play the card played
        assert G.view_event(reveal, viewer)["cards"] == ["5C"]
        assert G.view_event(first(events, "play"), viewer)["cards"] == ["9C"]
        # the state shows the open hand after the move, the drawn 2H included ...
        assert G.view(st, viewer)["seats"][0]["revealed_hand"] == ["2H", "5C"]
        # ... so the log shows the draw to every viewer too (it hid it from all but seat 0)
        assert G.view_event(draw, viewer)["cards"] == ["2H"], viewer
    # once the owner's next turn begins the hand is private again, and so are its draws
    st, _ = play(st, 1, "KD")
    st, events = take(st, 2)
    assert {"type": "reveal_end", "seat": 0} in events
    assert G.view(st, 1)["seats"][0]["revealed_hand"] is None
    st, events = play(st, 0, "5C")
    draw = first(events, "draw")
    assert _shown_cards(draw, 1) == set() and _shown_cards(draw, None) == set()
    assert G.view_event(draw, 0)["cards"] == ["6D"]


def test_L_11_7_a_card_given_from_an_open_hand_is_shown_to_all():
    """A card leaving an open hand (give_card) was on show: everyone sees where it went. A card
    given to a hand that is not open, from one that is not, stays between the two players."""
    st = table(players=3, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D", "KD"], 2: ["3H", "QH"]})
    st = with_rules(
        st,
        rule("play", eff("reveal_hand", "previous_player"), eff("give_card", "previous_player", which="highest")),
    )
    st, events = play(st, 0, "9C")
    reveal, gift = first(events, "reveal_hand"), first(events, "give_card")
    assert reveal["cards"] == ["3H", "QH"] and (gift["seat"], gift["to"]) == (2, 0)
    for viewer in (None, 0, 1, 2):
        assert G.view(st, viewer)["seats"][2]["revealed_hand"] == ["3H"]  # QH is seen leaving
        assert G.view_event(gift, viewer)["card"] == "QH", viewer
    st = table(players=3, turn=0, hands={0: ["9C", "5C", "6C"], 1: ["4D", "KD"], 2: ["3H", "QH"]})
    st = with_rules(st, rule("play", eff("give_card", "previous_player", which="highest")))
    st, events = play(st, 0, "9C")
    gift = first(events, "give_card")
    assert "card" not in G.view_event(gift, 1) and "card" not in G.view_event(gift, None)
    assert G.view_event(gift, 0)["card"] == G.view_event(gift, 2)["card"] == "QH"


def test_L_11_7_effect_announce_and_moderation():
    st = table(players=2, turn=0, hands={0: ["9C", "5C"], 1: ["4D", "KD"]}, draw=["2C"])
    text = "Announce something rude"
    announce_rule = dict(rule("play", eff("announce"), eff("draw", "actor")), description=text)
    st = with_rules(st, announce_rule)
    assert first(play(st, 0, "9C")[1], "announce")["description"] == text
    with pytest.raises(NotYourTurn):
        G.apply(st, 0, {"type": "moderate_rule", "rule_id": 1, "hidden": True})  # server only
    with pytest.raises(InvalidMove):
        G.apply(st, None, {"type": "moderate_rule", "rule_id": 7, "hidden": True})
    st, events = G.apply(st, None, {"type": "moderate_rule", "rule_id": 1, "hidden": True})
    assert events == [{"type": "rule_moderated", "rule_id": 1, "hidden": True}]
    for seat in (None, 0, 1):
        assert text not in strings(G.view(st, seat))
        assert G.view(st, seat)["public"]["house_rules"][0]["rule"]["description"] == lopti.HIDDEN_DESCRIPTION
    st, events = play(st, 0, "9C")
    assert first(events, "announce")["description"] == lopti.HIDDEN_DESCRIPTION
    assert "2C" in st["hands"][0]  # the effect is unchanged


@pytest.mark.parametrize(
    ("target", "seats"),
    [
        ("actor", [0]),
        ("next_player", [1]),
        ("previous_player", [3]),
        ("all_other_players", [1, 2, 3]),
        ("all_players", [0, 1, 2, 3]),
        ("most_cards", [2, 3]),  # ties: every tied player
        ("fewest_cards", [1]),
        ("last_round_winner", [2]),
    ],
)
def test_L_11_4_targets_name_game_roles(target, seats):
    st = table(
        players=4,
        turn=0,
        hands={0: ["9C", "2C", "2D"], 1: ["4D"], 2: ["5D", "6D", "8D"], 3: ["KD", "KH", "KS"]},
    )
    st["last_round_winner"] = 2
    st = with_rules(st, rule("play", eff("skip_next_turn", target)))
    st, events = play(st, 0, "9C")
    assert [e["seat"] for e in events if e["type"] == "skip_next_turn"] == seats


def test_L_11_4_players_out_are_never_targets():
    opts = {"play_for_places": True}
    st = table(players=3, turn=0, hands={0: ["9C", "5C"], 1: ["4D"]}, out=[2], options=opts)
    st["last_round_winner"] = 2
    st = with_rules(
        st, rule("play", eff("skip_next_turn", "all_players"), eff("skip_next_turn", "last_round_winner"))
    )
    st, events = play(st, 0, "9C")
    assert [e["seat"] for e in events if e["type"] == "skip_next_turn"] == [0, 1]


# --- guarantees (L-11.2, L-11.3, L-7.4) ---------------------------------------------------------------------


def test_L_11_7_effects_never_trigger_house_rules():
    st = table(players=2, turn=0, hands={0: ["9C", "10C", "5C"], 1: ["KD"]})
    st = with_rules(st, rule("play", eff("clear_pile"), ranks=["9"]), rule("clear", eff("announce")))
    st, events = play(st, 0, "9C")
    assert "clear" in types(events) and fired_ids(events) == [1]  # rule 2 ignores rule 1's clear
    st, events = play(st, 0, "10C")
    assert fired_ids(events) == [2]  # a base clear triggers it


def test_L_11_3_no_rule_prevents_a_win_with_the_last_hand_card():
    st = table(
        players=2, turn=0, hands={0: ["9C"], 1: ["4D", "5D"]}, face_down={0: [None] * 3}, draw=["2S", "3S"]
    )
    st = with_rules(
        st,
        rule("play", eff("draw", "actor", count=3), eff("return_cleared", "actor", count=3), timing="before"),
        rule("play", eff("give_card", "next_player", which="highest"), timing="before"),
        rule("clear", eff("draw", "actor")),
    )
    st, events = play(st, 0, "9C")
    assert st["out"][0] and first(events, "round_end")["winner"] == 0 and st["hands"][0] == []


def test_L_11_3_no_rule_prevents_a_win_with_the_last_face_down_card():
    st = table(players=2, turn=0, face_down={0: [None, "10D", None]}, draw=["2S"])
    st = with_rules(
        st,
        rule("face_down_reveal", eff("draw", "actor"), timing="before"),
        rule("clear", eff("draw", "actor")),
    )
    st, events = face_down(st, 0, 1)
    assert st["out"][0] and first(events, "round_end")["winner"] == 0
    assert first(events, "clear")["cause"] == "ten"  # the clear still happened (L-7.4)


def test_L_11_3_work_per_turn_is_bounded():
    """No endless loop (L-11.3): a rule that clears and hands cards back after every play would
    keep a turn going forever; the engine stops running rules after MAX_RULE_FIRINGS_PER_TURN
    firings in a turn, and the turn ends."""
    st = table(players=2, turn=0, hands={0: ["5C"], 1: ["KD"]})
    st = with_rules(st, rule("play", eff("clear_pile"), eff("return_cleared", "actor", count=3)))
    plays = 0
    limit_seen = False
    while st["turn"] == 0:
        st, events = play(st, 0, st["hands"][0][0])
        check_conservation(st)
        limit_seen |= "rule_limit" in types(events)
        plays += 1
        assert plays <= lopti.MAX_RULE_FIRINGS_PER_TURN + 60
    assert limit_seen and st["turn"] == 1
