"""The edge's two types: `Request`, one description of an HTTP request to a hot endpoint however it
arrived (an ASGI scope at the edge, a Django request in a view), and `Answer`, what the endpoint
computes and both adapters send (games.edge.app over ASGI, `to_django` in a Django or DRF view).

Also the edge's one rendering of JSON (`render`, which the hot views' DRF renderer uses too, so
both adapters send the same bytes) and its one error answer (`error`: the API's exception handler,
config.errors, rendered)."""

from __future__ import annotations

from urllib.parse import parse_qs

import orjson
from django.http import HttpResponse, StreamingHttpResponse
from rest_framework import exceptions as drf_exceptions
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

from config.errors import exception_handler


class Request:
    """What an endpoint reads of a request: method, path, raw query string, headers (lowercase
    names), the transport's scheme and the client's address; `body` once read."""

    __slots__ = ("method", "path", "query_string", "headers", "scheme", "client", "body", "ratelimit", "_query")

    @property
    def path_info(self) -> str:
        # What django-cors-headers reads of a request (with `method` and `headers.get`).
        return self.path

    def __init__(self, method: str, path: str, query_string: str, headers: dict[str, str], scheme: str,
                 client: str | None, body: bytes | None = None):
        self.method = method
        self.path = path
        self.query_string = query_string
        self.headers = headers
        self.scheme = scheme
        self.client = client
        self.body = body
        self.ratelimit: tuple[int, int, int] | None = None  # config.throttling.record's
        self._query: dict[str, list[str]] | None = None

    @classmethod
    def from_scope(cls, scope) -> Request:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        client = scope.get("client")
        return cls(scope["method"], scope["path"], scope.get("query_string", b"").decode("latin-1"), headers,
                   scope.get("scheme", "http"), client[0] if client else None)

    @classmethod
    def from_django(cls, request) -> Request:
        return cls(request.method, request.path, request.META.get("QUERY_STRING", ""),
                   {k.lower(): v for k, v in request.headers.items()}, request.scheme,
                   request.META.get("REMOTE_ADDR"))

    def query(self, name: str) -> str | None:
        """The last value of a query parameter, as Django's QueryDict gives it."""
        if self._query is None:
            self._query = parse_qs(self.query_string, keep_blank_values=True) if self.query_string else {}
        values = self._query.get(name)
        return values[-1] if values else None


class Headers:
    """An answer's headers: names matched regardless of case, kept as first written, in order.
    (Django's ResponseHeaders also re-encodes every value it is given; an answer's values are
    the edge's own, so that work would be spent on every 304 for nothing.)"""

    __slots__ = ("_items",)

    def __init__(self, initial: dict[str, str] | None = None):
        self._items: dict[str, tuple[str, str]] = {}
        for name, value in (initial or {}).items():
            self[name] = value

    def __setitem__(self, name: str, value: str) -> None:
        self._items[name.lower()] = (name, value)

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._items

    def __delitem__(self, name: str) -> None:
        del self._items[name.lower()]

    def get(self, name: str, default=None):
        found = self._items.get(name.lower())
        return default if found is None else found[1]

    def setdefault(self, name: str, value: str) -> str:
        found = self._items.get(name.lower())
        if found is None:
            self._items[name.lower()] = (name, value)
            return value
        return found[1]

    def items(self):
        return self._items.values()

    def lowered(self):
        """(lowercase name, value) pairs, as ASGI sends them."""
        return [(name, pair[1]) for name, pair in self._items.items()]


class Answer:
    """A whole response but for what the transport adds: status, headers and body, or, for a
    stream, the first chunk (`body`) and the rest (`more`, an async iterator of chunks)."""

    __slots__ = ("status", "headers", "body", "more")

    def __init__(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None, more=None):
        self.status = status
        self.body = body
        self.headers = Headers(headers)
        self.more = more

    # What django.utils.cache.patch_vary_headers and django-cors-headers need of a response.
    def has_header(self, name: str) -> bool:
        return name in self.headers

    __contains__ = has_header

    def __getitem__(self, name: str) -> str:
        return self.headers[name]

    def __setitem__(self, name: str, value: str) -> None:
        self.headers[name] = value

    @classmethod
    def json(cls, data, status: int = 200, headers: dict[str, str] | None = None) -> Answer:
        return cls(status, render(data), {"Content-Type": "application/json", **(headers or {})})


def _default(obj):
    # What orjson does not know: DRF's encoder (Decimal, lazy strings, ...).
    return JSONEncoder().default(obj)


def render(data) -> bytes:
    """JSON as DRF's JSONRenderer writes it (compact, UTF-8, datetimes as `…Z`, U+2028 and U+2029
    escaped), several times faster."""
    out = orjson.dumps(data, default=_default, option=orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS)
    if b"\xe2\x80\xa8" in out or b"\xe2\x80\xa9" in out:
        out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return out


class Renderer(JSONRenderer):
    """The hot views' DRF renderer: their answers and DRF's errors for them in `render`'s bytes,
    the same the edge sends."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return b"" if data is None else render(data)


def error(exc: Exception, authenticate_header: str) -> Answer:
    """The one error answer: `exc` through the API's exception handler (config.errors), with the
    `WWW-Authenticate` a 401 carries (`authenticate_header`, from games.edge.auth), as DRF's
    views answer it."""
    if isinstance(exc, (drf_exceptions.NotAuthenticated, drf_exceptions.AuthenticationFailed)):
        exc.auth_header = authenticate_header
    response = exception_handler(exc, {})
    if response is None:
        raise exc
    answer = Answer.json(response.data, status=response.status_code)
    for name, value in response.headers.items():
        if name.lower() != "content-type":  # an unrendered DRF Response's default
            answer.headers[name] = value
    return answer


def to_django(answer: Answer) -> HttpResponse:
    """The answer as a Django response, for a view: exactly its headers (none of Django's
    defaults), its body; a stream's first chunk only (the rest needs the edge)."""
    response = (StreamingHttpResponse([answer.body], status=answer.status) if answer.more is not None
                else HttpResponse(answer.body, status=answer.status))
    del response["Content-Type"]
    for name, value in answer.headers.items():
        response[name] = value
    return response
