"""API tokens resolved without the database on the polling path (issue 12.3).

`games.polling` answers `GET /tables/{id}/state` before Django's handler; a poll's token is
looked up here: a hit costs a dictionary read, a miss one indexed query (token joined to its
user), whose answer is kept for AUTH_CACHE_SECONDS. Only active users are kept, never a
negative answer (an unknown token always reaches the database).

Invalidation, so that a deactivated user or a replaced token gets 401 within seconds:
- in this process, at once, on every path that changes them: a user saved or deleted, a token
  deleted (regeneration), the admin's bulk deactivation (`forget_users`), each on commit;
- in the other web processes, by a message on the Redis channel CHANNEL that games.notify's
  listener applies (`forget_local`); without Redis (one web process), by the entry's expiry.

What is kept is the user's id, name and flags, to answer one read-only request: the object is
an unsaved User that no code path saves."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from django.conf import settings
from rest_framework.authentication import TokenAuthentication

log = logging.getLogger(__name__)
CHANNEL = "cardgames:auth-changed"
MAX_ENTRIES = 20_000

_lock = threading.Lock()
_entries: OrderedDict[str, tuple[float, int, str, bool]] = OrderedDict()
_publisher = None


def _user(user_id: int, username: str, is_staff: bool):
    from accounts.models import User

    return User(pk=user_id, username=username, is_staff=is_staff, is_active=True)


def cached(key: str):
    """The token's user from the cache, or None (a miss or an expired entry)."""
    with _lock:
        entry = _entries.get(key)
        if entry is None:
            return None
        expires, user_id, username, is_staff = entry
        if expires <= time.monotonic():
            del _entries[key]
            return None
    return _user(user_id, username, is_staff)


def lookup(key: str):
    """The token's active user (one query), cached; None for an unknown token or an inactive user."""
    from rest_framework.authtoken.models import Token

    if not key or len(key) > 64:
        return None
    row = (
        Token.objects.filter(key=key, user__is_active=True)
        .values_list("user_id", "user__username", "user__is_staff")
        .first()
    )
    if row is None:
        return None
    with _lock:
        _entries[key] = (time.monotonic() + settings.AUTH_CACHE_SECONDS, *row)
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return _user(*row)


def forget_local(user_ids) -> None:
    ids = {int(u) for u in user_ids}
    with _lock:
        for key in [k for k, entry in _entries.items() if entry[1] in ids]:
            del _entries[key]


def forget_users(user_ids) -> None:
    """Drop the users' cached tokens here and, with Redis, in every other web process."""
    ids = [int(u) for u in user_ids]
    if not ids:
        return
    forget_local(ids)
    if settings.REDIS_URL:
        global _publisher
        try:
            import redis

            if _publisher is None:
                _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
            _publisher.publish(CHANNEL, " ".join(map(str, ids)))
        except Exception as exc:  # noqa: BLE001 - after commit: never fail the request
            log.warning("could not announce a token change (other processes expire it within %ss): %s",
                        settings.AUTH_CACHE_SECONDS, type(exc).__name__)


def clear() -> None:
    with _lock:
        _entries.clear()


def connect() -> None:
    """Hook the saves and deletes that change who a token authenticates (accounts.apps)."""
    from django.db import transaction
    from django.db.models.signals import post_delete, post_save
    from rest_framework.authtoken.models import Token

    from accounts.models import User

    def changed(sender, instance, **kwargs):
        user_id = instance.pk if sender is User else instance.user_id
        # Now (a request in this transaction must not use it) and on commit (nor one after).
        forget_local([user_id])
        transaction.on_commit(lambda: forget_users([user_id]))

    post_save.connect(changed, sender=User, dispatch_uid="accounts.tokens.user_saved", weak=False)
    post_delete.connect(changed, sender=User, dispatch_uid="accounts.tokens.user_deleted", weak=False)
    post_delete.connect(changed, sender=Token, dispatch_uid="accounts.tokens.token_deleted", weak=False)


class CachedTokenAuthentication(TokenAuthentication):
    """The API's token authentication (REST_FRAMEWORK's first authenticator). For a view that
    says `token_cache = True` — the hot POSTs that only read their user, a move
    (games.api.tables) — the token goes through this cache; every other view gets DRF's own
    lookup and a whole user, since it may save it. An unknown token always gets DRF's check,
    for its message."""

    def authenticate(self, request):
        view = (getattr(request, "parser_context", None) or {}).get("view")
        self._cache = bool(getattr(view, "token_cache", False))
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        if getattr(self, "_cache", False):
            user = cached(key) or lookup(key)
            if user is not None:
                return user, None
        return super().authenticate_credentials(key)
