"""OpenAPI helpers shared by the API modules: the one error shape and the standard
responses and headers each operation documents."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="machine code: invalid, illegal_move, not_authenticated, forbidden, "
                                 "insufficient_scope (detail.required names the scope), not_found, not_your_turn, "
                                 "stale_version, conflict, idempotency_key_reused, throttled; unavailable (503: the embedded "
                                 "database stayed busy, nothing written: send the same request again after Retry-After); "
                                 "also method_not_allowed (405), too_large (413, a body over the size limit), "
                                 "server_error (500)")
    message = serializers.CharField(help_text="human-readable text")
    detail = serializers.DictField(help_text="`fields` for invalid bodies, `rule` for illegal moves", required=False)

    class Meta:
        ref_name = "Error"


_STATUS_OF = {
    "invalid": 400,
    "illegal_move": 400,
    "not_authenticated": 401,
    "forbidden": 403,
    "insufficient_scope": 403,
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
    for code in ("not_authenticated", "insufficient_scope", "throttled", *codes):
        by_status.setdefault(_STATUS_OF[code], []).append(code)
    return {
        status: OpenApiResponse(ErrorSerializer, description="Error codes: " + ", ".join(f"`{c}`" for c in names))
        for status, names in by_status.items()
    }


IDEMPOTENCY_KEY_MAX = 255

IDEMPOTENCY_KEY = OpenApiParameter(
    name="Idempotency-Key",
    type={"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX},
    location=OpenApiParameter.HEADER,
    required=False,
    description="Any string up to 255 characters. A repeat by the same user with the same body within 24 h "
    "returns the first response (header `Idempotent-Replayed: true`) and changes nothing; the same key "
    "with another body is 409 `idempotency_key_reused`. Every state-changing POST on a table also takes "
    "`expected_version` in its JSON body: 409 `stale_version` (with the table's `version` in `detail`) "
    "unless it equals the table's version, and nothing changes.",
)


# OpenAPI links from a created table to the operations on it: a stateful client (and
# schemathesis's stateful phase) follows them to reach join, start, moves and state. Only the
# operations every table has: Lopti's house rules and sessions answer 404 at the other games'
# tables, so a link to them from any created table would promise what the server refuses.
TABLE_LINKS = {
    "join": "tables_join",
    "start": "tables_start",
    "state": "tables_state",
    "moves": "tables_moves_create",
    "moveLog": "tables_moves_list",
    "detail": "tables_retrieve",
    "addBot": "tables_bots_add",
    "leave": "tables_leave",
    "back": "tables_back",
}
_LINKED_FROM = {"tables_create": "201", "tables_join": "200", "tables_start": "200", "tables_bots_add": "200"}


def postprocess_links(result, generator, **kwargs):
    """drf-spectacular has no `links` keyword: add them to the responses that return a table.
    Also, a body that is one of several forms (the house-rule POST) is required: drf-spectacular
    leaves such a body optional, and an empty POST is a 400."""
    by_id = {
        op["operationId"]: op for methods in result.get("paths", {}).values() for op in methods.values() if isinstance(op, dict)
    }
    components = result.get("components", {}).get("schemas", {})
    for op in by_id.values():
        body = op.get("requestBody")
        if not body or body.get("required"):
            continue
        refs = [media.get("schema", {}).get("$ref", "") for media in body.get("content", {}).values()]
        if any("oneOf" in components.get(ref.rsplit("/", 1)[-1], {}) for ref in refs if ref):
            body["required"] = True
    for source, status in _LINKED_FROM.items():
        response = by_id.get(source, {}).get("responses", {}).get(status)
        if response is None:
            continue
        response["links"] = {
            name: {"operationId": target, "parameters": {"table_id": "$response.body#/id"}}
            for name, target in TABLE_LINKS.items()
            if target in by_id
        }
    return result


# The RFC 8414 document (django-oauth-toolkit's view, accounts.oauth_views, not a DRF view): in the
# schema so a client generator finds the OAuth endpoints from it; /oauth/authorize, /oauth/token
# and /oauth/revoke are the `oauth2` security scheme's (games.edge.auth) and docs/apps.md's.
_URL = {"type": "string", "format": "uri"}
_STRINGS = {"type": "array", "items": {"type": "string"}}
OAUTH_SERVER_METADATA = {
    "type": "object",
    "description": "RFC 8414 authorization server metadata",
    "properties": {
        "issuer": _URL, "authorization_endpoint": _URL, "token_endpoint": _URL, "revocation_endpoint": _URL,
        "scopes_supported": _STRINGS, "response_types_supported": _STRINGS, "grant_types_supported": _STRINGS,
        "code_challenge_methods_supported": _STRINGS, "token_endpoint_auth_methods_supported": _STRINGS,
        "revocation_endpoint_auth_methods_supported": _STRINGS,
        "client_id_metadata_document_supported": {"type": "boolean"},
    },
    "required": ["issuer", "authorization_endpoint", "token_endpoint", "revocation_endpoint", "scopes_supported",
                 "response_types_supported", "grant_types_supported", "code_challenge_methods_supported",
                 "token_endpoint_auth_methods_supported"],
}


def postprocess_oauth(result, generator, **kwargs):
    result.setdefault("components", {}).setdefault("schemas", {})["OAuthServerMetadata"] = OAUTH_SERVER_METADATA
    result.setdefault("paths", {})["/.well-known/oauth-authorization-server"] = {"get": {
        "operationId": "oauth_server_metadata",
        "summary": "OAuth2 authorization server metadata (RFC 8414)",
        "description": "The OAuth endpoints, the scopes and what each endpoint accepts (docs/apps.md).",
        "tags": ["oauth"],
        "security": [],
        "responses": {"200": {"description": "", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/OAuthServerMetadata"}}}}},
    }}
    return result
