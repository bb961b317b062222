"""Every write to accounts."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.errors import Conflict, Forbidden, Invalid, NotFound

from . import scopes, tokens
from .models import ApiToken, User

# First-party tokens a user keeps at most (one per login, `/auth/token`): past it, the oldest
# are revoked, so a script that logs in in a loop does not grow the table without end.
MAX_FIRST_PARTY_TOKENS = 50
MAX_PERSONAL_TOKENS = 50
MAX_EXPIRES_IN = 366 * 24 * 3600


def user_register(*, username: str, password: str, email: str = "") -> tuple[User, str]:
    """Create a player and their API token. A taken username or a weak password is 400
    `invalid` with the field named."""
    if User.objects.filter(username__iexact=username).exists():
        raise Invalid("that username is taken", {"fields": {"username": ["already taken"]}})
    user = User(username=username, email=email)
    try:
        validate_password(password, user)
    except DjangoValidationError as exc:
        raise Invalid("the password is too weak", {"fields": {"password": list(exc.messages)}}) from exc
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            token = token_issue(user=user)
    except IntegrityError as exc:
        raise Invalid("that username is taken", {"fields": {"username": ["already taken"]}}) from exc
    return user, token


def token_issue(*, user: User) -> str:
    """A new first-party token (a login: `/auth/token`, `/auth/register`), every scope the
    account may hold: all but `bot`, and `bot` too for a bot account. Only its digest is stored;
    the token itself is returned once."""
    raw = tokens.mint(tokens.PREFIX_FIRST_PARTY)
    with transaction.atomic():
        ApiToken.objects.create(user=user, kind=ApiToken.Kind.FIRST_PARTY, prefix=raw[:8], digest=tokens.digest(raw),
                                scopes=list(held_scopes(user)))
        stale = list(ApiToken.objects.filter(user=user, kind=ApiToken.Kind.FIRST_PARTY, revoked_at=None)
                     .order_by("-created_at", "-id").values_list("pk", flat=True)[MAX_FIRST_PARTY_TOKENS:])
        if stale:
            _revoke(ApiToken.objects.filter(pk__in=stale))
    return raw


def _revoke(queryset) -> int:
    """Revoke tokens (each one's save drops it from every process's cache, accounts.tokens)."""
    count = 0
    for token in queryset.filter(revoked_at=None):
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        count += 1
    return count


def token_regenerate(*, user: User) -> str:
    """Revoke the user's tokens, first-party and personal, and issue a new first-party one
    (operators, from the admin)."""
    with transaction.atomic():
        _revoke(ApiToken.objects.filter(user=user))
        return token_issue(user=user)


def tokens_revoke(queryset) -> int:
    """The admin's revocation."""
    with transaction.atomic():
        return _revoke(queryset)


def personal_token_create(*, user: User, grant: scopes.Grant, name: str, scopes_asked: list[str],
                          expires_in: int | None) -> tuple[ApiToken, str]:
    """A personal access token with the scopes asked (within what the account may hold) and an
    optional lifetime; only a first-party login (a session, a first-party token) makes one, so a
    token can never mint a stronger one. Returns the row and the token, shown once."""
    _first_party_only(grant)
    asked = sorted(set(scopes_asked), key=list(scopes.SCOPES).index)
    allowed = held_scopes(user)
    refused = [s for s in asked if s not in allowed]
    if refused:
        raise Invalid(f"this account cannot hold {', '.join(refused)}", {"fields": {"scopes": [
            f"{s}: {'only a bot account holds it' if s == scopes.BOT else 'unknown scope'}" for s in refused]}})
    raw = tokens.mint(tokens.PREFIX_PERSONAL)
    with transaction.atomic():
        if ApiToken.objects.filter(user=user, kind=ApiToken.Kind.PERSONAL, revoked_at=None).count() >= MAX_PERSONAL_TOKENS:
            raise Invalid(f"at most {MAX_PERSONAL_TOKENS} personal access tokens", {"fields": {"non_field_errors": [
                "revoke one first"]}})
        token = ApiToken.objects.create(
            user=user, kind=ApiToken.Kind.PERSONAL, name=name, prefix=raw[:8], digest=tokens.digest(raw), scopes=asked,
            expires_at=None if expires_in is None else timezone.now() + timedelta(seconds=expires_in),
        )
    return token, raw


def held_scopes(user: User) -> tuple[str, ...]:
    """The scopes this account's tokens may hold (`bot`: a bot account's)."""
    return tuple(scopes.SCOPES) if getattr(user, "is_bot_account", False) else scopes.FIRST_PARTY


