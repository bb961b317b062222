"""Hostile input (docs/reliability.md) gets a 4xx in the one error shape
`{code, message, detail}`, never a 500 or one of Django's HTML pages."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import AsyncClient, override_settings

from tests.api.helpers import move

SHAPE = {"code", "message", "detail"}


def nested(depth: int) -> str:
    """A JSON body nested `depth` arrays deep inside an object: about 2 KB at depth 1,000."""
    return '{"username": ' + "[" * depth + "]" * depth + ', "password": "x"}'


def asgi(request):
    """Run one AsyncClient request, then close the connections its worker thread opened (an
    open one keeps PostgreSQL from dropping the test database)."""

    async def run():
        try:
            return await request
        finally:
            await sync_to_async(connections.close_all)()

    return asyncio.run(run())


def assert_shape(response, status: int, code: str):
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == SHAPE and body["code"] == code
    return body


# 18.2: deeply nested JSON


@pytest.mark.django_db
def test_a_body_nested_a_thousand_deep_is_400_invalid_on_register(anon):
    body = nested(1000)
    assert 1900 < len(body) < 2200
    response = anon.post("/api/v1/auth/register", body, content_type="application/json")
    assert_shape(response, 400, "invalid")
    assert "nested" in response.json()["message"]


@pytest.mark.django_db
def test_a_body_nested_a_thousand_deep_is_400_invalid_on_a_move(table_of):
    table_id, users = table_of("president", 4)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    before = users[0].api.get(f"/api/v1/tables/{table_id}").json()["version"]
    body = '{"type": "play", "cards": ' + "[" * 1000 + "]" * 1000 + "}"
    response = users[0].api.post(f"/api/v1/tables/{table_id}/moves", body, content_type="application/json")
    assert_shape(response, 400, "invalid")
    assert users[0].api.get(f"/api/v1/tables/{table_id}").json()["version"] == before


@pytest.mark.django_db
def test_nesting_below_the_recursion_limit_but_over_the_depth_limit_is_refused_too(anon):
    # 200 levels parse without RecursionError, yet would recurse through the serializers and
    # the idempotency hash: the parser's own limit refuses them.
    assert_shape(anon.post("/api/v1/auth/register", nested(200), content_type="application/json"), 400, "invalid")


@pytest.mark.django_db
def test_a_house_rule_vote_body_is_well_within_the_depth_limit():
    from config.parsers import MAX_JSON_DEPTH, json_depth_exceeds

    vote = {"kind": "modify", "rule": {"when": {"event": "play", "ranks": ["7"]}, "then": [{"effect": "draw"}]}}
    assert not json_depth_exceeds(vote, MAX_JSON_DEPTH)
    assert json_depth_exceeds(json.loads(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)
    assert not json_depth_exceeds(json.loads(nested(MAX_JSON_DEPTH - 1)), MAX_JSON_DEPTH)


@pytest.mark.django_db
def test_an_integer_of_five_thousand_digits_is_400_not_500(anon):
    body = '{"username": ' + "9" * 5000 + ', "password": "x"}'
    assert_shape(anon.post("/api/v1/auth/register", body, content_type="application/json"), 400, "invalid")


@pytest.mark.django_db
def test_form_bodies_are_refused_in_the_error_shape(anon):
    response = anon.post("/api/v1/auth/register", "username=a&password=b", content_type="application/x-www-form-urlencoded")
    assert_shape(response, 415, "invalid")


# 18.3: oversized or malformed If-None-Match


@pytest.mark.django_db
@pytest.mark.parametrize(
    "etag",
    ['"v' + "1" * 4301 + '"', '"v' + "9" * 20 + '"', "W/" * 5000, '"v"', '"v-1"', '"v1.5"', '"x1"', ", " * 3000],
)
def test_a_malformed_or_oversized_etag_is_simply_not_a_match(started, etag):
    table_id, seats = started
    response = seats[1].api.get(f"/api/v1/tables/{table_id}/state", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and response.json()["version"] >= 1


@pytest.mark.django_db
def test_a_good_etag_among_bad_ones_still_matches(started):
    table_id, seats = started
    etag = seats[1].api.get(f"/api/v1/tables/{table_id}/state")["ETag"]
    response = seats[1].api.get(f"/api/v1/tables/{table_id}/state", HTTP_IF_NONE_MATCH=f'"v{"1" * 30}", W/{etag}')
    assert response.status_code == 304


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_with_an_oversized_etag_waits_on_the_current_version(started):
    table_id, seats = started
    response = asgi(
        AsyncClient().get(
            f"/api/v1/tables/{table_id}/state?wait=0.2",
            AUTHORIZATION=f"Token {seats[1].token}",
            IF_NONE_MATCH='"v' + "7" * 5000 + '"',
        )
    )
    assert response.status_code == 200


# 18.6: the body size limit, /state's 405, Django's own 404/500 under /api/


@pytest.mark.django_db
@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_body_over_the_size_limit_is_413_in_the_error_shape(anon):
    body = json.dumps({"username": "x" * 2000, "password": "long enough password"})
    body_json = assert_shape(anon.post("/api/v1/auth/register", body, content_type="application/json"), 413, "too_large")
    assert body_json["detail"] == {"max_bytes": 1000}


@pytest.mark.django_db(transaction=True)
@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_a_body_over_the_size_limit_is_413_under_asgi_too(started):
    table_id, seats = started
    body = json.dumps({"type": "play", "cards": ["3C"] * 400})
    response = asgi(
        AsyncClient().post(
            f"/api/v1/tables/{table_id}/moves", body, content_type="application/json", AUTHORIZATION=f"Token {seats[0].token}"
        )
    )
    assert_shape(response, 413, "too_large")


def test_the_size_limit_is_a_setting_with_room_for_every_real_body(settings):
    # The largest real body is a staff deck or a Rule Vote with a house rule: well under 8 KB.
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE >= 64 * 1024


@pytest.mark.django_db
def test_post_to_state_is_a_json_405_with_allow(started, anon):
    table_id, seats = started
    for client in (seats[0].api, anon):
        response = client.post(f"/api/v1/tables/{table_id}/state", {}, format="json")
        assert_shape(response, 405, "method_not_allowed")
        assert response["Allow"] == "GET"


@pytest.mark.django_db
def test_post_to_state_with_a_session_and_no_csrf_token_is_still_a_json_405(started, client):
    table_id, seats = started
    csrf_client = type(client)(enforce_csrf_checks=True)
    csrf_client.force_login(seats[0])
    response = csrf_client.post(f"/api/v1/tables/{table_id}/state", "{}", content_type="application/json")
    assert_shape(response, 405, "method_not_allowed")


@pytest.mark.django_db
def test_a_method_an_api_view_lacks_is_a_json_405_with_allow(make_user):
    response = make_user().api.delete("/api/v1/games")
    assert_shape(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/nowhere", "/api/v1/tables/not-a-uuid", "/api/v1/tables/", "/api/nothing", "/api"])
def test_unknown_paths_under_api_are_json_404(anon, path):
    assert_shape(anon.get(path), 404, "not_found")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/redoc/"])
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete", "options"])
def test_the_schema_and_docs_pages_refuse_other_methods_with_a_json_405(anon, path, method):
    """The docs pages render HTML and the schema YAML, but their errors are JSON in the one
    shape like the rest of /api/ (OPTIONS on the Swagger page was a 500, the others an HTML
    405 or a YAML one)."""
    anon.raise_request_exception = False
    response = getattr(anon, method)(path)
    if method == "options" and path == "/api/schema/":
        assert response.status_code == 200  # DRF's metadata for a view that serves the schema
        return
    assert_shape(response, 405, "method_not_allowed")
    assert "GET" in response["Allow"]


@pytest.mark.django_db
def test_unknown_paths_elsewhere_keep_django_pages(anon):
    response = anon.get("/nowhere")
    assert response.status_code == 404 and not response["Content-Type"].startswith("application/json")


@pytest.mark.django_db
def test_an_unexpected_exception_under_api_is_a_json_500(make_user, monkeypatch):
    from games.api import tables as apis

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(apis.selectors, "tables_list", boom)
    user = make_user()
    user.api.raise_request_exception = False
    assert_shape(user.api.get("/api/v1/tables"), 500, "server_error")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "seats", "options", "field"),
    [
        ("president", 4, {"hands": 10**12}, "hands"),
        ("president", 4, {"hands": 101}, "hands"),
        ("president", 4, {"target_score": 10**12}, "target_score"),
        ("lopti", 2, {"rounds": 10**12}, "rounds"),
        ("lopti", 2, {"rounds": 101}, "rounds"),
    ],
)
def test_int_options_have_an_upper_bound(make_user, game, seats, options, field):
    response = make_user().api.post("/api/v1/tables", {"game": game, "seats": seats, "options": options}, format="json")
    body = assert_shape(response, 400, "invalid")
    assert field in body["detail"]["fields"]["options"]


@pytest.mark.django_db
def test_every_int_option_in_the_catalogue_is_bounded_and_the_bound_is_accepted(make_user):
    user = make_user()
    catalogue = user.api.get("/api/v1/games").json()
    checked = 0
    for game in catalogue:
        for name, option in game["options"].items():
            if option["type"] not in ("int", "number"):
                continue
            assert "minimum" in option and "maximum" in option, (game["slug"], name)
            if name in ("bot_delay", "hand_size", "face_up_count", "face_down_count") or game["slug"] == "pitch":
                continue  # bot_delay is a number; the Lopti deal-size trio is checked together; Pitch is h3's
            response = user.api.post(
                "/api/v1/tables",
                {"game": game["slug"], "seats": game["min_players"], "options": {name: option["maximum"]}},
                format="json",
            )
            assert response.status_code == 201, (game["slug"], name, response.content)
            checked += 1
    assert checked >= 3


@pytest.mark.django_db
def test_a_move_post_still_works_after_all_this(started):
    # The parser swap keeps ordinary JSON bodies working.
    table_id, seats = started
    assert move(seats[0], table_id, {"type": "play", "cards": ["3C"]}).status_code == 200
