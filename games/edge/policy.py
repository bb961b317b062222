"""The part of a request's handling that DRF does for its views — authentication, permissions,
throttles — done for a hot endpoint by the same code: `authenticate` is games.edge.auth's (which
DRF's views use too), and the permission and throttle checks are DRF's own `check_permissions` and
`check_throttles`, run on the endpoint's view (the DRF view that serves and documents the path,
found through Django's URL resolver) with a request that carries what those classes read."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.urls import resolve
from rest_framework.exceptions import NotAcceptable
from rest_framework.views import APIView

from . import auth
from .http import Renderer, Request


class _DrfRequest:
    """What DRF's permission and throttle classes (and the view's checks) read of a request."""

    __slots__ = ("user", "auth", "method", "META", "headers", "query_params", "authenticators",
                 "successful_authenticator", "_request", "ratelimit")

    def __init__(self, request: Request, user, grant=None):
        self.user = user if user is not None else AnonymousUser()
        self.auth = grant
        self.method = request.method
        self.META = {"REMOTE_ADDR": request.client}
        for name in ("x-forwarded-for", "accept"):
            if name in request.headers:
                self.META["HTTP_" + name.upper().replace("-", "_")] = request.headers[name]
        self.headers = request.headers  # lowercase names: what DRF's negotiation reads ('accept')
        self.query_params = _Query(request)
        authenticator = auth.EdgeAuthentication()
        self.authenticators = (authenticator,)
        self.successful_authenticator = authenticator if user is not None else None
        self._request = self
        self.ratelimit = None


class _Query:
    """`request.query_params.get` for DRF's content negotiation (its format override)."""

    __slots__ = ("request",)

    def __init__(self, request: Request):
        self.request = request

    def get(self, name, default=None):
        value = self.request.query(name)
        return default if value is None else value


class Policy:
    """The DRF view of a path (`sample`: a path it serves), instantiated once."""

    def __init__(self, sample: str, method: str):
        match = resolve(sample, urlconf=settings.ROOT_URLCONF)
        func = match.func
        view_class = getattr(func, "view_class", None) or getattr(func, "cls", None)
        if view_class is None or not issubclass(view_class, APIView):
            raise RuntimeError(f"{sample} is not served or documented by a DRF view")
        self.view = view_class()
        self.view.setup(None, **match.kwargs)
        self.view.format_kwarg = None
        self.method = method
        # A DRF view negotiates its renderer and adds these to its answers (Allow, Vary: Accept);
        # a plain Django view (the state's, which its DRF view only documents) does neither.
        self.drf = hasattr(func, "view_class")
        self.view_headers = dict(self.view.default_response_headers) if self.drf else {}
        self._negotiated: dict[tuple, bool] = {}
        self.classes = {
            "authentication": list(self.view.authentication_classes),
            "permission": list(self.view.permission_classes),
            "throttle": list(self.view.throttle_classes),
        }

    @property
    def throttled(self) -> bool:
        """Whether a throttle of the view counts with I/O (Redis, the cache): then off the loop."""
        return any(getattr(cls, "blocking", True) for cls in self.view.throttle_classes)

    def renders_here(self, request: Request) -> bool | None:
        """DRF's content negotiation of the view for this request: True when it picks the edge's
        JSON rendering, False when another renderer (the browsable API: Django answers), None
        when none fits (DRF's 406)."""
        if not self.drf:
            return True
        key = (request.headers.get("accept"), request.query("format"))
        if key in self._negotiated:
            return self._negotiated[key]
        try:
            renderer, _ = self.view.perform_content_negotiation(_DrfRequest(request, None))
            known = isinstance(renderer, Renderer)
        except NotAcceptable:
            known = None
        if len(self._negotiated) < 256:  # the few Accept headers clients send, remembered
            self._negotiated[key] = known
        return known

    def check(self, request: Request, user, grant) -> None:
        """DRF's permission and throttle checks of the view; raises what DRF would. Throttles
        count in Redis or the cache: call it off the event loop when `throttled`."""
        drf_request = _DrfRequest(request, user, grant)
        self.view.check_permissions(drf_request)
        try:
            self.view.check_throttles(drf_request)
        finally:
            request.ratelimit = drf_request.ratelimit  # the RateLimit fields of the answer


async def user_of(request: Request, session_user, db):
    """(user, grant) of the caller ((None, None): nobody) by games.edge.auth.authenticate; from
    the token cache on the loop when it can, else off it (`db`). Raises AuthenticationFailed."""
    authorization = request.headers.get("authorization")
    found = auth.cached_user(authorization)
    if found is None and (authorization or session_user is not None):
        found = await db(auth.authenticate)(authorization, session_user)
    return found if found is not None else (None, None)
