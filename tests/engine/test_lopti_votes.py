"""The Rule Vote (L-12.1-12.2), its Rock-Paper-Scissors duels and champions (L-12.3-12.4) and
sessions (L-12.5, L-2.1): one vote per round, majority of all members, ties settled by a duel,
play paused meanwhile, changes applied now or from the next round, throws hidden until both
threw, and a new session's setup with its restore votes."""

from __future__ import annotations

import random

import pytest

from games.engine import fairness, lopti
from games.engine.base import GameConflict, IllegalMove, InvalidMove, NotYourTurn

from .test_lopti_house_rules import eff, fired_ids, rule, window, with_rules
from .test_lopti_support import (
    SEED,
    G,
    decline,
    first,
    keep_all,
    move,
    new,
    play,
    strings,
    table,
    types,
)

WIN = [("rock", "scissors"), ("scissors", "rock")]  # a decisive pair won by player 0 / player 1
DRAW = ("paper", "paper")


def propose(st: dict, seat: int, **fields) -> tuple[dict, list[dict]]:
    return move(st, seat, {"type": "propose_vote", **fields})


def base_vote(key: str = "ten_clears", value=False, applies: str = "now") -> dict:
    return {"kind": "base_rule", "key": key, "value": value, "applies": applies}


def vote(st: dict, votes_: dict[int, bool | None]) -> tuple[dict, list[dict]]:
    """Ballots in the given order: True yes, False no, None abstain."""
    events = []
    vote_id = st["open_vote"]
    for seat, yes in votes_.items():
        mv = (
            {"type": "abstain", "vote_id": vote_id}
            if yes is None
            else {"type": "ballot", "vote_id": vote_id, "yes": yes}
        )
        assert mv in G.legal_moves(st, seat)
        st, evs = move(st, seat, mv)
        events += evs
    return st, events


def throw_pair(st: dict, duel_id: int, pair: tuple[str, str]) -> tuple[dict, list[dict]]:
    a, b = st["duels"][duel_id - 1]["players"]
    st, first_events = move(st, a, {"type": "throw", "duel_id": duel_id, "throw": pair[0]})
    st, events = move(st, b, {"type": "throw", "duel_id": duel_id, "throw": pair[1]})
    return st, first_events + events


def four_players(**kw) -> dict:
    return table(players=4, turn=0, hands={0: ["9C", "5C"], 1: ["4D"], 2: ["KD"], 3: ["QD"]}, **kw)


# --- L-12.1 / L-12.2 proposing and counting -------------------------------------------------------------------


def test_L_12_2_passes_with_a_majority_of_all_members_including_one_out():
    st = table(
        players=3, turn=0, hands={0: ["10C", "5C"], 1: ["4D"]}, out=[2], options={"play_for_places": True}
    )
    st, events = propose(st, 0, **base_vote())
    proposed = first(events, "vote_proposed")["vote"]
    assert (
        proposed["proposer"] == 0
        and proposed["status"] == "open"
        and proposed["ballots"] == ["yes", None, None]
    )
    # every member votes, the player already out included (L-12.2)
    assert G.to_act(st) == [1, 2] and G.view(st, None)["public"]["pause"] == "vote"
    st, events = vote(st, {1: True})
    assert st["open_vote"] == 1 and G.to_act(st) == [2]
    st, events = vote(st, {2: None})
    closed = first(events, "vote_closed")
    assert closed["status"] == "passed" and closed["tally"]["yes"] == 2 and closed["tally"]["members"] == 3
    assert st["rules"]["ten_clears"] is False and G.to_act(st) == [0]
    assert "clear" not in types(play(st, 0, "10C")[1])


def test_L_12_2_not_half_of_those_who_voted_but_of_all_members():
    st = table(players=5, turn=0, hands={0: ["9C", "5C"]})
    st, _ = propose(st, 0, **base_vote())
    st, events = vote(st, {1: True, 2: None, 3: None, 4: None})  # 2 of 2 ballots, 2 of 5 members
    assert first(events, "vote_closed")["status"] == "failed" and st["rules"]["ten_clears"] is True


