"""OpenAPI helpers shared by the API modules: the one error shape and the standard
responses and headers each operation documents."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="machine code: invalid, illegal_move, not_authenticated, forbidden, "
                                 "not_found, not_your_turn, stale_version, conflict, idempotency_key_reused, throttled")
    message = serializers.CharField(help_text="human-readable text")
    detail = serializers.DictField(help_text="`fields` for invalid bodies, `rule` for illegal moves", required=False)

    class Meta:
        ref_name = "Error"


_STATUS_OF = {
    "invalid": 400,
    "illegal_move": 400,
    "not_authenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "not_your_turn": 409,
    "stale_version": 409,
    "conflict": 409,
    "idempotency_key_reused": 409,
    "throttled": 429,
}


def errors(*codes: str) -> dict:
    """Error responses for an operation, grouped by status, naming the codes it can return."""
    by_status: dict[int, list[str]] = {}
    for code in ("not_authenticated", "throttled", *codes):
        by_status.setdefault(_STATUS_OF[code], []).append(code)
    return {
        status: OpenApiResponse(ErrorSerializer, description="Error codes: " + ", ".join(f"`{c}`" for c in names))
        for status, names in by_status.items()
    }


IDEMPOTENCY_KEY = OpenApiParameter(
    name="Idempotency-Key",
    type=str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="Any string up to 255 characters. A repeat by the same user with the same body within 24 h "
    "returns the first response (header `Idempotent-Replayed: true`) and changes nothing; the same key "
    "with another body is 409 `idempotency_key_reused`.",
)
