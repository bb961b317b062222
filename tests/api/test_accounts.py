"""api.md, Accounts: register, token, me, me/tables, deactivation."""

import pytest


@pytest.mark.django_db
def test_register_returns_id_username_and_a_working_token(anon):
    r = anon.post("/api/v1/auth/register", {"username": "alice", "password": "a long passphrase"}, format="json")
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"id", "username", "token"} and body["username"] == "alice"
    anon.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    me = anon.get("/api/v1/me").json()
    assert me["id"] == body["id"] and me["username"] == "alice" and me["is_staff"] is False
    assert me["stats"]["tables_played"] == 0


@pytest.mark.django_db
def test_duplicate_username_is_invalid_with_the_field_named(anon):
    anon.post("/api/v1/auth/register", {"username": "bob", "password": "a long passphrase"}, format="json")
    r = anon.post("/api/v1/auth/register", {"username": "BOB", "password": "another passphrase"}, format="json")
    assert r.status_code == 400
    assert r.json()["code"] == "invalid"
    assert "username" in r.json()["detail"]["fields"]


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["username", "password"])
def test_a_number_is_not_a_string_on_register_or_login(anon, field):
    """The schema says string; DRF's CharField would take `0` for "0" (found by schemathesis)."""
    body = {"username": "dora", "password": "a long passphrase"}
    r = anon.post("/api/v1/auth/register", {**body, field: 0}, format="json")
    assert r.status_code == 400 and field in r.json()["detail"]["fields"]
    assert anon.post("/api/v1/auth/register", body, format="json").status_code == 201
    r = anon.post("/api/v1/auth/token", {**body, field: 0}, format="json")
    assert r.status_code == 400 and field in r.json()["detail"]["fields"]


@pytest.mark.django_db
def test_weak_password_and_missing_fields_are_invalid(anon):
    r = anon.post("/api/v1/auth/register", {"username": "carol", "password": "123"}, format="json")
    assert r.status_code == 400 and "password" in r.json()["detail"]["fields"]
    r = anon.post("/api/v1/auth/register", {}, format="json")
    assert r.status_code == 400 and {"username", "password"} <= set(r.json()["detail"]["fields"])


@pytest.mark.django_db
def test_token_for_good_credentials_and_invalid_for_bad(anon, make_user):
    user = make_user(username="dave")
    r = anon.post("/api/v1/auth/token", {"username": "dave", "password": "correct horse battery"}, format="json")
    # Each login is a token of its own (only its digest is stored: the first cannot be shown again).
    assert r.status_code == 200 and r.json()["token"] != user.token
    for token in (r.json()["token"], user.token):
        anon.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert anon.get("/api/v1/me").json()["username"] == "dave"
    anon.credentials()
    r = anon.post("/api/v1/auth/token", {"username": "dave", "password": "wrong"}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert "correct horse" not in r.content.decode()


@pytest.mark.django_db
def test_no_token_or_bad_token_is_401_not_authenticated(anon):
    for client_token in (None, "Token nope"):
        if client_token:
            anon.credentials(HTTP_AUTHORIZATION=client_token)
        for path in ("/api/v1/me", "/api/v1/tables", "/api/v1/me/tables"):
            r = anon.get(path)
            assert r.status_code == 401, path
            assert r.json()["code"] == "not_authenticated"
            assert set(r.json()) == {"code", "message", "detail"}


@pytest.mark.django_db
def test_deactivated_user_gets_401_everywhere(make_user):
    user = make_user()
    user.is_active = False
    user.save()
    assert user.api.get("/api/v1/me").status_code == 401
    r = user.api.post("/api/v1/tables", {"game": "president", "seats": 4}, format="json")
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


@pytest.mark.django_db
def test_me_tables_lists_newest_first_with_your_turn_and_deadline(table_of, make_user):
    table_id, users = table_of("president", 4, first_dealer=3, seed=5)
    host = users[0]
    second = host.api.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json").json()["id"]
    host.api.post(f"/api/v1/tables/{table_id}/start")
    rows = host.api.get("/api/v1/me/tables").json()
    assert [r["id"] for r in rows] == [second, table_id]
    started = rows[1]
    # Dealer 3: the player on the dealer's left, seat 0, leads (P-4.1).
    assert started["your_turn"] is True and started["deadline"] is not None
    assert rows[0]["your_turn"] is False
    other = users[1].api.get("/api/v1/me/tables").json()
    assert [r["id"] for r in other] == [table_id] and other[0]["your_turn"] is False
    assert make_user().api.get("/api/v1/me/tables").json() == []
