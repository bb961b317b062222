"""Telling the waiting clients that a table changed: the publishing side, called by the services
once a change commits (games.services.follow_ups), in any process.

`table_changed` hands the change to this process's listeners (the edge's waiting room,
games.edge.waiting, registers itself: the services below never import the edge) and, with
REDIS_URL, publishes it on CHANNEL, which every web process's waiting room listens to, so a move
served (or a bot move or timeout applied by a worker) anywhere wakes waiters everywhere. Without
Redis the waiting room re-checks versions in batches instead.

A move's message also carries the committed table (`encode_table`): what a state view reads of
it and of its seats and players, signed with the SECRET_KEY. A process with waiters on the
table renders their answers from it instead of reading the table (`decode_table`), as the
committing process does with its own object. Never the staff-only set-up (`deck`, `seed`), nor a
player's private fields (password, email, names): a view that reached for one would read it."""

from __future__ import annotations

import hmac
from collections.abc import Callable

import orjson
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.crypto import salted_hmac

from config.outage import Breaker

CHANNEL = "cardgames:table-changed"
# (table id, version or None, the committed table with its seats or None) -> None; never raises
Listener = Callable[[str, "int | None", object], None]
_listeners: list[Listener] = []
_publisher = None


def listen(fn: Listener) -> None:
    """Register a listener of this process's committed changes (once; from any thread)."""
    if fn not in _listeners:
        _listeners.append(fn)


def table_changed(table_id, version: int | None = None, snapshot=None) -> None:
    """Called on commit of a change to the table (that made `version`), from any thread or
    process. `snapshot`: the committed table with its seats and players, when the change has it
    whole (a move), for this process's waiters."""
    table_id = str(table_id)
    for fn in list(_listeners):
        fn(table_id, version, snapshot)
    if settings.REDIS_URL:
        message = table_id if version is None else f"{table_id} {version}"
        carried = encode_table(snapshot) if snapshot is not None and version is not None else None
        _publish(message if carried is None else f"{message} {carried}")


def account_key(user_id) -> str:
    """The waiting room's key of a user's account stream (beside the tables' ids)."""
    return f"account:{user_id}"


def account_changed(user_ids) -> None:
    """Called on commit of account events (games.services.account_events) for these users: their
    streams in this process, and with Redis in every web process, read their news."""
    for user_id in user_ids:
        key = account_key(user_id)
        for fn in list(_listeners):
            fn(key, None, None)
        if settings.REDIS_URL:
            _publish(key)


# While Redis is down, a commit does not try to publish (a stopped Redis would cost each commit
# its socket timeout): the waiters of other processes fall back to re-checking every
# LONGPOLL_RECHECK_SECONDS.
_wakeups = Breaker("table-change wake-ups (waiters fall back to re-checking)")


def _publish(message: str) -> None:
    """Never raises (it runs after the commit)."""
    global _publisher
    import redis

    if _publisher is None:
        _publisher = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=0.5, socket_connect_timeout=0.5)
    _wakeups.call(_publisher.publish, CHANNEL, message)


def parse(message: str) -> tuple[str, int | None, str | None]:
    """(table id, version or None, the carried table's text or None) of a message on CHANNEL:
    `<table id>[ <version>[ <signature> <table>]]`."""
    table_id, _, rest = message.partition(" ")
    version, _, carried = rest.partition(" ")
    if not version.isdigit():
        return table_id, None, None
    return table_id, int(version), carried or None


# The committed table a message carries ---------------------------------------------------------

CARRIED_MAX_BYTES = 64 * 1024  # a larger table is read by the waiters, as without a copy
_SALT = "games.notify.table"
# Never in a message: the table's staff-only set-up, and any field of a player but these.
_SECRET_TABLE_FIELDS = ("deck", "seed")
PUBLIC_USER_FIELDS = ("id", "username", "is_bot", "bot_level", "is_bot_account")  # what a seat shows
_fields = None


def _carried_fields():
    """(table, seat, user) field lists, in each model's order (models load after this module)."""
    global _fields
    if _fields is None:
        from games.models import Seat, Table

        user_model = get_user_model()
        _fields = (
            [f for f in Table._meta.concrete_fields if f.name not in _SECRET_TABLE_FIELDS],
            list(Seat._meta.concrete_fields),
            [f for f in user_model._meta.concrete_fields if f.attname in PUBLIC_USER_FIELDS],
        )
    return _fields


def _sign(payload: bytes) -> str:
    return salted_hmac(_SALT, payload, algorithm="sha256").hexdigest()


def encode_table(table) -> str | None:
    """`<signature> <JSON>` of a committed table with its seats and their players (as the lock
    read them, or as a poll's read did), or None when it has no seats with it or is too large."""
    cache = getattr(table, "_prefetched_objects_cache", None) or {}
    seats = cache["seats"] if "seats" in cache else getattr(table, "_seat_rows", None)
    if seats is None:
        return None
    table_fields, seat_fields, user_fields = _carried_fields()
    try:
        payload = orjson.dumps([
            [getattr(table, f.attname) for f in table_fields],
            [[[getattr(seat, f.attname) for f in seat_fields],
              None if seat.user_id is None else [getattr(seat.user, f.attname) for f in user_fields]]
             for seat in seats],
        ])
    except (TypeError, AttributeError):  # a value JSON cannot carry: the waiters read instead
        return None
    if len(payload) > CARRIED_MAX_BYTES:
        return None
    return f"{_sign(payload)} {payload.decode()}"


def decode_table(carried: str):
    """The table a message carried, with its seats and players, as `encode_table` took it; the
    fields it does not carry are deferred (read if ever used). None when the signature does not
    match (not signed with this SECRET_KEY) or the text is not what this code writes (another
    release during a deploy): the waiters then read the table."""
    from games.models import Seat, Table

    signature, _, text = carried.partition(" ")
    payload = text.encode()
    if not hmac.compare_digest(signature.encode(), _sign(payload).encode()):
        return None
    table_fields, seat_fields, user_fields = _carried_fields()
    user_model = get_user_model()
    try:
        table_values, seat_rows = orjson.loads(payload)
        table = Table.from_db("default", [f.attname for f in table_fields],
                              [f.to_python(v) for f, v in zip(table_fields, table_values, strict=True)])
        seats = []
        for seat_values, user_values in seat_rows:
            seat = Seat.from_db("default", [f.attname for f in seat_fields],
                                [f.to_python(v) for f, v in zip(seat_fields, seat_values, strict=True)])
            if user_values is not None:
                seat.user = user_model.from_db("default", [f.attname for f in user_fields],
                                               [f.to_python(v) for f, v in zip(user_fields, user_values, strict=True)])
            seats.append(seat)
    except (ValueError, TypeError, ValidationError):  # not what this code writes
        return None
    table._seat_rows = seats
    return table
