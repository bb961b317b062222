"""HTTP plumbing shared by the API's views: the Idempotency-Key handling of state-changing
POSTs, body parsing and query parameters. Errors are raised as the contract's API errors and
rendered by the one error handler (config.errors.exception_handler)."""

from __future__ import annotations

import json
from collections.abc import Callable

from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from config.errors import Invalid
from config.schema import IDEMPOTENCY_KEY_MAX
from games.services import common, idempotency


def jsonable(data):
    return json.loads(json.dumps(data, cls=JSONEncoder))


class Idempotent:
    """POST handling shared by state-changing operations: Idempotency-Key replay, errors
    rendered in the one error shape, and the stored first response."""

    def idempotent(self, request, run, *, status: int | Callable[[], int] = 200, versioned: bool = True) -> Response:
        """`versioned`: the body's `expected_version` (api.md, optimistic concurrency) is checked
        under the table lock (common.expecting); views whose service checks it itself say False.
        `status`: the success status, or a function that says it once `run` has run (an
        operation that answers 201 or 200 depending on what it found)."""
        def call():
            try:
                body = run()
            except Exception as exc:  # rendered like any API error, then stored
                response = self.handle_exception(exc)
                return response.status_code, jsonable(response.data)
            return (status() if callable(status) else status), jsonable(body)

        key = request.headers.get("Idempotency-Key")
        if key is not None and not 0 < len(key) <= IDEMPOTENCY_KEY_MAX:
            raise Invalid(
                f"Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX} characters",
                {"fields": {"Idempotency-Key": [f"1-{IDEMPOTENCY_KEY_MAX} characters"]}},
            )
        # Every body of the API is a JSON object (or absent). A list, string, number or null
        # sent to an operation without a body was ignored and the operation applied
        # (docs/reliability.md, "What the suites found").
        if not isinstance(request.data, dict):
            raise Invalid("the body must be a JSON object", {"fields": {"non_field_errors": ["expected an object"]}})
        expected = request.data.get("expected_version") if versioned else None
        if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
            raise Invalid("expected_version must be an integer", {"fields": {"expected_version": ["must be an integer"]}})
        digest = idempotency.request_hash(request.method, request.path, request.data)
        with common.expecting(expected):
            code, body, replayed = idempotency.idempotent_call(user=request.user, key=key, digest=digest, run=call)
        response = Response(body, status=code)
        if replayed:
            response["Idempotent-Replayed"] = "true"
        return response


def validated(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def bool_param(request, name: str, default: bool = False) -> bool:
    """A query parameter `true` or `false` (400 `invalid` otherwise)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if raw not in ("true", "false"):
        raise Invalid(f"{name} must be true or false", {"fields": {name: ["must be true or false"]}})
    return raw == "true"


def int_param(request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise Invalid(f"{name} must be an integer", {"fields": {name: ["must be an integer"]}}) from exc
    if not low <= value <= high:
        raise Invalid(f"{name} out of range", {"fields": {name: [f"must be {low}..{high}"]}})
    return value


