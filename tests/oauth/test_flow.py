"""docs/api.md, "Third-party apps": the authorization code grant with PKCE (S256 only) from the
login form to the API and back (refresh with rotation, revocation), and every refusal the RFCs
ask for (docs/apps.md)."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model
from rest_framework.test import APIClient

from accounts import scopes
from tests.oauth.conftest import (
    REDIRECT,
    approve,
    authorize_url,
    consent_form,
    exchange,
    pkce,
    redirect_params,
)

pytestmark = pytest.mark.django_db
AccessToken, RefreshToken, Grant = get_access_token_model(), get_refresh_token_model(), get_grant_model()


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def refresh(client, app, token: str):
    return client.post("/oauth/token", {"grant_type": "refresh_token", "refresh_token": token,
                                        "client_id": app.client_id})


def test_login_consent_code_token_api_refresh_and_revoke(make_user, app):
    user = make_user()
    browser = Client(enforce_csrf_checks=True)
    verifier, challenge = pkce()
    url = authorize_url(app, challenge)

    # Nobody signed in: the login form first, coming back to the same request.
    to_login = browser.get(url)
    assert to_login.status_code == 302 and to_login["Location"].startswith("/oauth/login?next=")
    form = browser.get(to_login["Location"])
    assert form.status_code == 200 and b'name="password"' in form.content and b"play/play.css" in form.content
    csrf = browser.cookies["csrftoken"].value
    refused = browser.post("/oauth/login", {"username": user.username, "password": "correct horse battery",
                                            "next": url})
    assert refused.status_code == 403  # no CSRF token: the login form is CSRF protected
    logged_in = browser.post("/oauth/login", {"username": user.username, "password": "correct horse battery",
                                              "next": url, "csrfmiddlewaretoken": csrf})
    assert logged_in.status_code == 302 and logged_in["Location"] == url

    # The consent page names the app and each scope in words; approving needs the CSRF token.
    page = browser.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Score sheet" in text and user.username in text
    assert scopes.SCOPES["read"] in text and scopes.SCOPES["play"] in text and scopes.SCOPES["host"] not in text
    # Deny must not send `allow` at all: DOT's field reads any value of it ("0" too) as yes.
    assert re.search(r'<button[^>]*name="allow"[^>]*>Approve</button>', text)
    assert re.search(r'<button[^>]*name="deny"[^>]*>Deny</button>', text)
    assert browser.post("/oauth/authorize", consent_form(app, challenge)).status_code == 403
    csrf = browser.cookies["csrftoken"].value  # rotated at login
    back = redirect_params(browser.post("/oauth/authorize", {**consent_form(app, challenge),
                                                             "csrfmiddlewaretoken": csrf}))
    assert back["state"] == "st-1" and back["code"]
    assert "error" not in back

    # The exchange: a bearer token for an hour, with the scopes approved, and a refresh token.
    issued = exchange(Client(), app, back["code"], verifier)
    assert issued.status_code == 200, issued.content
    body = issued.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600 and body["scope"] == "read play"
    # Stored hashed: the database has the checksum, never the token.
    row = AccessToken.objects.get(user=user)
    assert row.token == "" and body["access_token"] not in str(row.__dict__)

    # The API takes it, within its scopes: `read` and `play`, not `host`.
    api = bearer(body["access_token"])
    assert api.get("/api/v1/me").json()["username"] == user.username
    made = api.post("/api/v1/tables", {"game": "president", "seats": 4}, format="json")
    assert made.status_code == 403 and made.json()["code"] == "insufficient_scope"
    assert made.json()["detail"] == {"required": "host"}

    # Refresh: a new pair; the old refresh token and the old access token are dead.
    renewed = refresh(Client(), app, body["refresh_token"])
    assert renewed.status_code == 200, renewed.content
    fresh = renewed.json()
    assert fresh["refresh_token"] != body["refresh_token"] and fresh["access_token"] != body["access_token"]
    assert fresh["scope"] == "read play"
    assert api.get("/api/v1/me").status_code == 401
    new_api = bearer(fresh["access_token"])
    assert new_api.get("/api/v1/me").status_code == 200

    # Revocation (RFC 7009): refused at once, cached entry included.
    assert Client().post("/oauth/revoke", {"token": fresh["access_token"], "client_id": app.client_id}).status_code == 200
    gone = new_api.get("/api/v1/me")
    assert gone.status_code == 401 and gone.json()["code"] == "not_authenticated"


def test_a_reused_refresh_token_is_refused_and_revokes_its_family(app, tokens_for):
    first = tokens_for()
    second = refresh(Client(), app, first["refresh_token"]).json()
    assert bearer(second["access_token"]).get("/api/v1/me").status_code == 200  # and cached
    replayed = refresh(Client(), app, first["refresh_token"])
    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
    # The whole family: the token the thief or the app holds now is refused too.
    assert bearer(second["access_token"]).get("/api/v1/me").status_code == 401
    assert refresh(Client(), app, second["refresh_token"]).json()["error"] == "invalid_grant"


def test_revoking_the_refresh_token_ends_the_access_token_too(app, tokens_for):
    pair = tokens_for()
    api = bearer(pair["access_token"])
    assert api.get("/api/v1/me").status_code == 200
    assert Client().post("/oauth/revoke", {"token": pair["refresh_token"], "token_type_hint": "refresh_token",
                                           "client_id": app.client_id}).status_code == 200
    assert api.get("/api/v1/me").status_code == 401
    assert refresh(Client(), app, pair["refresh_token"]).json()["error"] == "invalid_grant"


def test_each_scope_of_the_token_is_enforced(tokens_for):
    host = bearer(tokens_for("read host")["access_token"])
    made = host.post("/api/v1/tables", {"game": "president", "seats": 4}, format="json")
    assert made.status_code == 201, made.content
    table = made.json()["id"]
    reader = bearer(tokens_for("read")["access_token"])
    assert reader.get(f"/api/v1/tables/{table}/state").status_code == 200
    for path, needed in ((f"/api/v1/tables/{table}/join", "play"), (f"/api/v1/tables/{table}/bots", "host"),
                         ("/api/v1/tables", "host")):
        refused = reader.post(path, {"game": "president", "seats": 4, "level": "easy"}, format="json")
        assert refused.status_code == 403 and refused.json() == {
            "code": "insufficient_scope", "message": f"this needs the {needed!r} scope", "detail": {"required": needed}}
    assert host.post(f"/api/v1/tables/{table}/bots", {"level": "easy"}, format="json").status_code == 200
    # Tokens are managed with a first-party login only.
    assert host.get("/api/v1/me/tokens").status_code == 403


def test_pkce_is_required_and_only_s256(signed_in, app):
    _, client = signed_in
    _, challenge = pkce()
    missing = redirect_params(client.get(authorize_url(app, None)))
    assert missing["error"] == "invalid_request" and missing["state"] == "st-1"
    assert "code" not in missing
    plain = redirect_params(client.get(authorize_url(app, challenge, method="plain")))
    assert plain["error"] == "invalid_request" and "code" not in plain
    # The form's hidden fields come back from the browser: a plain challenge there is refused too.
    tampered = client.post("/oauth/authorize", {**consent_form(app, challenge), "code_challenge_method": "plain"})
    assert redirect_params(tampered)["error"] == "invalid_request"
    dropped = client.post("/oauth/authorize", {**consent_form(app, challenge), "code_challenge": ""})
    assert redirect_params(dropped)["error"] == "invalid_request"
    assert Grant.objects.count() == 0


def test_a_wrong_verifier_or_redirect_uri_is_invalid_grant_and_issues_nothing(signed_in, app):
    _, client = signed_in
    verifier, challenge = pkce()
    code = approve(client, app, challenge)["code"]
    wrong = exchange(Client(), app, code, pkce()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    elsewhere = exchange(Client(), app, code, verifier, redirect_uri="https://app.example/other")
    assert elsewhere.status_code == 400 and elsewhere.json()["error"] == "invalid_grant"
    no_verifier = Client().post("/oauth/token", {"grant_type": "authorization_code", "code": code,
                                                 "redirect_uri": REDIRECT, "client_id": app.client_id})
    assert no_verifier.status_code == 400 and no_verifier.json()["error"] == "invalid_request"
    assert AccessToken.objects.count() == 0 and RefreshToken.objects.count() == 0


def test_a_code_is_exchanged_once(signed_in, app):
    _, client = signed_in
    verifier, challenge = pkce()
    code = approve(client, app, challenge)["code"]
    assert exchange(Client(), app, code, verifier).status_code == 200
    again = exchange(Client(), app, code, verifier)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert AccessToken.objects.count() == 1 and RefreshToken.objects.count() == 1


@pytest.mark.parametrize("who", ["signed in", "anonymous"])
@pytest.mark.parametrize("change", [{"redirect_uri": "https://evil.example/callback"},
                                    {"redirect_uri": REDIRECT + "/deeper"}, {"client_id": "no-such-app"}])
def test_a_bad_redirect_uri_or_client_id_is_an_error_page_never_a_redirect(who, change, signed_in, app):
    _, client = signed_in
    if who == "anonymous":
        client = Client()
    _, challenge = pkce()
    url = authorize_url(app, challenge, redirect_uri=change.get("redirect_uri", REDIRECT))
    if "client_id" in change:
        url = url.replace(app.client_id, change["client_id"])
    page = client.get(url)
    assert page.status_code == 400 and not page.has_header("Location")
    assert b"cannot be used" in page.content and b"play/play.css" in page.content
    if who == "signed in":  # nor after a consent form posted with it (Approve or Deny)
        for allow in (True, False):
            form = {**consent_form(app, challenge, allow=allow), **change}
            posted = client.post("/oauth/authorize", form)
            assert posted.status_code == 400 and not posted.has_header("Location")
    assert Grant.objects.count() == 0


def test_an_unknown_scope_is_invalid_scope(signed_in, app):
    _, client = signed_in
    _, challenge = pkce()
    for who in (client, Client()):  # before the login form too
        back = redirect_params(who.get(authorize_url(app, challenge, scope="read admin")))
        assert back["error"] == "invalid_scope" and back["state"] == "st-1"


def test_the_bot_scope_is_refused_to_a_player(signed_in, app):
    _, client = signed_in
    _, challenge = pkce()
    back = redirect_params(client.get(authorize_url(app, challenge, scope="read bot")))
    assert back["error"] == "invalid_scope" and back["state"] == "st-1" and "code" not in back
    # Added to the consent form's hidden fields: refused the same.
    forged = redirect_params(client.post("/oauth/authorize", consent_form(app, challenge, scope="read bot")))
    assert forged["error"] == "invalid_scope" and "code" not in forged
    assert Grant.objects.count() == 0


def test_a_bot_account_grants_the_bot_scope_and_its_app_plays_with_it(signed_in, app, tokens_for, make_user):
    """docs/bots-accounts.md: a bot account's app may ask for `bot`, and its play needs it (an
    app token of the bot account with `play` only is refused its moves)."""
    user, client = signed_in
    assert client.post("/api/v1/bot/account/upgrade").json()["is_bot_account"] is True
    verifier, challenge = pkce()
    code = approve(client, app, challenge, scope="read bot")["code"]
    granted = exchange(Client(), app, code, verifier).json()
    assert granted["scope"] == "read bot"
    table = make_user().api.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json").json()["id"]
    player = bearer(tokens_for("read play")["access_token"])
    refused = player.post(f"/api/v1/tables/{table}/join", {}, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == {"required": "bot"}
    assert bearer(granted["access_token"]).post(f"/api/v1/tables/{table}/join", {}, format="json").status_code == 200
    # No app upgrades an account: the upgrade is a first-party login's.
    assert bearer(tokens_for("read play host webhooks")["access_token"]).post(
        "/api/v1/bot/account/upgrade").json()["code"] == "forbidden"


def test_deny_redirects_with_access_denied_and_the_state(signed_in, app):
    _, client = signed_in
    _, challenge = pkce()
    assert client.get(authorize_url(app, challenge, state="keep me")).status_code == 200
    back = redirect_params(client.post("/oauth/authorize", consent_form(app, challenge, state="keep me", allow=False)))
    assert back["error"] == "access_denied" and back["state"] == "keep me" and "code" not in back
    assert Grant.objects.count() == 0


def test_the_consent_page_escapes_the_app_name(signed_in):
    from accounts import services

    _, client = signed_in
    evil, _ = services.oauth_app_create(name='<script>alert("x")</script>', redirect_uris=[REDIRECT],
                                        confidential=False)
    page = client.get(authorize_url(evil, pkce()[1]))
    assert page.status_code == 200
    assert b"<script>" not in page.content and b"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.content
    # Framed by no one: the Approve button cannot be clickjacked.
    assert page["X-Frame-Options"] == "DENY"


def test_a_confidential_app_authenticates_at_the_token_endpoint(signed_in):
    import base64

    from oauth2_provider.models import get_application_model

    from accounts import services

    _, client = signed_in
    server_app, secret = services.oauth_app_create(name="Server app", redirect_uris=[REDIRECT], confidential=True)
    stored = get_application_model().objects.get(pk=server_app.pk).client_secret
    assert secret and secret not in stored and stored.startswith(("pbkdf2_", "md5$", "argon2", "bcrypt"))
    verifier, challenge = pkce()
    code = approve(client, server_app, challenge)["code"]
    anonymous = exchange(Client(), server_app, code, verifier)
    assert anonymous.status_code == 401 and anonymous.json()["error"] == "invalid_client"
    basic = base64.b64encode(f"{server_app.client_id}:{secret}".encode()).decode()
    issued = exchange(Client(), server_app, code, verifier, headers={"Authorization": f"Basic {basic}"})
    assert issued.status_code == 200, issued.content


def test_only_the_code_grant_is_offered(signed_in, app):
    _, client = signed_in
    implicit = client.get(authorize_url(app, pkce()[1], response_type="token"))
    assert redirect_params(implicit)["error"] in ("unsupported_response_type", "unauthorized_client")
    for grant in ("password", "client_credentials"):
        refused = Client().post("/oauth/token", {"grant_type": grant, "client_id": app.client_id,
                                                 "username": "x", "password": "y"})
        assert refused.status_code in (400, 401) and refused.json()["error"] in (
            "unauthorized_client", "unsupported_grant_type", "invalid_client")
    assert AccessToken.objects.count() == 0


def test_the_login_form_refuses_a_wrong_password_and_keeps_the_request(make_user, app):
    user = make_user()
    browser = Client()
    url = authorize_url(app, pkce()[1])
    wrong = browser.post("/oauth/login", {"username": user.username, "password": "nope nope", "next": url})
    assert wrong.status_code == 200 and b"did not match" in wrong.content
    assert url.replace("&", "&amp;").encode() in wrong.content  # the request waits in `next`
    assert "_auth_user_id" not in browser.session


def test_switching_account_logs_out_and_comes_back_to_the_request(signed_in, app):
    _, client = signed_in
    url = authorize_url(app, pkce()[1])
    out = client.post("/oauth/logout?next=" + quote(url, safe=""))
    assert out.status_code == 302 and out["Location"] == url
    assert client.get(url)["Location"].startswith("/oauth/login?next=")


def test_password_attempts_on_the_login_form_are_rate_limited(make_user, app, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    from config import throttling

    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {"anon": "2/min"})
    throttling.reset()
    user = make_user()
    browser = Client()
    url = authorize_url(app, pkce()[1])
    tries = [browser.post("/oauth/login", {"username": user.username, "password": f"guess {n}", "next": url})
             for n in range(3)]
    assert [t.status_code for t in tries] == [200, 200, 429]
    assert int(tries[2]["Retry-After"]) >= 1 and b"Too many attempts" in tries[2].content
    assert tries[2]["RateLimit-Remaining"] == "0"
    # Past the limit the right password is not even checked.
    right = browser.post("/oauth/login", {"username": user.username, "password": "correct horse battery", "next": url})
    assert right.status_code == 429 and "_auth_user_id" not in browser.session
    throttling.reset()


@pytest.mark.django_db(transaction=True)
def test_a_code_exchanged_twice_at_once_is_issued_once(signed_in, app):
    import threading

    from django.db import connection

    _, client = signed_in
    verifier, challenge = pkce()
    code = approve(client, app, challenge)["code"]
    start, statuses = threading.Barrier(2), []

    def exchange_once():
        try:
            start.wait()
            statuses.append(exchange(Client(), app, code, verifier).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=exchange_once) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 400]
    assert AccessToken.objects.count() == 1 and RefreshToken.objects.count() == 1
