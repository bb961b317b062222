"""The operation-level typed contract (docs/api.md, "The typed contract"): postprocessing hooks of
the OpenAPI schema that give every operation its one tag and its error responses a `code` enum of
exactly the codes it can return. The games' own types are config.schema's."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from config.schema import _STATUS_OF

# --- tags: one per operation, decided here --------------------------------------------------
TAGS = [
    {"name": "accounts", "description": "Registration, logins and your account: your profile, your tables, your tokens, "
     "the upgrade to a bot account"},
    {"name": "tables", "description": "The games catalogue and tables: create, find, join, leave, start, bots, come back; "
     "invitations and rematches"},
    {"name": "moves", "description": "Playing: your view of a table (the state, long-polled), the moves and the move log"},
    {"name": "lopti", "description": "Lopti's own operations: house rules, rule votes, duels and sessions (docs/rules/lopti.md)"},
    {"name": "push", "description": "Being told: a table's event stream and your account stream (Server-Sent Events), your webhooks and their deliveries"},
    {"name": "fair-deals", "description": "Fair deals: a finished table's export, with the deals' commitments, and its verification"},
    {"name": "ratings", "description": "Leaderboards and players' ratings"},
    {"name": "lobby", "description": "Quick play: be seated at a rated table with players of your level"},
    {"name": "oauth", "description": "OAuth2 for third-party apps (docs/apps.md): the authorization server's metadata"},
]

OPERATION_TAGS = {
    "auth_register": "accounts", "auth_token": "accounts", "me": "accounts", "me_tables": "accounts",
    "me_tokens_list": "accounts", "me_tokens_create": "accounts", "me_tokens_revoke": "accounts",
    "bot_account_upgrade": "accounts",
    "games_list": "tables", "tables_list": "tables", "tables_create": "tables", "tables_retrieve": "tables",
    "tables_join": "tables", "tables_leave": "tables", "tables_bots_add": "tables", "tables_back": "tables",
    "tables_start": "tables",
    "tables_invitations_create": "tables", "tables_rematch": "tables", "me_invitations_list": "tables",
    "me_invitations_accept": "tables", "me_invitations_decline": "tables",
    "tables_state": "moves", "tables_moves_list": "moves", "tables_moves_create": "moves",
    "tables_events": "push", "stream_events": "push", "me_webhooks_list": "push", "me_webhooks_create": "push", "me_webhooks_retrieve": "push",
    "me_webhooks_update": "push", "me_webhooks_delete": "push", "me_webhooks_deliveries": "push",
    "tables_export": "fair-deals", "replays_verify": "fair-deals",
    "leaderboards_retrieve": "ratings", "players_retrieve": "ratings",
    "lobby_quick_play": "lobby", "lobby_quick_play_leave": "lobby",
    "oauth_server_metadata": "oauth",
}
# Lopti's operations are all named lopti_*.
LOPTI_PREFIX = "lopti_"


def tag_of(operation_id: str) -> str | None:
    if operation_id.startswith(LOPTI_PREFIX):
        return "lopti"
    return OPERATION_TAGS.get(operation_id)


def operations(result):
    """(path, method, operation) for every operation of the document."""
    for path, methods in result.get("paths", {}).items():
        for method, op in methods.items():
            if isinstance(op, dict) and "operationId" in op:
                yield path, method, op


def postprocess_tags(result, generator, **kwargs):
    """Each operation's one tag (an operation this module does not know keeps none, which the
    schema tests refuse)."""
    result["tags"] = TAGS  # here rather than SPECTACULAR_SETTINGS["TAGS"]: beside the mapping
    for _, _, op in operations(result):
        tag = tag_of(op["operationId"])
        op["tags"] = [tag] if tag else []
    return result


# --- errors: `code` as an enum per operation and status --------------------------------------
# Every code the API answers, with its status (config/errors.py; docs/api.md's table). The last
# three are answers to a request outside any operation (a method or a media type it does not
# have) or a fault of the server: in the shared enum, not in the operations' (a 500 is a bug).
ERROR_CODES = {
    **_STATUS_OF,
    "method_not_allowed": 405,
    "not_acceptable": 406,
    "server_error": 500,
}
BODY_METHODS = {"post", "patch", "put"}
UNSAFE_METHODS = BODY_METHODS | {"delete"}
UNAVAILABLE_RULE = ("every operation that authenticates may write (a token's last use, an overdue deadline): "
                    "503 `unavailable` when the embedded database stayed busy (docs/reliability.md)")


def platform_codes(method: str) -> dict[int, list[str]]:
    """The codes every authenticated operation of this method can return, beside its own:
    - a POST or PATCH parses a JSON body (if only for `expected_version`): 400 `invalid` when it
      is malformed or not an object, 413 `too_large` past DATA_UPLOAD_MAX_MEMORY_SIZE;
    - an unsafe method with session authentication (the web client): 403 `forbidden` when the
      CSRF check fails;
    - every one: 503 `unavailable` (UNAVAILABLE_RULE)."""
    out: dict[int, list[str]] = {503: ["unavailable"]}
    if method in BODY_METHODS:
        out[400] = ["invalid"]
        out[413] = ["too_large"]
    if method in UNSAFE_METHODS:
        out[403] = ["forbidden"]
    return out


def _camel(code: str) -> str:
    return "".join(part.capitalize() for part in code.split("_"))


def error_component_name(codes: list[str]) -> str:
    """The component of an error response with these codes, named by them (operations that
    return the same codes for a status share it): e.g. `NotFoundError`, `ForbiddenOrInsufficientScopeError`."""
    return "Or".join(_camel(code) for code in codes) + "Error"


def error_schema(codes: list[str]) -> dict:
    return {
        "type": "object",
        "description": "An error: " + ", ".join(f"`{c}`" for c in codes) + " (docs/api.md, Conventions)",
        "properties": {
            "code": {"type": "string", "enum": codes},
            "message": {"type": "string", "description": "human-readable text"},
            "detail": {"$ref": "#/components/schemas/ErrorDetail"},
        },
        "required": ["code", "message", "detail"],
    }


ERROR_DETAIL = {
    "type": "object", "additionalProperties": {},
    "description": "`fields` for invalid bodies, `rule` for illegal moves, `required` for a missing scope, "
    "`retry_after` with a 429 or 503, `version` with `stale_version`, `max_bytes` with `too_large`",
}


ERROR = {
    "type": "object",
    "description": "The one error shape of the API (any code)",
    "properties": {
        "code": {"$ref": "#/components/schemas/ErrorCode"},
        "message": {"type": "string", "description": "human-readable text"},
        "detail": {"$ref": "#/components/schemas/ErrorDetail"},
    },
    "required": ["code", "message", "detail"],
}


def postprocess_errors(result, generator, **kwargs):
    """An operation's error responses (config.schema.errors marks them with its codes), each a
    schema whose `code` is the enum of exactly the codes it can return at that status: its own
    and the platform's (platform_codes)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    order = list(ERROR_CODES)
    schemas["ErrorCode"] = {"type": "string", "enum": order,
                            "description": "Every error code: " + ", ".join(f"`{c}` ({s})" for c, s in ERROR_CODES.items())}
    schemas["Error"] = ERROR
    schemas["ErrorDetail"] = ERROR_DETAIL
    for _, method, op in operations(result):
        responses = op.get("responses", {})
        marked = {
            int(status): response["content"]["application/json"]["schema"].get("x-error-codes", [])
            for status, response in responses.items()
            if "x-error-codes" in response.get("content", {}).get("application/json", {}).get("schema", {})
        }
        if not marked:
            continue  # not an authenticated operation of the API (the games catalogue, OAuth metadata)
        for status, codes in platform_codes(method).items():
            marked.setdefault(status, [])
            marked[status] += [code for code in codes if code not in marked[status]]
        for status, codes in marked.items():
            codes = sorted(set(codes), key=order.index)
            name = error_component_name(codes)
            schemas[name] = error_schema(codes)
            response = responses.setdefault(str(status), {})
            response["description"] = "Error codes: " + ", ".join(f"`{c}`" for c in codes)
            response["content"] = {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}
        op["responses"] = dict(sorted(responses.items()))
    return result


