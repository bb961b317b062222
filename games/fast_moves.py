"""`POST /api/v1/tables/{id}/moves` for token-authenticated clients, answered before Django's
handler (issue 12.6: moves at the floor), as games.polling answers the state polls.

A move through Django costs the handler's thread per request, the middleware, DRF's request,
negotiation, parsing and throttles, and a JSON round trip of the answer; the floor's write is
one request of the same stack doing less. Here a move is: the token's user from the cache
(accounts.tokens), the body parsed by orjson, the `user` and `moves` throttles counted in one
round trip (config.throttling.count_move), then the one command path (`moves.move_submit`,
the same service the view calls) on the shared thread pool, and the answer the view gives,
rendered by orjson. An API error raised by the service (`illegal_move`, `stale_version`, …)
is rendered by the one error handler's rule (`config.errors.error_body`), so it has the shape,
status and wording the view gives it.

Whatever the fast path does not answer itself goes to Django untouched (its body replayed),
before anything was counted or written: another method or path, no token, an unknown token, an
`Idempotency-Key` (the keyed path stays in one place), a body that is not small JSON of the
plain kind (no content length, another content type or charset, a parse error, not an object,
too deep, a NUL, a malformed `type` or `expected_version`: DRF's parser and `move_body` word
those errors), an `Accept` that is not JSON's or a query string (DRF's negotiation), a throttled
caller (DRF answers the 429 with Retry-After), and the host and SSL checks of the polls."""

from __future__ import annotations

import logging
import re
from http import HTTPStatus

import orjson
from django.conf import settings
from django.db import transaction

from config import throttling
from config.errors import ApiError, error_body
from config.parsers import MAX_JSON_DEPTH, json_depth_exceeds, json_has_nul
from games import polling, selectors
from games.api.tables import TableMovesApi
from games.services import moves

PATH = re.compile(r"^/api/v1/tables/(?P<table_id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/moves$")
# A move body is a few dozen bytes; anything bigger is DRF's to read (and to refuse when over
# DATA_UPLOAD_MAX_MEMORY_SIZE).
MAX_BODY = 16 * 1024
log = logging.getLogger(__name__)
request_log = logging.getLogger("django.request")
_JSON = re.compile(r"^application/json\s*(;\s*charset\s*=\s*\"?utf-8\"?\s*)?$", re.IGNORECASE)
_HEADERS = (
    (b"content-type", b"application/json"),
    # What DRF's APIView adds to the view's answers.
    (b"vary", b"Accept"),
    (b"allow", b"GET, POST, HEAD, OPTIONS"),
)


def _accepts_json(accept: str | None) -> bool:
    """Whether DRF's negotiation would pick its JSON renderer (the first of the defaults)."""
    if not accept:
        return True
    first = accept.split(",")[0].split(";")[0].strip().lower()
    return first in ("*/*", "application/json", "application/*")


def _parse(body: bytes) -> tuple[dict, int | None]:
    """(move, expected_version) of a plain move body, or polling.Fallback for DRF's parser and
    the view's `move_body` to refuse in their words."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise polling.Fallback from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise polling.Fallback
    if json_depth_exceeds(data, getattr(settings, "API_MAX_JSON_DEPTH", MAX_JSON_DEPTH)) or json_has_nul(data):
        raise polling.Fallback
    move = dict(data)
    expected = move.pop("expected_version", None)
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        raise polling.Fallback
    return move, expected


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


def _replaying(body: bytes, receive):
    """`receive` for Django: the body read already, then whatever the client sends next."""
    sent = False

    async def again():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def _submit(table_id: str, user, move: dict, expected: int | None) -> tuple[int, list, bytes]:
    """The view's work (games.api.tables.TableMovesApi.post without a key): (status, extra
    headers, body)."""
    committed = []

    def check(table):
        # Registered before the change's own hooks: set once the move has committed, so an
        # error raised after that (by a later hook) is never mistaken for a refused move.
        transaction.on_commit(lambda: committed.append(True))

    try:
        table, seat, events = moves.move_submit(
            table_id=table_id, user=user, move=move, expected_version=expected, check=check
        )
    except ApiError as exc:
        if committed:
            raise
        return exc.status, list(_HEADERS), polling.render(error_body(exc.code, exc.message, exc.detail))
    state = selectors.state_view(table, user)
    body = {"version": table.version, "events": selectors.move_events(table, events, seat), "state": state}
    return 200, [*_HEADERS, (b"etag", polling.etag(state["version"], user).encode())], polling.render(body)


async def _answer(scope, receive, headers: dict[str, str], match):
    length = headers.get("content-length", "")
    if (
        "idempotency-key" in headers
        or "authorization" not in headers
        or "transfer-encoding" in headers
        or not length.isdigit()
        or not 0 < int(length) <= MAX_BODY
        or not _JSON.match(headers.get("content-type", ""))
        or scope.get("query_string")
        or not _accepts_json(headers.get("accept"))
    ):
        raise polling.Fallback
    body = await _read_body(receive, int(length))
    if body is None:
        return None  # gone before its body arrived: nothing to answer
    replay = _replaying(body, receive)
    try:
        key = polling.preflight(scope, headers)
        move, expected = _parse(body)
        user = await polling.token_user(key)
    except polling.Fallback:
        raise polling.Fallback(replay) from None
    allowed = throttling.count_move(user.pk, TableMovesApi.throttle_classes, TableMovesApi.throttle_scope)
    if not allowed:  # None: throttles of the deployment's own; False: over a rate
        raise polling.Fallback(replay)
    answered = await polling.run_db(_submit)(match.group("table_id"), user, move, expected)
    if answered[0] >= 400:
        # As Django's handler logs a refused request (django.request, a warning).
        request_log.warning("%s: %s", HTTPStatus(answered[0]).phrase, scope["path"], extra={"status_code": answered[0]})
    return answered


def move_router(django_app):
    """config/asgi.py: a token's `POST …/moves` goes here first; the rest goes to Django."""
    return polling.fast_route(django_app, "POST", PATH, _answer, "move request")
