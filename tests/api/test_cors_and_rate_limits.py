"""CORS and rate limits through the served application (config.asgi: the edge in front of
Django), as a browser app or a script sees them (api.md, "Third-party apps" and "Conventions"):

- origins in CORS_ALLOWED_ORIGINS get CORS answers on /api/ and /oauth/ paths, preflight
  included, the edge's hot paths too; other origins and other paths get none;
- throttled answers carry RateLimit-Limit/Remaining/Reset, a 429 Retry-After, in the one error
  shape; state polls have their own throttle;
- the client's address is REMOTE_ADDR unless TRUSTED_PROXIES (DRF's NUM_PROXIES) says how many
  X-Forwarded-For entries to trust: a forged header never buys a fresh quota."""

from __future__ import annotations

import json
import time

import pytest
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from config import throttling
from config.asgi import application
from tests.edge.test_paired import call

pytestmark = pytest.mark.django_db(transaction=True)
ALLOWED = "https://app.example"


@pytest.fixture
def table_id(table_of, settings):
    settings.CORS_ALLOWED_ORIGINS = [ALLOWED]
    table_id, users = table_of("president", 4)
    return str(table_id), users


@pytest.fixture
def rates(monkeypatch):
    def set_rates(**rates):
        # What production's settings give every view (the suite runs with the throttles off).
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
        monkeypatch.setattr(APIView, "throttle_classes", [throttling.AnonRateThrottle, throttling.UserRateThrottle])
        throttling.reset()
        # The throttles count in fixed windows (a minute for these rates), and a count starts
        # afresh at a window's end: a test's few requests must not straddle one.
        left = 60 - time.time() % 60
        if left < 3:
            time.sleep(left + 0.05)

    yield set_rates
    throttling.reset()


def preflight(path: str, origin: str, method: str = "POST"):
    return call(application, "OPTIONS", path, headers={
        "origin": origin, "access-control-request-method": method,
        "access-control-request-headers": "authorization, content-type, idempotency-key, if-none-match"})


def test_preflights_of_the_api_answer_allowed_origins_only(table_id):
    table, _ = table_id
    for path, method in [("/api/v1/tables", "POST"), (f"/api/v1/tables/{table}/state", "GET"),
                         (f"/api/v1/tables/{table}/moves", "POST"), (f"/api/v1/tables/{table}/events", "GET"),
                         ("/api/v1/auth/token", "POST")]:
        status, headers, _ = preflight(path, ALLOWED, method)
        fields = dict(headers)
        assert status == 200, path
        assert fields["access-control-allow-origin"] == ALLOWED, path
        assert method in fields["access-control-allow-methods"], path
        allowed = {h.strip() for h in fields["access-control-allow-headers"].split(",")}
        assert {"authorization", "content-type", "idempotency-key", "if-none-match"} <= allowed, path
        status, headers, _ = preflight(path, "https://evil.example", method)
        assert not any(name.startswith("access-control-") for name, _ in headers), path
    # Not an API path: no CORS answer even for an allowed origin.
    _, headers, _ = preflight("/play/", ALLOWED, "GET")
    assert "access-control-allow-origin" not in dict(headers)


def test_an_allowed_origin_reads_the_etag_of_a_poll_and_the_answer_of_a_refusal(table_id):
    table, users = table_id
    state = f"/api/v1/tables/{table}/state"
    status, headers, _ = call(application, "GET", state,
                              headers={"authorization": f"Bearer {users[1].token}", "origin": ALLOWED})
    fields = dict(headers)
    assert status == 200 and fields["access-control-allow-origin"] == ALLOWED
    exposed = {h.strip().lower() for h in fields["access-control-expose-headers"].split(",")}
    assert {"etag", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after"} <= exposed
    # A refusal is readable too (the browser app can show the error), and in the one shape.
    status, headers, body = call(application, "GET", state, headers={"authorization": "Bearer nope", "origin": ALLOWED})
    assert status == 401 and dict(headers)["access-control-allow-origin"] == ALLOWED
    assert json.loads(body)["code"] == "not_authenticated"


def login(headers: dict | None = None):
    body = json.dumps({"username": "nobody", "password": "wrong"}).encode()
    return call(application, "POST", "/api/v1/auth/token", headers=headers, body=body)


def test_a_throttled_login_carries_the_ratelimit_fields_and_the_429_retry_after(db, rates):
    rates(anon="3/min")
    seen = []
    for _ in range(3):
        status, headers, _ = login()
        fields = dict(headers)
        assert status == 400
        seen.append(fields["ratelimit-remaining"])
        assert fields["ratelimit-limit"] == "3" and 1 <= int(fields["ratelimit-reset"]) <= 61
    assert seen == ["2", "1", "0"]
    status, headers, body = login()
    fields = dict(headers)
    assert status == 429 and json.loads(body)["code"] == "throttled"
    assert fields["ratelimit-remaining"] == "0" and 1 <= int(fields["retry-after"]) <= 61


def test_a_forged_forwarded_for_buys_no_fresh_quota(db, rates):
    rates(anon="2/min")
    statuses = [login({"x-forwarded-for": f"203.0.113.{i}"})[0] for i in range(4)]
    assert statuses == [400, 400, 429, 429]


def test_trusted_proxies_name_the_client_by_its_forwarded_entry(db, rates, settings):
    # One proxy in front (TRUSTED_PROXIES=1): the entry it appended is the client's address; what
    # the client itself put before it is not trusted.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    rates(anon="2/min")
    first = [login({"x-forwarded-for": f"forged-{i}, 198.51.100.7"})[0] for i in range(3)]
    assert first == [400, 400, 429]  # the same client whatever it forges
    assert login({"x-forwarded-for": "198.51.100.8"})[0] == 400  # another client, its own quota


def test_state_polls_have_a_throttle_of_their_own(table_id, rates):
    table, users = table_id
    rates(polls="3/min", user="1000/min")
    state = f"/api/v1/tables/{table}/state"
    answers = [call(application, "GET", state, headers={"authorization": f"Token {users[1].token}"})
               for _ in range(4)]
    assert [a[0] for a in answers] == [200, 200, 200, 429]
    assert [dict(a[1])["ratelimit-remaining"] for a in answers] == ["2", "1", "0", "0"]
    status, headers, body = answers[-1]
    assert json.loads(body)["code"] == "throttled" and int(dict(headers)["retry-after"]) >= 1
    # Another user polls on.
    assert call(application, "GET", state, headers={"authorization": f"Token {users[2].token}"})[0] == 200
