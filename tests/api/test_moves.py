"""api.md, moves: every error code of a move, versions, idempotency and concurrency."""

import threading

import pytest
from django.db import connection

from tests.api.helpers import move, president_hands_deck, seat_users


@pytest.fixture
def fixed_table(table_of):
    """A started 4-player President table, dealer 3: seat 0 (all 3s, 4s, 5s and 6C) leads."""
    hands, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    seats = seat_users(users[0].api, table_id, users)
    return table_id, seats, hands


@pytest.mark.django_db
def test_a_legal_move_answers_version_events_and_state(fixed_table):
    table_id, seats, hands = fixed_table
    before = seats[0].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert before["turn"] == 0 and before["you"]["hand"] == hands[0]
    r = move(seats[0], table_id, {"type": "play", "cards": ["3C"]})
    assert r.status_code == 200
    body = r.json()
    assert body["version"] > before["version"]
    assert body["state"]["version"] == body["version"] and "3C" not in body["state"]["you"]["hand"]
    assert body["state"]["turn"] == 1
    assert isinstance(body["events"], list)


@pytest.mark.django_db
def test_illegal_move_is_400_with_the_rule_id(fixed_table):
    table_id, seats, _ = fixed_table
    r = move(seats[0], table_id, {"type": "pass"})
    assert r.status_code == 400 and r.json()["code"] == "illegal_move"
    assert r.json()["detail"]["rule"] == "P-4.2"
    move(seats[0], table_id, {"type": "play", "cards": ["3C"]})
    r = move(seats[1], table_id, {"type": "play", "cards": ["7C", "7D"]})
    assert r.status_code == 400 and r.json()["code"] == "illegal_move"
    assert r.json()["detail"]["rule"].startswith("P-")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {"type": "bid", "value": 1},
        {"type": "play", "cards": ["ZZ"]},
        {"type": "play", "cards": "3C"},
        {"type": "play"},
        {"cards": ["3C"]},
        {"type": "play", "cards": ["KS"]},
        {"type": "play", "cards": ["3C"], "expected_version": "two"},
    ],
)
def test_malformed_moves_are_400_invalid(fixed_table, body):
    table_id, seats, _ = fixed_table
    r = move(seats[0], table_id, body)
    assert r.status_code == 400 and r.json()["code"] == "invalid", r.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "seats", "body"),
    [("pitch", 3, {"type": "pass"}), ("president", 4, {"type": "bid", "value": 1}), ("lopti", 2, {"type": "pass"}),
     ("president", 4, {"cards": ["3C"]})],
)
def test_a_move_type_the_game_does_not_have_is_400_invalid_from_every_seat(table_of, game, seats, body):
    """api.md "Errors not named above": a move type the game does not have (`pass` in Pitch) is
    400 `invalid`; it is malformed whoever sends it, so a seat that may not act gets it too,
    not 409 `not_your_turn` (a well-formed move out of turn still gets that)."""
    table_id, users = table_of(game, seats)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    by_seat = seat_users(users[0].api, table_id, users)
    if game == "lopti":  # after the swap phase: one seat plays, the other may not act
        for user in by_seat.values():
            assert move(user, table_id, {"type": "keep"}).status_code == 200
    turn = users[0].api.get(f"/api/v1/tables/{table_id}/state").json()["turn"]
    for seat, user in by_seat.items():
        r = move(user, table_id, body)
        assert r.status_code == 400 and r.json()["code"] == "invalid", (seat, turn, r.content)
        assert "type" in r.json()["detail"]["fields"]
    # the mover's legal move, sent by the next seat: well-formed, out of turn
    legal = by_seat[turn].api.get(f"/api/v1/tables/{table_id}/state").json()["legal_moves"][0]
    r = move(by_seat[(turn + 1) % seats], table_id, legal)
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"


@pytest.mark.django_db
def test_a_seated_player_out_of_turn_gets_not_your_turn_and_a_stranger_forbidden(fixed_table, make_user):
    table_id, seats, _ = fixed_table
    r = move(seats[2], table_id, {"type": "play", "cards": ["9H"]})
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
    stranger = make_user()
    r = move(stranger, table_id, {"type": "pass"})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"


@pytest.mark.django_db
def test_a_move_before_the_start_is_a_conflict(table_of):
    table_id, users = table_of("president", 4)
    r = move(users[0], table_id, {"type": "pass"})
    assert r.status_code == 409 and r.json()["code"] == "conflict"


@pytest.mark.django_db
def test_stale_expected_version_is_409_and_changes_nothing(fixed_table):
    table_id, seats, _ = fixed_table
    version = seats[0].api.get(f"/api/v1/tables/{table_id}").json()["version"]
    r = move(seats[0], table_id, {"type": "play", "cards": ["3C"], "expected_version": version - 1})
    assert r.status_code == 409 and r.json()["code"] == "stale_version"
    assert seats[0].api.get(f"/api/v1/tables/{table_id}").json()["version"] == version
    r = move(seats[0], table_id, {"type": "play", "cards": ["3C"], "expected_version": version})
    assert r.status_code == 200 and r.json()["version"] > version


