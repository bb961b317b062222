"""API tokens resolved without the database on the hot paths: the user of a token, kept for
AUTH_CACHE_SECONDS in each web process. games.edge.auth (the API's one authentication, used by the
edge and by DRF's views alike) reads it: a hit costs a dictionary read, a miss one indexed query
(token joined to its user), whose answer is kept. Only active users are kept, never a negative
answer (an unknown token always reaches the database).

Invalidation, so that a deactivated user or a replaced token gets 401 within seconds:
- in this process, at once, on every path that changes them: a user saved or deleted, a token
  deleted (regeneration), the admin's bulk deactivation (`forget_users`), each on commit;
- in the other web processes, by a message on the Redis channel CHANNEL that the edge's waiting
  room (games.edge.waiting) hands to `forget_local`; without Redis (one web process), by expiry.

What is kept is the user's whole row, so the user it gives is the one a query would give: a
view may read any field of it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict

from django.conf import settings

log = logging.getLogger(__name__)
CHANNEL = "cardgames:auth-changed"
MAX_ENTRIES = 20_000

_lock = threading.Lock()
# key -> (expires, user id, the user's concrete field values in _fields() order)
_entries: OrderedDict[str, tuple[float, int, tuple]] = OrderedDict()
_publisher = None


def _fields() -> list[str]:
    from accounts.models import User

    return [f.attname for f in User._meta.concrete_fields]


def _user(values: tuple):
    """A User instance as a query loads it (a fresh object per call: callers may change it)."""
    from accounts.models import User

    return User.from_db("default", _fields(), values)


def cached(key: str):
    """The token's user from the cache, or None (a miss or an expired entry)."""
    with _lock:
        entry = _entries.get(key)
        if entry is None:
            return None
        expires, _, values = entry
        if expires <= time.monotonic():
            del _entries[key]
            return None
    return _user(values)


def lookup(key: str):
    """The token's active user (one query), cached; None for an unknown token or an inactive user."""
    from rest_framework.authtoken.models import Token

    if not key or len(key) > 64:
        return None
    fields = _fields()
    values = (
        Token.objects.filter(key=key, user__is_active=True)
        .values_list(*[f"user__{name}" for name in fields])
        .first()
    )
    if values is None:
        return None
    user_id = values[fields.index("id")]
    with _lock:
        _entries[key] = (time.monotonic() + settings.AUTH_CACHE_SECONDS, user_id, values)
        _entries.move_to_end(key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    return _user(values)


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

