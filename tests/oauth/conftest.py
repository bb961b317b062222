"""The OAuth2 flow as a browser and an app run it (docs/apps.md): helpers and an app."""

from __future__ import annotations

import base64
import hashlib
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

REDIRECT = "https://app.example/callback"


def pkce() -> tuple[str, str]:
    """(verifier, S256 challenge) as RFC 7636 makes them."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(app, challenge: str | None, *, scope="read play", state="st-1", redirect_uri=REDIRECT,
                  method="S256", **extra) -> str:
    query = {"response_type": "code", "client_id": app.client_id, "redirect_uri": redirect_uri, "scope": scope,
             "state": state, **extra}
    if challenge is not None:
        query.update(code_challenge=challenge, code_challenge_method=method)
    return "/oauth/authorize?" + urlencode(query)


def redirect_params(response) -> dict:
    """The query of a redirect back to the app (asserting it goes there)."""
    assert response.status_code == 302, response.content[:500]
    location = response["Location"]
    assert location.startswith(REDIRECT + "?"), location
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def consent_form(app, challenge: str, *, scope="read play", state="st-1", redirect_uri=REDIRECT,
                 allow: bool = True) -> dict:
    """The consent page's form as the browser posts it: its hidden fields and the button pressed
    (Approve sends `allow`, Deny sends `deny`)."""
    return {"client_id": app.client_id, "redirect_uri": redirect_uri, "response_type": "code", "scope": scope,
            "state": state, "code_challenge": challenge, "code_challenge_method": "S256",
            **({"allow": "1"} if allow else {"deny": "1"})}


def approve(client, app, challenge: str, **kwargs) -> dict:
    """Open the consent page and approve it: the redirect's parameters (code, state)."""
    page = client.get(authorize_url(app, challenge, **{k: v for k, v in kwargs.items() if k != "allow"}))
    assert page.status_code == 200, page.content[:500]
    return redirect_params(client.post("/oauth/authorize", consent_form(app, challenge, **kwargs)))


def exchange(client, app, code: str, verifier: str, redirect_uri=REDIRECT, headers=None):
    return client.post("/oauth/token", {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
                                        "client_id": app.client_id, "code_verifier": verifier}, headers=headers)


@pytest.fixture
def app(db):
    from accounts import services

    made, _ = services.oauth_app_create(name="Score sheet", redirect_uris=[REDIRECT], confidential=False)
    return made


@pytest.fixture
def signed_in(make_user, client):
    """A user and the browser (Django's test client) with their session."""
    user = make_user()
    client.force_login(user)
    return user, client


@pytest.fixture
def tokens_for(signed_in, app):
    """tokens_for(scope) -> the token endpoint's JSON for a fresh approval."""

    def issue(scope="read play"):
        _, client = signed_in
        verifier, challenge = pkce()
        code = approve(client, app, challenge, scope=scope)["code"]
        response = exchange(client, app, code, verifier)
        assert response.status_code == 200, response.content
        return response.json()

    return issue