@pytest.mark.django_db
def test_idempotent_replay_returns_the_first_response_and_changes_nothing(fixed_table):
    table_id, seats, _ = fixed_table
    first = move(seats[0], table_id, {"type": "play", "cards": ["3C"]}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 200
    again = move(seats[0], table_id, {"type": "play", "cards": ["3C"]}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 200 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    log = seats[0].api.get(f"/api/v1/tables/{table_id}/moves").json()
    assert [e["seq"] for e in log] == [0, 1]  # the first deal's entry, then the one move
    reused = move(seats[0], table_id, {"type": "play", "cards": ["3D"]}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert reused.status_code == 409 and reused.json()["code"] == "idempotency_key_reused"
    # Keys are per user: another player's same key is a different request.
    other = move(seats[1], table_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY="k-1")
    assert other.status_code == 200


@pytest.mark.django_db
def test_an_error_response_is_replayed_too(fixed_table):
    table_id, seats, _ = fixed_table
    first = move(seats[1], table_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY="early")
    assert first.status_code == 409
    move(seats[0], table_id, {"type": "play", "cards": ["3C"]})
    again = move(seats[1], table_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY="early")
    assert again.status_code == 409 and again.json() == first.json()
    assert [e["seq"] for e in seats[0].api.get(f"/api/v1/tables/{table_id}/moves").json()] == [0, 1]


@pytest.mark.django_db
def test_table_creation_is_idempotent(make_user):
    user = make_user()
    body = {"game": "pitch", "seats": 3}
    a = user.api.post("/api/v1/tables", body, format="json", HTTP_IDEMPOTENCY_KEY="create-1")
    b = user.api.post("/api/v1/tables", body, format="json", HTTP_IDEMPOTENCY_KEY="create-1")
    assert a.status_code == b.status_code == 201 and a.json()["id"] == b.json()["id"]
    assert user.api.get("/api/v1/tables").json()["count"] == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_key", [False, True])
def test_two_concurrent_submissions_for_one_decision_apply_exactly_once(fixed_table, same_key):
    table_id, seats, _ = fixed_table
    results = []
    barrier = threading.Barrier(2)

    def submit(card):
        try:
            barrier.wait()
            headers = {"HTTP_IDEMPOTENCY_KEY": "same"} if same_key else {}
            results.append(move(seats[0], table_id, {"type": "play", "cards": [card]}, **headers))
        finally:
            connection.close()

    cards = ["3C", "3C"] if same_key else ["3C", "3D"]
    threads = [threading.Thread(target=submit, args=(c,)) for c in cards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(r.status_code for r in results)
    log = seats[0].api.get(f"/api/v1/tables/{table_id}/moves").json()
    assert [e["seq"] for e in log] == [0, 1]  # the first deal's entry, then the one move
    if same_key:
        assert statuses == [200, 200] and results[0].json() == results[1].json()
    else:
        assert statuses == [200, 409]
        assert next(r for r in results if r.status_code == 409).json()["code"] == "not_your_turn"


@pytest.mark.django_db
def test_move_log_is_oldest_first_with_after_increments(fixed_table):
    table_id, seats, _ = fixed_table
    move(seats[0], table_id, {"type": "play", "cards": ["3C"]})
    move(seats[1], table_id, {"type": "pass"})
    move(seats[2], table_id, {"type": "play", "cards": ["9H"]})
    log = seats[3].api.get(f"/api/v1/tables/{table_id}/moves").json()
    # Entry 0 is the first deal, made by the start (fair deals: its commitment, here a fixed deck).
    assert [e["seq"] for e in log] == [0, 1, 2, 3]
    assert [(e["seat"], e["type"], e["by"]) for e in log] == [
        (None, "deal", "server"), (0, "play", "player"), (1, "pass", "player"), (2, "play", "player")]
    assert log[0]["fixed_deck"] is True and log[1]["cards"] == ["3C"] and "at" in log[1]
    assert [e["seq"] for e in seats[3].api.get(f"/api/v1/tables/{table_id}/moves?after=1").json()] == [2, 3]
    assert seats[3].api.get(f"/api/v1/tables/{table_id}/moves?after=x").json()["code"] == "invalid"


@pytest.mark.django_db
def test_idempotency_keys_expire_after_24_hours(fixed_table):
    from datetime import timedelta

    from django.utils import timezone

    from games import tasks
    from games.models import IdempotencyRecord

    table_id, seats, _ = fixed_table
    move(seats[0], table_id, {"type": "play", "cards": ["3C"]}, HTTP_IDEMPOTENCY_KEY="old")
    move(seats[1], table_id, {"type": "pass"}, HTTP_IDEMPOTENCY_KEY="new")
    IdempotencyRecord.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=25))
    assert tasks.purge_idempotency_keys() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]
    # An expired key is a new request again (here: no longer seat 0's turn).
    r = move(seats[0], table_id, {"type": "play", "cards": ["3C"]}, HTTP_IDEMPOTENCY_KEY="old")
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
