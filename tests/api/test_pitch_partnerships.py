"""Pitch partnerships (A-9) over HTTP: the seat-count check at creation, and a 4-seat partnership
table played to the end, whose state names the sides and keeps the scores by side."""

from __future__ import annotations

import json
import random
import re

import pytest

from games.bots import choose_move
from games.models import Table
from games.services.verify import table_verify
from tests.api.helpers import move, seat_users


def create(user, **fields):
    return user.api.post("/api/v1/tables", {"game": "pitch", "seats": 4, **fields}, format="json")


@pytest.mark.django_db
def test_catalogue_lists_partnerships_and_the_target_range(anon, make_user):
    games = make_user().api.get("/api/v1/games").json()
    (pitch,) = [g for g in games if g["slug"] == "pitch"]
    assert pitch["options"]["partnerships"]["type"] == "bool"
    assert pitch["options"]["partnerships"]["default"] is False
    target = pitch["options"]["target_score"]
    assert (target["type"], target["default"], target["minimum"], target["maximum"]) == ("int", 7, 1, 100)
    assert "choices" not in target


@pytest.mark.django_db
@pytest.mark.parametrize("target", [1, 13, 100])
def test_any_target_score_from_1_to_100_is_accepted(make_user, target):
    r = create(make_user(), seats=3, options={"target_score": target})
    assert r.status_code == 201, r.content
    assert r.json()["options"]["target_score"] == target


@pytest.mark.django_db
@pytest.mark.parametrize("target", [0, 101, 7.5, "7"])
def test_target_score_out_of_range_is_invalid(make_user, target):
    r = create(make_user(), seats=3, options={"target_score": target})
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert "target_score" in r.json()["detail"]["fields"]["options"]


@pytest.mark.django_db
@pytest.mark.parametrize("seats", [3, 5, 7])
def test_partnerships_refused_at_creation_without_four_seats(make_user, seats):
    # refused when the table is created, not later at the start.
    r = create(make_user(), seats=seats, options={"partnerships": True})
    assert r.status_code == 400, r.content
    body = r.json()
    assert body["code"] == "invalid" and "4 seats" in body["message"]
    assert list(body["detail"]["fields"]["options"]) == ["partnerships"]
    assert create(make_user(), seats=seats, options={"partnerships": False}).status_code == 201


@pytest.mark.django_db
def test_a_partnership_table_played_to_the_end(table_of):
    table_id, users = table_of("pitch", 4, options={"partnerships": True}, seed=41)
    host = users[0]
    assert host.api.get(f"/api/v1/tables/{table_id}").json()["options"]["partnerships"] is True
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    state = users[1].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert state["public"]["sides"] == [[0, 2], [1, 3]] and state["public"]["side_scores"] == [0, 0]
    assert [s["side"] for s in state["seats"]] == [0, 1, 0, 1]
    # A-9.2: partners do not see each other's hands (seat 1's partner is seat 3).
    partner = users[3].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert partner["you"]["seat"] == 3
    assert not set(partner["you"]["hand"]) & set(re.findall(r'"((?:10|[2-9JQKA])[CDHS])"', json.dumps(state)))
    # Scripted moves: each player plays what the easy bot would, from its own state only.
    rng = random.Random(5)
    for _ in range(2000):
        if host.api.get(f"/api/v1/tables/{table_id}").json()["status"] == "finished":
            break
        for seat, user in seat_users(host.api, table_id, users).items():
            state = user.api.get(f"/api/v1/tables/{table_id}/state").json()
            if state["legal_moves"]:
                body = {**choose_move("pitch", "easy", state, rng), "expected_version": state["version"]}
                r = move(user, table_id, body)
                assert r.status_code == 200, r.content
                after = r.json()["state"]
                assert after["you"]["seat"] == seat
                # both partners always show their side's total.
                assert after["scores"][0] == after["scores"][2] and after["scores"][1] == after["scores"][3]
                assert after["public"]["side_scores"] == [after["scores"][0], after["scores"][1]]
                break
    final = users[3].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert final["status"] == "finished" and final["legal_moves"] == []
    winners = final["public"]["winners"]
    assert winners in ([0, 2], [1, 3])
    side = winners[0] % 2
    assert final["public"]["side_scores"][side] >= 7 and final["scores"][winners[1]] >= 7
    last = final["public"]["last_hand"]
    assert set(last) >= {"side_points", "side_deltas", "side_scores"}
    assert last["side_scores"] == final["public"]["side_scores"]
    log = users[0].api.get(f"/api/v1/tables/{table_id}/moves").json()
    assert log[0]["type"] == "deal" and {e["type"] for e in log[1:]} <= {"bid", "play"}  # entry 0: the first deal
    # The stored state is what the log replays to.
    assert table_verify(Table.objects.get(pk=table_id)) is None


@pytest.mark.django_db
def test_a_table_stored_before_the_option_existed_still_replays(table_of):
    table_id, users = table_of("pitch", 4, seed=42)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    # Such a row's options lack `partnerships`: off, and its stored state has no trace of it.
    Table.objects.filter(pk=table_id).update(options={"target_score": 7, "low_to": "winner"})
    table = Table.objects.get(pk=table_id)
    assert table.state["options"] == {"target_score": 7, "low_to": "winner"}
    seats = seat_users(users[0].api, table_id, users)
    for _ in range(3):
        state = users[0].api.get(f"/api/v1/tables/{table_id}/state").json()
        user = seats[state["turn"]]
        mine = user.api.get(f"/api/v1/tables/{table_id}/state").json()
        assert move(user, table_id, mine["legal_moves"][0]).status_code == 200
    assert table_verify(Table.objects.get(pk=table_id)) is None
    assert users[1].api.get(f"/api/v1/tables/{table_id}/state").json()["public"]["sides"] is None
