"""The waiting room's listener of other processes' changes (games.edge.waiting) ends when its loop
ends: a server's shutdown, each test's `asyncio.run`. redis-py's read with a timeout can take a
cancellation for its own timeout; the listener must notice and stop rather than read on forever."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from games.edge import waiting

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the listener listens to Redis (CI's second pass)")


def test_a_loop_with_a_listener_ends_whenever_it_is_closed():
    async def serve_a_while(seconds):
        room = waiting.room()
        await asyncio.sleep(seconds)
        return room.task

    ended = []

    def loops():
        # Loops closed at different moments of the listener's life: before it started, while it
        # connects, while it waits for a message, between two waits.
        for seconds in (0.0, 0.001, 0.01, 0.05, 0.3, 1.2):
            ended.append(asyncio.run(asyncio.wait_for(serve_a_while(seconds), 10)))

    runner = threading.Thread(target=loops, daemon=True)
    runner.start()
    runner.join(timeout=40)
    assert not runner.is_alive(), f"a loop's shutdown waited on its listener (after {len(ended)} loops)"
    assert len(ended) == 6 and all(task.done() for task in ended)



def test_a_listener_that_reconnects_forgets_the_cached_credentials(monkeypatch):
    """Revocations published while a process's listener was away from Redis were heard by no one
    there: on reconnecting it drops its cached credentials, so none outlives one lookup."""
    from redis.asyncio.client import PubSub

    from accounts import tokens

    read = PubSub.get_message
    failures = []

    async def failing_once(self, *args, **kwargs):
        if not failures:
            failures.append(1)
            raise ConnectionError("the connection to Redis was lost")
        return await read(self, *args, **kwargs)

    monkeypatch.setattr(PubSub, "get_message", failing_once)

    async def reconnect_once():
        with tokens._lock:
            tokens._entries["a cached credential"] = object()
        waiting.room()
        for _ in range(500):
            await asyncio.sleep(0.01)
            with tokens._lock:
                if "a cached credential" not in tokens._entries:
                    return True
        return False

    assert asyncio.run(reconnect_once()) and failures
