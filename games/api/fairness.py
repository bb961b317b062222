"""Fair deals (api.md, "Fair deals, export and replay"): a finished table's export and the
verification of an export. The format and the checks live in `games.engine.replay`."""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import READ
from config.errors import ApiError, Invalid
from config.schema import errors
from games.services import export


class TooLarge(ApiError):
    status, code, default_message = 413, "too_large", "the document is too large"


class DealSerializer(serializers.Serializer):
    deal = serializers.IntegerField(help_text="the deal number, from 0")
    fixed_deck = serializers.BooleanField(help_text="a staff fixed deck (the first deal only): no commitment")
    commitment = serializers.CharField(allow_null=True, help_text="sha256 hex of the secret, as the state and log showed it")
    secret = serializers.CharField(allow_null=True, help_text="the deal secret, 64 hex digits: HMAC-SHA256(seed, deal number)")
    hands = serializers.DictField(
        allow_null=True,
        help_text="the starting layout by seat as dealt (President: hands; Pitch: hands, undealt; Lopti: hands, "
        "face_down, face_up, draw_pile); null for a secret that only drew a dealer",
    )
    deck = serializers.ListField(child=serializers.CharField(), required=False, help_text="a fixed deck, card 0 dealt first")

    class Meta:
        ref_name = "ExportDeal"


class ExportMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    by = serializers.ChoiceField(choices=["player", "server", "bot"])
    move = serializers.DictField(help_text="the move as the engine applied it")
    events = serializers.ListField(child=serializers.DictField(), help_text="its events as a spectator sees them")
    version = serializers.IntegerField()
    at = serializers.DateTimeField()

    class Meta:
        ref_name = "ExportMove"


class ExportPlayerSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="the seat taken at the start")
    player = serializers.DictField(allow_null=True, help_text="{id, username}")
    is_bot = serializers.BooleanField()
    bot_level = serializers.CharField(allow_null=True)
    left = serializers.BooleanField(help_text="left during play; a bot finished the seat")

    class Meta:
        ref_name = "ExportPlayer"


class ExportSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=["cardgames-table/1"])
    table = serializers.UUIDField()
    game = serializers.CharField()
    seats = serializers.IntegerField()
    options = serializers.DictField()
    players = ExportPlayerSerializer(many=True)
    aborted = serializers.BooleanField()
    duplicate_of = serializers.UUIDField(allow_null=True, help_text="the table whose seed (and deals) this one took")
    shuffle = serializers.IntegerField(help_text="the shuffle algorithm's version (docs/fair-deals.md)")
    first_dealer = serializers.IntegerField()
    first_dealer_fixed = serializers.BooleanField(help_text="set by staff rather than drawn from deal 0's secret")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    deals = DealSerializer(many=True)
    moves = ExportMoveSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    winners = serializers.ListField(child=serializers.IntegerField(), help_text="winning seats; none for an aborted table")

    class Meta:
        ref_name = "TableExport"


_HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_NULLABLE_HEX64 = {**_HEX64, "nullable": True}
# The request: what the verifier reads of an export (games.engine.replay.check_document); the
# rest of the document is free. The whole format: docs/schemas/cardgames-table-1.json.
EXPORT_REQUEST = {
    "type": "object",
    "required": ["format", "game", "seats", "options", "shuffle", "first_dealer", "first_dealer_fixed", "aborted",
                 "deals", "moves", "scores", "winners"],
    "properties": {
        "format": {"type": "string", "enum": ["cardgames-table/1"]},
        "game": {"type": "string"},
        "seats": {"type": "integer"},
        "options": {"type": "object"},
        "shuffle": {"type": "integer"},
        "first_dealer": {"type": "integer", "minimum": 0},
        "first_dealer_fixed": {"type": "boolean"},
        "aborted": {"type": "boolean"},
        "deals": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["deal", "fixed_deck", "secret", "commitment", "hands"],
                "properties": {
                    "deal": {"type": "integer", "minimum": 0},
                    "fixed_deck": {"type": "boolean"},
                    "secret": _NULLABLE_HEX64,
                    "commitment": _NULLABLE_HEX64,
                    "hands": {"type": "object", "nullable": True},
                    "deck": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "moves": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["seq", "seat", "move", "events"],
                "properties": {
                    "seq": {"type": "integer", "minimum": 1},
                    "seat": {"type": "integer", "minimum": 0, "nullable": True},
                    "move": {"type": "object"},
                    "events": {"type": "array", "items": {}},
                },
            },
        },
        "scores": {"type": "array", "items": {"type": "integer"}, "nullable": True},
        "winners": {"type": "array", "items": {"type": "integer"}},
    },
}


class TableExportApi(APIView):
    scopes = {"GET": READ}
    @extend_schema(
        operation_id="tables_export",
        description="A finished table (aborted ones too) as one `cardgames-table/1` document "
        "(JSON Schema: docs/schemas/cardgames-table-1.json): every deal's revealed secret and starting "
        "hands, the full move log with server actions, scores and winners. 409 `conflict` before the end.",
        responses={200: ExportSerializer, **errors("not_found", "conflict")},
    )
    def get(self, request, table_id):
        return Response(export.table_export(table_id=table_id))


class ReplayVerifyApi(APIView):
    scopes = {"POST": READ}
    class OutputSerializer(serializers.Serializer):
        valid = serializers.BooleanField()
        reason = serializers.CharField(
            required=False,
            help_text="the first mismatch, starting with its kind: `wrong secret`, `wrong deal`, `tampered move` "
            "or `wrong score`",
        )
        final_scores = serializers.ListField(
            child=serializers.IntegerField(), allow_null=True, help_text="the replay's scores; null when it stopped early"
        )

        class Meta:
            ref_name = "ReplayVerification"

    @extend_schema(
        operation_id="replays_verify",
        description="Verify a `cardgames-table/1` export: each deal is recomputed from its secret, each "
        "commitment checked, every move replayed with the engine and the scores compared. A body that is "
        "not such a document is 400 `invalid` naming the field; one over `REPLAY_MAX_BYTES` (default 5 MB) "
        "is 413 `too_large`.",
        request={"application/json": EXPORT_REQUEST},
        responses={
            200: OutputSerializer,
            **errors("invalid", "too_large"),
        },
    )
    def post(self, request):
        limit = export.max_document_bytes()
        # Read here rather than through request.data: exports may exceed the API's usual body limit.
        body = request._request.read(limit + 1)
        if len(body) > limit:
            raise TooLarge(f"the document is larger than {limit} bytes", {"max_bytes": limit})
        try:
            document = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise Invalid("the body is not JSON", {"fields": {"document": ["must be a JSON object"]}}) from exc
        return Response(export.export_verify(document=document))
