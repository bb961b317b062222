"""`GET /api/v1/tables/{id}/state` through Django: what games.polling (the ASGI fast path,
which answers token-authenticated polls before Django) leaves to it — session-cookie clients
(the /play/ web client), every error, and any request not served by ASGI (a WSGI server, the
test client). It decides and answers exactly as the fast path does, with the same helpers:
the 304 from the version alone, the wait on the process's notifier."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf_exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings

from accounts import tokens
from config.errors import Invalid, NotFound, exception_handler
from games import polling
from games.api.tables import TableStateApi


def _authenticate(request):
    """The DRF authenticators of the API (token, session) applied to a plain Django request;
    a token first through the token cache (accounts.tokens), as on the fast path."""
    parts = request.headers.get("Authorization", "").split()
    if len(parts) == 2 and parts[0].lower() == "token":
        user = tokens.cached(parts[1]) or tokens.lookup(parts[1])
        if user is not None:
            return user, None
    drf_request = Request(request, authenticators=[cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES])
    try:
        user = drf_request.user
    except drf_exceptions.AuthenticationFailed as exc:
        return None, str(exc.detail)
    if not user or not user.is_authenticated:
        return None, "Authentication credentials were not provided."
    return user, None


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
    known, own = polling.parse_etag(request.headers.get("If-None-Match"), user)
    outcome, version = await polling.decide(str(table_id), known, own, wait, sync_to_async)
    if outcome == "missing":
        return _error(NotFound("no such table"))
    if outcome == "304":
        response = HttpResponse(status=304)
        response["ETag"] = polling.etag(version, user)
        return response
    state = await sync_to_async(polling.read_state)(str(table_id), user)
    if state is None:
        return _error(NotFound("no such table"))
    response = HttpResponse(polling.render(state), content_type="application/json")
    response["ETag"] = polling.etag(state["version"], user)
    response["Cache-Control"] = "private, no-cache"
    response["Vary"] = "Authorization, Cookie"
    return response


# drf-spectacular documents this endpoint from the APIView that describes it.
table_state.cls = TableStateApi
table_state.initkwargs = {}