def test_L_12_2_a_failed_vote_uses_the_rounds_vote():
    st = table(players=3, turn=0, hands={0: ["9C", "5C"]})
    st, _ = propose(st, 1, **base_vote())
    st, events = vote(st, {0: False, 2: False})
    assert first(events, "vote_closed")["status"] == "failed"
    assert st["vote_used"] is True and G.view(st, 0)["public"]["vote_used"] is True
    with pytest.raises(GameConflict) as exc:
        G.apply(st, 2, {"type": "propose_vote", **base_vote("two_resets")})
    assert exc.value.rule == "L-12.2" and "L-12.2" in exc.value.message
    st2 = with_rules(window(winner=1), rule("play"))
    st2["vote_used"] = True
    st2, _ = decline(st2)
    assert st2["vote_used"] is False  # the next round's deal brings a new vote
    propose(st2, 0, **base_vote("two_resets"))


def test_L_12_2_tie_with_an_even_table_goes_to_a_duel():
    st = four_players()
    st, _ = propose(st, 0, **base_vote())
    st, events = vote(st, {3: False, 1: True, 2: False})
    assert first(events, "vote_tied")["tally"]["yes"] == 2
    start = first(events, "duel_start")
    # L-12.3 ruling: the earliest no-vote is the base-rule change's opponent
    assert start["players"] == [0, 3] and start["first_to"] == 16 and start["kind"] == "duel"
    shown = lopti.vote_view(st, 1)
    assert (
        shown["status"] == "tied"
        and shown["stage"] == "duel"
        and shown["opponent"] == 3
        and shown["duel"] == 1
    )
    assert G.to_act(st) == [0, 3] and G.view(st, 1)["public"]["pause"] == "duel"


def test_L_12_2_no_vote_in_the_winners_window_but_in_the_swap_phase():
    st = window(winner=1)
    for seat in (0, 1):  # api.md: a vote at a time L-12.2 forbids is a conflict (409)
        with pytest.raises(GameConflict) as exc:
            G.apply(st, seat, {"type": "propose_vote", **base_vote()})
        assert exc.value.rule == "L-12.2" and exc.value.message.startswith("L-12.2")
    st = new(players=3)
    assert st["phase"] == "swap"
    st, _ = propose(st, 2, **base_vote())
    assert st["open_vote"] == 1 and G.to_act(st) == [0, 1]
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "keep"})  # the swap phase pauses too
    st, _ = vote(st, {0: True, 1: None})
    assert G.to_act(st) == [0, 1, 2] and st["phase"] == "swap"


def test_L_12_2_play_pauses_while_a_vote_or_its_duel_is_open():
    st = table(players=2, turn=0, hands={0: ["9C", "5C"], 1: ["KD"]}, pile=["4C"])
    st, _ = propose(st, 1, **base_vote())
    assert G.to_act(st) == [0] and G.view(st, 0)["turn"] == 0
    assert G.legal_moves(st, 0) == [
        {"type": "ballot", "vote_id": 1, "yes": True},
        {"type": "ballot", "vote_id": 1, "yes": False},
        {"type": "abstain", "vote_id": 1},
    ]
    for mv in ({"type": "play", "cards": ["9C"]}, {"type": "take_pile"}):
        with pytest.raises(GameConflict):
            G.apply(st, 0, mv)
    st, _ = vote(st, {0: False})  # 1 of 2: a tie, a duel between 1 and 0
    assert st["open_vote"] == 1 and sorted(G.to_act(st)) == [0, 1]
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "play", "cards": ["9C"]})
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "ballot", "vote_id": 1, "yes": True})  # voting is closed
    for _ in range(16):
        st, _ = throw_pair(st, 1, WIN[0])  # seat 1 (the proposer) wins every throw
    assert st["open_vote"] is None and G.to_act(st) == [0] and st["turn"] == 0
    assert st["rules"]["ten_clears"] is False
    play(st, 0, "9C")


