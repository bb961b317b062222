"""api.md, Tables: creation, joining, leaving, starting, listing, and their error codes."""

import pytest

from tests.api.helpers import president_hands_deck


def create(user, **fields):
    return user.api.post("/api/v1/tables", {"game": "president", "seats": 4, **fields}, format="json")


@pytest.mark.django_db
def test_games_catalogue_lists_the_three_games_with_options(anon):
    games = anon.get("/api/v1/games").json()
    assert [g["slug"] for g in games] == ["president", "pitch", "lopti"]
    president = games[0]
    assert (president["min_players"], president["max_players"]) == (4, 7)
    assert president["options"]["target_score"]["default"] == 11
    assert president["options"]["exchange"]["choices"] == ["none", "one", "two"]
    for game in games:
        for option in game["options"].values():
            assert {"type", "default", "description"} <= set(option)


@pytest.mark.django_db
def test_create_puts_the_host_in_seat_0_and_returns_the_summary(make_user):
    host = make_user()
    r = create(host, options={"exchange": "two"}, turn_timeout=30)
    assert r.status_code == 201
    body = r.json()
    assert {"id", "game", "status", "version", "host", "seats", "options", "turn_timeout"} <= set(body)
    assert body["status"] == "open" and body["host"]["id"] == host.pk
    assert body["seats"][0]["player"]["id"] == host.pk
    assert [s["player"] for s in body["seats"][1:]] == [None, None, None]
    assert body["options"]["exchange"] == "two" and body["options"]["target_score"] == 11
    assert body["turn_timeout"] == 30
    for secret in ("seed", "deck", "first_dealer"):
        assert secret not in body


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields, field",
    [
        ({"game": "poker"}, "game"),
        ({"seats": 3}, "seats"),
        ({"seats": 8}, "seats"),
        ({"options": {"target_score": "many"}}, "options"),
        ({"options": {"no_such_option": True}}, "options"),
        ({"turn_timeout": -1}, "turn_timeout"),
        ({"turn_timeout": 7 * 24 * 3600 + 1}, "turn_timeout"),
        ({"seats": "four"}, "seats"),
    ],
)
def test_bad_creation_bodies_are_invalid_and_name_the_field(make_user, fields, field):
    r = create(make_user(), **fields)
    assert r.status_code == 400
    assert r.json()["code"] == "invalid"
    assert field in r.json()["detail"]["fields"]


@pytest.mark.django_db
@pytest.mark.parametrize("field, value", [("seed", 7), ("first_dealer", 1), ("deck", president_hands_deck()[1])])
def test_deck_first_dealer_and_seed_are_staff_only(make_user, field, value):
    r = create(make_user(), **{field: value})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert create(make_user(staff=True), **{field: value}).status_code == 201


@pytest.mark.django_db
def test_staff_deck_must_be_a_whole_deck(make_user):
    deck = president_hands_deck()[1]
    r = create(make_user(staff=True), deck=deck[:-1] + [deck[0]])
    assert r.status_code == 400 and r.json()["code"] == "invalid" and "deck" in r.json()["detail"]["fields"]


@pytest.mark.django_db
def test_same_seed_reproduces_every_deal(table_of):
    hands = []
    for _ in range(2):
        table_id, users = table_of("president", 4, seed=123456789)
        users[0].api.post(f"/api/v1/tables/{table_id}/start")
        hands.append([u.api.get(f"/api/v1/tables/{table_id}/state").json()["you"]["hand"] for u in users])
    assert hands[0] == hands[1]
    table_id, users = table_of("president", 4, seed=987654321)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    assert [u.api.get(f"/api/v1/tables/{table_id}/state").json()["you"]["hand"] for u in users] != hands[0]


@pytest.mark.django_db
def test_unknown_table_is_404_not_found_everywhere(make_user):
    user = make_user()
    missing = "00000000-0000-0000-0000-000000000000"
    for method, path in [
        ("get", ""), ("get", "/state"), ("get", "/moves"), ("post", "/join"), ("post", "/start"),
        ("post", "/leave"), ("post", "/moves"),
    ]:
        r = getattr(user.api, method)(f"/api/v1/tables/{missing}{path}", {"type": "pass"}, format="json")
        assert r.status_code == 404, path
        assert r.json()["code"] == "not_found"
    r = user.api.get("/api/v1/tables/not-a-uuid")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