# --- webhooks: one OpenAPI 3.1 `webhooks` entry per event type ---------------------------------
def _games() -> dict:
    from games import selectors

    return {"type": "string", "enum": list(selectors.game_slugs())}


def webhook_data() -> dict[str, dict]:
    """What each event's `data` holds (games.services.webhooks: record_change, record_seat_away,
    record_timeout_warning, _final): public facts only, never a card."""
    seat = {"type": "integer", "minimum": 0, "description": "your seat at the table"}
    deadline = {"type": "string", "format": "date-time"}
    seats = {"type": "array", "items": {"type": "integer", "minimum": 0}}

    def obj(description, **properties):
        return {"type": "object", "description": description, "properties": properties,
                "required": list(properties), "additionalProperties": False}

    return {
        "your_turn": obj("A decision of yours is due (a move, a give, a vote...)", seat=seat, game=_games(),
                         deadline={**deadline, "type": ["string", "null"], "description": "null: no time limit"}),
        "table_started": obj("A table you sit at has started", seat=seat, game=_games()),
        "table_finished": obj(
            "A table you sit at has finished (or was aborted)", game=_games(), aborted={"type": "boolean"},
            scores={"type": ["array", "null"], "items": {"type": "integer"}, "description": "by seat; null if it never started"},
            winners={**seats, "description": "the winning seats (none when aborted)"}, seat=seat),
        "timeout_warning": obj("A quarter of your decision's time is left", seat=seat, game=_games(),
                               deadline=deadline, seconds_left={"type": "integer", "minimum": 0}),
        "seat_away": obj("You missed two deadlines in a row: a bot plays your seat until you come back (POST /back)",
                         seat=seat, game=_games(), reason={"type": "string", "enum": ["timeouts"]}),
    }


