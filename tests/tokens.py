"""A first-party API token for a test's user, made as `/auth/token` makes one (accounts.services),
or with a fixed value (fuzzers that need to know it in advance), stored hashed either way."""

from __future__ import annotations


def first_party_token(user, raw: str | None = None) -> str:
    from accounts import scopes, services, tokens
    from accounts.models import ApiToken

    if raw is None:
        return services.token_issue(user=user)
    ApiToken.objects.filter(digest=tokens.digest(raw)).delete()
    ApiToken.objects.create(user=user, kind=ApiToken.Kind.FIRST_PARTY, prefix=raw[:8], digest=tokens.digest(raw),
                            scopes=list(scopes.FIRST_PARTY))
    return raw
