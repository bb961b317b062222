"""The OAuth2 endpoints around the flow (docs/apps.md): the discovery document, CORS, the host
checks, the access log and every other log line (no code, verifier, secret or token), the
edge's fast paths with an app's token, the admin's page for apps and `manage.py oauth_app`."""

from __future__ import annotations

import json
import logging
from io import StringIO

import pytest
from django.contrib.auth.hashers import check_password
from django.core.management import CommandError, call_command
from django.test import Client
from oauth2_provider.models import get_application_model

from accounts import scopes, tokens
from config import logs
from config.asgi import application
from tests.edge.test_paired import call
from tests.edge.test_paired import table as table  # noqa: F401 - the fixture
from tests.oauth.conftest import REDIRECT, approve, authorize_url, pkce

Application = get_application_model()


@pytest.mark.django_db
def test_the_discovery_document_lists_the_endpoints_and_what_they_accept(client):
    answer = client.get("/.well-known/oauth-authorization-server")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    doc = answer.json()
    base = "http://testserver"
    assert doc["issuer"] == base
    assert doc["authorization_endpoint"] == f"{base}/oauth/authorize"
    assert doc["token_endpoint"] == f"{base}/oauth/token"
    assert doc["revocation_endpoint"] == f"{base}/oauth/revoke"
    assert doc["scopes_supported"] == sorted(scopes.SCOPES)
    assert doc["response_types_supported"] == ["code"]
    assert doc["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert doc["code_challenge_methods_supported"] == ["S256"]
    assert doc["token_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post", "none"]
    assert "introspection_endpoint" not in doc and "registration_endpoint" not in doc
    # Read only: another method is 405, not a CSRF page's 403.
    posted = Client(enforce_csrf_checks=True).post("/.well-known/oauth-authorization-server")
    assert posted.status_code == 405 and "GET" in posted["Allow"]
    # CORS follows CORS_ALLOWED_ORIGINS here too (none by default), not DOT's `*`.
    assert not client.get("/.well-known/oauth-authorization-server",
                          headers={"Origin": "https://other.example"}).has_header("Access-Control-Allow-Origin")


@pytest.mark.django_db
def test_cors_answers_an_allowed_origin_on_oauth_paths_and_no_other(client, settings, app):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example"]
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    allowed = client.options("/oauth/token", headers={"Origin": "https://app.example", **preflight})
    assert allowed.status_code == 200
    assert allowed["Access-Control-Allow-Origin"] == "https://app.example"
    assert "POST" in allowed["Access-Control-Allow-Methods"]
    assert "content-type" in allowed["Access-Control-Allow-Headers"]
    other = client.options("/oauth/token", headers={"Origin": "https://other.example", **preflight})
    assert not other.has_header("Access-Control-Allow-Origin")
    # The answers themselves, an error included (a browser app must read the RFC's error JSON).
    refused = client.post("/oauth/token", {"grant_type": "authorization_code", "code": "nope",
                                           "client_id": app.client_id}, headers={"Origin": "https://app.example"})
    assert refused.status_code == 400 and refused["Access-Control-Allow-Origin"] == "https://app.example"
    assert not client.post("/oauth/revoke", {"token": "nope", "client_id": app.client_id},
                           headers={"Origin": "https://other.example"}).has_header("Access-Control-Allow-Origin")
    doc = client.get("/.well-known/oauth-authorization-server", headers={"Origin": "https://app.example"})
    assert doc["Access-Control-Allow-Origin"] == "https://app.example"


@pytest.mark.django_db
def test_djangos_host_check_applies_to_the_oauth_paths(client):
    assert client.post("/oauth/token", {}, headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/.well-known/oauth-authorization-server", headers={"Host": "evil.example"}).status_code == 400


@pytest.mark.django_db(transaction=True)
def test_an_apps_token_on_the_edge_and_no_secret_in_any_log_line(table, caplog):  # noqa: F811
    """Through config.asgi's application (the edge, then Django), with every logger at DEBUG:
    the exchange, the API (the edge's own state poll and move included), refresh, a reused code
    and revocation log their lines, and none has a code, a verifier, a secret or a token."""
    from accounts import services

    table_id, users, _ = table
    player = users[1]
    app, secret = services.oauth_app_create(name="Logged app", redirect_uris=[REDIRECT], confidential=True)
    browser = Client()
    browser.force_login(player)
    verifier, challenge = pkce()
    with caplog.at_level(logging.DEBUG):
        code = approve(browser, app, challenge, scope="read")["code"]
        form = "&".join(f"{k}={v}" for k, v in {
            "grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT, "client_id": app.client_id,
            "client_secret": secret, "code_verifier": verifier}.items()).encode()
        urlencoded = {"content-type": "application/x-www-form-urlencoded"}
        status, _, body = call(application, "POST", "/oauth/token", headers=urlencoded, body=form)
        assert status == 200, body
        issued = json.loads(body)
        again, _, _ = call(application, "POST", "/oauth/token", headers=urlencoded, body=form)
        assert again == 400
        bearer = {"authorization": f"Bearer {issued['access_token']}"}
        tokens.clear()
        assert call(application, "GET", f"/api/v1/tables/{table_id}/state", headers=bearer)[0] == 200
        assert call(application, "GET", f"/api/v1/tables/{table_id}/state", headers=bearer)[0] == 200  # cached
        move, _, answer = call(application, "POST", f"/api/v1/tables/{table_id}/moves", headers=bearer,
                               body=b'{"action": "pass"}')
        assert move == 403 and json.loads(answer)["detail"] == {"required": "play"}
        assert call(application, "GET", "/api/v1/me", headers=bearer)[0] == 200
        refreshed, _, renewed = call(application, "POST", "/oauth/token", headers=urlencoded, body=(
            f"grant_type=refresh_token&refresh_token={issued['refresh_token']}&client_id={app.client_id}"
            f"&client_secret={secret}").encode())
        assert refreshed == 200
        renewed = json.loads(renewed)
        revoke = f"token={renewed['access_token']}&client_id={app.client_id}&client_secret={secret}".encode()
        assert call(application, "POST", "/oauth/revoke", headers=urlencoded, body=revoke)[0] == 200
        new_bearer = {"authorization": f"Bearer {renewed['access_token']}"}
        assert call(application, "GET", f"/api/v1/tables/{table_id}/state", headers=new_bearer)[0] == 401
        query = f"code={code}&access_token={issued['access_token']}"
        assert call(application, "GET", "/oauth/authorize", query=query)[0] == 400
    assert logs.access_drained()
    access = [r for r in caplog.records if r.name == "cardgames.access"]
    assert {r.path for r in access} >= {"/oauth/token", "/oauth/revoke", f"/api/v1/tables/{table_id}/state"}
    # What the formatters write (production's JSON lines, the text lines' message and arguments).
    formatter = logs.JsonFormatter()
    written = "\n".join(formatter.format(r) + repr(r.args) for r in caplog.records)
    assert "Bad Request: /oauth/token" in written  # the lines are there, without what follows
    for secret_value in (code, verifier, secret, issued["access_token"], issued["refresh_token"],
                         renewed["access_token"], renewed["refresh_token"]):
        assert secret_value not in written


@pytest.fixture
def operator(client, db):
    from accounts.models import User

    client.force_login(User.objects.create_superuser("operator", "op@example.com", "operator password"))
    return client


def test_operators_register_apps_in_the_admin_with_the_secret_hashed(operator):
    form = operator.get("/admin/oauth2_provider/application/add/")
    assert form.status_code == 200
    page = form.content.decode()
    assert 'name="hash_client_secret"' not in page and 'name="allowed_origins"' not in page
    assert 'value="authorization-code"' in page and 'value="password"' not in page and 'value="implicit"' not in page
    made = operator.post("/admin/oauth2_provider/application/add/", {
        "client_id": "admin-made-app", "client_secret": "a-secret-the-operator-copied-once-0123456789",
        "client_type": "confidential", "authorization_grant_type": "authorization-code",
        "redirect_uris": REDIRECT, "post_logout_redirect_uris": "", "name": "Admin made", "user": ""})
    assert made.status_code == 302, made.content.decode()[-3000:]
    app = Application.objects.get(client_id="admin-made-app")
    assert app.client_secret != "a-secret-the-operator-copied-once-0123456789"
    assert check_password("a-secret-the-operator-copied-once-0123456789", app.client_secret)
    listed = operator.get("/admin/oauth2_provider/application/")
    assert listed.status_code == 200 and b"Admin made" in listed.content
    assert b"a-secret-the-operator-copied-once" not in operator.get(
        f"/admin/oauth2_provider/application/{app.pk}/change/").content


def test_oauth_app_prints_the_client_id_and_the_secret_once(db):
    out, err = StringIO(), StringIO()
    call_command("oauth_app", "--name", "CLI app", "--redirect-uri", REDIRECT, "--redirect-uri",
                 "http://127.0.0.1:8765/callback", "--confidential", stdout=out, stderr=err)
    lines = dict(line.split(": ", 1) for line in out.getvalue().splitlines())
    app = Application.objects.get(client_id=lines["client_id"])
    assert app.name == "CLI app" and app.client_type == "confidential"
    assert app.redirect_uris.split() == [REDIRECT, "http://127.0.0.1:8765/callback"]
    assert app.authorization_grant_type == "authorization-code" and not app.skip_authorization
    assert lines["client_secret"] != app.client_secret and check_password(lines["client_secret"], app.client_secret)
    assert "shown this once" in err.getvalue()

    out = StringIO()
    call_command("oauth_app", "--name", "SPA", "--redirect-uri", REDIRECT, "--public", "--json", stdout=out)
    printed = json.loads(out.getvalue())
    assert printed["client_secret"] is None
    assert Application.objects.get(client_id=printed["client_id"]).client_type == "public"

    with pytest.raises(CommandError, match="redirect_uris"):
        call_command("oauth_app", "--name", "Bad", "--redirect-uri", "ftp://x.example/cb", "--public")
    with pytest.raises(CommandError):
        call_command("oauth_app", "--name", "Neither", "--redirect-uri", REDIRECT)


@pytest.mark.django_db
def test_an_authorize_request_with_a_bad_response_type_never_issues_a_code(signed_in, app):
    _, client = signed_in
    answer = client.get(authorize_url(app, pkce()[1], response_type="token"))
    assert answer.status_code == 302 and "code=" not in answer["Location"] and "error=" in answer["Location"]


@pytest.mark.django_db
def test_the_schema_describes_the_oauth2_scheme_its_scopes_and_the_discovery_document(client):
    schema = client.get("/api/schema/?format=json").json()
    scheme = schema["components"]["securitySchemes"]["oauth2"]
    flow = scheme["flows"]["authorizationCode"]
    assert scheme["type"] == "oauth2" and flow["authorizationUrl"] == "/oauth/authorize"
    assert flow["tokenUrl"] == flow["refreshUrl"] == "/oauth/token" and flow["scopes"] == scopes.SCOPES
    operations = {op["operationId"]: op for path in schema["paths"].values() for op in path.values()}
    # Each operation names the scope an app's token needs for it.
    assert {"oauth2": ["host"]} in operations["tables_create"]["security"]
    assert {"oauth2": ["read"]} in operations["me"]["security"]
    assert {"oauth2": ["play"]} in operations["tables_moves_create"]["security"]
    assert {"oauth2": ["webhooks"]} in operations["me_webhooks_list"]["security"]
    assert all("oauth2" not in alternative for alternative in operations["me_tokens_list"]["security"])
    discovery = schema["paths"]["/.well-known/oauth-authorization-server"]["get"]
    assert discovery["security"] == [] and "OAuthServerMetadata" in json.dumps(discovery["responses"])
    assert {"issuer", "token_endpoint", "scopes_supported"} <= set(
        schema["components"]["schemas"]["OAuthServerMetadata"]["required"])