def test_L_12_2_one_open_vote_and_one_ballot_each():
    st = table(players=3, turn=0, hands={0: ["9C"]})
    st, _ = propose(st, 0, **base_vote())
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "propose_vote", **base_vote("two_resets")})
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "ballot", "vote_id": 1, "yes": False})  # the proposal was a yes
    st, _ = vote(st, {1: False})
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "ballot", "vote_id": 1, "yes": True})
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "abstain", "vote_id": 1})
    with pytest.raises(InvalidMove):
        G.apply(st, 2, {"type": "ballot", "vote_id": 9, "yes": True})
    with pytest.raises(InvalidMove):
        G.apply(st, 2, {"type": "ballot", "vote_id": 1, "yes": "yes"})
    with pytest.raises(NotYourTurn):
        G.apply(st, None, {"type": "ballot", "vote_id": 1, "yes": True})
    st, _ = vote(st, {2: False})
    with pytest.raises(GameConflict):
        G.apply(st, 2, {"type": "ballot", "vote_id": 1, "yes": True})  # closed


@pytest.mark.parametrize(
    ("proposal", "field"),
    [
        ({"kind": "overthrow", "applies": "now"}, "kind"),
        ({"kind": "remove", "rule_id": 1}, "applies"),
        ({"kind": "remove", "rule_id": 1, "applies": "tomorrow"}, "applies"),
        ({"kind": "remove", "applies": "now"}, "rule_id"),
        ({"kind": "remove", "rule_id": "1", "applies": "now"}, "rule_id"),
        ({"kind": "remove", "rule_id": 1, "key": "ten_clears", "applies": "now"}, "key"),
        ({"kind": "remove", "rule_id": 5, "applies": "now"}, "rule_id"),
        ({"kind": "modify", "rule_id": 1, "applies": "now"}, "rule"),
        ({"kind": "modify", "rule_id": 1, "rule": {"description": "x"}, "applies": "now"}, "rule.when"),
        ({"kind": "base_rule", "key": "rounds", "value": 3, "applies": "now"}, "key"),
        ({"kind": "base_rule", "key": "hand_size", "value": 9, "applies": "now"}, "value"),
        ({"kind": "base_rule", "key": "ten_clears", "applies": "now"}, "value"),
    ],
)
def test_L_12_1_malformed_proposals_name_the_field(proposal, field):
    st = with_rules(table(players=3, turn=0, hands={0: ["9C"]}), rule("play"))
    with pytest.raises(InvalidMove) as exc:
        G.apply(st, 0, {"type": "propose_vote", **proposal})
    assert field in exc.value.fields, exc.value.fields
    with pytest.raises(NotYourTurn):
        G.apply(st, None, {"type": "propose_vote", **base_vote()})


# --- changes: now or next round, remove and restore -----------------------------------------------------------


def test_L_12_1_a_removed_rule_returns_only_by_a_restore_vote():
    st = with_rules(
        table(players=3, turn=0, hands={0: ["9C", "9D", "9H"], 1: ["KD"]}), rule("play"), author=2
    )
    st, _ = propose(st, 0, kind="remove", rule_id=1, applies="now")
    st, events = vote(st, {1: True, 2: False})
    assert first(events, "rule_changed") == {
        "type": "rule_changed",
        "rule_id": 1,
        "kind": "remove",
        "status": "removed",
    }
    assert lopti.house_rules_view(st)[0]["status"] == "removed"
    st, events = play(st, 0, "9C")
    assert fired_ids(events) == []  # a removed rule does not fire
    with pytest.raises(IllegalMove) as exc:  # the author cannot edit it back
        G.apply(st, 2, {"type": "edit_rule", "rule_id": 1, "rule": rule("play")})
    assert exc.value.rule == "L-11.5"
    st["vote_used"] = False  # a later round
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 1, {"type": "propose_vote", "kind": "remove", "rule_id": 1, "applies": "now"})
    assert exc.value.rule == "L-12.1"
    with pytest.raises(IllegalMove) as exc:
        G.apply(
            st,
            1,
            {"type": "propose_vote", "kind": "modify", "rule_id": 1, "rule": rule("draw"), "applies": "now"},
        )
    assert exc.value.rule == "L-12.1"
    st, _ = propose(st, 1, kind="restore", rule_id=1, applies="now")
    st, _ = vote(st, {0: True, 2: None})
    assert st["house_rules"][0]["status"] == "active"
    assert fired_ids(play(st, 1, "KD")[1]) == [1]