@pytest.mark.django_db
def test_join_fills_seats_then_conflicts(make_user):
    host = make_user()
    table_id = create(host).json()["id"]
    second = make_user()
    r = second.api.post(f"/api/v1/tables/{table_id}/join", {"seat": 2}, format="json")
    assert r.status_code == 200 and r.json()["seats"][2]["player"]["id"] == second.pk
    assert second.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").json()["code"] == "conflict"
    taken = make_user().api.post(f"/api/v1/tables/{table_id}/join", {"seat": 2}, format="json")
    assert taken.status_code == 409 and taken.json()["code"] == "conflict"
    bad = make_user().api.post(f"/api/v1/tables/{table_id}/join", {"seat": 9}, format="json")
    assert bad.status_code == 400 and "seat" in bad.json()["detail"]["fields"]
    for _ in range(2):
        assert make_user().api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    full = make_user().api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    assert full.status_code == 409 and full.json()["code"] == "conflict"


@pytest.mark.django_db
def test_start_is_for_the_host_once_every_seat_is_filled(table_of, make_user):
    host = make_user()
    table_id = create(host).json()["id"]
    r = host.api.post(f"/api/v1/tables/{table_id}/start")
    assert r.status_code == 409 and r.json()["code"] == "conflict"
    table_id, users = table_of("president", 4)
    r = users[1].api.post(f"/api/v1/tables/{table_id}/start")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    r = users[0].api.post(f"/api/v1/tables/{table_id}/start")
    assert r.status_code == 200 and r.json()["status"] == "active"
    again = users[0].api.post(f"/api/v1/tables/{table_id}/start")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    late = make_user().api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    assert late.status_code == 409 and late.json()["code"] == "conflict"


@pytest.mark.django_db
def test_leaving_host_passes_hosting_and_an_empty_table_is_deleted(make_user):
    host, second = make_user(), make_user()
    table_id = create(host).json()["id"]
    second.api.post(f"/api/v1/tables/{table_id}/join", {"seat": 3}, format="json")
    r = host.api.post(f"/api/v1/tables/{table_id}/leave")
    assert r.status_code == 200
    assert r.json()["host"]["id"] == second.pk and r.json()["seats"][0]["player"] is None
    assert host.api.post(f"/api/v1/tables/{table_id}/leave").json()["code"] == "forbidden"
    assert second.api.post(f"/api/v1/tables/{table_id}/leave").status_code == 204
    assert second.api.get(f"/api/v1/tables/{table_id}").status_code == 404


@pytest.mark.django_db
def test_leaving_a_started_table_hands_the_seat_to_a_bot(table_of):
    table_id, users = table_of("president", 4)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    r = users[2].api.post(f"/api/v1/tables/{table_id}/leave")
    assert r.status_code == 200
    seat = next(s for s in r.json()["seats"] if s["player"]["id"] == users[2].pk)
    assert seat["is_bot"] is True
    r = users[2].api.post(f"/api/v1/tables/{table_id}/moves", {"type": "pass"}, format="json")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"


@pytest.mark.django_db
def test_list_filters_by_game_and_status_and_hides_private_tables(make_user):
    user = make_user()
    public_pres = create(user).json()["id"]
    private_pres = create(user, private=True).json()["id"]
    public_pitch = user.api.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json").json()["id"]
    listed = user.api.get("/api/v1/tables").json()
    ids = [t["id"] for t in listed["results"]]
    assert ids == [public_pitch, public_pres] and listed["count"] == 2
    assert [t["id"] for t in user.api.get("/api/v1/tables?game=president").json()["results"]] == [public_pres]
    assert user.api.get("/api/v1/tables?status=active").json()["results"] == []
    assert user.api.get("/api/v1/tables?status=bogus").json()["code"] == "invalid"
    assert len(user.api.get("/api/v1/tables?limit=1").json()["results"]) == 1
    # A private table is an invite link: anyone with the id may view and join it.
    stranger = make_user()
    assert stranger.api.get(f"/api/v1/tables/{private_pres}").status_code == 200
    assert stranger.api.post(f"/api/v1/tables/{private_pres}/join", {}, format="json").status_code == 200