WEBHOOK_HEADERS = [
    ("Webhook-Id", {"type": "string", "format": "uuid"}, "the delivery's id, the same on every retry (deduplicate by it)"),
    ("Webhook-Timestamp", {"type": "string", "pattern": "^[0-9]+$"}, "Unix seconds when this try was sent"),
    ("Webhook-Signature", {"type": "string", "pattern": "^v1=[0-9a-f]{64}$"},
     "`v1=` + hex HMAC-SHA256 with the webhook's secret of `<Webhook-Id>.<Webhook-Timestamp>.<body>`"),
]


def webhook_component(event: str) -> str:
    return _camel(event) + "Webhook"


def webhook_body(event: str, data: dict) -> dict:
    return {
        "type": "object",
        "description": f"The body of a `{event}` delivery",
        "properties": {
            "id": {"type": "string", "format": "uuid", "description": "the delivery's id (the Webhook-Id header)"},
            "type": {"type": "string", "enum": [event]},
            "created": {"type": "string", "format": "date-time"},
            "table": {"type": "string", "format": "uuid"},
            "version": {"type": "integer", "minimum": 0, "description": "the table's version the event happened at"},
            "data": data,
        },
        "required": ["id", "type", "created", "table", "version", "data"],
        "additionalProperties": False,
    }


def postprocess_webhooks(result, generator, **kwargs):
    """Each webhook event type (games.services.webhooks.EVENTS) as an OpenAPI 3.1 webhook: the
    POST your endpoint receives, its headers and its body, typed per event."""
    from games.services.webhooks import EVENTS

    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    data = webhook_data()
    assert set(data) == set(EVENTS), "every webhook event is documented"
    hooks = result.setdefault("webhooks", {})
    for event in EVENTS:
        name = webhook_component(event)
        schemas[name] = webhook_body(event, data[event])
        hooks[event] = {"post": {
            "operationId": f"webhook_{event}",
            "summary": f"`{event}`: {data[event]['description']}",
            "description": "Sent to your webhooks subscribed to this event (docs/api.md, webhooks); answer 2xx "
            "within 10 s, anything else is retried with backoff.",
            "tags": ["push"],
            "parameters": [{"name": header, "in": "header", "required": True, "schema": schema, "description": text}
                           for header, schema, text in WEBHOOK_HEADERS],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}},
            "responses": {"2XX": {"description": "received"}},
            "security": [],
        }}
    return result


