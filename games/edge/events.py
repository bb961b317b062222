"""`GET /api/v1/tables/{id}/events`: a Server-Sent Events stream of the table as the caller may see
it (docs/api.md, "Push: event streams and webhooks"), computed once for both adapters.

Each event is `id: <version>`, `event: state`, `data: <the caller's GET /state JSON>`. The opening
is the reconnection delay and the current state (unless `Last-Event-ID` or `?after=` names it or a
later version); then one event per version change, in order; changes that come faster than a
client reads are coalesced into the latest state, never reordered. A `: ping` comment every
SSE_PING_SECONDS keeps proxies from closing an idle stream.

Over ASGI (the edge's route) the answer's `more` is the rest of the stream: a waiter in the
waiting room (games.edge.waiting), holding no thread and no database connection while idle, its
views the same shared reads and renderings as the long-polls'. Through Django (the DRF view,
games.api.push: a WSGI server, the test client) the stream ends after its opening: an EventSource
reconnects with Last-Event-ID, so the client degrades to polling."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid

from django.conf import settings

from config import redis_clients
from config.errors import Invalid, NotFound, Throttled

from . import threads, waiting
from .http import Answer, Request, render
from .state import current_version, read_state

PATH = re.compile(r"^/api/v1/tables/(?P<table_id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/events$")
SAMPLE = "/api/v1/tables/00000000-0000-4000-8000-000000000000/events"
MAX_AFTER = 2**31
log = logging.getLogger(__name__)
HEADERS = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def event(version: int, body: bytes) -> bytes:
    return b"id: %d\nevent: state\ndata: %s\n\n" % (version, body)


def parse_after(request: Request, what: str = "a version number") -> int | None:
    """The version (or event id) the client has (`Last-Event-ID`, else `?after=`), or None;
    Invalid if bad."""
    raw = request.headers.get("last-event-id")
    name = "Last-Event-ID"
    if raw is None:
        raw, name = request.query("after"), "after"
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 10 or int(raw) > MAX_AFTER:
        raise Invalid(f"{name} must be {what}", {"fields": {name: [f"0..{MAX_AFTER}"]}})
    return int(raw)


class Slots:
    """The per-user cap on open streams (SSE_MAX_STREAMS_PER_USER). With Redis the count is
    shared by every web process (a sorted set of stream ids scored by their last sign of life,
    so a killed process's streams expire); without Redis it is this process's count."""

    STALE = 3

    def __init__(self):
        self.local: dict[int, set[str]] = {}
        self.redis = None

    def _key(self, user_id: int) -> str:
        return f"cardgames:sse:{user_id}"

    async def _client(self):
        # One client per event loop: an asyncio connection belongs to the loop that opened it (a
        # server runs one loop per process; Django's async views under a sync server, and the
        # tests, run one per call).
        loop = asyncio.get_running_loop()
        if self.redis is None or self.redis[0] is not loop:
            self.redis = (loop, redis_clients.async_client(socket_timeout=2, connect_timeout=2))
        return self.redis[1]

    async def acquire(self, user_id: int) -> str | None:
        cap = settings.SSE_MAX_STREAMS_PER_USER
        token = uuid.uuid4().hex
        if not settings.REDIS_URL:
            held = self.local.setdefault(user_id, set())
            if len(held) >= cap:
                return None
            held.add(token)
            return token
        client = await self._client()
        now = time.time()
        key = self._key(user_id)
        async with client.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(key, "-inf", now - self.STALE * settings.SSE_PING_SECONDS)
            pipe.zadd(key, {token: now})
            pipe.zcard(key)
            pipe.expire(key, int(self.STALE * settings.SSE_PING_SECONDS) + 60)
            _, _, count, _ = await pipe.execute()
        if count > cap:
            await client.zrem(key, token)
            return None
        return token

    async def refresh(self, user_id: int, token: str) -> None:
        if settings.REDIS_URL:
            client = await self._client()
            await client.zadd(self._key(user_id), {token: time.time()})

    async def release(self, user_id: int, token: str) -> None:
        if not settings.REDIS_URL:
            held = self.local.get(user_id, set())
            held.discard(token)
            if not held:
                self.local.pop(user_id, None)
            return
        try:
            client = await self._client()
            await client.zrem(self._key(user_id), token)
        except Exception as exc:  # noqa: BLE001 - the entry expires on its own
            log.warning("could not release a stream slot: %s", type(exc).__name__)


slots = Slots()


class Stream:
    """The rest of a stream after its opening (ASGI only). `close()` must be called once it ends,
    whether or not it was iterated: it frees the user's slot."""

    def __init__(self, table_id: str, user, last: int, slot: str):
        self.table_id, self.user, self.last, self.slot = table_id, user, last, slot
        self.closed = False

    async def __aiter__(self):
        room = waiting.room()
        last = self.last
        with room.waiting(self.table_id, last, "stream") as waiter:
            # A change committed between the opening's read and the subscription.
            version = await current_version(self.table_id, threads.run_db)
            if version is None:
                return
            if version > last:
                waiter.wake(version)
            deadline = time.monotonic() + settings.SSE_MAX_SECONDS
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return  # the client reconnects with Last-Event-ID
                try:
                    await asyncio.wait_for(waiter.event.wait(), timeout=min(settings.SSE_PING_SECONDS, remaining))
                except TimeoutError:
                    await slots.refresh(self.user.pk, self.slot)
                    yield b": ping\n\n"
                    continue
                waiter.event.clear()
                if waiter.latest > last:
                    at_least = waiter.latest
                elif waiter.unknown:
                    at_least = None  # woken without a version (a listener reconnected): read
                else:
                    continue  # a change that kept the version: nothing new to send
                waiter.unknown = False
                got = await room.view(self.table_id, at_least, self.user)
                if got is None:
                    return  # the table was deleted
                if got[0] > last:
                    last = waiter.version = got[0]
                    yield event(*got)

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await slots.release(self.user.pk, self.slot)


def opening(request: Request, table_id: str, user) -> tuple[Answer, int | None]:
    """The stream's answer up to its opening, and the version the client then has: the
    reconnection delay, and the current state unless the client has it (`after`). Sync (one read
    of the table); raises the API's errors. Through Django this is the whole answer."""
    after = parse_after(request)
    state = read_state(table_id, user)
    if state is None:
        raise NotFound("no such table")
    body = f"retry: {settings.SSE_RETRY_MS}\n\n".encode()
    last = after
    if after is None or state["version"] > after:
        body += event(state["version"], render(state))
        last = state["version"]
    return Answer(200, body, dict(HEADERS), more=()), last


async def answer(request: Request, table_id: str, user, *, db) -> Answer:
    """The stream over ASGI: its opening, and the rest as `more` (a Stream, holding one of the
    user's slots); `db` runs the opening's read. Raises the API's errors."""
    parse_after(request)  # a bad Last-Event-ID is a 400 before the slot's 429
    slot = await slots.acquire(user.pk)
    if slot is None:
        raise Throttled(f"at most {settings.SSE_MAX_STREAMS_PER_USER} open event streams per user",
                        retry_after=max(1, round(settings.SSE_PING_SECONDS)))
    try:
        opened, last = await db(opening)(request, table_id, user)
    except BaseException:
        await slots.release(user.pk, slot)
        raise
    opened.more = Stream(table_id, user, last, slot)
    return opened
