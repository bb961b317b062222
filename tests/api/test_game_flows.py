"""Whole games over HTTP only, as a client would play them: Pitch from creation to a
finished game, a full Lopti round. Each step uses the state's `legal_moves`."""

import random

import pytest

from tests.api.helpers import move, seat_users
from tests.services.helpers import pick


def play_over_http(table_id, users, rng, max_moves=4000):
    host = users[0]
    moves_made = 0
    while moves_made < max_moves:
        summary = host.api.get(f"/api/v1/tables/{table_id}").json()
        if summary["status"] == "finished":
            return moves_made
        seats = seat_users(host.api, table_id, users)
        acted = False
        for seat, user in seats.items():
            state = user.api.get(f"/api/v1/tables/{table_id}/state").json()
            if state["legal_moves"]:
                r = move(user, table_id, {**pick(state["legal_moves"], rng), "expected_version": state["version"]})
                assert r.status_code == 200, r.content
                assert r.json()["state"]["you"]["seat"] == seat
                moves_made += 1
                acted = True
                break
        assert acted, "an active table always has someone to act"
    raise AssertionError("the game did not finish")


@pytest.mark.django_db
def test_pitch_from_creation_to_a_finished_game(table_of):
    table_id, users = table_of("pitch", 3, options={"target_score": 7, "low_to": "dealt"}, seed=31)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    state = users[0].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert state["phase"] == "auction" and len(state["you"]["hand"]) == 6
    play_over_http(table_id, users, random.Random(3))
    final = users[1].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert final["status"] == "finished" and final["legal_moves"] == []
    winner = final["public"]["winners"][0]
    assert final["scores"][winner] >= 7
    log = users[1].api.get(f"/api/v1/tables/{table_id}/moves").json()
    # entry 0 is the first deal's commitment (fair deals); then the moves, seq 1, 2, ...
    assert log[0]["type"] == "deal" and log[0]["by"] == "server"
    assert {e["type"] for e in log[1:]} <= {"bid", "play"} and log[-1]["seq"] == len(log) - 1


@pytest.mark.django_db
def test_a_full_lopti_round_over_http(table_of):
    # No draw pile (draw_rule none) keeps the round short; every phase still happens.
    table_id, users = table_of("lopti", 3, options={"rounds": 1, "draw_rule": "none"}, seed=32)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    state = users[2].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert state["phase"] == "swap" and state["turn"] is None
    assert {"type": "keep"} in state["legal_moves"]
    # Face-down cards are hidden from their owner too: only positions are shown.
    assert "face_down" not in state["you"] or all(not isinstance(c, str) for c in state["you"].get("face_down", []))
    play_over_http(table_id, users, random.Random(4))
    final = users[0].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert final["status"] == "finished" and len(final["public"]["winners"]) == 1
    assert sum(final["scores"]) == 1
