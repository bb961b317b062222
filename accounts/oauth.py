"""django-oauth-toolkit's view of the project (docs/apps.md): the scopes (accounts.scopes), in
words, for the consent page, the tokens and the discovery document, `bot` only for a bot account;
and the one grant the service offers, the authorization code with PKCE (and its refresh)."""

from __future__ import annotations

from oauth2_provider.models import get_grant_model
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.scopes import BaseScopes
from oauthlib import oauth2
from oauthlib.oauth2.rfc6749.grant_types.authorization_code import code_challenge_method_s256

from . import scopes

# All the server offers (the discovery document says the same, OAUTH2_PROVIDER's *_SUPPORTED):
# no implicit grant, no password grant (which would make /oauth/token a password oracle with no
# rate limit), no client credentials (a token acting for nobody), no device flow.
GRANT_TYPES = ("authorization_code", "refresh_token")
RESPONSE_TYPES = ("code",)


class ScopesBackend(BaseScopes):
    def get_all_scopes(self):
        return dict(scopes.SCOPES)

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        """The scopes the request's user may grant; every scope when no user is known yet (the
        discovery document; oauthlib's first look at an authorization request, which
        accounts.oauth_views checks again against the signed-in user)."""
        from .services import held_scopes

        user = getattr(request, "user", None)
        return list(held_scopes(user)) if user is not None and user.is_authenticated else list(scopes.SCOPES)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        return [scopes.READ]


class Server(oauth2.Server):
    """oauthlib's server with GRANT_TYPES and RESPONSE_TYPES only: any other is
    `unsupported_grant_type` (or `unsupported_response_type`) before a client, a user or a
    password is looked at. PKCE's `S256` only: a `plain` challenge (or one without a method,
    which RFC 7636 reads as plain) is `invalid_request` as the authorization request arrives,
    before the consent page (DOT's own gate refuses it only once the user has approved)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.auth_grant._code_challenge_methods = {"S256": code_challenge_method_s256}
        self._grant_types = {name: grant for name, grant in self._grant_types.items() if name in GRANT_TYPES}
        self._response_types = {name: grant for name, grant in self._response_types.items() if name in RESPONSE_TYPES}


class Validator(OAuth2Validator):
    """DOT's validator, locking a code while it is exchanged."""

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        # Under the token view's transaction (accounts.oauth_views.TokenView): a second exchange
        # of the same code waits here until the first has deleted it, then finds nothing
        # (invalid_grant) and issues nothing.
        list(get_grant_model().objects.select_for_update().filter(code=code, application=client).values_list("pk"))
        return super().validate_code(client_id, code, client, request, *args, **kwargs)

    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
        # RFC 6749 section 5.2: a redirect URI other than the authorization request's is
        # `invalid_grant` (oauthlib would answer `invalid_request`).
        if not super().confirm_redirect_uri(client_id, code, redirect_uri, client, request, *args, **kwargs):
            raise oauth2.InvalidGrantError("the redirect_uri differs from the authorization request's",
                                           request=request)
        return True
