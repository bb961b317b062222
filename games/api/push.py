"""Push endpoints (api.md, "Push: event streams and webhooks", "Account stream"): the documented
faces of the table and account event streams, and the user's webhooks."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import READ, WEBHOOKS
from config.schema import errors
from games.edge import account, events
from games.edge.http import Renderer, Request, to_django
from games.services import account_events, webhooks


class _JsonErrors(BaseContentNegotiation):
    """The stream's answer is built by the endpoint; what DRF renders for it (errors) is JSON,
    whatever the client accepts, as the edge answers it."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


# One event of the stream, its fields as OpenAPI 3.2 (and schemathesis) read an SSE stream; the
# schema becomes the `TableStreamEvent` component (config.contract.postprocess_stream).
SSE_EVENT = {
    "type": "object",
    "description": "An event of a table's stream: `id:` the version, `event: state`, `data:` the State as JSON "
    "(the stream's first line is `retry:` alone; `: ping` comments keep it open)",
    "properties": {
        "event": {"type": "string", "enum": ["state"], "description": "the one event type"},
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the state's version (resume with Last-Event-ID)"},
        "retry": {"type": "integer", "minimum": 0, "description": "the reconnection delay, in ms"},
        # JSON Schema 2020-12 (OpenAPI 3.1): the string holds a JSON document of this schema.
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"$ref": "#/components/schemas/State"},
                 "description": "the JSON of the State schema, as GET /tables/{id}/state answers it for you"},
    },
}


class TableEventsApi(APIView):
    """The thin adapter of the event stream (games.edge.events). Under the ASGI server the edge
    serves the stream and keeps it open. A request that reaches this view (a WSGI server, a test
    client) gets the same opening — the reconnection delay and the current state — and the
    stream ends there: an EventSource reconnects with Last-Event-ID, so the client degrades to
    polling."""

    scopes = {"GET": READ}

    renderer_classes = [Renderer]
    content_negotiation_class = _JsonErrors

    @extend_schema(
        operation_id="tables_events",
        summary="Server-Sent Events stream of the table as you may see it",
        description=(
            "`text/event-stream`. Each event: `id: <version>`, `event: state`, `data:` the same JSON as "
            "`GET /tables/{id}/state` for you (spectators: the spectator view). The first event is the "
            "current state; then one per version change, in order (several changes may be coalesced into "
            "the latest state, never reordered). Resume with `Last-Event-ID` or `?after=<version>`: nothing "
            "older is sent again. A `: ping` comment every 15 s keeps proxies open; the server closes a "
            "stream after an hour (reconnect with `Last-Event-ID`). At most 20 open streams per user (429)."
        ),
        parameters=[
            # The bounds the stream checks (events.parse_after): a version number.
            OpenApiParameter("after", {"type": "integer", "minimum": 0, "maximum": events.MAX_AFTER},
                             description="resume after this version (like Last-Event-ID)"),
            OpenApiParameter("Last-Event-ID", {"type": "integer", "minimum": 0, "maximum": events.MAX_AFTER},
                             OpenApiParameter.HEADER, description="the id of the last event you received"),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                # One schema per event (how OpenAPI 3.2 and schemathesis read a stream): the
                # fuzzer as a seated player found each state event checked against `string`.
                response=SSE_EVENT,
                description="`retry:`, then `id:`/`event: state`/`data:` events and `: ping` comments",
            ),
            **errors("invalid", "not_found"),
        },
    )
    def get(self, request, table_id):
        answer, _ = events.opening(Request.from_django(request._request), str(table_id), request.user)
        return to_django(answer)


# One event of the account stream (games.edge.account); the schema becomes the
# `AccountStreamEvent` component, whose `data` names `AccountEvent` (config.contract).
ACCOUNT_SSE_EVENT = {
    "type": "object",
    "description": "An event of your account stream: `id:` its id on your stream, `event:` its type, `data:` its "
    "body as JSON (the stream's first line is `retry:` alone; `: ping` comments keep it open)",
    "properties": {
        "event": {"type": "string", "enum": list(account_events.EVENTS), "description": "the event's type"},
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the event's id (resume with Last-Event-ID)"},
        "retry": {"type": "integer", "minimum": 0, "description": "the reconnection delay, in ms"},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"$ref": "#/components/schemas/AccountEvent"},
                 "description": "the JSON of the AccountEvent schema: {id, type, created, table, version, data}"},
    },
}


class AccountEventsApi(APIView):
    """The thin adapter of the account stream (games.edge.account). Under the ASGI server the
    edge serves the stream and keeps it open; a request that reaches this view (a WSGI server, a
    test client) gets the opening — the reconnection delay and, when resuming, what it missed —
    and the stream ends there, as the table streams do."""

    scopes = {"GET": READ}

    renderer_classes = [Renderer]
    content_negotiation_class = _JsonErrors

    @extend_schema(
        operation_id="stream_events",
        summary="Server-Sent Events stream of everything about you beyond one table",
        description=(
            "`text/event-stream`, one per user: `your_turn`, `timeout_warning`, `seat_away`, `table_started`, "
            "`table_finished` (the webhooks' events, whether or not you have a webhook), `invited`, "
            "`invitation_declined`, `rematch_offered`. Each event: `id: <n>` (increasing), `event: <type>`, "
            "`data:` the webhook-shaped body `{id, type, created, table, version, data}` — never a card. A new "
            "stream starts from now; `Last-Event-ID` (or `?after=<id>`) resumes with every event after it, as far "
            "back as 24 hours. A `: ping` comment every 15 s; the server closes a stream after an hour "
            "(reconnect with `Last-Event-ID`). Counts toward the 20 open streams per user (429)."
        ),
        parameters=[
            OpenApiParameter("after", {"type": "integer", "minimum": 0, "maximum": events.MAX_AFTER},
                             description="resume after this event id (like Last-Event-ID)"),
            OpenApiParameter("Last-Event-ID", {"type": "integer", "minimum": 0, "maximum": events.MAX_AFTER},
                             OpenApiParameter.HEADER, description="the id of the last event you received"),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response=ACCOUNT_SSE_EVENT,
                description="`retry:`, then `id:`/`event:`/`data:` events and `: ping` comments",
            ),
            **errors("invalid"),
        },
    )
    def get(self, request):
        answer, _ = account.opening(Request.from_django(request._request), request.user)
        return to_django(answer)


class WebhookOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=webhooks.EVENTS))
    active = serializers.BooleanField(help_text="false once disabled (a day of failed deliveries); PATCH active=true re-enables")
    disabled_reason = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()

    class Meta:
        ref_name = "Webhook"


class WebhookCreatedSerializer(WebhookOutputSerializer):
    secret = serializers.CharField(help_text="the signing secret: shown only in this response")

    class Meta:
        ref_name = "WebhookCreated"


class WebhooksApi(APIView):
    scopes = {"GET": WEBHOOKS, "POST": WEBHOOKS}
    class InputSerializer(serializers.Serializer):
        url = serializers.CharField(max_length=2000, help_text="http(s); hosts that resolve to private addresses are refused")
        events = serializers.ListField(child=serializers.ChoiceField(choices=webhooks.EVENTS), min_length=1, max_length=len(webhooks.EVENTS))
        secret = serializers.CharField(required=False, min_length=16, max_length=200, help_text="generated when omitted")

        class Meta:
            ref_name = "WebhookCreate"

    @extend_schema(operation_id="me_webhooks_list", responses={200: WebhookOutputSerializer(many=True), **errors()})
    def get(self, request):
        return Response([webhooks.endpoint_json(e) for e in webhooks.endpoints_of(request.user)])

    @extend_schema(
        operation_id="me_webhooks_create",
        description="Deliveries are POSTs with `Webhook-Id`, `Webhook-Timestamp` and `Webhook-Signature: v1=<hex "
        "HMAC-SHA256 of \"<id>.<timestamp>.<body>\" keyed with the secret>`; body `{id, type, created, table, version, data}`.",
        request=InputSerializer,
        responses={201: WebhookCreatedSerializer, **errors("invalid")},
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = webhooks.webhook_create(user=request.user, **serializer.validated_data)
        return Response({**webhooks.endpoint_json(endpoint), "secret": endpoint.secret}, status=201)


class WebhookDetailApi(APIView):
    scopes = {"GET": WEBHOOKS, "PATCH": WEBHOOKS, "DELETE": WEBHOOKS}
    class PatchSerializer(serializers.Serializer):
        url = serializers.CharField(max_length=2000, required=False)
        events = serializers.ListField(
            child=serializers.ChoiceField(choices=webhooks.EVENTS), min_length=1, max_length=len(webhooks.EVENTS), required=False
        )
        active = serializers.BooleanField(required=False, help_text="true re-enables a disabled webhook")

        class Meta:
            ref_name = "WebhookUpdate"

    @extend_schema(operation_id="me_webhooks_retrieve", responses={200: WebhookOutputSerializer, **errors("not_found")})
    def get(self, request, webhook_id):
        return Response(webhooks.endpoint_json(webhooks.endpoint_of(request.user, webhook_id)))

    @extend_schema(
        operation_id="me_webhooks_update",
        request=PatchSerializer,
        responses={200: WebhookOutputSerializer, **errors("invalid", "not_found")},
    )
    def patch(self, request, webhook_id):
        serializer = self.PatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        endpoint = webhooks.webhook_update(user=request.user, webhook_id=webhook_id, **serializer.validated_data)
        return Response(webhooks.endpoint_json(endpoint))

    @extend_schema(operation_id="me_webhooks_delete", responses={204: None, **errors("not_found")})
    def delete(self, request, webhook_id):
        webhooks.webhook_delete(user=request.user, webhook_id=webhook_id)
        return Response(status=204)


class WebhookDeliveriesApi(APIView):
    scopes = {"GET": WEBHOOKS}
    class OutputSerializer(serializers.Serializer):
        id = serializers.UUIDField(help_text="the Webhook-Id header, the same on every try")
        event = serializers.ChoiceField(choices=webhooks.EVENTS)
        table = serializers.UUIDField(allow_null=True)
        version = serializers.IntegerField(allow_null=True)
        status = serializers.ChoiceField(choices=["pending", "delivered", "failed"])
        attempts = serializers.IntegerField()
        response_code = serializers.IntegerField(allow_null=True, help_text="the last try's HTTP status")
        response_body = serializers.CharField(help_text="the start of the last response's body")
        error = serializers.CharField(help_text="why the last try failed (timeout, refused address, ...)")
        next_attempt_at = serializers.DateTimeField(allow_null=True)
        created_at = serializers.DateTimeField()
        delivered_at = serializers.DateTimeField(allow_null=True)

        class Meta:
            ref_name = "WebhookDelivery"

    @extend_schema(
        operation_id="me_webhooks_deliveries",
        description="The last 100 deliveries, newest first.",
        responses={200: OutputSerializer(many=True), **errors("not_found")},
    )
    def get(self, request, webhook_id):
        endpoint = webhooks.endpoint_of(request.user, webhook_id)
        return Response([webhooks.delivery_json(d) for d in webhooks.deliveries_of(endpoint)])
