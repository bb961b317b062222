"""api.md, "The state view": `GET /state`'s `turn` is the seat whenever exactly one seat has a
decision due (every game, every phase), null only when none or several have one. Every
player and a spectator read the same `turn`; only that seat gets `legal_moves`; and it names
no more than the public state shows. The President exchange is in test_president_exchange."""

import pytest

from games.services import tables
from tests.api.helpers import move, seat_users


def state(user, table_id):
    return user.api.get(f"/api/v1/tables/{table_id}/state").json()


def turn_seen(table_id, users, spectator) -> int | None:
    """The `turn` every player and the spectator read (one value), checked against who gets
    `legal_moves`: that seat alone, or not exactly one seat when it is null."""
    seen = {user: state(user, table_id) for user in [*users, spectator]}
    turns = {s["turn"] for s in seen.values()}
    assert len(turns) == 1, turns
    (turn,) = turns
    offered = sorted(s["you"]["seat"] for s in seen.values() if s["legal_moves"])
    if turn is None:
        assert len(offered) != 1, offered
    else:
        assert offered == [turn]
    return turn


@pytest.mark.django_db
def test_lopti_swap_phase_the_last_player_to_decide_has_the_turn(table_of, make_user):
    table_id, users = table_of("lopti", 3, seed=3)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    seats, spectator = seat_users(users[0].api, table_id, users), make_user()
    assert state(spectator, table_id)["phase"] == "swap" and turn_seen(table_id, users, spectator) is None
    for seat in (0, 1):
        assert move(seats[seat], table_id, {"type": "keep"}).status_code == 200
    # L-3.3: one player left to swap or decline; who has decided is public (`swap_done`).
    public = state(spectator, table_id)
    assert public["phase"] == "swap" and [s["swap_done"] for s in public["seats"]] == [True, True, False]
    assert turn_seen(table_id, users, spectator) == 2
    assert move(seats[2], table_id, {"type": "keep"}).status_code == 200
    assert state(spectator, table_id)["phase"] == "play" and turn_seen(table_id, users, spectator) is not None


@pytest.mark.django_db
def test_lopti_the_last_ballot_and_the_last_throw_have_the_turn(table_of, make_user):
    table_id, users = table_of("lopti", 2, options={"swaps_allowed": 0}, seed=5)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    seats, spectator = seat_users(users[0].api, table_id, users), make_user()
    proposal = {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    vote = seats[0].api.post(f"/api/v1/tables/{table_id}/rule-votes", proposal, format="json").json()
    # L-12.2: the proposal is seat 0's yes; seat 1's ballot is the one decision due.
    assert turn_seen(table_id, users, spectator) == 1
    assert state(spectator, table_id)["public"]["vote"]["tally"]["waiting"] == [1]
    ballots = f"/api/v1/tables/{table_id}/rule-votes/{vote['id']}/ballots"
    duel_id = seats[1].api.post(ballots, {"yes": False}, format="json").json()["duel"]
    assert turn_seen(table_id, users, spectator) is None  # L-12.4: both throw at once
    throws = f"/api/v1/tables/{table_id}/duels/{duel_id}/throws"
    assert seats[0].api.post(throws, {"throw": "scissors"}, format="json").status_code == 200
    assert turn_seen(table_id, users, spectator) == 1
    for viewer in (seats[1], spectator):  # that seat 0 threw is public, not what it threw
        shown = state(viewer, table_id)
        assert shown["public"]["duel"]["waiting"] == [1]
        assert "scissors" not in str({k: v for k, v in shown.items() if k != "legal_moves"})


@pytest.mark.django_db
def test_pitch_auction_each_bidder_has_the_turn(table_of, make_user):
    table_id, users = table_of("pitch", 3, first_dealer=0)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    seats, spectator = seat_users(users[0].api, table_id, users), make_user()
    for seat in (1, 2, 0):  # from the dealer's left, the dealer last
        assert state(spectator, table_id)["phase"] == "auction"
        assert turn_seen(table_id, users, spectator) == seat
        value = 2 if seat == 0 else 0  # the dealer must bid when everyone passed
        assert move(seats[seat], table_id, {"type": "bid", "value": value}).status_code == 200
    assert state(spectator, table_id)["phase"] == "play" and turn_seen(table_id, users, spectator) == 0


@pytest.mark.django_db
def test_an_aborted_table_has_no_turn(started, make_user):
    table_id, by_seat = started
    spectator = make_user()
    assert turn_seen(table_id, list(by_seat.values()), spectator) is not None
    tables.table_abort(table_id=table_id)
    shown = state(spectator, table_id)
    assert shown["status"] == "finished" and shown["phase"] == "play"  # stopped mid-hand
    assert turn_seen(table_id, list(by_seat.values()), spectator) is None
