"""`GET /api/v1/stream/events`: the caller's account stream (docs/api.md, "Account stream,
invitations and rematch"), computed once for both adapters, on the table streams' machinery.

Each event is `id: <seq>`, `event: <type>`, `data: <the webhook-shaped body>` (its `id` the same
seq; games.services.account_events). The opening is the reconnection delay and, when the client
resumes (`Last-Event-ID` or `?after=`), the events it missed, at most the last 24 hours'; a new
stream starts from now. Then every new event, in order; a `: ping` comment every
SSE_PING_SECONDS. Over ASGI (the edge's route) the stream waits in the waiting room under the
user's account key (games.notify.account_key): no thread and no database connection while idle,
woken on commit of the user's events in this process, by Redis from any other, and without Redis
by the room's batched re-check. Through Django (the DRF view, games.api.push) the stream ends
after its opening, as the table streams do."""

from __future__ import annotations

import asyncio
import json
import re
import time

from django.conf import settings

from config.errors import Throttled
from games import notify
from games.services import account_events

from . import threads, waiting
from .events import HEADERS, Stream, parse_after, slots
from .http import Answer, Request

PATH = re.compile(r"^/api/v1/stream/events$")
SAMPLE = "/api/v1/stream/events"
EVENT_ID = "an event id"


def event(body: dict) -> bytes:
    data = json.dumps(body, separators=(",", ":"))
    return f"id: {body['id']}\nevent: {body['type']}\ndata: {data}\n\n".encode()


def missed(user_id: int, after: int) -> tuple[bytes, int]:
    """Every event after stream id `after` (in pages), rendered, and the last id sent."""
    out, last = b"", after
    while True:
        page = account_events.after(user_id, last)
        for body in page:
            out += event(body)
            last = body["id"]
        if len(page) < account_events.PAGE:
            return out, last


def opening(request: Request, user) -> tuple[Answer, int]:
    """The stream up to its opening, and the last id the client then has. Sync (reads the
    events); raises the API's errors. Through Django this is the whole answer."""
    after = parse_after(request, EVENT_ID)
    body = f"retry: {settings.SSE_RETRY_MS}\n\n".encode()
    if after is None:
        last = account_events.last_seq(user.pk)  # a new stream: from now on
    else:
        sent, last = missed(user.pk, after)
        body += sent
    return Answer(200, body, dict(HEADERS), more=()), last


class AccountStream(Stream):
    """The rest of an account stream after its opening (ASGI only)."""

    async def __aiter__(self):
        room = waiting.room()
        key = notify.account_key(self.user.pk)
        last = self.last
        read = threads.run_db(missed, first=True)
        with room.waiting(key, last, "stream") as waiter:
            waiter.wake(None)  # events committed between the opening's read and the subscription
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
                waiter.unknown = False
                # On the shared pool, ahead of the requests waiting their turn there
                # (games.edge.threads). Tried: the woken waiters' threads (WOKEN_READ_THREADS, as a
                # table's woken read), measured worse: each stream reads for itself, so a burst's
                # thousand reads queued on those few threads (docs/performance.md).
                sent, last = await read(self.user.pk, last)
                waiter.version = last  # what the room's re-check compares (account_events.news)
                if sent:
                    yield sent


async def answer(request: Request, table_id, user, *, db) -> Answer:
    """The stream over ASGI: its opening, and the rest as `more` (holding one of the user's
    stream slots, shared with the table streams); `db` runs the opening's read."""
    parse_after(request, EVENT_ID)  # a bad Last-Event-ID is a 400 before the slot's 429
    slot = await slots.acquire(user.pk)
    if slot is None:
        raise Throttled(f"at most {settings.SSE_MAX_STREAMS_PER_USER} open event streams per user",
                        retry_after=max(1, round(settings.SSE_PING_SECONDS)))
    try:
        opened, last = await db(opening)(request, user)
    except BaseException:
        await slots.release(user.pk, slot)
        raise
    opened.more = AccountStream(notify.account_key(user.pk), user, last, slot)
    return opened