def test_L_12_1_a_deleted_rule_is_not_restored_by_vote():
    st = with_rules(table(players=2, turn=0, hands={0: ["9C"]}), rule("play"), author=1)
    st, _ = move(st, 1, {"type": "delete_rule", "rule_id": 1})
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 0, {"type": "propose_vote", "kind": "restore", "rule_id": 1, "applies": "now"})
    assert exc.value.rule == "L-12.1"


def test_L_12_2_modify_vote_changes_the_rule():
    st = with_rules(table(players=2, turn=0, hands={0: ["9C", "5C"]}, draw=["KS"]), rule("play"), author=1)
    new_rule = rule("play", eff("draw", "actor"))
    st, _ = propose(st, 0, kind="modify", rule_id=1, rule=new_rule, applies="now")
    st, events = vote(st, {1: True})
    assert st["house_rules"][0]["rule"] == lopti.validate_rule(new_rule)
    assert st["house_rules"][0]["author"] == 1
    st, events = play(st, 0, "9C")
    assert [e["rule_id"] for e in events if e["type"] == "draw" and "rule_id" in e] == [1]


def test_L_12_2_applies_now_or_from_the_next_round():
    st = with_rules(window(winner=1), rule("play"))
    st, _ = decline(st)
    st = keep_all(st)
    st, _ = propose(st, 0, kind="remove", rule_id=1, applies="next_round")
    st, events = vote(st, {1: True, 2: True})
    assert first(events, "rule_change_pending")["rule_id"] == 1
    assert G.view(st, 0)["public"]["pending_changes"] == [{"vote_id": 1, "kind": "remove", "rule_id": 1}]
    assert st["house_rules"][0]["status"] == "active"
    seat = st["turn"]
    st, events = move(st, seat, G.timeout_move(st, seat))
    assert 1 in fired_ids(events)  # still active this round
    # finish the round: the change applies with the next deal
    st.update(phase="house_rule", window={"winner": 1, "open": True, "rule_id": None}, turn=None)
    st, events = decline(st)
    assert st["house_rules"][0]["status"] == "removed" and st["pending_changes"] == []
    assert types(events).index("rule_changed") < types(events).index("deal")


def test_L_12_2_an_immediate_change_stops_a_low_lock_and_an_obligation():
    st = table(players=2, turn=1, hands={0: ["9C"], 1: ["KD", "4C"]}, pile=["7C"])
    assert st["low_lock"] is True
    st, _ = propose(st, 0, **base_vote("seven_plays_low", False))
    st, events = vote(st, {1: True})
    assert st["low_lock"] is False and {"type": "low_lock", "on": False} in events
    play(st, 1, "KD")  # no longer locked low
    st = table(players=2, turn=1, hands={0: ["9C"], 1: ["KD"]}, pile=["8C"], chain=["3C"], obligation=1)
    st, _ = propose(st, 0, **base_vote("three_redirects", False))
    st, events = vote(st, {1: True})
    assert st["obligation"] is None and {"type": "obligation", "seat": None} in events
    # completed actions stay: the 3 already played is still discarded in the chain
    assert st["three_chain"] == ["3C"]


def test_L_12_2_an_immediate_removal_stops_a_pending_skip():
    st = table(
        players=3, turn=0, hands={0: ["9C", "5C"], 1: ["4D", "KD"], 2: ["7D", "8D"]}, draw=["2S", "2H"]
    )
    st = with_rules(
        st, rule("play", eff("skip_next_turn", "previous_player"), eff("draw", "actor"), ranks=["9"])
    )
    st, _ = play(st, 0, "9C")
    assert st["skips"] == [{"seat": 2, "rule_id": 1}]
    drawn = set(st["hands"][0])
    st, _ = propose(st, 1, kind="remove", rule_id=1, applies="now")
    st, events = vote(st, {0: True, 2: None})
    assert st["skips"] == [] and first(events, "rule_actions_stopped")["rule_id"] == 1
    assert set(st["hands"][0]) == drawn  # the rule's completed draw is not undone
    st, _ = play(st, 1, "KD")
    assert st["turn"] == 2