def bot_account_upgrade(*, user: User, grant: scopes.Grant) -> User:
    """Turn the caller's account into a bot account, for good (docs/api.md, "Bot accounts").
    Only with a first-party login (a session or a first-party token, 403 `forbidden` otherwise):
    no app may make an account a bot for its owner, and no app's token can hold `bot` before.
    Only an account that has played no table may become one (409 `conflict`): its ratings and
    record would otherwise mix a person's play into the bots' pool. Asking again once it is a bot
    account changes nothing and answers it as it is (so a retry is safe).

    The account's live first-party tokens take the `bot` scope at once, as its later logins'
    do; its personal and app tokens keep theirs (their owner chose them; a new one may ask for
    `bot`). Under a lock on the user row, which quick play also takes: a quick-play request and
    the upgrade never cross."""
    _first_party_only(grant, "an account becomes a bot account with a first-party login (the web client, or a "
                             "token from /auth/token), not an app's token")
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.is_bot_account:
            return user
        played = _tables_played(user)
        if played:
            raise Conflict("only an account that has played no table can become a bot account",
                           {"played": played})
        user.is_bot_account = True
        user.save(update_fields=["is_bot_account"])
        for token in ApiToken.objects.filter(user=user, kind=ApiToken.Kind.FIRST_PARTY, revoked_at=None):
            token.scopes = list(held_scopes(user))
            token.save(update_fields=["scopes"])  # each save drops the token from every process's cache
    return user


def _tables_played(user: User) -> list[str]:
    """What shows the account has played: a seat at any table (open, in play or finished), a
    table it hosts, a move, a rating. Empty when it has played nothing."""
    from games.models import Move, Rating, Seat, Table

    traces = {
        "seated": Seat.objects.filter(user=user).exists(),
        "hosts": Table.objects.filter(host=user).exists(),
        "moved": Move.objects.filter(user=user).exists(),
        "rated": Rating.objects.filter(user=user).exists(),
    }
    return [name for name, found in traces.items() if found]


def token_revoke(*, user: User, grant: scopes.Grant, token_id: int) -> None:
    """Revoke one of the user's tokens (first-party or personal); 404 for another's."""
    _first_party_only(grant)
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(user=user, pk=token_id, revoked_at=None).first()
        if token is None:
            raise NotFound("no such token")
        _revoke(ApiToken.objects.filter(pk=token.pk))


def _first_party_only(grant: scopes.Grant, message: str | None = None) -> None:
    if not grant.first_party:
        if message is not None:
            raise Forbidden(message)
        token_list_refused()


def token_list_refused():
    raise Forbidden("tokens are managed with a first-party login (the web client, or a token from /auth/token)")


def users_deactivate(queryset) -> int:
    """Deactivate users in bulk (the admin's action): every API call of theirs then gets 401,
    polls included (their cached tokens are dropped on commit)."""
    with transaction.atomic():
        ids = list(queryset.values_list("pk", flat=True))
        count = User.objects.filter(pk__in=ids).update(is_active=False)
        transaction.on_commit(lambda: tokens.forget_users(ids))
    return count


def oauth_app_create(*, name: str, redirect_uris: list[str], confidential: bool) -> tuple[object, str | None]:
    """Register a third-party app (`manage.py oauth_app`; the admin's page is DOT's): the
    authorization code grant with PKCE, the consent page always shown. Returns the app and, for
    a confidential one, its secret, which only its hash keeps afterwards. A redirect URI that
    is not an absolute http(s) URI without a fragment is 400 `invalid`."""
    from oauth2_provider.generators import generate_client_secret
    from oauth2_provider.models import get_application_model

    application = get_application_model()
    secret = generate_client_secret() if confidential else None
    app = application(
        name=name, redirect_uris=" ".join(redirect_uris),
        client_type=application.CLIENT_CONFIDENTIAL if confidential else application.CLIENT_PUBLIC,
        authorization_grant_type=application.GRANT_AUTHORIZATION_CODE, client_secret=secret or "",
        hash_client_secret=True, skip_authorization=False,
    )
    try:
        app.full_clean(exclude=["user"])
    except DjangoValidationError as exc:
        raise Invalid("the app is not valid", {"fields": exc.message_dict}) from exc
    app.save()
    return app, secret


def bot_user_get_or_create(*, level: str) -> User:
    """The shared bot account of a level; bots need no password and no token. The
    colon keeps the name out of reach of registration (usernames allow letters, digits and @.+-_)."""
    user, created = User.objects.get_or_create(
        username=f"bot:{level}", defaults={"is_bot": True, "bot_level": level}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user
