"""`GET /api/v1/tables/{id}/state` with its long-poll (docs/api.md, "Polling"), computed once for
both adapters: the edge's route (games.edge.app) and Django's view (games.api.state, for what
reaches Django: a WSGI server, the test client, what the edge leaves to Django).

- The table's version comes from the version cache (games.versions: one Redis GET, kept by every
  commit), else one indexed query, which also enforces an overdue deadline as every read does.
- A 304 when `If-None-Match` is this viewer's ETag of that version: with the token cached and
  Redis, no database work at all.
- `?wait=` holds the request in the waiting room (games.edge.waiting) until the version is above
  the one the client has, and answers with that change, never with a state the client had; at the
  end of the wait it answers as a plain request would (304 with If-None-Match).
- A 200: one read of the table and one of its seats with their players, the engine's view once,
  rendered by games.edge.http.render.

The ETag is `"v<version>-<viewer tag>"`: the tag (8 hex characters of an HMAC of the viewer's id
under the SECRET_KEY) makes it per viewer, so a 304 is only ever earned with the ETag the same
viewer was given, and it reveals nothing."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import time
from functools import lru_cache

from django.conf import settings

from config.errors import Invalid, NotFound
from games import selectors, versions
from games.services import automation

from . import waiting
from .http import Answer, Request, render

PATH = re.compile(r"^/api/v1/tables/(?P<table_id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/state$")
SAMPLE = "/api/v1/tables/00000000-0000-4000-8000-000000000000/state"

# "v<version>" with an optional "-<tag>"; version a 63-bit counter, at most 19 digits. Anything
# longer, and anything not in that form, is simply not a match. The header itself is capped so a
# huge one costs no parsing work.
_ETAG = re.compile(r'(?:W/)?"?v([0-9]{1,19})(?:-([0-9a-f]{8}))?"?')
_MAX_IF_NONE_MATCH = 1024


@lru_cache(maxsize=65536)
def _viewer_tag(user_pk: int, secret: str) -> str:
    return hmac.new(secret.encode(), f"etag:{user_pk}".encode(), hashlib.sha256).hexdigest()[:8]


def viewer_tag(user_pk: int) -> str:
    return _viewer_tag(user_pk, settings.SECRET_KEY)


def etag(version: int, user) -> str:
    return f'"v{version}-{viewer_tag(user.pk)}"'


def parse_etag(header: str | None, user) -> tuple[int | None, bool]:
    """(the version the client names, whether the header holds this viewer's own ETag of it)."""
    if not header or len(header) > _MAX_IF_NONE_MATCH:
        return None, False
    named = None
    own_tag = viewer_tag(user.pk)
    for tag in header.split(","):
        match = _ETAG.fullmatch(tag.strip())
        if match:
            version = int(match.group(1))
            if match.group(2) == own_tag:
                return version, True
            named = version if named is None else named
    return named, False


def wait_seconds(request: Request) -> float:
    raw = request.query("wait")
    try:
        wait = float(raw) if raw is not None else 0.0
    except ValueError:
        wait = -1.0
    if not 0 <= wait <= settings.LONGPOLL_MAX_SECONDS:
        raise Invalid("wait must be a number of seconds from 0 to 30", {"fields": {"wait": ["0..30"]}})
    return wait


async def current_version(table_id: str, db) -> int | None:
    """The table's version: from the version cache, else one query (which enforces an overdue
    deadline and fills the cache). `db` runs blocking work (games.edge.threads.run_db at the edge,
    asgiref's sync_to_async in a Django view)."""
    hit = await versions.cached(table_id)
    if hit is not None and not waiting.overdue(hit[1]):
        return hit[0]
    return await _database_version(table_id, db)


async def _database_version(table_id: str, db) -> int | None:
    row = await db(automation.table_clock)(table_id)
    if row is None:
        return None
    await versions.fill(table_id, *row)
    return row[0]


def read_state(table_id: str, user) -> dict | None:
    table = waiting.read_table(table_id)
    return None if table is None else selectors.state_view(table, user)


def _state_answer(version: int, body: bytes, user) -> Answer:
    return Answer(200, body, {
        "Content-Type": "application/json",
        "ETag": etag(version, user),
        "Cache-Control": "private, no-cache",
        "Vary": "Authorization, Cookie",
    })


async def answer(request: Request, table_id: str, user, db) -> Answer:
    """The state endpoint for an authenticated `user`: the polling rule of docs/api.md. Raises
    the API's errors (config.errors). `db`: see `current_version`."""
    wait = wait_seconds(request)
    known, own = parse_etag(request.headers.get("if-none-match"), user)
    if wait == 0 and known is None:
        return await _plain(table_id, user, db)  # the read has the version: no version first
    version = await current_version(table_id, db)
    if version is None:
        raise NotFound("no such table")
    if wait > 0:
        baseline = known if known is not None else version
        if version < baseline:
            # The cache is behind what the client has seen (a lost write): ask the database.
            version = await _database_version(table_id, db)
            if version is None:
                raise NotFound("no such table")
        if version == baseline:
            woken = await _wait_for_change(table_id, baseline, wait, user, db)
            if woken is None:
                raise NotFound("no such table")
            if woken[0] > baseline:
                return _state_answer(*woken, user)
            version = woken[0]
    if own and version < known:
        # The cache is behind what the client holds (a write lost while Redis failed, its
        # message too): the database decides between the 304 and the news, so a long-poll
        # never answers 200 with a state the client already has.
        version = await _database_version(table_id, db)
        if version is None:
            raise NotFound("no such table")
    if own and known == version:
        return Answer(304, b"", {"ETag": etag(version, user)})
    return await _plain(table_id, user, db)


async def _wait_for_change(table_id: str, baseline: int, wait: float, user, db) -> tuple[int, bytes | None] | None:
    """Hold in the waiting room until the table is past `baseline` or `wait` seconds pass:
    (the version, the state rendered for `user`) once it changed, (the version last read, None)
    at the end of the wait, None when the table is gone. A wake-up whose read still shows
    `baseline` or older (an announcement ahead of what a read sees) waits on: only news ends
    the wait early."""
    room = waiting.room()
    end = time.monotonic() + wait
    with room.waiting(table_id, baseline, "longpoll") as waiter:
        while True:
            version = await waiter.changed(max(end - time.monotonic(), 0.0), lambda: current_version(table_id, db))
            if version is None:
                return None
            if version <= baseline:
                return version, None
            # Woken by a change: every waiter of the table in this process shares one read of
            # it and, per seat, one rendering of its view.
            woken = await room.view(table_id, version, user)
            if woken is None:
                return None
            if woken[0] > baseline:
                return woken
            if time.monotonic() >= end:
                return woken[0], None
            waiter.latest = 0
            await asyncio.sleep(min(0.05, max(end - time.monotonic(), 0.0)))


async def _plain(table_id: str, user, db) -> Answer:
    state = await db(read_state)(table_id, user)
    if state is None:
        raise NotFound("no such table")
    return _state_answer(state["version"], render(state), user)

