"""api.md, "The state view", the ruling on `turn`: in every game and phase it is the seat
whenever exactly one seat has a decision due, and null only when none or several have one.
Only that seat is offered moves, every viewer sees the same `turn`, and it names no more than
the public state already shows (who still has to bid, give, swap, vote, answer or throw).

Here: Pitch's auction (A-3) and Lopti's winner's window (L-11.1), ballots (L-12.2), champions
(L-12.3) and duels (L-12.4). The President exchange (P-3.1, P-3.2) and Lopti's swap phase
(L-3.3) are checked in their rule files; every game's random playthroughs check it in
test_all_games (`check_turn`)."""

from __future__ import annotations

from games.engine import lopti, pitch

from .test_lopti_house_rules import rule, window, with_rules
from .test_lopti_support import G as LOPTI
from .test_lopti_support import move, strings, table
from .test_lopti_votes import base_vote, duel_of_two, four_players, propose, vote
from .test_pitch import H1, bid, new

PITCH = pitch.GAME


def turn_seen(game, st) -> int | None:
    """`turn` as every seat and a spectator see it (one value), checked against the seats that
    are offered moves: that seat alone, or not exactly one seat when `turn` is null."""
    seats = range(len(game.seat_players(st)))
    seen = {game.view(st, viewer)["turn"] for viewer in [None, *seats]}
    assert len(seen) == 1, seen
    (turn,) = seen
    offered = [s for s in seats if game.legal_moves(st, s)]
    if turn is None:
        assert len(offered) != 1, offered
    else:
        assert offered == [turn]
    return turn


def test_A_3_1_each_bidder_in_turn_the_dealer_last_then_the_pitcher_leads():
    st = new(H1)  # dealer 0: seats 1, 2, then the dealer bid
    spoken = []
    for seat, value in [(1, 2), (2, 0), (0, 0)]:
        assert turn_seen(PITCH, st) == seat and st["phase"] == "auction"
        st, _ = bid(st, seat, value)
        spoken.append(seat)
        assert [b["seat"] for b in PITCH.view(st, None)["public"]["bids"]] == spoken
    assert st["phase"] == "play" and turn_seen(PITCH, st) == 1  # the pitcher leads


def test_L_11_1_the_round_winner_has_the_turn_in_the_window():
    st = window(players=3, winner=2)
    assert turn_seen(LOPTI, st) == 2 == LOPTI.view(st, None)["public"]["window"]["winner"]
    st = with_rules(window(players=3, winner=1), rule("play"))
    assert turn_seen(LOPTI, st) == 1


def test_L_12_2_the_last_member_to_vote_has_the_turn():
    st = table(players=3, turn=0, hands={0: ["9C", "5C"], 1: ["4D"], 2: ["KD"]})
    st, _ = propose(st, 0, **base_vote())
    assert turn_seen(LOPTI, st) is None  # seats 1 and 2 both owe a ballot
    st, _ = vote(st, {1: False})
    # The game's turn is seat 0's, but play pauses (L-12.2): the one decision due is seat 2's
    # ballot, and the tally already shows it waiting.
    assert st["turn"] == 0 and turn_seen(LOPTI, st) == 2
    assert lopti.vote_view(st, 1)["tally"]["waiting"] == [2]
    st, _ = vote(st, {2: False})
    assert st["open_vote"] is None and turn_seen(LOPTI, st) == 0


def test_L_12_3_the_last_supporter_to_answer_the_champions_call_has_the_turn():
    st = with_rules(four_players(), rule("play"), author=7)  # the author's seat is gone
    st, _ = propose(st, 0, kind="remove", rule_id=1, applies="now")
    st, _ = vote(st, {1: True, 3: False, 2: False})
    assert LOPTI.to_act(st) == [3, 2] and turn_seen(LOPTI, st) is None
    st, _ = move(st, 2, {"type": "no_champion", "vote_id": 1})
    assert turn_seen(LOPTI, st) == 3 and lopti.vote_view(st, 1)["champion_waiting"] == [3]


def test_L_12_4_the_representative_still_to_throw_has_the_turn_and_no_throw_shows():
    st = duel_of_two()
    assert LOPTI.to_act(st) == [0, 1] and turn_seen(LOPTI, st) is None
    st, _ = move(st, 1, {"type": "throw", "duel_id": 1, "throw": "scissors"})
    assert turn_seen(LOPTI, st) == 0 and lopti.duel_view(st, 1)["waiting"] == [0]
    for viewer in (0, None):  # that seat 1 threw is public; what it threw is not
        shown = LOPTI.view(st, viewer)
        assert "scissors" not in strings({k: v for k, v in shown.items() if k != "legal_moves"})
    st, _ = move(st, 0, {"type": "throw", "duel_id": 1, "throw": "rock"})
    assert turn_seen(LOPTI, st) is None and lopti.duel_view(st, 1)["waiting"] == [0, 1]
