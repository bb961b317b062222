"""`GET /api/v1/tables/{id}/state` for token-authenticated clients, answered before Django's
handler (issue 12: polling at the floor).

Django's ASGI handler costs a thread hop per request and, for a waiting long-poll, a thread
(and through it a database connection) for the whole wait. This plain ASGI app, mounted in
front of Django by config/asgi.py, answers the state of a table to a request that carries
`Authorization: Token …`:

- the token's user from the in-process token cache (accounts.tokens), else one query;
- the table's version from the version cache (games.versions: one Redis GET, kept by every
  commit), else one indexed query, which also enforces an overdue deadline as every read does;
- a 304 when `If-None-Match` is this viewer's ETag of that version: with both caches warm, no
  database work at all;
- `?wait=`: a coroutine on the process's notifier (games.notify), holding no thread and no
  database connection while it waits;
- a 200: one read of the table and one of its seats with their players, the engine's view of
  it once, rendered by orjson.

Everything else falls through to Django, which answers it exactly as before (games.longpoll):
another method, no token header, a malformed `wait` or table id, an unknown token, a missing
table, an insecure request when SSL is enforced. So every error keeps its one shape and its
wording, and the contract has one implementation of each rule.

The ETag is `"v<version>-<viewer tag>"`: the tag (8 hex characters of an HMAC of the viewer's
id under the SECRET_KEY) makes it per viewer, so a 304 is only ever earned with the ETag the
same viewer was given, and it reveals nothing."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from urllib.parse import parse_qs

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import SynchronousOnlyOperation
from django.db import close_old_connections, connection
from django.http.request import split_domain_port, validate_host
from rest_framework.utils.encoders import JSONEncoder

from accounts import tokens
from config.errors import error_body
from config.logs import request_id_var
from games import notify, selectors, versions
from games.services import automation

PATH = re.compile(r"^/api/v1/tables/(?P<table_id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/state$")
log = logging.getLogger(__name__)
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def _closing(fn):
    """`fn`, then its database connection handed back (to the pool, or closed): no request or
    waiter keeps a connection between two pieces of work."""

    def run(*args):
        try:
            return fn(*args)
        finally:
            if settings.DATABASES["default"].get("CONN_MAX_AGE", 0):
                close_old_connections()
            else:
                connection.close()

    return run


def run_db(fn):
    """Run `fn` on the shared thread pool (the requests' database work), connection handed back."""
    return sync_to_async(_closing(fn), thread_sensitive=False)


# The reads of woken waiters run on threads of their own: behind a burst of moves on the shared
# pool (fifty tables moving at once), another process's waiters would wait for every move to
# finish before reading the change that woke them.
_woken_pool: ThreadPoolExecutor | None = None
_woken_pool_lock = threading.Lock()


def _woken_read(table_id: str) -> asyncio.Future:
    global _woken_pool
    if _woken_pool is None:
        with _woken_pool_lock:
            if _woken_pool is None:
                _woken_pool = ThreadPoolExecutor(max_workers=settings.WOKEN_READ_THREADS, thread_name_prefix="woken-read")
    return asyncio.get_running_loop().run_in_executor(_woken_pool, _closing(read_table), table_id)


# ETags ---------------------------------------------------------------------------------------

# "v<version>" with an optional "-<tag>"; version a 63-bit counter, at most 19 digits. Anything
# longer, and anything not in that form, is simply not a match (issue 18.3). The header itself
# is capped so a huge one costs no parsing work.
_ETAG = re.compile(r'(?:W/)?"?v([0-9]{1,19})(?:-([0-9a-f]{8}))?"?')
_MAX_IF_NONE_MATCH = 1024


@lru_cache(maxsize=65536)
def viewer_tag(user_pk: int) -> str:
    return hmac.new(settings.SECRET_KEY.encode(), f"etag:{user_pk}".encode(), hashlib.sha256).hexdigest()[:8]


def etag(version: int, user) -> str:
    return f'"v{version}-{viewer_tag(user.pk)}"'


def parse_etag(header: str | None, user) -> tuple[int | None, bool]:
    """(the version the client names, whether the header holds this viewer's own ETag of it)."""
    if not header or len(header) > _MAX_IF_NONE_MATCH:
        return None, False
    named = None
    for tag in header.split(","):
        match = _ETAG.fullmatch(tag.strip())
        if match:
            version = int(match.group(1))
            if match.group(2) == viewer_tag(user.pk):
                return version, True
            named = version if named is None else named
    return named, False


# Reads ---------------------------------------------------------------------------------------


async def current_version(table_id: str, db=run_db) -> int | None:
    """The table's version: from the version cache, else one query (which enforces an overdue
    deadline and fills the cache). `db` runs the query (Django's view passes its own runner)."""
    hit = await versions.cached(table_id)
    if hit is not None and not versions.overdue(hit[1]):
        return hit[0]
    row = await db(automation.table_clock)(table_id)
    if row is None:
        return None
    await versions.fill(table_id, *row)
    return row[0]


def _overdue(table) -> bool:
    """Whether the table's deadline has passed: its state is not to be answered as it is."""
    return versions.overdue(None if table.deadline is None else table.deadline.timestamp())


def read_table(table_id: str):
    """The table with its seats and players (two queries), after enforcing an overdue
    deadline like every read; None when there is no such table."""
    table = selectors.table_for_state(table_id)
    if table is None:
        return None
    if _overdue(table):
        automation.table_clock(table_id)
        table = selectors.table_for_state(table_id)
    return table


def read_state(table_id: str, user) -> dict | None:
    table = read_table(table_id)
    return None if table is None else selectors.state_view(table, user)


view = sync_to_async(selectors.state_view, thread_sensitive=False)
# Per event loop: the table read in flight, shared by every waiter of the table woken by the
# same change (one database read per change and process, not one per waiter).
_reads: dict[tuple[int, str], asyncio.Future] = {}
# ... and the last such read for a moment after it ends, for the waiters the same change woke
# that reach it late (a busy loop): they take it rather than read again (within the version
# they need, and not past a deadline, like the snapshot of `notify.fresh`).
_recent: OrderedDict[tuple[int, str], tuple[float, object]] = OrderedDict()
_RECENT_SECONDS = 0.5
_MAX_RECENT = 2048


def _keep_recent(key, future: asyncio.Future) -> None:
    if _reads.get(key) is future:
        _reads.pop(key, None)
    if future.cancelled() or future.exception() is not None or future.result() is None:
        return
    _recent[key] = (time.monotonic(), future.result())
    _recent.move_to_end(key)
    while len(_recent) > _MAX_RECENT:
        _recent.popitem(last=False)


def _usable(table, at_least: int) -> bool:
    return table.version >= at_least and not _overdue(table)


async def shared_table(table_id: str, at_least: int):
    """The table at version `at_least` or later, from a read in flight if there is one."""
    table = notify.fresh(table_id, at_least)
    if table is not None and not _overdue(table):
        return table  # as this process committed it: no read at all
    key = (id(asyncio.get_running_loop()), table_id)  # a future belongs to its loop
    recent = _recent.get(key)
    if recent is not None and time.monotonic() - recent[0] < _RECENT_SECONDS and _usable(recent[1], at_least):
        return recent[1]  # the read this change's other waiters just made
    for _ in range(3):
        future = _reads.get(key)
        if future is None:
            future = _woken_read(table_id)
            _reads[key] = future
            future.add_done_callback(lambda f, key=key: _keep_recent(key, f))
        table = await asyncio.shield(future)
        # A read that began before the change that woke us may miss it: read again.
        if table is None or table.version >= at_least:
            return table
        if _reads.get(key) is future:
            _reads.pop(key, None)
    return table


async def decide(table_id: str, known: int | None, own: bool, wait: float, db=run_db) -> tuple[str, int | None]:
    """The polling rule of api.md, for both paths: ("missing", None) for no such table,
    ("304", version), or ("200", the version last seen, None when none was read). `known`:
    the version the If-None-Match names; `own`: whether it is this viewer's own ETag of it.
    A plain read needs no version first: the state read has it."""
    if wait == 0 and known is None:
        return "200", None
    version = await current_version(table_id, db)
    if version is None:
        return "missing", None
    if wait > 0:
        baseline = known if known is not None else version
        if version == baseline:
            version = await wait_for_change(table_id, baseline, wait, db)
            if version is None:
                return "missing", None
    return ("304" if own and known == version else "200"), version


# (table, version, seat) -> (when, body): the rendered view of a seat (None: a spectator) at a
# version, for the waiters woken by the same change. Short-lived: a change that keeps the
# version (a seat marked away) must not be hidden for long.
_bodies: OrderedDict[tuple, tuple[float, bytes]] = OrderedDict()
_BODY_SECONDS = 2.0
_MAX_BODIES = 2048


async def woken_state(table_id: str, version: int, user) -> tuple[int, bytes] | None:
    """(version, body) for a waiter woken by the change to `version`."""
    table = await shared_table(table_id, version)
    if table is None:
        return None
    seat = await _pure(selectors.viewer_seat, table, user)
    key = (table_id, table.version, seat)
    now = time.monotonic()
    hit = _bodies.get(key)
    if hit is not None and now - hit[0] < _BODY_SECONDS:
        return table.version, hit[1]
    body = render(await _pure(selectors.state_view, table, user))
    _bodies[key] = (now, body)
    _bodies.move_to_end(key)
    while len(_bodies) > _MAX_BODIES:
        _bodies.popitem(last=False)
    return table.version, body


async def _pure(fn, *args):
    """`fn(*args)` on the event loop when it needs no database (a table read with its seats:
    the view is engine work), so a burst of wake-ups does not queue behind the pool's reads;
    on the pool if it turns out to query after all."""
    try:
        return fn(*args)
    except SynchronousOnlyOperation:
        return await sync_to_async(fn, thread_sensitive=False)(*args)


def _default(obj):
    # What orjson does not know: DRF's encoder (Decimal, lazy strings, ...).
    return JSONEncoder().default(obj)


def render(state: dict) -> bytes:
    """The state as JSON, byte-for-byte what DRF's encoder gives modulo whitespace: orjson
    writes datetimes as DRF does with OPT_UTC_Z (`…Z`), UUIDs as strings."""
    return orjson.dumps(state, default=_default, option=orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS)


# Headers -------------------------------------------------------------------------------------


@lru_cache(maxsize=2)
def _security_headers(secure: bool) -> tuple[tuple[bytes, bytes], ...]:
    """What Django's SecurityMiddleware and XFrameOptionsMiddleware add to every response."""
    out = []
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        out.append((b"x-content-type-options", b"nosniff"))
    if settings.SECURE_REFERRER_POLICY:
        policy = settings.SECURE_REFERRER_POLICY
        policy = policy if isinstance(policy, str) else ",".join(policy)
        out.append((b"referrer-policy", policy.encode()))
    if settings.SECURE_CROSS_ORIGIN_OPENER_POLICY:
        out.append((b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode()))
    if secure and settings.SECURE_HSTS_SECONDS:
        hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
        if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS:
            hsts += "; includeSubDomains"
        if settings.SECURE_HSTS_PRELOAD:
            hsts += "; preload"
        out.append((b"strict-transport-security", hsts.encode()))
    out.append((b"x-frame-options", settings.X_FRAME_OPTIONS.encode()))
    return tuple(out)


def _is_secure(scope, headers: dict[str, str]) -> bool:
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower()
        value = headers.get(name)
        if value is not None:
            return value.split(",")[0].strip() == proxy[1]
    return scope.get("scheme") == "https"


# The app -------------------------------------------------------------------------------------


class Fallback(Exception):
    """Not ours to answer: Django answers it (reading the request from `receive` when the fast
    path has read its body already)."""

    def __init__(self, receive=None):
        super().__init__()
        self.receive = receive


def _token(headers: dict[str, str]) -> str:
    parts = headers.get("authorization", "").split()
    if len(parts) != 2 or parts[0].lower() != "token":
        raise Fallback
    return parts[1]


def _wait_seconds(query_string: bytes) -> float:
    raw = parse_qs(query_string.decode("latin-1")).get("wait", ["0"])[-1] if query_string else "0"
    try:
        wait = float(raw)
    except ValueError:
        raise Fallback from None
    if not 0 <= wait <= settings.LONGPOLL_MAX_SECONDS:
        raise Fallback
    return wait


async def wait_for_change(table_id: str, baseline: int, wait: float, db=run_db) -> int | None:
    """Hold until the version differs from `baseline` or `wait` seconds pass: a coroutine on
    an asyncio event, woken by the notifier (this process's commits, Redis messages, or the
    batched re-check without Redis). Returns the version then."""
    waiter = notify.subscribe(table_id, baseline)
    end = time.monotonic() + wait
    try:
        # Read again once subscribed: a commit between the first read and the subscription
        # would otherwise be missed.
        version = await current_version(table_id, db)
        while version == baseline:
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(waiter.event.wait(), timeout=remaining)
            except TimeoutError:
                break
            waiter.event.clear()
            version = waiter.latest if waiter.latest > baseline else await current_version(table_id, db)
    finally:
        notify.unsubscribe(table_id, waiter)
    return version


@lru_cache(maxsize=256)
def _host_allowed(host: str) -> bool:
    """Django's ALLOWED_HOSTS check (a request for another host is Django's 400)."""
    domain, _ = split_domain_port(host)
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    return bool(domain) and validate_host(domain, allowed)


def preflight(scope, headers: dict[str, str]) -> str:
    """The token of a request a fast path may answer (games.polling, games.fast_moves), after
    the checks Django's middleware would make first; Fallback when Django must answer it
    (an insecure request when SSL is enforced, a forwarded or disallowed Host, no token)."""
    if settings.SECURE_SSL_REDIRECT and not _is_secure(scope, headers):
        raise Fallback
    if settings.USE_X_FORWARDED_HOST and "x-forwarded-host" in headers:
        raise Fallback
    if not _host_allowed(headers.get("host", "")):
        raise Fallback
    return _token(headers)


async def token_user(key: str):
    """The token's active user (the cache, else one query), or Fallback: Django's 401, with
    its message."""
    user = tokens.cached(key) or await run_db(tokens.lookup)(key)
    if user is None:
        raise Fallback
    return user


async def _answer(scope, headers: dict[str, str], table_id: str):
    """(status, extra headers, body) of this request, or Fallback."""
    key = preflight(scope, headers)
    wait = _wait_seconds(scope.get("query_string", b""))
    user = await token_user(key)
    known, own = parse_etag(headers.get("if-none-match"), user)
    outcome, version = await decide(table_id, known, own, wait)
    if outcome == "missing":
        raise Fallback  # Django's 404
    if outcome == "304":
        return 304, [(b"etag", etag(version, user).encode())], b""
    if wait > 0 and version is not None and known is not None and version > known:
        # Woken by a change: every waiter of the table in this process shares one read of it,
        # and every waiter in the same seat (all the spectators) one rendering of its view.
        answer = await woken_state(table_id, version, user)
    else:
        state = await run_db(read_state)(table_id, user)
        answer = None if state is None else (state["version"], render(state))
    if answer is None:
        raise Fallback
    return (
        200,
        [
            (b"content-type", b"application/json"),
            (b"etag", etag(answer[0], user).encode()),
            (b"cache-control", b"private, no-cache"),
            (b"vary", b"Authorization, Cookie"),
        ],
        answer[1],
    )


def state_router(django_app):
    """config/asgi.py: `GET …/state` with a token goes here first; the rest goes to Django."""

    async def answer(scope, receive, headers, match):
        return await _answer(scope, headers, match.group("table_id"))

    return fast_route(django_app, "GET", PATH, answer, "state request")


def fast_route(django_app, method: str, pattern: re.Pattern, answer, what: str):
    """An ASGI app that lets `answer(scope, receive, headers, match)` answer the `method`
    requests whose path matches `pattern`, and Django the rest. `answer` returns (status,
    extra headers, body), None when there is nothing to send (the client left), or raises
    Fallback (with the `receive` Django must read the request from, if it read the body)."""

    async def application(scope, receive, send):
        if scope["type"] != "http" or scope["method"] != method:
            return await django_app(scope, receive, send)
        match = pattern.match(scope["path"])
        if match is None:
            return await django_app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        request_id = request_id_of(headers)
        token = request_id_var.set(request_id)
        try:
            answered = await answer(scope, receive, headers, match)
        except Fallback as exc:
            return await django_app(scope, exc.receive or receive, send)
        except Exception:
            log.exception("%s failed", what)
            answered = 500, [(b"content-type", b"application/json")], orjson.dumps(
                error_body("server_error", "internal server error")
            )
        finally:
            request_id_var.reset(token)
        if answered is not None:
            await respond(send, scope, headers, request_id, *answered)

    return application


def request_id_of(headers: dict[str, str]) -> str:
    """The request's id, as config.logs.RequestIdMiddleware gives it."""
    incoming = headers.get("x-request-id", "")
    return incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex


async def respond(send, scope, headers: dict[str, str], request_id: str, status: int, extra, body: bytes):
    """Send a fast path's answer with what Django's middleware adds to every response."""
    length = [] if status == 304 else [(b"content-length", str(len(body)).encode())]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                *extra,
                *length,
                (b"x-request-id", request_id.encode()),
                *_security_headers(_is_secure(scope, headers)),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
