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
    "too_large": 413,
    "throttled": 429,
    "unavailable": 503,
}


def errors(*codes: str) -> dict:
    """Error responses for an operation, grouped by status, naming the codes it can return (its
    own; the ones every operation of its kind can return are added by config.contract's
    postprocess_errors, which also turns each group into a schema whose `code` is their enum)."""
    by_status: dict[int, list[str]] = {}
    for code in ("not_authenticated", "insufficient_scope", "throttled", *codes):
        by_status.setdefault(_STATUS_OF[code], []).append(code)
    return {
        status: OpenApiResponse({"$ref": "#/components/schemas/Error", "x-error-codes": names},
                                description="Error codes: " + ", ".join(f"`{c}`" for c in names))
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


# --- the games' types (games.engine.types) ----------------------------------------------------
def _camel(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))


def _with_type(kind: str, schema: dict, extra: dict | None = None) -> dict:
    """`schema` (an object without `type`) with its `type` first and `extra` properties after."""
    out = dict(schema)
    out["properties"] = {"type": {"type": "string", "enum": [kind]}, **schema.get("properties", {}), **(extra or {})}
    out["required"] = ["type", *schema.get("required", [])]
    return out


def _union(members: dict[str, str], description: str) -> dict:
    """A oneOf of components told apart by `type` (an OpenAPI discriminator)."""
    return {
        "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in members.values()],
        "discriminator": {"propertyName": "type",
                          "mapping": {kind: f"#/components/schemas/{name}" for kind, name in members.items()}},
        "description": description,
    }


_EXPECTED_VERSION = {"type": "integer", "description": "409 `stale_version` unless it equals the table's version"}
SEAT_FIELDS = ("seat", "player", "is_bot", "away")
YOU_BEFORE_START = ("seat", "hand")
DEAL_FIELDS = {
    "deal": {"type": "integer", "minimum": 0, "description": "the deal's number, from 0"},
    "deal_commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "sha256 of the deal's secret, hex (docs/fair-deals.md)"},
    "fixed_deck": {"type": "boolean", "enum": [True], "description": "a staff fixed deck: no commitment"},
    "deal_secret": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "the deal's secret, revealed once the deal is over"},
}
LOG_FIELDS = ("seq", "seat", "type", "by", "version", "at", "events", "bot")


