"""The edge's guard (games.edge.guard): what Django's middleware does to a request and its answer,
taken from Django's own settings and middleware, and the settings the edge was written for. A
change of MIDDLEWARE or of DRF's authentication, permission or throttle classes stops the edge
from answering anything itself (Django answers all) and fails the first test here, until the
edge is taught the new concern."""

from __future__ import annotations

import json

import pytest
from django.http import HttpResponse
from django.test import override_settings

from config.asgi import django_application
from games.edge import guard
from games.edge.app import Edge
from tests.edge.test_paired import REQUEST_ID, auth, call, reached_django
from tests.edge.test_paired import table as table  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_settings_are_the_ones_the_edge_follows(settings):
    assert guard.mismatch() == []
    assert list(settings.MIDDLEWARE) == guard.FOLLOWS["MIDDLEWARE"]
    assert settings.REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"] == guard.FOLLOWS["DEFAULT_AUTHENTICATION_CLASSES"]
    assert settings.REST_FRAMEWORK["DEFAULT_PERMISSION_CLASSES"] == guard.FOLLOWS["DEFAULT_PERMISSION_CLASSES"]


class AddsAHeader:
    """A middleware the edge does not know."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response["X-Added"] = "by a new middleware"
        return response


NEW_MIDDLEWARE = [*guard.FOLLOWS["MIDDLEWARE"], "tests.edge.test_guard.AddsAHeader"]


@pytest.mark.parametrize("change", [
    {"MIDDLEWARE": NEW_MIDDLEWARE},
    {"REST_FRAMEWORK_AUTH": ["rest_framework.authentication.BasicAuthentication", "games.edge.auth.EdgeAuthentication"]},
    {"REST_FRAMEWORK_PERMISSION": ["rest_framework.permissions.AllowAny"]},
    {"REST_FRAMEWORK_THROTTLE": ["rest_framework.throttling.ScopedRateThrottle"]},
])
def test_a_setting_the_edge_does_not_follow_sends_every_request_to_django(table, settings, change):  # noqa: F811
    table_id, users, _ = table
    if "MIDDLEWARE" in change:
        settings.MIDDLEWARE = change["MIDDLEWARE"]
    rest = dict(settings.REST_FRAMEWORK)
    for key, name in (("REST_FRAMEWORK_AUTH", "DEFAULT_AUTHENTICATION_CLASSES"),
                      ("REST_FRAMEWORK_PERMISSION", "DEFAULT_PERMISSION_CLASSES"),
                      ("REST_FRAMEWORK_THROTTLE", "DEFAULT_THROTTLE_CLASSES")):
        if key in change:
            rest[name] = change[key]
    settings.REST_FRAMEWORK = rest
    problems = guard.mismatch()
    assert len(problems) == 1
    edge = Edge(_counting)
    assert not edge.guard.serving
    reached_django.clear()
    status, _, _ = call(edge, "GET", f"/api/v1/tables/{table_id}/state", headers=auth(users[0]))
    assert reached_django == [f"/api/v1/tables/{table_id}/state"] and status in (200, 401)


async def _counting(scope, receive, send):
    reached_django.append(scope["path"])
    await django_application(scope, receive, send)


def test_the_headers_are_the_middlewares_own(settings):
    settings.X_FRAME_OPTIONS = "SAMEORIGIN"
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    settings.SECURE_HSTS_SECONDS = 3600
    built = guard.Guard()
    plain, secure = dict(built.headers(False)), dict(built.headers(True))
    assert plain["X-Frame-Options"] == "SAMEORIGIN" and plain["Referrer-Policy"] == "no-referrer"
    assert "Strict-Transport-Security" not in plain and secure["Strict-Transport-Security"] == "max-age=3600"
    # Per answer, not taken: the request id and the length.
    assert not {"X-Request-ID", "Content-Length"} & set(plain)
    # A middleware that adds a header is seen by the probe too (and stops the edge, above).
    settings.MIDDLEWARE = NEW_MIDDLEWARE
    assert dict(guard.Guard().headers(False))["X-Added"] == "by a new middleware"


def test_a_probe_answer_is_what_the_view_returns():
    assert guard._probe_view(None).status_code == guard._PROBE_STATUS and isinstance(guard._probe_view(None), HttpResponse)


def test_an_insecure_request_under_ssl_redirect_is_djangos_and_a_secure_one_the_edges(table, settings):  # noqa: F811
    table_id, users, _ = table
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 60
    # Django's middleware reads these settings when it is loaded: a handler of its own.
    from django.core.asgi import get_asgi_application

    fresh = get_asgi_application()

    async def counting(scope, receive, send):
        reached_django.append(scope["path"])
        await fresh(scope, receive, send)

    edge = Edge(counting)
    path = f"/api/v1/tables/{table_id}/state"
    reached_django.clear()
    status, headers, _ = call(edge, "GET", path, headers=auth(users[0]))
    assert status == 301 and dict(headers)["location"].startswith("https://") and reached_django == [path]
    reached_django.clear()
    status, headers, body = call(edge, "GET", path, headers={**auth(users[0]), "x-forwarded-proto": "https"})
    assert status == 200 and reached_django == [] and json.loads(body)["table"] == table_id
    assert dict(headers)["strict-transport-security"] == "max-age=60"
    assert dict(headers)["x-request-id"] == REQUEST_ID


@override_settings(ALLOWED_HOSTS=[".example.com"])
def test_hosts_are_checked_by_djangos_own_rule(table):  # noqa: F811
    table_id, users, _ = table
    edge = Edge(_counting)
    path = f"/api/v1/tables/{table_id}/state"
    for host, served in (("api.example.com", True), ("example.com:8443", True), ("evil.example", False),
                         ("api.example.com.evil", False), ("", False)):
        reached_django.clear()
        status, _, _ = call(edge, "GET", path, headers={**auth(users[0]), "host": host})
        assert (reached_django == []) == served, host
        assert (status == 200) == served, (host, status)


def test_the_edge_is_built_while_the_servers_loop_runs():
    """uvicorn imports the application inside its running event loop: the guard's probe through
    the middleware (servestatic's is async-only) must not need the loop of that thread."""
    import asyncio

    async def build():
        return Edge(django_application).guard

    built = asyncio.run(build())
    assert built.serving and dict(built.headers(False))["X-Frame-Options"]
