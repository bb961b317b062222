"""API tokens: made, stored hashed, resolved without the database on the hot paths, revoked
everywhere within a second.

- **Stored hashed.** A token is a random string; only its SHA-256 digest (`digest`) and its first
  characters are stored (accounts.models.ApiToken; an OAuth app's tokens are
  django-oauth-toolkit's, which keeps the same digest as `token_checksum` and blanks the token).
- **Resolved**: games.edge.auth (the API's one authentication) asks `cached`, a dictionary read,
  then `lookup`, one indexed query (token joined to its user), whose answer is kept for
  AUTH_CACHE_SECONDS in this process. Only a live token of an active user is kept, never a
  negative answer. What is kept is the user's whole row and the token's grant (accounts.scopes):
  a view may read any field of the user.
- **Revoked, expired, changed**: an expired token is refused by every process at once (each hit
  checks the expiry). A revocation, a deleted token, a user saved or deleted drops the cached
  entries at once in this process and, through a message on the Redis channel CHANNEL that every
  web process's waiting room (games.edge.waiting) hands to `forget_local`, in the others, each
  on commit; without Redis (one web process) the process itself is all there is.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections import OrderedDict
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from . import scopes

log = logging.getLogger(__name__)
CHANNEL = "cardgames:auth-changed"
MAX_ENTRIES = 20_000
MAX_TOKEN_LENGTH = 200
# How stale `last_used_at` may be: a token in use is written at most this often.
LAST_USED_EVERY = timedelta(minutes=5)
PREFIX_FIRST_PARTY, PREFIX_PERSONAL = "cgt_", "cgp_"

_lock = threading.Lock()
# digest -> (expires, user id, the user's field values in _fields() order, grant)
_entries: OrderedDict[str, tuple[float, int, tuple, scopes.Grant]] = OrderedDict()
_publisher = None


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def mint(prefix: str) -> str:
    """A new token: its kind's prefix and 256 random bits."""
    return prefix + secrets.token_urlsafe(32)


def _fields() -> list[str]:
    from accounts.models import User

    return [f.attname for f in User._meta.concrete_fields]


def _user(values: tuple):
    """A User instance as a query loads it (a fresh object per call: callers may change it)."""
    from accounts.models import User

    return User.from_db("default", _fields(), values)


def _live(grant: scopes.Grant) -> bool:
    return grant.expires_at is None or grant.expires_at > timezone.now()


def cached(raw: str):
    """(user, grant) of the token from the cache, or None (a miss, an expired entry or token)."""
    key = digest(raw)
    with _lock:
        entry = _entries.get(key)
        if entry is None:
            return None
        expires, _, values, grant = entry
        if expires <= time.monotonic() or not _live(grant):
            del _entries[key]
            return None
    return _user(values), grant


def lookup(raw: str):
    """(user, grant) of a live token of an active user (one query), cached; else None."""
    if not raw or len(raw) > MAX_TOKEN_LENGTH:
        return None
    key = digest(raw)
    found = _personal_or_first_party(key) or _oauth(key)
    if found is None:
        return None
    user_id, values, grant = found
    with _lock:
        _entries[key] = (time.monotonic() + settings.AUTH_CACHE_SECONDS, user_id, values, grant)
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return _user(values), grant


def _personal_or_first_party(key: str):
    from accounts.models import ApiToken

    fields = _fields()
    row = (
        ApiToken.objects.filter(digest=key, revoked_at=None, user__is_active=True)
        .values_list("pk", "kind", "scopes", "expires_at", "last_used_at", *[f"user__{name}" for name in fields])
        .first()
    )
    if row is None:
        return None
    token_id, kind, held, expires_at, last_used_at, *values = row
    grant = scopes.Grant(kind, frozenset(held), token_id, expires_at)
    if not _live(grant):
        return None
    now = timezone.now()
    if last_used_at is None or now - last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token_id).update(last_used_at=now)
    return values[fields.index("id")], tuple(values), grant


def _oauth(key: str):
    """An OAuth app's access token (django-oauth-toolkit's, found by its checksum), when live."""
    from oauth2_provider.models import get_access_token_model

    fields = _fields()
    row = (
        get_access_token_model().objects.filter(token_checksum=key, user__is_active=True)
        .values_list("pk", "scope", "expires", *[f"user__{name}" for name in fields])
        .first()
    )
    if row is None:
        return None
    token_id, scope, expires, *values = row
    grant = scopes.Grant("oauth", frozenset(scope.split()) & frozenset(scopes.SCOPES), token_id, expires)
    if not _live(grant):
        return None
    return values[fields.index("id")], tuple(values), grant


def forget_local(items) -> None:
    """Drop cached entries: items are user ids (digits) or token digests (`d:<digest>`)."""
    users, digests = set(), set()
    for item in items:
        item = str(item)
        if item.startswith("d:"):
            digests.add(item[2:])
        elif item.isdigit():
            users.add(int(item))
    with _lock:
        for key in [k for k, entry in _entries.items() if entry[1] in users or k in digests]:
            del _entries[key]


def forget(*, users=(), digests=()) -> None:
    """Drop the entries of these users and tokens here and, with Redis, in every other web process."""
    items = [str(int(u)) for u in users] + [f"d:{d}" for d in digests]
    if not items:
        return
    forget_local(items)
    if settings.REDIS_URL:
        global _publisher
        try:
            import redis

            if _publisher is None:
                _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
            _publisher.publish(CHANNEL, " ".join(items))
        except Exception as exc:  # noqa: BLE001 - after commit: never fail the request
            log.warning("could not announce a token change (other processes expire it within %ss): %s",
                        settings.AUTH_CACHE_SECONDS, type(exc).__name__)


def forget_users(user_ids) -> None:
    forget(users=user_ids)


def clear() -> None:
    with _lock:
        _entries.clear()


def connect() -> None:
    """Hook the saves and deletes that change what a token authenticates (accounts.apps)."""
    from django.db import transaction
    from django.db.models.signals import post_delete, post_save
    from oauth2_provider.models import get_access_token_model

    from accounts.models import ApiToken, User

    def now_and_on_commit(users=(), digests=()):
        # Now (a request in this transaction must not use it) and on commit (nor one after).
        forget_local([str(u) for u in users] + [f"d:{d}" for d in digests])
        transaction.on_commit(lambda: forget(users=users, digests=digests))

    def user_changed(sender, instance, **kwargs):
        now_and_on_commit(users=[instance.pk])

    def token_changed(sender, instance, **kwargs):
        now_and_on_commit(digests=[instance.digest])

    def oauth_token_changed(sender, instance, **kwargs):
        if instance.token_checksum:
            now_and_on_commit(digests=[instance.token_checksum])

    post_save.connect(user_changed, sender=User, dispatch_uid="accounts.tokens.user_saved", weak=False)
    post_delete.connect(user_changed, sender=User, dispatch_uid="accounts.tokens.user_deleted", weak=False)
    post_save.connect(token_changed, sender=ApiToken, dispatch_uid="accounts.tokens.token_saved", weak=False)
    post_delete.connect(token_changed, sender=ApiToken, dispatch_uid="accounts.tokens.token_deleted", weak=False)
    access_token = get_access_token_model()
    post_save.connect(oauth_token_changed, sender=access_token, dispatch_uid="accounts.tokens.oauth_saved", weak=False)
    post_delete.connect(oauth_token_changed, sender=access_token, dispatch_uid="accounts.tokens.oauth_deleted", weak=False)
