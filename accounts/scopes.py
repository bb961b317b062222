"""What a credential may do (docs/api.md, "Third-party apps: OAuth2, scoped tokens, CORS").

Every token carries scopes; a session (the web client, the admin) and a first-party token (from
`/auth/token` or `/auth/register`) hold every scope but `bot`, except that a bot account's
first-party tokens hold `bot` too. Every API operation names the scope it needs (`scopes` on its
view: by HTTP method); `ScopeRequired`, one of DRF's default permission classes, refuses a call
outside the credential's scopes with 403 `insufficient_scope`, on every path (the edge runs the
same class for its endpoints).

Ruling (docs/api.md, "Bot accounts"): a bot account plays with a token holding `bot`. So for a bot
account, every operation that needs `play` (join, leave, moves, votes, throws, answering an
invitation) needs `bot` instead: its first-party tokens and any personal or app token granted
`bot` play; its session (the web client) does not, so a bot account's moves are its program's.
For everyone else `bot` opens nothing, and no one else can hold it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rest_framework.permissions import BasePermission

from config.errors import ApiError

READ, PLAY, HOST, WEBHOOKS, BOT = "read", "play", "host", "webhooks", "bot"
# In words, for the consent page, the docs and the discovery document.
SCOPES = {
    READ: "See your profile, your tables, their states and move logs, and follow them live",
    PLAY: "Play for you: join and leave tables, make moves, vote, throw, use quick play, answer invitations",
    HOST: "Host tables for you: create tables, add bots, start them, begin new sessions",
    WEBHOOKS: "Manage your webhooks",
    BOT: "Play as a bot account",
}
FIRST_PARTY = (READ, PLAY, HOST, WEBHOOKS)


@dataclass(frozen=True)
class Grant:
    """What authenticated a request: its kind (`session`, `first_party`, `personal`, `oauth`), its
    scopes, and, for a token, its id and expiry."""

    kind: str
    scopes: frozenset
    token_id: int | None = None
    expires_at: datetime | None = None

    @property
    def first_party(self) -> bool:
        return self.kind in ("session", "first_party")


SESSION = Grant("session", frozenset(FIRST_PARTY))


class InsufficientScope(ApiError):
    status, code, default_message = 403, "insufficient_scope", "the credential does not hold the scope this needs"

    def __init__(self, required: str):
        super().__init__(f"this needs the {required!r} scope", {"required": required})


def required_scope(view, method: str, user=None) -> str | None:
    """The scope the view's operation needs: its `scopes` by method (HEAD and OPTIONS as GET);
    a view that declares none needs `read` to read and is refused anything else (a test checks
    that every operation of the API declares its scope). For a bot account (`user`), `play` is
    `bot` (the module's ruling)."""
    scopes = getattr(view, "scopes", None)
    method = "GET" if method in ("HEAD", "OPTIONS") else method
    if scopes is None:
        return READ if method == "GET" else "(undeclared)"
    needed = scopes.get(method)
    if needed == PLAY and getattr(user, "is_bot_account", False):
        return BOT
    return needed


class ScopeRequired(BasePermission):
    """403 `insufficient_scope` (naming the scope in `detail.required`) when the request's
    credential lacks the operation's scope. Unauthenticated requests are IsAuthenticated's."""

    def has_permission(self, request, view) -> bool:
        grant = getattr(request, "auth", None)
        if not isinstance(grant, Grant):
            return True
        required = required_scope(view, request.method, request.user)
        if required is not None and required not in grant.scopes:
            raise InsufficientScope(required)
        return True
