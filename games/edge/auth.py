"""The API's one authentication, for every path: the edge's own routes (games.edge.app) and every
DRF view (`EdgeAuthentication`, the only class in REST_FRAMEWORK's DEFAULT_AUTHENTICATION_CLASSES).

- `Authorization: Token <token>` or `Authorization: Bearer <token>` (a first-party token, a
  personal access token, an OAuth app's access token): the token's active user and its grant
  (accounts.scopes.Grant: kind and scopes), from the per-process cache (accounts.tokens), else
  one query. A malformed header, an unknown, revoked or expired token or an inactive user is a
  401 with DRF's own words.
- Otherwise the session cookie (the admin, the web client, a browser's EventSource): the
  session's active user, with the first-party grant. DRF's views check CSRF for a session's
  unsafe request, as DRF's SessionAuthentication does; the edge serves no unsafe request by
  session (Django does).
- Otherwise nobody: the view's permission (IsAuthenticated) answers 401.

The grant is what DRF's views see as `request.auth`; accounts.scopes.ScopeRequired checks it
against the operation's scope. A header with another scheme (`Basic …`) is not ours and is
ignored, as DRF's TokenAuthentication ignores it."""

from __future__ import annotations

from types import SimpleNamespace

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, SessionAuthentication

from accounts import scopes, tokens
from config.logs import note_user

KEYWORD = "Token"
SCHEMES = ("token", "bearer")


def authenticate_header() -> str:
    """The `WWW-Authenticate` of a 401."""
    return KEYWORD


def token_of(authorization: str | None) -> str | None:
    """The token in an `Authorization` header, None when the header holds none (absent, or
    another scheme); AuthenticationFailed when it is malformed."""
    if not authorization:
        return None
    parts = authorization.split()
    if not parts or parts[0].lower() not in SCHEMES:
        return None
    if len(parts) == 1:
        raise exceptions.AuthenticationFailed(_("Invalid token header. No credentials provided."))
    if len(parts) > 2:
        raise exceptions.AuthenticationFailed(_("Invalid token header. Token string should not contain spaces."))
    return parts[1]


def cached_user(authorization: str | None):
    """`authenticate`'s first step alone, for the edge on its event loop: (user, grant) when the
    token cache has the token (no database), else None (then `authenticate` decides, off the loop)."""
    try:
        key = token_of(authorization)
    except exceptions.AuthenticationFailed:
        return None
    found = None if key is None else tokens.cached(key)
    if found is not None:
        note_user(found[0].pk)
    return found


def token_user(key: str):
    """(user, grant) of a live token of an active user: the cache, else one query;
    AuthenticationFailed otherwise."""
    found = tokens.cached(key) or tokens.lookup(key)
    if found is not None:
        return found
    from accounts.models import ApiToken

    owner = ApiToken.objects.filter(digest=tokens.digest(key)).values_list("user__is_active", flat=True).first()
    if owner is False:
        raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
    raise exceptions.AuthenticationFailed(_("Invalid token."))


def authenticate(authorization: str | None, session_user=None):
    """(user, grant) of the caller, or None for nobody. `session_user`: a function that gives the
    session's user, passed only when the request carries a session cookie (so a request without
    one never touches a session). Raises AuthenticationFailed for a bad token. May query the
    database."""
    key = token_of(authorization)
    found = None
    if key is not None:
        found = token_user(key)
    elif session_user is not None:
        user = session_user()
        if user is not None and user.is_authenticated and user.is_active:
            found = user, scopes.SESSION
    if found is not None:
        note_user(found[0].pk)
    return found


def has_session_cookie(cookies: dict[str, str]) -> bool:
    return bool(cookies.get(settings.SESSION_COOKIE_NAME))


def session_of(cookies: dict[str, str]):
    """For the edge: a function giving the user of the request's session cookie, or None."""
    session_key = cookies.get(settings.SESSION_COOKIE_NAME)
    if not session_key:
        return None

    def user():
        from importlib import import_module

        from django.contrib.auth import get_user

        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
        return get_user(SimpleNamespace(session=store))

    return user


def cookies(header: str | None) -> dict[str, str]:
    """A `Cookie` header's pairs, as Django's parse_cookie reads them."""
    from django.http.cookie import parse_cookie

    return parse_cookie(header) if header else {}


class EdgeAuthentication(BaseAuthentication):
    """`authenticate` for DRF's views. A session's user passes DRF's CSRF check first, as
    DRF's SessionAuthentication makes it (for unsafe methods)."""

    def authenticate(self, request):
        django_request = request._request
        session_user = None
        if has_session_cookie(django_request.COOKIES):
            session_user = lambda: getattr(django_request, "user", None)  # noqa: E731 - AuthenticationMiddleware's
        found = authenticate(django_request.META.get("HTTP_AUTHORIZATION"), session_user)
        if found is None:
            return None
        if found[1] is scopes.SESSION:
            SessionAuthentication().enforce_csrf(request)
        return found

    def authenticate_header(self, request):
        return authenticate_header()


class EdgeAuthenticationScheme(OpenApiAuthenticationExtension):
    """How the schema documents `EdgeAuthentication`: a token (`Token` or `Bearer`), or the
    session, or an OAuth app's access token (`oauth2`, the authorization code flow of
    docs/apps.md), whose requirement names the scope the operation needs (accounts.scopes), so a
    client generator knows what to ask for."""

    target_class = EdgeAuthentication
    name = ["tokenAuth", "cookieAuth", "oauth2"]

    def get_security_requirement(self, auto_schema):
        first_party = [{"tokenAuth": []}, {"cookieAuth": []}]
        if getattr(auto_schema.view, "first_party_only", False):  # /me/tokens: no app's token
            return first_party
        needed = scopes.required_scope(auto_schema.view, auto_schema.method)
        return [*first_party, {"oauth2": [needed] if needed in scopes.SCOPES else []}]

    def get_security_definition(self, auto_schema):
        return [
            build_bearer_security_scheme_object(header_name="Authorization", token_prefix=KEYWORD),
            {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME},
            {
                "type": "oauth2",
                "description": "Third-party apps: the authorization code grant with PKCE (S256 only); the access "
                               "token is sent as `Authorization: Bearer <token>`. Discovery: "
                               "`/.well-known/oauth-authorization-server`; revocation: `POST /oauth/revoke`.",
                "flows": {"authorizationCode": {
                    "authorizationUrl": "/oauth/authorize", "tokenUrl": "/oauth/token", "refreshUrl": "/oauth/token",
                    "scopes": dict(scopes.SCOPES),
                }},
            },
        ]