def test_L_13_a_deal_touching_change_waits_for_the_next_round():
    st = table(players=2, turn=0, hands={0: ["9C"]})
    st, _ = propose(st, 0, **base_vote("hand_size", 4, "now"))
    st, events = vote(st, {1: True})
    assert first(events, "base_rule_changed")["applies"] == "next_round"
    assert st["rules"]["hand_size"] == 3 and st["next_rules"] == {"hand_size": 4}


# --- L-12.3 / L-12.4 ties and duels ---------------------------------------------------------------------------------


def test_L_12_4_duel_first_to_16_with_sudden_death_at_15_15_and_draws_not_counted():
    st = four_players()
    st, _ = propose(st, 0, **base_vote())
    st, _ = vote(st, {1: True, 2: False, 3: False})  # duel 0 (proposer) vs 2
    for i in range(30):
        st, events = throw_pair(st, 1, WIN[i % 2])
        if i % 7 == 0:
            st, events = throw_pair(st, 1, DRAW)
            shown = first(events, "throws_revealed")
            assert shown["winner"] is None and shown["throws"] == ["paper", "paper"]
    duel = lopti.duel_view(st, 1)
    assert duel["score"] == [15, 15] and duel["status"] == "open"  # 30 decisive throws, 15-15
    assert sum(1 for t in duel["throws"] if t["winner"] is None) == 5  # the draws are shown, not counted
    st, events = throw_pair(st, 1, DRAW)
    assert lopti.duel_view(st, 1)["status"] == "open"
    st, events = throw_pair(st, 1, WIN[1])  # the next decisive throw decides
    end = first(events, "duel_end")
    assert end["winner"] == 2 and end["score"] == [15, 16]
    shown = lopti.vote_view(st, 1)
    assert shown["status"] == "decided" and shown["decided_for"] == "no" and shown["result"] == "unchanged"
    assert st["rules"]["ten_clears"] is True and st["open_vote"] is None
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "throw", "duel_id": 1, "throw": "rock"})  # after the duel
    assert G.view(st, 0)["public"]["duel"]["winner"] == 2


def test_L_12_3_house_rule_tie_faces_the_author():
    st = with_rules(four_players(), rule("play"), author=3)
    st, _ = propose(st, 1, kind="remove", rule_id=1, applies="now")
    st, events = vote(st, {0: True, 2: False, 3: None})
    assert first(events, "duel_start")["players"] == [1, 3]  # proposer vs the rule's author
    for _ in range(16):
        st, _ = throw_pair(st, 1, WIN[0])
    shown = lopti.vote_view(st, 1)
    assert shown["decided_for"] == "yes" and shown["result"] == "changed"
    assert st["house_rules"][0]["status"] == "removed"


def test_L_12_3_proposer_is_the_author_so_the_tie_passes():
    st = with_rules(four_players(), rule("play"), author=0)
    st, _ = propose(st, 0, kind="remove", rule_id=1, applies="now")
    st, events = vote(st, {1: True, 2: False, 3: False})
    assert "duel_start" not in types(events)
    assert first(events, "vote_closed")["status"] == "passed" and st["house_rules"][0]["status"] == "removed"


def test_L_12_3_base_rule_tie_with_nobody_voting_no_passes():
    st = four_players()
    st, _ = propose(st, 0, **base_vote())
    st, events = vote(st, {1: True, 2: None, 3: None})  # abstaining is no formal opposition
    closed = first(events, "vote_closed")
    assert closed["status"] == "passed" and "duel_start" not in types(events)
    assert st["rules"]["ten_clears"] is False


def absent_author_vote(ballots: dict[int, bool | None]) -> dict:
    """A tie on a rule whose author's seat (7) is not in this 4-seat session (L-12.3)."""
    st = with_rules(four_players(), rule("play"), author=7)
    st, _ = propose(st, 0, kind="remove", rule_id=1, applies="now")
    st, _ = vote(st, ballots)
    return st


