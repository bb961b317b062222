"""Where the edge's blocking work runs: never on the event loop. Database work (and the Redis
calls of DRF's throttles) on the shared thread pool, each piece handing its database connection
back when it ends, so no waiting request holds a thread or a connection; the reads of woken
waiters on a few threads of their own (WOKEN_READ_THREADS), so that a burst of moves on the
shared pool does not delay them."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection


def closing(fn):
    """`fn`, then its database connection handed back (to the pool, or closed)."""

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            if settings.DATABASES["default"].get("CONN_MAX_AGE", 0):
                close_old_connections()
            else:
                connection.close()

    return run


def run_db(fn):
    """`fn` as a coroutine function running on the shared pool, its connection handed back."""
    return sync_to_async(closing(fn), thread_sensitive=False)


_woken_pool: ThreadPoolExecutor | None = None
_woken_lock = threading.Lock()


def woken(fn, *args) -> asyncio.Future:
    """`fn(*args)` on the woken waiters' threads, its connection handed back."""
    global _woken_pool
    if _woken_pool is None:
        with _woken_lock:
            if _woken_pool is None:
                _woken_pool = ThreadPoolExecutor(max_workers=settings.WOKEN_READ_THREADS, thread_name_prefix="woken-read")
    return asyncio.get_running_loop().run_in_executor(_woken_pool, closing(fn), *args)