# --- examples: one per operation, real ones ----------------------------------------------------
EXAMPLES_FILE = Path(__file__).with_name("examples.json")


@functools.cache
def load_examples() -> dict:
    """config/examples.json: real requests and the server's real answers, by operationId,
    written by tests/api/examples_capture.py."""
    return json.loads(EXAMPLES_FILE.read_text())


def postprocess_examples(result, generator, **kwargs):
    """Each operation's example: its request body, its success response's body and, for an
    operation with neither (a 204 DELETE), its path parameters."""
    examples = load_examples()
    for _, _, op in operations(result):
        example = examples.get(op["operationId"])
        if example is None:
            continue
        summary = example.get("summary", "")
        if "request" in example and "requestBody" in op:
            for media in op["requestBody"]["content"].values():
                media["examples"] = {"example": {"summary": summary, "value": example["request"]}}
        response = op.get("responses", {}).get(str(example["status"]), {})
        if "response" in example:
            for media in response.get("content", {}).values():
                media["examples"] = {"example": {"summary": summary, "value": example["response"]}}
        for parameter in op.get("parameters", []):
            if parameter["in"] == "path" and parameter["name"] in example.get("parameters", {}):
                parameter["example"] = example["parameters"][parameter["name"]]
    return result


# --- the table's event stream -----------------------------------------------------------------
def postprocess_stream(result, generator, **kwargs):
    """The streams' event schemas (games.api.push.SSE_EVENT, ACCOUNT_SSE_EVENT) as components of
    their own: `TableStreamEvent`, whose `data` names `State` as its content schema, and
    `AccountStreamEvent`, whose `data` names `AccountEvent` (one body per event type)."""
    for path, name in (("/api/v1/tables/{table_id}/events", "TableStreamEvent"),
                       ("/api/v1/stream/events", "AccountStreamEvent")):
        stream = result["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]
        if "$ref" not in stream["schema"]:
            result["components"]["schemas"][name] = stream["schema"]
            stream["schema"] = {"$ref": f"#/components/schemas/{name}"}
    schemas = result["components"]["schemas"]
    data = account_event_data()
    for event, shape in data.items():
        body = webhook_body(event, shape)
        body["description"] = f"A `{event}` event of your account stream"
        body["properties"]["id"] = {"type": "integer", "minimum": 1, "description": "the event's id on your stream"}
        schemas[_camel(event) + "AccountEvent"] = body
    schemas["AccountEvent"] = {
        "description": "An event of your account stream (its `data:` line), told apart by `type`",
        "oneOf": [{"$ref": f"#/components/schemas/{_camel(e)}AccountEvent"} for e in data],
        "discriminator": {"propertyName": "type",
                          "mapping": {e: f"#/components/schemas/{_camel(e)}AccountEvent" for e in data}},
    }
    return result


def account_event_data() -> dict[str, dict]:
    """What each account event's `data` holds: the webhooks' events, and the invitations'."""
    from games.services.account_events import EVENTS

    data = webhook_data()
    # The invitations' events (games.services.invitations): the invitation as the API shows it
    # (component `Invitation`) and the table's public facts.
    table = {"type": "string", "format": "uuid"}
    invitation = {"$ref": "#/components/schemas/Invitation"}
    player = {"$ref": "#/components/schemas/Player"}

    def obj(description, **properties):
        return {"type": "object", "description": description, "properties": properties,
                "required": list(properties), "additionalProperties": False}

    data["invited"] = obj("You were invited to a table (accept or decline it: /me/invitations)",
                          invitation=invitation, game=_games(), table=table,
                          host={**player, "description": "the table's host"})
    data["invitation_declined"] = obj("A player declined your invitation to a table you host",
                                      invitation=invitation, game=_games(), table=table,
                                      by={**player, "description": "the invitee"})
    data["rematch_offered"] = obj("A player of your finished table opened its rematch and invited you",
                                  table={**table, "description": "the rematch table"},
                                  rematch_of={**table, "description": "the finished table"}, game=_games(),
                                  host={**player, "description": "the rematch table's host"}, invitation=invitation)
    assert set(data) == set(EVENTS), "every account event is documented"
    return data
