"""The hot endpoints and the one pipeline that serves them, for both adapters: the edge's ASGI
route (games.edge.app) and Django's views (games.api).

    negotiation → authentication → permissions → throttles → the endpoint's answer
    (any API error on the way: the one error answer, games.edge.http.error)

Each step is the code DRF's views run (games.edge.policy): so a request gets the same answer
whichever door it came through, and a DRF view of a hot path is a thin adapter that calls the
endpoint's function after DRF did the same steps."""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable

from asgiref.sync import sync_to_async
from rest_framework import exceptions as drf_exceptions

from config import throttling
from config.errors import ApiError
from config.parsers import JSONParser
from config.sqlite3.base import DatabaseBusy

from . import account, auth, events, moves, state, threads
from .http import Answer, Request, error
from .policy import Policy, user_of


def error_answer(exc: Exception) -> Answer:
    return error(exc, auth.authenticate_header())


class Endpoint:
    """A hot endpoint: its method and path, a path its DRF view serves (the policy is that
    view's), and `compute(request, table_id, user, stream) -> Answer`."""

    def __init__(self, name: str, method: str, path: re.Pattern, route: str, sample: str,
                 compute: Callable[..., Awaitable[Answer]], *, checks_in_compute: bool = False):
        self.name, self.method, self.path, self.route, self.sample = name, method, path, route, sample
        self.compute = compute
        # The move checks its throttles on the thread that applies it (one hop off the loop).
        self.checks_in_compute = checks_in_compute
        self._policy: Policy | None = None

    @property
    def policy(self) -> Policy:
        if self._policy is None:  # the URLconf must be loaded: on first use
            self._policy = Policy(self.sample, self.method)
        return self._policy

    async def serve(self, request: Request, table_id: str, *, session_user=None, db=threads.run_db) -> Answer:
        """The pipeline; `session_user` gives the user of the request's session cookie, when it
        has one (games.edge.auth); `db` runs blocking work (the edge: the shared pool; a Django
        view: asgiref's sync_to_async, Django's own choice for a view's sync work)."""
        answer = await self._serve(request, table_id, session_user, db)
        for name, value in throttling.headers(request).items():
            answer.headers[name] = value
        return answer

    async def _serve(self, request: Request, table_id: str, session_user, db) -> Answer:
        policy = self.policy
        try:
            if policy.renders_here(request) is None:
                raise drf_exceptions.NotAcceptable()
            user, grant = await user_of(request, session_user, db)
            if self.checks_in_compute:
                return await self.compute(request, table_id, user, grant, policy, db)
            if policy.throttled:
                await db(policy.check)(request, user, grant)
            else:
                policy.check(request, user, grant)
            return await self.compute(request, table_id, user, db)
        except (ApiError, drf_exceptions.APIException, DatabaseBusy) as exc:
            return error_answer(exc)


# --- the four -------------------------------------------------------------------------------

async def _state(request: Request, table_id: str, user, db) -> Answer:
    return await state.answer(request, table_id, user, db)


async def _events(request: Request, table_id: str, user, db) -> Answer:
    return await events.answer(request, table_id, user, db=db)


async def _account(request: Request, table_id: None, user, db) -> Answer:
    return await account.answer(request, table_id, user, db=db)


def _move(request: Request, table_id: str, user, grant, policy: Policy) -> Answer:
    """On a pool thread: the view's checks (their throttle counts), the body parsed by the API's
    JSON parser (DRF's for the view), the move."""
    policy.check(request, user, grant)
    data = JSONParser().parse(io.BytesIO(request.body or b""), "application/json", {"encoding": "utf-8"})
    return moves.answer(table_id, user, data)


async def _moves(request: Request, table_id: str, user, grant, policy: Policy, db) -> Answer:
    return await db(_move)(request, table_id, user, grant, policy)


STATE = Endpoint("state", "GET", state.PATH, "/api/v1/tables/{id}/state", state.SAMPLE, _state)
MOVES = Endpoint("moves", "POST", moves.PATH, "/api/v1/tables/{id}/moves", moves.SAMPLE, _moves, checks_in_compute=True)
EVENTS = Endpoint("events", "GET", events.PATH, "/api/v1/tables/{id}/events", events.SAMPLE, _events)
ACCOUNT_EVENTS = Endpoint("account_events", "GET", account.PATH, "/api/v1/stream/events", account.SAMPLE, _account)
ALL = (STATE, MOVES, EVENTS, ACCOUNT_EVENTS)


async def serve_django(endpoint: Endpoint, request, table_id: str) -> Answer:
    """The pipeline for a Django request (the state's async Django view)."""
    session_user = None
    if auth.has_session_cookie(request.COOKIES):
        session_user = lambda: request.user  # noqa: E731 - AuthenticationMiddleware's lazy user
    return await endpoint.serve(Request.from_django(request), table_id, session_user=session_user, db=sync_to_async)