def game_components(types) -> dict[str, dict]:
    """The components one game publishes (games.engine.types.GameTypes), named by its title."""
    from games.engine.types import nullable, ref

    t = types.title
    out: dict[str, dict] = dict(types.defs)
    moves = {kind: f"{t}{_camel(kind)}Move" for kind in types.moves}
    for kind, name in moves.items():
        out[name] = _with_type(kind, types.moves[kind], {"expected_version": _EXPECTED_VERSION})
        out[name]["description"] = out[name].get("description") or f"{t}: a `{kind}` move, as `legal_moves` lists it and the move endpoint takes it"
    out[f"{t}Move"] = _union(moves, f"A {t} move: the body of `POST /tables/{{id}}/moves` at a {t} table")
    decisions = {kind: f"{t}{_camel(kind)}Decision" for kind in types.decisions}
    for kind, name in decisions.items():
        out[name] = _with_type(kind, types.decisions[kind])
    out[f"{t}LegalMove"] = _union({**moves, **decisions}, f"An entry of `legal_moves` at a {t} table")
    events = {kind: f"{t}{_camel(kind)}Event" for kind in types.events}
    for kind, name in events.items():
        out[name] = _with_type(kind, types.events[kind])
    # The move log's entry 0 (games.deal_log.first_entry) is the platform's: a `deal` event with
    # deal 0's commitment, or `fixed_deck`, and nothing else; the game's own deal events have more.
    deal = out.get(events.get("deal", ""))
    if deal is not None:
        later = [k for k in deal["required"] if k not in ("type", "deal")]
        deal["properties"].update({"deal_commitment": DEAL_FIELDS["deal_commitment"], "fixed_deck": DEAL_FIELDS["fixed_deck"]})
        # Tables dealt before fair deals (replayed exports of them too) logged deals without a
        # number or commitment: only `type` is always there.
        deal["required"] = ["type"]
        deal["description"] = ("A deal: its number and `deal_commitment` (or `fixed_deck`), except at tables dealt before "
                               "fair deals; " + (f"{', '.join(later)} in every deal but the first (entry 0 of the move log)"
                                                 if later else ""))
    out[f"{t}Event"] = _union(events, f"An event at a {t} table, as you may see it")

    # `you` and the seats: before the start only the platform's fields are there (api.md).
    you = dict(types.you)
    you["required"] = [name for name in you.get("required", []) if name in YOU_BEFORE_START]
    later = [name for name in types.you.get("required", []) if name not in YOU_BEFORE_START]
    you["description"] = (you.get("description", "") + f" Before the start: only {', '.join(YOU_BEFORE_START)}"
                          + (f"; {', '.join(later)} are there once the game has started." if later else ".")).strip()
    out[f"{t}You"] = you
    seat = {
        "type": "object",
        "properties": {
            "seat": {"type": "integer", "minimum": 0},
            "player": nullable(ref("Player")),
            "is_bot": {"type": "boolean",
                       "description": "a bot plays the seat (a bot seat, a player who left, or a bot account)"},
            "bot": ref("SeatBot"),  # only on a bot account's seat (games.selectors.table_seats)
            "away": {"type": "boolean", "description": "the player missed a deadline and a bot stands in (`POST /back`)"},
            **{k: v for k, v in types.seat.get("properties", {}).items() if k not in (*SEAT_FIELDS, "bot")},
        },
        "required": list(SEAT_FIELDS),
        "description": f"A seat at a {t} table: who sits there, and (once the game has started) its public facts: "
        + ", ".join(k for k in types.seat.get("required", []) if k not in SEAT_FIELDS),
    }
    out[f"{t}Seat"] = seat
    out[f"{t}Public"] = types.public
    out[f"{t}State"] = {
        "type": "object",
        "description": f"The state view of a {t} table (api.md \"The state view\")",
        "properties": {
            "table": {"type": "string", "format": "uuid"},
            "game": {"type": "string", "enum": [types.game]},
            "version": {"type": "integer", "minimum": 0},
            "status": ref("TableStatusEnum"),
            "phase": {"type": "string", "enum": ["waiting", *types.phases], "description": "`waiting` before the start"},
            "turn": {"type": ["integer", "null"], "minimum": 0,
                     "description": "the one seat with a decision due; null when several have one, or none"},
            "deadline": {"type": ["string", "null"], "format": "date-time"},
            "dealer": {"type": ["integer", "null"], "minimum": 0},
            "round": {"type": "integer", "minimum": 0, "description": "the current hand or round, from 1 (0 before the start)"},
            "you": nullable(ref(f"{t}You")),
            "seats": {"type": "array", "items": ref(f"{t}Seat")},
            "legal_moves": {"type": "array", "items": ref(f"{t}LegalMove"),
                            "description": "every move you may make now, in the form the move endpoint takes"},
            "public": nullable(ref(f"{t}Public")),
            "scores": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}],
                       "description": f"{types.scores}; null before the start"},
        },
        "required": ["table", "game", "version", "status", "phase", "turn", "deadline", "dealer", "round", "you",
                     "seats", "legal_moves", "public", "scores"],
    }

    # A move-log entry: the platform's fields, and the move's own (by type) as the log shows them.
    shown: dict[str, dict] = {}
    for kind in sorted(set(types.moves) | set(types.log)):
        for name, schema in types.log.get(kind, types.moves.get(kind, {})).get("properties", {}).items():
            if name in LOG_FIELDS:
                continue
            if name in shown and shown[name] != schema:
                kept = shown[name]["anyOf"] if "anyOf" in shown[name] and "x-merged" in shown[name] else [shown[name]]
                shown[name] = {"anyOf": [*kept, schema] if schema not in kept else kept, "x-merged": True}
            else:
                shown.setdefault(name, schema)
    for schema in shown.values():
        schema.pop("x-merged", None)
    out[f"{t}LogEntry"] = {
        "type": "object",
        "description": f"An entry of a {t} table's move log: who moved, when, and what it caused; the move's own "
        "fields (by `type`) as you may see them",
        "properties": {
            "seq": {"type": "integer", "minimum": 0},
            "seat": {"type": ["integer", "null"], "minimum": 0, "description": "the seat moved for; null for the server's own"},
            "type": {"type": "string", "enum": sorted(set(types.moves) | set(types.log) | {"deal", "deal_revealed"})},
            "by": {"type": "string", "enum": ["player", "server"]},
            "bot": {"type": "boolean", "enum": [True], "description": "present when a bot made the move"},
            "version": {"type": "integer", "minimum": 0},
            "at": {"type": ["string", "null"], "format": "date-time"},
            "events": {"type": "array", "items": ref(f"{t}Event")},
            **DEAL_FIELDS,
            **shown,
        },
        "required": ["seq", "seat", "type", "by", "version", "at", "events"],
    }
    return out


def all_game_types() -> list:
    from games.engine import registry

    return [game.types for game in registry.all_games() if getattr(game, "types", None) is not None]


def postprocess_game_types(result, generator, **kwargs):
    """The games' own shapes (games.engine.types) as components, and the operations that carry
    them typed with them: the state (told apart by `game`), the move bodies, the move answer's
    events and the move log."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    typed = all_game_types()
    if not typed:
        return result
    for types in typed:
        schemas.update(game_components(types))
    titles = [types.title for types in typed]
    schemas["State"] = {
        "oneOf": [{"$ref": f"#/components/schemas/{t}State"} for t in titles],
        "discriminator": {"propertyName": "game",
                          "mapping": {types.game: f"#/components/schemas/{types.title}State" for types in typed}},
        "description": "Your view of a table (api.md \"The state view\"): one form per game, told apart by `game`",
    }
    schemas["GameEvent"] = {"anyOf": [{"$ref": f"#/components/schemas/{t}Event"} for t in titles],
                            "description": "An event of the table's game (its form depends on the game)"}
    if "MoveResult" in schemas:
        schemas["MoveResult"]["properties"]["events"] = {
            "type": "array", "items": {"$ref": "#/components/schemas/GameEvent"}, "description": "what the move caused, as you may see it"}
    schemas["MoveInputRequest"] = {
        "anyOf": [{"$ref": f"#/components/schemas/{t}Move"} for t in titles],
        "description": "A move, in the form `legal_moves` lists it (its fields depend on the game and the type), "
        "with `expected_version` optionally",
    }
    schemas["MoveLogEntry"] = {"anyOf": [{"$ref": f"#/components/schemas/{t}LogEntry"} for t in titles],
                               "description": "An entry of the move log (its form depends on the game)"}
    return result
