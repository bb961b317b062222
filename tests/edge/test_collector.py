"""games.edge.collector: a full garbage collection while the process is idle, never during a
run of requests, and only when a young collection ran since the last full one."""

from __future__ import annotations

import asyncio
import time

from games.edge import collector


def test_due_only_when_idle_and_young_collections_ran(monkeypatch):
    monkeypatch.setattr(collector, "IDLE_SECONDS", 0.5)
    monkeypatch.setattr(collector, "_last_activity", time.monotonic() - 1)
    monkeypatch.setattr(collector.gc, "get_count", lambda: (15000, 1, 0))
    assert collector.due()
    # Allocations alone (no young collection since the last full one): nothing to gain.
    monkeypatch.setattr(collector.gc, "get_count", lambda: (15000, 0, 0))
    assert not collector.due()
    monkeypatch.setattr(collector.gc, "get_count", lambda: (3, 0, 2))
    assert collector.due()
    # A request just began or ended: not idle.
    collector.active()
    assert not collector.due()


def test_the_loop_collects_once_idle_and_not_while_requests_come(monkeypatch):
    # A young collection ran since the last full one, whatever other threads collect meanwhile.
    monkeypatch.setattr(collector.gc, "get_count", lambda: (0, 1, 0))
    monkeypatch.setattr(collector, "IDLE_SECONDS", 5.0)
    monkeypatch.setattr(collector, "CHECK_SECONDS", 0.01)
    monkeypatch.setattr(collector, "_tasks", {})

    async def scenario():
        collector.start()
        collector.start()  # once per loop
        assert len(collector._tasks) == 1
        before = collector.collections
        # Busy: a request far more often than IDLE_SECONDS, so the loop checks many times and
        # never collects.
        for _ in range(10):
            collector.active()
            await asyncio.sleep(0.02)
        assert collector.collections == before
        monkeypatch.setattr(collector, "IDLE_SECONDS", 0.01)
        for _ in range(1000):  # idle now: it collects at its next check
            if collector.collections > before:
                break
            await asyncio.sleep(0.01)
        assert collector.collections > before
        for task in collector._tasks.values():
            task.cancel()

    asyncio.run(scenario())
