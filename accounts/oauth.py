"""django-oauth-toolkit's view of the project's scopes (accounts.scopes): one list of scopes, in
words, for the consent page, the tokens and the discovery document; `bot` only for a bot account."""

from __future__ import annotations

from oauth2_provider.scopes import BaseScopes

from . import scopes


class ScopesBackend(BaseScopes):
    def get_all_scopes(self):
        return dict(scopes.SCOPES)

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        from .services import held_scopes

        user = getattr(request, "user", None)
        return list(held_scopes(user)) if user is not None and user.is_authenticated else list(scopes.SCOPES)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        return [scopes.READ]
