"""The API's one error shape, `{"code", "message", "detail"}`, for every error (docs/architecture.md,
convention 8). Application code raises an `ApiError` subclass; DRF and Django errors are
mapped here too, so clients only ever parse one shape."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, JsonResponse
from django.views import csrf, defaults
from rest_framework import exceptions as drf
from rest_framework.response import Response

from config.sqlite3.base import DatabaseBusy


class ApiError(Exception):
    status = 400
    code = "invalid"
    default_message = "invalid request"
    headers: dict[str, str] | None = None

    def __init__(self, message: str | None = None, detail: dict | None = None):
        self.message = message or self.default_message
        self.detail = detail or {}
        super().__init__(self.message)


class Invalid(ApiError):
    status, code, default_message = 400, "invalid", "malformed request"


class IllegalMoveError(ApiError):
    status, code, default_message = 400, "illegal_move", "the rules forbid this move"


class Forbidden(ApiError):
    status, code, default_message = 403, "forbidden", "you may not do this"


class NotFound(ApiError):
    status, code, default_message = 404, "not_found", "not found"


class NotYourTurnError(ApiError):
    status, code, default_message = 409, "not_your_turn", "it is not your turn"


class StaleVersion(ApiError):
    status, code, default_message = 409, "stale_version", "the table has changed since that version"


class Conflict(ApiError):
    status, code, default_message = 409, "conflict", "conflict with the table's state"


class IdempotencyKeyReused(ApiError):
    status, code, default_message = 409, "idempotency_key_reused", "this Idempotency-Key was used with another request"


class _RetryLater(ApiError):
    """Refused for now, with the seconds to wait (`detail.retry_after`, the Retry-After header)."""

    def __init__(self, message: str | None = None, *, retry_after: int):
        super().__init__(message, {"retry_after": retry_after})
        self.headers = {"Retry-After": str(retry_after)}


class Throttled(_RetryLater):
    """A limit of the service's own (not a DRF throttle's rate)."""

    status, code, default_message = 429, "throttled", "request was throttled"


class Unavailable(_RetryLater):
    """The embedded database stayed busy past SQLITE_WRITE_WAIT: nothing was written, and the
    same request (with its Idempotency-Key) can simply be sent again."""

    status, code, default_message = 503, "unavailable", "the database is busy: try again shortly"


def error_body(code: str, message: str, detail: dict | None = None) -> dict:
    return {"code": code, "message": message, "detail": detail or {}}


def _flatten(errors) -> dict:
    if isinstance(errors, dict):
        return {k: _messages(v) for k, v in errors.items()}
    return {"non_field_errors": _messages(errors)}


def _messages(value):
    if isinstance(value, dict):
        return {k: _messages(v) for k, v in value.items()}
    if isinstance(value, list):
        if all(not isinstance(v, (dict, list)) for v in value):
            return [str(v) for v in value]
        return [_messages(v) for v in value]
    return [str(value)]


def exception_handler(exc, context):
    headers = {}
    if isinstance(exc, DatabaseBusy):
        exc = Unavailable(retry_after=5)
    if isinstance(exc, ApiError):
        return Response(error_body(exc.code, exc.message, exc.detail), status=exc.status, headers=exc.headers)
    if isinstance(exc, RequestDataTooBig):
        # Raised when DRF reads a body over DATA_UPLOAD_MAX_MEMORY_SIZE; Django alone would
        # answer its HTML "Bad Request (400)"; the API's errors are all in the one shape.
        return Response(_too_large_body(), status=413)
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if not isinstance(exc, drf.APIException):
        return None
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if isinstance(exc, drf.ValidationError):
        body = error_body("invalid", "the request body is not valid", {"fields": _flatten(exc.detail)})
    elif isinstance(exc, drf.ParseError):
        body = error_body("invalid", str(exc.detail), {"fields": {}})
    elif isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        body = error_body("not_authenticated", str(exc.detail))
        exc.status_code = 401
    elif isinstance(exc, drf.PermissionDenied):
        body = error_body("forbidden", str(exc.detail))
    elif isinstance(exc, drf.NotFound):
        body = error_body("not_found", str(exc.detail))
    elif isinstance(exc, drf.Throttled):
        wait = int(exc.wait) if exc.wait is not None else 1
        headers["Retry-After"] = str(max(wait, 1))
        body = error_body("throttled", "request was throttled", {"retry_after": max(wait, 1)})
    elif isinstance(exc, drf.MethodNotAllowed):
        body = error_body("method_not_allowed", str(exc.detail))
    elif isinstance(exc, drf.NotAcceptable):
        body = error_body("not_acceptable", str(exc.detail))
    elif isinstance(exc, drf.UnsupportedMediaType):
        body = error_body("invalid", str(exc.detail), {"fields": {}})
    else:
        body = error_body(getattr(exc, "default_code", "error"), str(exc.detail))
    return Response(body, status=exc.status_code, headers=headers)


def _too_large_body() -> dict:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return error_body("too_large", f"the request body is larger than {limit} bytes", {"max_bytes": limit})


# Django's own error views (handler400/403/404/500 and CSRF_FAILURE_VIEW): JSON in the one
# shape under /api/ (the docs pages and the schema included), Django's usual pages elsewhere
# (the admin, /play/).


def _is_api(request) -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def json_400(request, exception=None):
    if not _is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return JsonResponse(_too_large_body(), status=413)
    return JsonResponse(error_body("invalid", "bad request", {"fields": {}}), status=400)


def json_403(request, exception=None):
    if not _is_api(request):
        return defaults.permission_denied(request, exception)
    return JsonResponse(error_body("forbidden", "you may not do this"), status=403)


def json_404(request, exception=None):
    if not _is_api(request):
        return defaults.page_not_found(request, exception)
    return JsonResponse(error_body("not_found", "no such path"), status=404)


def json_500(request):
    if not _is_api(request):
        return defaults.server_error(request)
    return JsonResponse(error_body("server_error", "internal server error"), status=500)


def csrf_failure(request, reason=""):
    """Only reached by views outside DRF (DRF views are CSRF-exempt and check CSRF for
    session authentication themselves)."""
    if not _is_api(request):
        return csrf.csrf_failure(request, reason)
    return JsonResponse(error_body("forbidden", "CSRF check failed", {"reason": reason}), status=403)
