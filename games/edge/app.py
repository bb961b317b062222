"""The edge: the ASGI application in front of Django (config/asgi.py), the one place where every
request enters the service.

For every request, whichever door serves it:
- the request id (config.logs.request_id, the one rule), written back into the request so
  Django's middleware keeps the same one;
- one access-log line (config.logs.access) and the request's metrics (config.metrics), by route.

The hot endpoints (games.edge.endpoints: state polls and long-polls, moves, event streams) are
answered here, before Django's handler — which would cost a thread hop per request and, for a
waiting request, a thread (and through it a database connection) for the whole wait — when:
- the guard admits the request (games.edge.guard: Django's own host and SSL checks), and the
  settings are those the edge follows;
- DRF's negotiation of the endpoint's view picks the edge's JSON rendering;
- the request is the plain kind (a move's small JSON body without an Idempotency-Key, no
  session for an unsafe method).
Everything else goes to Django, which answers it with the same pipeline's code: the views of the
hot paths call the same endpoint functions (games.api), and the answer a client gets is the same
through either door, byte for byte but for the request id (tests/edge/test_paired.py).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from functools import lru_cache
from http import HTTPStatus
from types import SimpleNamespace

from django.conf import settings
from django.urls import Resolver404, resolve
from django.utils.cache import patch_vary_headers
from django.utils.log import log_response

from config import logs, metrics
from config.errors import json_500

from . import auth, collector, guard, threads, waiting
from .endpoints import ALL, MOVES, STATE, Endpoint
from .events import Stream
from .http import Answer, Request

log = logging.getLogger(__name__)
# A move body is a few dozen bytes; anything bigger is DRF's to read (and to refuse when over
# DATA_UPLOAD_MAX_MEMORY_SIZE).
MAX_BODY = 16 * 1024
_JSON_TYPES = ("application/json", "application/json; charset=utf-8", "application/json;charset=utf-8")
GONE = "gone"


class Edge:
    def __init__(self, django_app):
        self.django = django_app
        self.guard = guard.Guard()

    async def __call__(self, scope, receive, send):
        kind = scope["type"]
        if kind == "lifespan":
            return await self._lifespan(receive, send)
        if kind != "http":
            return await self.django(scope, receive, send)
        waiting.room()  # this loop's: it hears other processes' changes and token messages
        collector.start()
        collector.active()
        started = time.perf_counter()
        request_id = _request_id(scope)
        id_token = logs.request_id_var.set(request_id)
        holder, user_token = logs.hold_user()
        status = [500]
        route = [None]

        async def tracked(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            answered = False
            if self.guard.serving:
                for endpoint in ALL:
                    if scope["method"] == endpoint.method:
                        match = endpoint.path.match(scope["path"])
                        if match is not None:
                            route[0] = _route(endpoint, scope)
                            answered = await self._serve(endpoint, match.groupdict().get("table_id"), scope, receive, tracked,
                                                         request_id)
                            if answered is GONE:
                                status[0] = 499  # the client left before its request was whole
                            break
            if not answered:
                # Django's handler runs the view on a thread of its own: in its turn, as the
                # edge's own work (games.edge.threads), so a burst of other requests (invitations,
                # seats) does not starve the loop's answers nor the streams' reads.
                await threads.in_turn(self.django, scope, receive, tracked)
        finally:
            collector.active()
            logs.request_id_var.reset(id_token)
            logs.release_user(user_token)
            duration = time.perf_counter() - started
            name = route[0] or _django_route(scope["method"], scope["path"])
            logs.access(request_id=request_id, method=scope["method"], path=scope["path"], route=name,
                        status=status[0], duration_ms=duration * 1000, user_id=holder[0])
            metrics.observe_request(name, scope["method"], status[0], duration)

    async def _serve(self, endpoint: Endpoint, table_id: str, scope, receive, send, request_id: str):
        """Answer the request at `endpoint` (True), or False: Django must (decided before the
        body is read), or GONE: the client left before its body arrived."""
        request = Request.from_scope(scope)
        secure = self.guard.admits(request)
        if secure is None:
            return False
        policy = endpoint.policy
        if not guard.throttles_known(policy.view.throttle_classes) or policy.renders_here(request) is False:
            return False
        headers = request.headers
        session_user = None
        if "authorization" not in headers:
            session_user = auth.session_of(auth.cookies(headers.get("cookie")))
            if session_user is not None and endpoint is MOVES:
                return False  # a session's unsafe request: Django checks its CSRF token
        if endpoint is MOVES:
            length = headers.get("content-length", "")
            if ("idempotency-key" in headers or "transfer-encoding" in headers or request.query_string
                    or not length.isdigit() or not 0 < int(length) <= MAX_BODY
                    or headers.get("content-type", "").strip().lower() not in _JSON_TYPES):
                return False
            body = await _read_body(receive, int(length))
            if body is None:
                return GONE  # nothing to answer
            request.body = body
        try:
            answer = await endpoint.serve(request, table_id, session_user=session_user)
        except Exception:
            log.exception("%s request failed", endpoint.name)
            answer = _server_error()
        self._finish(request, answer, policy.view_headers, session_user is not None, secure, request_id)
        if answer.status >= 400:
            # A refused request logged by Django's own rule (django.request: a warning, an error
            # for a 5xx), as its handler logs one.
            log_response("%s: %s", HTTPStatus(answer.status).phrase, scope["path"],
                         response=SimpleNamespace(status_code=answer.status, _has_been_logged=False))
        if isinstance(answer.more, Stream):
            await _stream(answer, receive, send)
        else:
            await _send(answer, send)
        return True

    def _finish(self, request: Request, answer: Answer, view_headers: dict[str, str], by_session: bool, secure: bool,
                request_id: str) -> None:
        """What the view (DRF's default headers) and Django's middleware add to an answer, in
        their order (the inner ones first, as they run on the way out)."""
        for name, value in view_headers.items():
            if name.lower() == "vary":
                patch_vary_headers(answer, [v.strip() for v in value.split(",")])
            else:
                answer.headers[name] = value
        if by_session:
            patch_vary_headers(answer, ["Cookie"])  # what SessionMiddleware adds once a session is read
        for name, value in self.guard.headers(secure):
            answer.headers.setdefault(name, value)
        self.guard.cors(request, answer)
        answer.headers["X-Request-ID"] = request_id

    async def _lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                waiting.room()  # the listener of other processes' changes and token messages
                collector.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


_WAIT = re.compile(rb"(?:^|&)wait=(?!0*(?:\.0*)?(?:&|$))")


def _route(endpoint: Endpoint, scope) -> str:
    """The endpoint's route label; a state request that waits is told apart (it lasts up to 30 s)."""
    label = f"{endpoint.method} {endpoint.route}"
    if endpoint is STATE and _WAIT.search(scope.get("query_string", b"")):
        label += "?wait"
    return label


def _request_id(scope) -> str:
    """The request's id by the one rule, written into the scope's headers for Django."""
    incoming = None
    headers = scope["headers"]
    for name, value in headers:
        if name == b"x-request-id":
            incoming = value.decode("latin-1")
    request_id = logs.request_id(incoming)
    if incoming != request_id:
        scope["headers"] = [(k, v) for k, v in headers if k != b"x-request-id"] + [(b"x-request-id", request_id.encode())]
    return request_id


def _server_error() -> Answer:
    """Django's own 500 of an API path (config.errors.json_500), as the edge's answer."""
    response = json_500(SimpleNamespace(path="/api/"))
    return Answer(response.status_code, response.content, {"Content-Type": response["Content-Type"]})


async def _read_body(receive, length: int) -> bytes | None:
    """The request body (`length` bytes announced), or None when the client went away."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > length or not message.get("more_body", False):
            return b"".join(chunks)


def _asgi_headers(answer: Answer) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in answer.headers.lowered()]


async def _send(answer: Answer, send) -> None:
    answer.headers["Content-Length"] = str(len(answer.body))
    await send({"type": "http.response.start", "status": answer.status, "headers": _asgi_headers(answer)})
    await send({"type": "http.response.body", "body": answer.body})


async def _stream(answer: Answer, receive, send) -> None:
    """An event stream: the opening, then the stream's chunks until it ends or the client leaves
    (a disconnect cancels it at once and frees its slot)."""
    stream: Stream = answer.more
    try:
        await send({"type": "http.response.start", "status": answer.status, "headers": _asgi_headers(answer)})
        await send({"type": "http.response.body", "body": answer.body, "more_body": True})

        async def pump():
            async for chunk in stream:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def disconnected():
            while (await receive())["type"] != "http.disconnect":
                pass

        tasks = [asyncio.create_task(pump()), asyncio.create_task(disconnected())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in done:
            if not task.cancelled() and task.exception() is not None and not isinstance(task.exception(), OSError):
                log.error("event stream failed: %s", type(task.exception()).__name__)
    finally:
        await stream.close()


@lru_cache(maxsize=2048)
def _resolved(path: str) -> str:
    try:
        return "/" + resolve(path, urlconf=settings.ROOT_URLCONF).route
    except Resolver404:
        return "(unmatched)"


def _django_route(method: str, path: str) -> str:
    """`METHOD /route/<converter:name>` of a request Django served, by its URL pattern (an
    unknown path: `(unmatched)`); paths are folded so the cache stays small."""
    return f"{method} {_resolved(_fold(path))}"


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_NUMBER = re.compile(r"/\d+(?=/|$)")


def _fold(path: str) -> str:
    # Ids are not part of a route: one resolution serves every table's path.
    return _NUMBER.sub("/1", _UUID.sub("00000000-0000-4000-8000-000000000000", path))


def application(django_app):
    """config/asgi.py: the edge in front of Django's ASGI handler."""
    return Edge(django_app)
