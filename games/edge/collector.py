"""Full garbage collections while the web process is idle (docs/performance.md, "Bursts").

config/asgi.py freezes what is loaded at start and makes collections rarer, but CPython still
runs a full collection when its counters say so, wherever that falls: measured, once per run it
fell in the first burst of answers after a start, stopping the event loop for 65-73 ms while a
thousand waiters were due. A full collection resets those counters, so running one whenever the
process has been idle for a moment (no request began or ended for IDLE_SECONDS, whatever waits
meanwhile) leaves little for CPython to start during a burst. Only when a young collection has
run since the last full one (a generation's threshold of allocations, WEB_GC_THRESHOLD's first
number, was passed): an idle process, or one holding parked waiters, does nothing.

The counters and thresholds are CPython's; this only chooses a moment. A process that is never
idle keeps CPython's own schedule (WEB_GC_THRESHOLD)."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time

log = logging.getLogger(__name__)

IDLE_SECONDS = float(os.environ.get("WEB_GC_IDLE_SECONDS", "0.5"))  # 0: off
CHECK_SECONDS = 0.25

_last_activity = time.monotonic()
_tasks: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
collections = 0  # how many this process ran (tests, metrics)


def active() -> None:
    """A request began or ended."""
    global _last_activity
    _last_activity = time.monotonic()


def start() -> None:
    """The running loop's collector (started once per loop; no-op when IDLE_SECONDS is 0)."""
    if IDLE_SECONDS <= 0:
        return
    loop = asyncio.get_running_loop()
    if loop not in _tasks:
        _tasks[loop] = loop.create_task(_run())


def due() -> bool:
    """Idle long enough, and a young collection ran since the last full one."""
    _, young, middle = gc.get_count()
    return time.monotonic() - _last_activity >= IDLE_SECONDS and (young > 0 or middle > 0)


def collect() -> float:
    """One full collection now: how long it took, in seconds."""
    global collections
    started = time.perf_counter()
    gc.collect()
    collections += 1
    return time.perf_counter() - started


async def _run() -> None:
    while True:
        await asyncio.sleep(CHECK_SECONDS)
        try:
            if due():
                took = collect()
                if took > 0.05:
                    log.info("idle garbage collection took %.0f ms", took * 1000)
        except Exception:  # pragma: no cover - never let the collector die quietly
            log.exception("idle garbage collection failed")