def test_L_12_3_author_gone_and_no_champion_comes_forward_so_it_passes():
    st = absent_author_vote({1: True, 3: False, 2: False})
    assert lopti.vote_view(st, 1)["stage"] == "champions" and G.to_act(st) == [3, 2]
    assert G.view(st, 0)["public"]["pause"] == "champion"
    assert G.legal_moves(st, 3) == [{"type": "champion", "vote_id": 1}, {"type": "no_champion", "vote_id": 1}]
    with pytest.raises(NotYourTurn):
        G.apply(st, 1, {"type": "champion", "vote_id": 1})  # voted yes
    assert G.timeout_move(st, 2) == {"type": "no_champion", "vote_id": 1}
    st, _ = move(st, 2, {"type": "no_champion", "vote_id": 1})
    with pytest.raises(GameConflict):
        G.apply(st, 2, {"type": "champion", "vote_id": 1})
    st, events = move(st, 3, {"type": "no_champion", "vote_id": 1})
    closed = first(events, "vote_closed")
    assert closed["status"] == "passed" and closed["reason"] == "tie, no champion"
    assert st["house_rules"][0]["status"] == "removed"


def test_L_12_3_knockout_between_two_champions():
    st = absent_author_vote({1: True, 3: False, 2: False})
    st, _ = move(st, 2, {"type": "champion", "vote_id": 1})  # came forward first
    st, events = move(st, 3, {"type": "champion", "vote_id": 1})
    knockout = first(events, "duel_start")
    assert knockout["players"] == [2, 3] and knockout["first_to"] == 1 and knockout["kind"] == "knockout"
    st, events = throw_pair(st, knockout["duel_id"], DRAW)
    assert "duel_end" not in types(events)  # a draw decides nothing
    st, events = throw_pair(st, knockout["duel_id"], WIN[1])
    assert first(events, "duel_end")["winner"] == 3
    final = first(events, "duel_start")
    assert final["players"] == [0, 3] and final["first_to"] == 16
    shown = lopti.vote_view(st, 1)
    assert shown["champions"] == [2, 3] and shown["duels"] == [1, 2] and shown["opponent"] == 3


def test_L_12_3_a_single_champion_duels_the_proposer():
    st = absent_author_vote({1: True, 3: False, 2: False})
    st, _ = move(st, 3, {"type": "no_champion", "vote_id": 1})
    st, events = move(st, 2, {"type": "champion", "vote_id": 1})
    assert first(events, "duel_start")["players"] == [0, 2]


# --- hidden throws and timeouts ---------------------------------------------------------------------------------


def duel_of_two() -> dict:
    st = table(players=2, turn=0, hands={0: ["9C"], 1: ["KD"]})
    st, _ = propose(st, 0, **base_vote())
    st, _ = vote(st, {1: False})
    return st


def test_L_12_4_a_throw_is_hidden_until_both_threw():
    st = duel_of_two()
    mv = {"type": "throw", "duel_id": 1, "throw": "scissors"}
    st, events = move(st, 1, mv)
    assert G.to_act(st) == [0]
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "throw", "duel_id": 1, "throw": "rock"})  # one throw per pair
    with pytest.raises(InvalidMove):
        G.apply(st, 0, {"type": "throw", "duel_id": 1, "throw": "lizard"})
    with pytest.raises(InvalidMove):
        G.apply(st, 0, {"type": "throw", "duel_id": 4, "throw": "rock"})
    assert G.view(st, 1)["you"]["throw"] == {"duel_id": 1, "throw": "scissors"}
    for seat in (0, None):
        view = G.view(st, seat)
        assert "scissors" not in strings(view["public"]) and "scissors" not in strings(view["you"] or {})
        assert "scissors" not in strings([G.view_event(e, seat) for e in events])
        assert G.view_move(mv, 1, events, seat) == {"type": "throw", "duel_id": 1}
    assert G.view_move(mv, 1, events, 1) == mv
    assert "scissors" not in strings([lopti.duel_view(st, 1), lopti.vote_view(st, 1)])
    assert lopti.duel_view(st, 1)["waiting"] == [0]
    st, events = move(st, 0, {"type": "throw", "duel_id": 1, "throw": "rock"})
    shown = first(events, "throws_revealed")
    assert shown["throws"] == ["rock", "scissors"] and shown["winner"] == 0 and shown["score"] == [1, 0]
    assert G.view_event(shown, None) == shown
    assert lopti.duel_view(st, 1)["throws"] == [{"throws": ["rock", "scissors"], "winner": 0}]
    assert "throw" not in G.view(st, 1)["you"]


