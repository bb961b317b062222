"""Wake-ups for long-polling readers: `?wait=` requests wait on an asyncio event per table,
set when a change to that table commits in this process. Waiters also re-read the version
every few seconds, so a change committed by another process is still seen."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict

_lock = threading.Lock()
_waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)


def subscribe(table_id: str) -> tuple[asyncio.AbstractEventLoop, asyncio.Event]:
    entry = (asyncio.get_running_loop(), asyncio.Event())
    with _lock:
        _waiters[str(table_id)].add(entry)
    return entry


def unsubscribe(table_id: str, entry) -> None:
    with _lock:
        waiters = _waiters.get(str(table_id))
        if waiters is not None:
            waiters.discard(entry)
            if not waiters:
                del _waiters[str(table_id)]


def table_changed(table_id: str) -> None:
    """Called on commit of any change to the table (from any thread)."""
    with _lock:
        entries = list(_waiters.get(str(table_id), ()))
    for loop, event in entries:
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:
            # The waiter's loop has closed: its request is gone.
            pass


def waiter_count() -> int:
    with _lock:
        return sum(len(v) for v in _waiters.values())
