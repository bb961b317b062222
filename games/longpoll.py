"""`GET /api/v1/tables/{id}/state`, served asynchronously.

A 304 is decided from the version alone (one indexed column), before the state is loaded
and projected. `?wait=` holds the request on an asyncio event, woken by commits in this
process (games.notify) and re-checked every LONGPOLL_RECHECK_SECONDS for commits made by
other processes, so a thousand waiting clients cost a thousand small coroutines, not threads.
"""

from __future__ import annotations

import asyncio
import re
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf_exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.utils.encoders import JSONEncoder

from config.errors import Invalid, NotFound, exception_handler
from games import notify, selectors
from games.api.tables import TableStateApi
from games.services import automation


def _authenticate(request):
    """The DRF authenticators of the API (token, session) applied to a plain Django request."""
    drf_request = Request(request, authenticators=[cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES])
    try:
        user = drf_request.user
    except drf_exceptions.AuthenticationFailed as exc:
        return None, str(exc.detail)
    if not user or not user.is_authenticated:
        return None, "Authentication credentials were not provided."
    return user, None


_version = automation.table_version


def _etag(version: int) -> str:
    return f'"v{version}"'


# Our ETags are "v<version>" with version a 63-bit counter: at most 19 digits. Anything longer,
# and anything not in that form, is simply not a match (issue 18.3: `int()` of 4,301+ digits
# raised ValueError, a 500). The header itself is capped so a huge one costs no parsing work.
_ETAG = re.compile(r'(?:W/)?"?v([0-9]{1,19})"?')
_MAX_IF_NONE_MATCH = 1024


def _parse_etag(header: str | None) -> int | None:
    if not header or len(header) > _MAX_IF_NONE_MATCH:
        return None
    for tag in header.split(","):
        match = _ETAG.fullmatch(tag.strip())
        if match:
            return int(match.group(1))
    return None


def _error(exc: Exception) -> JsonResponse:
    """An error as every other view answers it: through the one error handler (the API's
    `EXCEPTION_HANDLER`), rendered for this plain async Django view."""
    rendered = exception_handler(exc, {})
    response = JsonResponse(rendered.data, status=rendered.status_code)
    for name, value in rendered.headers.items():
        if name.lower() != "content-type":  # an unrendered DRF Response's default
            response[name] = value
    if rendered.status_code == 401:
        # What DRF's views add from the first authenticator (TokenAuthentication).
        response["WWW-Authenticate"] = "Token"
    return response


def _full_state(table_id, user) -> dict | None:
    try:
        table = selectors.get_table(table_id)
    except NotFound:
        return None
    return selectors.state_view(table, user)


# Exempt from CSRF: the view only reads (any other method is a 405), and without the
# exemption a POST got Django's HTML CSRF 403 before reaching the method check (issue 18.6).
@csrf_exempt
async def table_state(request, table_id):
    if request.method != "GET":
        response = _error(drf_exceptions.MethodNotAllowed(request.method))
        response["Allow"] = "GET"
        return response
    user, problem = await sync_to_async(_authenticate)(request)
    if user is None:
        return _error(drf_exceptions.NotAuthenticated(problem))
    raw_wait = request.GET.get("wait", "0")
    try:
        wait = float(raw_wait)
    except ValueError:
        wait = -1
    if not 0 <= wait <= settings.LONGPOLL_MAX_SECONDS:
        return _error(Invalid("wait must be a number of seconds from 0 to 30", {"fields": {"wait": ["0..30"]}}))
    version = await sync_to_async(_version)(table_id)
    if version is None:
        return _error(NotFound("no such table"))
    known = _parse_etag(request.headers.get("If-None-Match"))
    if wait > 0:
        baseline = known if known is not None else version
        version = await _wait_for_change(table_id, baseline, version, wait)
        if version is None:
            return _error(NotFound("no such table"))
    if known is not None and known == version:
        response = HttpResponse(status=304)
        response["ETag"] = _etag(version)
        return response
    state = await sync_to_async(_full_state)(table_id, user)
    if state is None:
        return _error(NotFound("no such table"))
    response = JsonResponse(state, encoder=JSONEncoder)
    response["ETag"] = _etag(state["version"])
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Authorization, Cookie"
    return response


async def _wait_for_change(table_id, baseline: int, version: int | None, wait: float) -> int | None:
    if version != baseline:
        return version
    entry = notify.subscribe(table_id, baseline)
    event = entry.event
    end = time.monotonic() + wait
    try:
        # Read again once subscribed: a commit between the first read and the subscription
        # would otherwise wait for the next re-check.
        version = await sync_to_async(_version)(table_id)
        while version == baseline:
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(event.wait(), timeout=min(remaining, settings.LONGPOLL_RECHECK_SECONDS))
            except TimeoutError:
                pass
            event.clear()
            version = await sync_to_async(_version)(table_id)
    finally:
        notify.unsubscribe(table_id, entry)
    return version


# drf-spectacular documents this endpoint from the APIView that describes it.
table_state.cls = TableStateApi
table_state.initkwargs = {}
