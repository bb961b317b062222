"""api.md "The state view" and P-3: during the President card exchange `turn` is the single
giver's seat with `exchange: one` (P-3.1); with `exchange: two` (P-3.2) it is null while both
give and the last giver's seat once one has given (the ruling: the one seat with a decision
due)."""

import pytest

from tests.api.helpers import move, president_hands_deck, seat_users


def state(user, table_id):
    return user.api.get(f"/api/v1/tables/{table_id}/state").json()


def play_first_hand(table_of, exchange: str):
    """A 4-seat table whose fixed first deal gives seat 3 the highest cards; every seat plays
    its first legal move until the second hand's exchange begins. Returns the table, the
    users by seat and the state then."""
    _, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3, options={"exchange": exchange})
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    for _ in range(200):
        by_seat = seat_users(users[0].api, table_id, users)
        current = state(users[0], table_id)
        if current["phase"] == "exchange":
            return table_id, by_seat, current
        assert current["turn"] is not None  # the first hand has no exchange: one seat plays
        mover = by_seat[current["turn"]]
        assert move(mover, table_id, state(mover, table_id)["legal_moves"][0]).status_code == 200
    raise AssertionError("the second hand never began")


@pytest.mark.django_db
def test_P_3_1_turn_is_the_presidents_seat_in_a_one_card_exchange(table_of):
    table_id, by_seat, current = play_first_hand(table_of, "one")
    president = current["public"]["exchange"]["pending"][0]["seat"]
    assert [p["seat"] for p in current["public"]["exchange"]["pending"]] == [president]
    for user in by_seat.values():
        seen = state(user, table_id)
        assert seen["turn"] == president
        assert bool(seen["legal_moves"]) == (seen["you"]["seat"] == president)
    r = move(by_seat[president], table_id, state(by_seat[president], table_id)["legal_moves"][0])
    assert r.status_code == 200
    after = r.json()["state"]
    assert after["phase"] == "play" and after["turn"] is not None  # P-4.1: the dealer's left leads


@pytest.mark.django_db
def test_P_3_2_turn_is_null_while_several_give_then_the_last_givers(table_of, make_user):
    table_id, by_seat, current = play_first_hand(table_of, "two")
    givers = [p["seat"] for p in current["public"]["exchange"]["pending"]]
    assert len(givers) == 2 and current["turn"] is None
    for user in by_seat.values():
        assert state(user, table_id)["turn"] is None
    second = by_seat[givers[1]]
    assert move(second, table_id, state(second, table_id)["legal_moves"][0]).status_code == 200
    # Ruling: one giver left, so `turn` is that giver's seat for every viewer, spectators
    # included, and it tells no more than the public list of pending givers.
    spectator = state(make_user(), table_id)
    assert spectator["you"] is None
    assert spectator["turn"] == givers[0] and spectator["phase"] == "exchange"
    assert [p["seat"] for p in spectator["public"]["exchange"]["pending"]] == [givers[0]]
    for user in by_seat.values():
        seen = state(user, table_id)
        assert seen["turn"] == givers[0]
        assert bool(seen["legal_moves"]) == (seen["you"]["seat"] == givers[0])
    first = by_seat[givers[0]]
    after = move(first, table_id, state(first, table_id)["legal_moves"][0]).json()["state"]
    assert after["phase"] == "play" and after["turn"] is not None  # P-4.1