def test_L_12_4_timeout_throws_at_random_from_the_given_source():
    st = duel_of_two()
    for n in range(5):
        expected = random.Random(n).choice(["rock", "paper", "scissors"])
        mv = G.timeout_move(st, 0, random.Random(n))
        assert mv == {"type": "throw", "duel_id": 1, "throw": expected} and mv in G.legal_moves(st, 0)
    assert G.timeout_move(st, 0) == {"type": "throw", "duel_id": 1, "throw": "rock"}
    throws = {G.timeout_move(st, 1, random.Random(n))["throw"] for n in range(30)}
    assert throws == {"rock", "paper", "scissors"}


def test_L_12_2_ballot_timeout_is_an_abstention_not_a_no():
    st = four_players()
    st, _ = propose(st, 0, **base_vote())
    assert G.timeout_move(st, 2) == {"type": "abstain", "vote_id": 1}
    st, _ = move(st, 2, G.timeout_move(st, 2))
    assert lopti.vote_view(st, 1)["ballots"] == ["yes", None, "abstain", None]


def test_vote_and_duel_views():
    st = table(players=2, turn=0, hands={0: ["9C"]})
    assert lopti.vote_view(st, 1) is None and lopti.duel_view(st, 1) is None
    assert G.view(st, 0)["public"]["vote"] is None and G.view(st, 0)["public"]["duel"] is None
    st = duel_of_two()
    view = G.view(st, None)["public"]
    assert view["vote"] == lopti.vote_view(st, 1) and view["duel"] == lopti.duel_view(st, 1)
    assert view["vote"]["tally"] == {"yes": 1, "no": 1, "abstain": 0, "members": 2, "waiting": []}
    assert view["vote"]["target"] == {"key": "ten_clears", "value": False}
    assert view["vote"]["kind"] == "base_rule" and view["vote"]["applies"] == "now"
    assert lopti.vote_view(st, 0) is None and lopti.vote_view(st, True) is None


# --- L-12.5 / L-2.1 sessions ----------------------------------------------------------------------------------------


def session_one_with_rule() -> dict:
    """Session 1 with a rule by seat 1 and a base-rule change, in the winner's window."""
    st = with_rules(window(winner=1), rule("play"), author=1)
    st = lopti.set_base_rule(st, "two_resets", False, "now")
    st["fixed_dealer"] = None  # as at a table whose first dealer was drawn from the seed
    return st


def test_L_2_1_new_session_only_between_rounds_and_only_from_the_server():
    st = table(players=2, turn=0, hands={0: ["9C", "5C"], 1: ["KD"]})
    st, _ = play(st, 0, "9C")
    st["round_started"] = True
    with pytest.raises(GameConflict):
        G.apply(st, None, {"type": "new_session"})  # mid-round
    st = session_one_with_rule()
    with pytest.raises(NotYourTurn):
        G.apply(st, 0, {"type": "new_session"})
    with pytest.raises(InvalidMove):
        G.apply(st, None, {"type": "new_session", "players": 3})
    with pytest.raises(GameConflict):
        G.apply(st, None, {"type": "start_session"})  # not in setup
    G.apply(st, None, {"type": "new_session"})  # the window
    swap = new(players=3)
    G.apply(swap, None, {"type": "new_session"})  # a swap phase before any play


