"""Telling the waiting clients that a table changed: the publishing side, called by the services
once a change commits (games.services.follow_ups), in any process.

`table_changed` hands the change to this process's listeners (the edge's waiting room,
games.edge.waiting, registers itself: the services below never import the edge) and, with
REDIS_URL, publishes it on CHANNEL, which every web process's waiting room listens to, so a move
served (or a bot move or timeout applied by a worker) anywhere wakes waiters everywhere. Without
Redis the waiting room re-checks versions in batches instead."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings

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
        _publish(table_id if version is None else f"{table_id} {version}")


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


def parse(message: str) -> tuple[str, int | None]:
    """(table id, version or None) of a message on CHANNEL."""
    table_id, _, version = message.partition(" ")
    return table_id, int(version) if version.isdigit() else None
