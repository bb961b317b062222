"""What Django's middleware does to every request and response, for the requests the edge answers
itself, taken from Django's own settings and middleware when the edge starts (not copies of their
code):

- **host and scheme**: `admits(request)` asks Django's own `HttpRequest.get_host()` (ALLOWED_HOSTS,
  USE_X_FORWARDED_HOST/PORT) and `is_secure()` (SECURE_PROXY_SSL_HEADER) through a bare request
  built from the headers, and `SecurityMiddleware.process_request` whether SSL redirect applies. A
  request they refuse or redirect is not the edge's: Django answers it (its 400, its redirect).
- **response headers**: at start-up the edge sends a probe request (plain and secure) through the
  whole `MIDDLEWARE` chain, to a probe view, and keeps the headers the chain added
  (`X-Frame-Options`, `X-Content-Type-Options`, `Referrer-Policy`, `Cross-Origin-Opener-Policy`,
  HSTS on secure requests, whatever a new middleware adds); the request id (config.logs) and
  `Content-Length` are per answer, set by the edge.
- **what the edge was written for** (`FOLLOWS`): the middleware, and the DRF authentication,
  permission and throttle classes whose behaviour the edge reproduces by calling them. When the
  settings differ (a middleware added, another authentication class), `mismatch()` says how, the
  edge answers nothing itself (everything goes to Django, which is always right, only slower) and
  logs why; tests/edge/test_guard.py fails until the edge is taught the new concern.
"""

from __future__ import annotations

import io
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from corsheaders.middleware import CorsMiddleware
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse
from django.middleware.security import SecurityMiddleware
from django.urls import path as url_path
from django.urls import set_urlconf

from .http import Request

log = logging.getLogger(__name__)

# The concerns the edge handles, and how: each entry names the setting's value the edge was
# written against. Change one of these settings, and teach the edge what it means first.
FOLLOWS = {
    # Request and response phases reproduced through `admits` and the probe's headers; the
    # session, CSRF, auth and messages middleware do nothing to a token's JSON answer (CSRF
    # matters for a session's unsafe request only, which the edge leaves to Django).
    "MIDDLEWARE": [
        "config.logs.RequestIdMiddleware",  # the request-id rule, config.logs.request_id
        "config.throttling.RateLimitHeadersMiddleware",  # config.throttling.headers, added by the edge too
        "corsheaders.middleware.CorsMiddleware",  # its add_response_headers, run by the edge (app.py)
        "django.middleware.security.SecurityMiddleware",
        "servestatic.middleware.ServeStaticMiddleware",  # static files only: no API path
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",  # Content-Length; no redirect of an API path
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ],
    # games.edge.auth.authenticate, called by the edge and by this class alike.
    "DEFAULT_AUTHENTICATION_CLASSES": ["games.edge.auth.EdgeAuthentication"],
    # Checked by DRF's own `check_permissions` on the routed view, with the request's grant as
    # `request.auth` (the scope check reads it).
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated", "accounts.scopes.ScopeRequired"],
}
# Throttles are run by DRF's own `check_throttles` on the routed view with the edge's request
# (games.edge.app): classes that read only the user, the method, the client's address and the
# view. Empty when throttling is off.
KNOWN_THROTTLES = {
    "config.throttling.PollRateThrottle",
    "config.throttling.AnonRateThrottle",
    "config.throttling.UserRateThrottle",
    "config.throttling.MoveRateThrottle",
}


def _dotted(value) -> str:
    return value if isinstance(value, str) else f"{value.__module__}.{value.__qualname__}"


def mismatch() -> list[str]:
    """How the settings differ from what the edge was written for (empty: they agree)."""
    problems = []
    if list(settings.MIDDLEWARE) != FOLLOWS["MIDDLEWARE"]:
        problems.append(f"MIDDLEWARE is {list(settings.MIDDLEWARE)}")
    rest = settings.REST_FRAMEWORK
    for name in ("DEFAULT_AUTHENTICATION_CLASSES", "DEFAULT_PERMISSION_CLASSES"):
        if [_dotted(c) for c in rest.get(name, [])] != FOLLOWS[name]:
            problems.append(f"REST_FRAMEWORK[{name!r}] is {rest.get(name)}")
    unknown = {_dotted(c) for c in rest.get("DEFAULT_THROTTLE_CLASSES", [])} - KNOWN_THROTTLES
    if unknown:
        problems.append(f"REST_FRAMEWORK['DEFAULT_THROTTLE_CLASSES'] has {sorted(unknown)}")
    return problems


def throttles_known(classes) -> bool:
    return {_dotted(c) for c in classes} <= KNOWN_THROTTLES


class _Bare(HttpRequest):
    """A request with only what Django's host and scheme checks read, from the edge's Request."""

    def __init__(self, request: Request):
        super().__init__()
        self._scheme = request.scheme
        self.method = request.method
        self.path = self.path_info = request.path
        headers = request.headers
        meta = self.META
        meta["QUERY_STRING"] = request.query_string
        for name in ("host", "x-forwarded-host", "x-forwarded-port"):
            if name in headers:
                meta["HTTP_" + name.upper().replace("-", "_")] = headers[name]
        proxy = settings.SECURE_PROXY_SSL_HEADER
        if proxy:
            name = proxy[0].removeprefix("HTTP_").replace("_", "-").lower()
            if name in headers:
                meta[proxy[0]] = headers[name]

    def _get_scheme(self):
        return self._scheme


