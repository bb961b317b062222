"""`GET /api/v1/tables/{id}/events`: a Server-Sent Events stream of the table as the caller
may see it (api.md, "Push: event streams and webhooks").

Each event is `id: <version>`, `event: state`, `data: <the caller's GET /state JSON>`. The first
event is the current state (unless `Last-Event-ID` or `?after=` names it or a later version);
then one event per version change, in order; changes that come faster than a client reads are
coalesced into the latest state, never reordered. A `: ping` comment every SSE_PING_SECONDS
keeps proxies from closing an idle stream.

The stream is served by a plain ASGI app mounted in front of Django (config/asgi.py). Django's
ASGI handler gives every request its own thread for its sync middleware and keeps it for the
request's whole life, so a thousand idle streams would park a thousand threads; here an idle
stream is one coroutine waiting on an asyncio event (games.notify). Database work (the token
lookup, each state read) runs on the shared thread pool and closes its connection, so an idle
stream holds no thread and no database connection. A disconnect cancels the stream at once and
frees its slot."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from urllib.parse import parse_qs

from django.conf import settings

from accounts import tokens
from config.errors import error_body
from games import notify, polling

PATH = re.compile(r"^/api/v1/tables/(?P<table_id>[0-9a-fA-F-]{36})/events/?$")
MAX_AFTER = 2**31
log = logging.getLogger(__name__)


_db = polling.run_db


def _authenticate(headers: dict[str, str]):
    """The API's token authentication, or the session cookie (a browser's EventSource cannot
    set headers). Returns (user, None) or (None, the 401 message)."""
    from rest_framework import exceptions
    from rest_framework.authentication import TokenAuthentication

    auth = headers.get("authorization", "")
    if auth:
        parts = auth.split()
        if len(parts) != 2 or parts[0].lower() != "token":
            return None, "Invalid token header."
        user = tokens.cached(parts[1]) or tokens.lookup(parts[1])
        if user is not None:
            return user, None
        try:
            user, _ = TokenAuthentication().authenticate_credentials(parts[1])
        except exceptions.AuthenticationFailed as exc:
            return None, str(exc.detail)
        return user, None
    session_key = _cookie(headers.get("cookie", ""), settings.SESSION_COOKIE_NAME)
    if session_key:
        from importlib import import_module
        from types import SimpleNamespace

        from django.contrib.auth import get_user

        store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
        user = get_user(SimpleNamespace(session=store))
        if user.is_authenticated and user.is_active:
            return user, None
    return None, "Authentication credentials were not provided."


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name and value:
            return value
    return None


_view = polling.view
_shared_table = polling.shared_table


def format_event(state: dict) -> bytes:
    data = polling.render(state).decode()
    return f"id: {state['version']}\nevent: state\ndata: {data}\n\n".encode()


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
        if self.redis is None:
            import redis.asyncio as aioredis

            self.redis = aioredis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
        return self.redis

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


def opening(first: dict, after: int | None) -> tuple[bytes, int]:
    """The stream's first chunk and the version the client then has: the reconnection delay,
    and the current state unless the client already has it (`after`)."""
    chunk = f"retry: {settings.SSE_RETRY_MS}\n\n".encode()
    if after is None or first["version"] > after:
        return chunk + format_event(first), first["version"]
    return chunk, after


async def event_stream(table_id: str, user, after: int | None, waiter: notify.Waiter, first: dict, on_ping=None):
    """Yield the stream's chunks: the opening, then every later version, with pings while
    nothing changes. `waiter` was subscribed before `first` was read, so no commit in between
    is missed."""
    chunk, last = opening(first, after)
    yield chunk
    deadline = time.monotonic() + settings.SSE_MAX_SECONDS
    while True:
        waiter.version = last
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return  # the client reconnects with Last-Event-ID
        try:
            await asyncio.wait_for(waiter.event.wait(), timeout=min(settings.SSE_PING_SECONDS, remaining))
        except TimeoutError:
            if on_ping is not None:
                await on_ping()
            yield b": ping\n\n"
            continue
        waiter.event.clear()
        table = await _shared_table(table_id, waiter.latest)
        if table is None:
            return  # the table was deleted
        state = await _view(table, user)
        if state["version"] > last:
            last = state["version"]
            yield format_event(state)


def parse_after(headers: dict[str, str], query: dict[str, list[str]]) -> tuple[int | None, str | None]:
    raw = headers.get("last-event-id")
    name = "Last-Event-ID"
    if raw is None and "after" in query:
        raw, name = query["after"][-1], "after"
    if raw is None or raw == "":
        return None, None
    if not raw.isdigit() or len(raw) > 10 or int(raw) > MAX_AFTER:
        return None, name
    return int(raw), None


async def _respond_error(send, status: int, code: str, message: str, detail=None, headers=()) -> None:
    body = json.dumps(error_body(code, message, detail)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def events_app(scope, receive, send) -> None:
    """The ASGI app of the stream (config/asgi.py routes its path here)."""
    match = PATH.match(scope["path"])
    table_id = match.group("table_id").lower()
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    if scope["method"] != "GET":
        await _respond_error(send, 405, "method_not_allowed", f'Method "{scope["method"]}" not allowed.', headers=[(b"allow", b"GET")])
        return
    try:
        uuid.UUID(table_id)
    except ValueError:
        await _respond_error(send, 404, "not_found", "no such table")
        return
    user, problem = await _db(_authenticate)(headers)
    if user is None:
        await _respond_error(send, 401, "not_authenticated", problem, headers=[(b"www-authenticate", b"Token")])
        return
    after, bad = parse_after(headers, parse_qs(scope.get("query_string", b"").decode("latin-1")))
    if bad:
        await _respond_error(send, 400, "invalid", f"{bad} must be a version number", {"fields": {bad: [f"0..{MAX_AFTER}"]}})
        return
    token = await slots.acquire(user.pk)
    if token is None:
        wait = max(1, round(settings.SSE_PING_SECONDS))
        await _respond_error(
            send, 429, "throttled", f"at most {settings.SSE_MAX_STREAMS_PER_USER} open event streams per user",
            {"retry_after": wait}, headers=[(b"retry-after", str(wait).encode())],
        )
        return
    waiter = notify.subscribe(table_id)
    try:
        first = await _db(polling.read_state)(table_id, user)
        if first is None:
            await _respond_error(send, 404, "not_found", "no such table")
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-cache"),
                    (b"x-accel-buffering", b"no"),
                    (b"x-request-id", headers.get("x-request-id", uuid.uuid4().hex).encode("latin-1")[:200]),
                ],
            }
        )

        async def pump():
            ping = lambda: slots.refresh(user.pk, token)  # noqa: E731
            async for chunk in event_stream(table_id, user, after, waiter, first, on_ping=ping):
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def disconnected():
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = [asyncio.create_task(pump()), asyncio.create_task(disconnected())]
        try:
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in done:
            if not task.cancelled() and task.exception() is not None and not isinstance(task.exception(), OSError):
                log.error("event stream failed: %s", type(task.exception()).__name__)
    finally:
        notify.unsubscribe(table_id, waiter)
        await slots.release(user.pk, token)


def asgi_router(django_app):
    """config/asgi.py: the event stream's path goes to `events_app`, everything else to Django."""

    async def application(scope, receive, send):
        if scope["type"] == "http" and PATH.match(scope["path"]):
            started = False

            async def tracked_send(message):
                nonlocal started
                started = started or message["type"] == "http.response.start"
                await send(message)

            try:
                await events_app(scope, receive, tracked_send)
            except Exception:
                log.exception("event stream failed")
                if not started:
                    await _respond_error(send, 500, "server_error", "internal server error")
            return
        await django_app(scope, receive, send)

    return application