def test_L_2_1_new_session_resets_the_rules():
    st = session_one_with_rule()
    next_deal = st["deal_number"] + 1
    st, events = move(st, None, {"type": "new_session"})
    session = first(events, "session_new")
    # the session's first dealer is drawn from the secret of its first deal (docs/fair-deals.md)
    assert session["session"] == 2
    assert session["dealer"] == fairness.draw_dealer(fairness.deal_secret(SEED, next_deal), 3)
    view = G.view(st, 0)
    assert view["phase"] == "setup" and view["public"]["session"] == 2 and G.to_act(st) == []
    assert view["public"]["house_rules"] == [] and view["public"]["rules"]["two_resets"] is True
    assert [r["id"] for r in view["public"]["rule_history"]] == [1]
    assert view["public"]["rule_history"][0]["session"] == 1
    with pytest.raises(NotYourTurn):
        G.apply(st, 0, {"type": "keep"})
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 0, {"type": "propose_vote", **base_vote()})
    assert exc.value.rule == "L-12.5"
    st, events = move(st, None, {"type": "start_session"})
    assert st["phase"] == "swap" and st["round"] == 1 and st["session"] == 2
    assert first(events, "deal")["round"] == 1 and st["dealer"] == session["dealer"]
    assert st["first_player"] == st["dealer"]  # L-2.4: the session's first round
    st = keep_all(st)
    seat = st["turn"]
    st, events = move(st, seat, G.timeout_move(st, seat))
    assert fired_ids(events) == []  # an earlier session's rule does not act


def test_L_12_5_setup_restore_votes_do_not_use_round_ones_vote():
    st, _ = move(session_one_with_rule(), None, {"type": "new_session"})
    st, _ = propose(st, 2, kind="restore", rule_id=1, applies="now")
    with pytest.raises(GameConflict):
        G.apply(st, None, {"type": "start_session"})  # a vote is open
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "propose_vote", "kind": "restore", "rule_id": 1, "applies": "now"})
    st, events = vote(st, {0: True, 1: None})
    assert first(events, "rule_changed") == {
        "type": "rule_changed",
        "rule_id": 1,
        "kind": "restore",
        "status": "active",
    }
    (restored,) = lopti.house_rules_view(st)
    assert restored["id"] == 1 and restored["author"] == 1 and restored["session"] == 2
    assert restored["created_session"] == 1 and restored["editable"] is False
    assert G.view(st, 0)["public"]["vote"]["setup"] is True
    with pytest.raises(IllegalMove) as exc:  # one vote per rule (L-12.5)
        G.apply(st, 0, {"type": "propose_vote", "kind": "restore", "rule_id": 1, "applies": "now"})
    assert exc.value.rule == "L-12.5"
    st, _ = move(st, None, {"type": "start_session"})
    assert st["vote_used"] is False and G.view(st, 0)["public"]["vote"] is None
    st, _ = propose(st, 0, **base_vote())  # round one still has its vote
    assert lopti.vote_view(st, 2)["setup"] is False


def test_L_12_5_an_earlier_sessions_rule_returns_only_in_setup():
    st, _ = move(session_one_with_rule(), None, {"type": "new_session"})
    st, _ = propose(st, 2, kind="restore", rule_id=1, applies="now")
    st, events = vote(st, {0: False, 1: None})
    assert first(events, "vote_closed")["status"] == "failed" and st["house_rules"] == []
    st, _ = move(st, None, {"type": "start_session"})
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, 0, {"type": "propose_vote", "kind": "restore", "rule_id": 1, "applies": "now"})
    assert exc.value.rule == "L-12.5"
    with pytest.raises(InvalidMove):
        G.apply(st, 0, {"type": "propose_vote", "kind": "restore", "rule_id": 3, "applies": "now"})


def test_L_2_3_a_fixed_dealer_starts_every_session():
    st = table(players=3, turn=1, face_down={1: ["9C", None, None]})
    assert st["fixed_dealer"] == 0
    st, _ = move(st, 1, {"type": "play_face_down", "index": 0})
    st, events = move(st, None, {"type": "new_session"})
    assert first(events, "session_new")["dealer"] == 0
    st, _ = move(st, None, {"type": "start_session"})
    assert st["dealer"] == 0 and st["deal_number"] == 1