_PROBE_ID = "edge-probe"
_PROBE_STATUS = 299


def _probe_view(request):
    return HttpResponse(b"", status=_PROBE_STATUS)


urlpatterns = [url_path("api/v1/edge-probe", _probe_view)]


class Guard:
    def __init__(self):
        self.problems = mismatch()
        self._security = SecurityMiddleware(lambda request: None)
        self._cors = CorsMiddleware(lambda request: None)
        # On a thread of its own: the edge is built while uvicorn's loop runs, and an async-only
        # middleware (servestatic's) runs in a sync chain through async_to_sync, which refuses
        # to run on a thread whose loop is running.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="edge-probe") as pool:
            self._headers = {secure: pool.submit(self._probe, secure).result() for secure in (False, True)}
        if self.problems:
            log.warning("the edge answers nothing itself, Django answers every request: %s", "; ".join(self.problems))

    @property
    def serving(self) -> bool:
        return not self.problems

    def _probe(self, secure: bool) -> tuple[tuple[str, str], ...] | None:
        """The headers the MIDDLEWARE chain adds to a plain answer of an API path (None: the
        chain did not let the probe through, e.g. a plain request under SSL redirect)."""
        handler = BaseHandler()
        handler.load_middleware(is_async=False)
        request = WSGIRequest({
            "REQUEST_METHOD": "GET", "PATH_INFO": "/api/v1/edge-probe", "QUERY_STRING": "", "SERVER_NAME": "edge-probe",
            "SERVER_PORT": "443" if secure else "80", "wsgi.input": io.BytesIO(), "wsgi.url_scheme": "https" if secure else "http",
            "HTTP_HOST": _allowed_host(), "HTTP_X_REQUEST_ID": _PROBE_ID,
        })
        if settings.SECURE_PROXY_SSL_HEADER and secure:
            request.META[settings.SECURE_PROXY_SSL_HEADER[0]] = settings.SECURE_PROXY_SSL_HEADER[1]
        request.urlconf = __name__
        try:
            response = handler.get_response(request)
        finally:
            set_urlconf(None)  # what Django's request_finished does: this thread's URLconf back
        if response.status_code != _PROBE_STATUS:
            return None
        own = {k.lower() for k in HttpResponse(b"", status=_PROBE_STATUS).headers}
        added = []
        for name, value in response.items():
            lowered = name.lower()
            if lowered in own or lowered in ("content-length", "vary"):
                continue  # the answer's own, its length; Vary is merged per answer (CORS's, the session's)
            if lowered == "x-request-id" and value == _PROBE_ID:
                continue  # the request id: config.logs.request_id, per request
            added.append((name, value))
        return tuple(added)

    def admits(self, request: Request) -> bool | None:
        """None when Django must answer this request (a host it refuses, a redirect to HTTPS);
        else whether it is secure (the headers to add depend on it)."""
        headers = request.headers
        proxy = settings.SECURE_PROXY_SSL_HEADER
        forwarded_proto = headers.get(proxy[0].removeprefix("HTTP_").replace("_", "-").lower()) if proxy else None
        secure = _checked(headers.get("host"), headers.get("x-forwarded-host"), headers.get("x-forwarded-port"),
                          forwarded_proto, request.scheme, self._settings_key())
        if secure is None:
            return None
        if settings.SECURE_SSL_REDIRECT and not secure and self._security.process_request(_Bare(request)) is not None:
            return None
        return secure if self._headers.get(secure) is not None else None

    def headers(self, secure: bool) -> tuple[tuple[str, str], ...]:
        return self._headers[secure] or ()

    def cors(self, request: Request, answer) -> None:
        """django-cors-headers' own answer headers (its settings: CORS_ALLOWED_ORIGINS, ...) for
        the request, on the edge's answer (the edge's Request has what it reads of a request:
        `path_info`, `method`, `headers.get` by lowercase name). Its preflight (OPTIONS) is
        Django's."""
        self._cors.add_response_headers(request, answer)

    @staticmethod
    def _settings_key():
        # The host check's answer depends on these settings too (tests change them).
        return (tuple(settings.ALLOWED_HOSTS), settings.DEBUG, settings.USE_X_FORWARDED_HOST,
                settings.USE_X_FORWARDED_PORT, settings.SECURE_PROXY_SSL_HEADER)


@lru_cache(maxsize=1024)
def _checked(host, forwarded_host, forwarded_port, forwarded_proto, scheme, _settings) -> bool | None:
    """Django's host check and scheme for these header values: None for a refused host, else
    whether the request is secure."""
    headers = {"host": host, "x-forwarded-host": forwarded_host, "x-forwarded-port": forwarded_port}
    proxy = settings.SECURE_PROXY_SSL_HEADER
    if proxy:
        headers[proxy[0].removeprefix("HTTP_").replace("_", "-").lower()] = forwarded_proto
    bare = _Bare(Request("GET", "/", "", {k: v for k, v in headers.items() if v is not None}, scheme, None))
    try:
        bare.get_host()
        return bare.is_secure()
    except (DisallowedHost, ValueError):  # ValueError: a malformed SECURE_PROXY_SSL_HEADER value
        return None


def _allowed_host() -> str:
    for host in settings.ALLOWED_HOSTS:
        host = host.lstrip(".")
        if host and host != "*" and not host.startswith("["):
            return host
    return "localhost"
