"""A burst of concurrent Redis commands from one process waits for a pooled connection instead
of failing (config/redis_clients.py): redis-py's own pool raised MaxConnectionsError past 100
concurrent commands, which made the 101st event stream opened at once a 500 and sent long-polls
to the database. Needs Redis (CI's second pass)."""

import asyncio
import os
import uuid

import pytest

from games import versions
from games.edge import events

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="a burst against Redis (CI's second pass)")

BURST = 400  # four times redis-py's default limit of connections


@pytest.fixture
def fresh_clients(settings):
    settings.SSE_MAX_STREAMS_PER_USER = BURST
    settings.REDIS_MAX_CONNECTIONS = 20
    settings.VERSION_CACHE = True
    versions.reset()
    yield
    versions.reset()


def test_a_burst_of_stream_slots_from_one_process_is_served_not_refused(fresh_clients):
    async def burst():
        slots = events.Slots()
        user = 10**9 + uuid.uuid4().int % 10**6
        got = await asyncio.gather(*(slots.acquire(user) for _ in range(BURST)))
        await asyncio.gather(*(slots.release(user, token) for token in got if token))
        return got

    got = asyncio.run(burst())
    assert len(got) == BURST and all(got)


def test_a_burst_of_version_checks_from_one_process_reads_the_cache_not_the_database(fresh_clients, caplog):
    table_id = str(uuid.uuid4())

    async def burst():
        await versions.fill(table_id, 7, None)
        return await asyncio.gather(*(versions.cached(table_id) for _ in range(BURST)))

    answers = asyncio.run(burst())
    assert [a[0] if a else None for a in answers] == [7] * BURST
    assert "version cache unavailable" not in caplog.text
