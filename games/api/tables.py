"""One view per operation (docs/architecture.md, convention 6). Views parse, call one service or
selector, and shape the response; they hold no game logic."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import HOST, PLAY, READ
from config.errors import Invalid
from config.schema import IDEMPOTENCY_KEY, errors
from config.throttling import PollRateThrottle
from games import selectors
from games.edge import moves as edge_moves
from games.edge.http import Renderer, to_django
from games.models import Invitation, Table
from games.services import automation, invitations, tables

from .http import Idempotent, int_param, validated


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()

    class Meta:
        ref_name = "Player"


class SeatBotSerializer(serializers.Serializer):
    """On a bot account's seat only (docs/bots-accounts.md): which bot account plays it."""

    account = serializers.CharField(help_text="the bot account's username")

    class Meta:
        ref_name = "SeatBot"


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    player = PlayerSerializer(allow_null=True)
    is_bot = serializers.BooleanField(help_text="a bot plays the seat: a built-in bot, a player who left, or a bot account")
    bot = SeatBotSerializer(required=False)
    away = serializers.BooleanField()

    class Meta:
        ref_name = "Seat"


class TableOutputSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=Table.Status.choices)
    version = serializers.IntegerField()
    host = PlayerSerializer()
    seats = SeatSerializer(many=True)
    options = serializers.DictField()
    turn_timeout = serializers.IntegerField()
    private = serializers.BooleanField(help_text="not listed; anyone with the id may view and join (an invite link)")
    invite_only = serializers.BooleanField(help_text="not listed; only the host's invitees may join")
    rematch = serializers.UUIDField(allow_null=True, help_text="the table a rematch of this finished one opened, if any")
    aborted = serializers.BooleanField(help_text="stopped by an operator")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "Table"


class InvitationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.UUIDField(help_text="the table you are invited to")
    game = serializers.CharField()
    table_status = serializers.ChoiceField(
        choices=Table.Status.choices, help_text="only an open table can still be joined")
    by = PlayerSerializer(help_text="who invited: the table's host then")
    to = PlayerSerializer(help_text="the invitee")
    status = serializers.ChoiceField(choices=Invitation.Status.choices, help_text="an answer is final")
    rematch = serializers.BooleanField(help_text="sent by a rematch of a table you played")
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "Invitation"


class StateSerializer(serializers.Serializer):
    table = serializers.UUIDField()
    game = serializers.CharField()
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Table.Status.choices)
    phase = serializers.CharField(help_text="game phase; `waiting` before the start")
    turn = serializers.IntegerField(allow_null=True, help_text="the seat that must act; null when several may or none")
    deadline = serializers.DateTimeField(allow_null=True)
    dealer = serializers.IntegerField(allow_null=True)
    round = serializers.IntegerField(help_text="the current hand or round, from 1")
    you = serializers.DictField(allow_null=True, help_text="null for spectators; else {seat, hand, ...} with only your own hidden cards")
    seats = serializers.ListField(child=serializers.DictField(), help_text="public facts per seat: seat, player, is_bot, bot (a bot account's), away, card counts, ...")
    legal_moves = serializers.ListField(child=serializers.DictField(), help_text="every move you may make now, in the POST body's form")
    public = serializers.DictField(help_text="the game's public table state")
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)

    class Meta:
        ref_name = "State"


class GamesApi(APIView):
    scopes = {"GET": None}  # public: anyone, any credential
    permission_classes: list = []

    class OutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        name = serializers.CharField()
        min_players = serializers.IntegerField()
        max_players = serializers.IntegerField()
        options = serializers.DictField(help_text="{name: {type, default, choices?, minimum?, maximum?, description}}")
        rules = serializers.CharField(
            help_text="where the game's numbered rules are, in the project's repository (the ids that "
            "`illegal_move` cites in `detail.rule`)"
        )

        class Meta:
            ref_name = "Game"

    @extend_schema(
        operation_id="games_list",
        description=(
            "The games and their table options. The rules of each game, with the rule ids that errors "
            "cite, ship with the project: President in `docs/rules/president.md` (P-1 .. P-9), Auction "
            "Pitch in `docs/rules/pitch.md` (A-1 .. A-9), Lopti in `docs/rules/lopti.md` (L-1 .. L-14); "
            "the API contract is `docs/api.md`."
        ),
        responses={200: OutputSerializer(many=True)},
        auth=[],
    )
    def get(self, request):
        catalogue = selectors.games_catalogue()
        for game in catalogue:
            game["options"]["bot_delay"] = tables.BOT_DELAY_OPTION
            game["options"]["rated"] = tables.RATED_OPTION
        return Response(catalogue)


class TablesApi(Idempotent, APIView):
    scopes = {"GET": READ, "POST": HOST}
    class InputSerializer(serializers.Serializer):
        game = serializers.ChoiceField(choices=selectors.game_slugs())
        seats = serializers.IntegerField(
            min_value=selectors.seat_range()[0],
            max_value=selectors.seat_range()[1],
            help_text="within the game's min_players..max_players (GET /games)",
        )
        options = serializers.DictField(required=False, default=dict, help_text="the game's options (GET /games)")
        turn_timeout = serializers.IntegerField(
            required=False, default=60, min_value=0, max_value=tables.MAX_TURN_TIMEOUT,
            help_text="seconds per decision, 0 = no limit, at most 7 days",
        )
        private = serializers.BooleanField(
            required=False, default=False, help_text="not listed; anyone with the id may view and join (an invite link)")
        invite_only = serializers.BooleanField(
            required=False, default=False,
            help_text="not listed; only the host's invitees may join (403 forbidden for anyone else)")
        deck = serializers.ListField(child=serializers.CharField(), required=False, help_text="staff only: the first deal's cards, card 0 dealt first")
        first_dealer = serializers.IntegerField(required=False, help_text="staff only")
        seed = serializers.IntegerField(required=False, min_value=0, max_value=2**63 - 1, help_text="staff only")
        duplicate_of = serializers.UUIDField(
            required=False,
            help_text="staff only: a table of the same game and seat count whose seed (and fixed deck and first dealer) "
            "this table takes, so it deals the same deals in the same order (duplicate play); the seed is never shown",
        )

        class Meta:
            ref_name = "TableCreate"

    class Pagination(LimitOffsetPagination):
        default_limit = 50
        max_limit = 200

    class PageSerializer(serializers.Serializer):
        count = serializers.IntegerField(help_text="public tables matching the filters")
        next = serializers.URLField(allow_null=True)
        previous = serializers.URLField(allow_null=True)
        results = TableOutputSerializer(many=True)

        class Meta:
            ref_name = "TablePage"

    @extend_schema(
        operation_id="tables_list",
        description="Public tables, newest first, a page at a time (`limit`, `offset`).",
        parameters=[
            OpenApiParameter("game", str, enum=selectors.game_slugs()),
            OpenApiParameter("status", str, enum=[s for s, _ in Table.Status.choices]),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": Pagination.max_limit},
                             description=f"page size (default {Pagination.default_limit})"),
            OpenApiParameter("offset", {"type": "integer", "minimum": 0, "maximum": 2**31}, description="tables to skip"),
        ],
        responses={200: PageSerializer, **errors("invalid")},
    )
    def get(self, request):
        # An empty `?game=` or `?status=` is not a value of the enum either (schemathesis
        # found `?game=` accepted as "any game").
        status = request.query_params.get("status")
        if status is not None and status not in Table.Status.values:
            raise Invalid("unknown status", {"fields": {"status": [f"must be one of {Table.Status.values}"]}})
        game = request.query_params.get("game")
        if game is not None and game not in set(selectors.game_slugs()):
            raise Invalid("unknown game", {"fields": {"game": ["must be a game slug from GET /games"]}})
        # DRF's paginator silently replaces a bad limit or offset by the default: refuse them
        # instead, as the schema says (tests/api/test_schema_findings.py).
        int_param(request, "limit", self.Pagination.default_limit, 1, self.Pagination.max_limit)
        int_param(request, "offset", 0, 0, 2**31)
        paginator = self.Pagination()
        page = paginator.paginate_queryset(
            selectors.tables_list(game=game, status=status), request, view=self
        )
        return paginator.get_paginated_response([selectors.table_summary(t) for t in page])

    @extend_schema(
        operation_id="tables_create",
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={201: TableOutputSerializer, **errors("invalid", "forbidden", "idempotency_key_reused")},
    )
    def post(self, request):
        def run():
            data = validated(self.InputSerializer, request.data)
            table = tables.table_create(user=request.user, **data)
            return selectors.table_summary(selectors.get_table(table.pk))

        return self.idempotent(request, run, status=201)


class TableDetailApi(APIView):
    scopes = {"GET": READ}
    @extend_schema(operation_id="tables_retrieve", responses={200: TableOutputSerializer, **errors("not_found")})
    def get(self, request, table_id):
        return Response(selectors.table_summary(selectors.get_table(table_id)))


class TableJoinApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, min_value=0)

        class Meta:
            ref_name = "TableJoin"

    @extend_schema(
        operation_id="tables_join",
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={200: TableOutputSerializer, **errors("invalid", "forbidden", "not_found", "stale_version", "conflict",
                                                        "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        def run():
            data = validated(self.InputSerializer, request.data)
            tables.table_join(table_id=table_id, user=request.user, seat=data.get("seat"))
            return selectors.table_summary(selectors.get_table(table_id))

        return self.idempotent(request, run)


class TableLeaveApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    @extend_schema(
        operation_id="tables_leave",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={
            200: TableOutputSerializer,
            204: OpenApiResponse(description="the table was left empty and deleted"),
            **errors("invalid", "not_found", "forbidden", "stale_version", "conflict", "idempotency_key_reused"),
        },
    )
    def post(self, request, table_id):
        def run():
            table = tables.table_leave(table_id=table_id, user=request.user)
            if table is None:
                return None
            return selectors.table_summary(selectors.get_table(table_id))

        response = self.idempotent(request, run)
        if response.data is None and response.status_code == 200:
            return Response(status=204)
        return response


class TableStartApi(Idempotent, APIView):
    scopes = {"POST": HOST}
    @extend_schema(
        operation_id="tables_start",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={200: TableOutputSerializer, **errors("invalid", "not_found", "forbidden", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        def run():
            tables.table_start(table_id=table_id, user=request.user)
            return selectors.table_summary(selectors.get_table(table_id))

        return self.idempotent(request, run)


class MoveInputSerializer(serializers.Serializer):
    """The schema of a move; which fields a move needs depends on the game and its type."""

    type = serializers.CharField(help_text="president: play, pass, give; pitch: bid, play; lopti: swap, keep, play, play_face_down, take_pile")
    cards = serializers.ListField(child=serializers.CharField(), required=False, help_text="president play/give, lopti play")
    card = serializers.CharField(required=False, help_text="pitch play")
    value = serializers.IntegerField(required=False, help_text="pitch bid: 0 (pass) to 4")
    hand_card = serializers.CharField(required=False, help_text="lopti swap")
    face_up_card = serializers.CharField(required=False, help_text="lopti swap")
    index = serializers.IntegerField(required=False, help_text="lopti play_face_down: position as dealt, 0-2")
    expected_version = serializers.IntegerField(required=False, help_text="409 stale_version unless equal to the table's version")

    class Meta:
        ref_name = "MoveInput"


class TableMovesApi(Idempotent, APIView):
    """A thin adapter of the move endpoint (games.edge.moves), which the edge serves too: the same
    answer whichever door a move comes through (rendered by the edge's JSON renderer)."""

    scopes = {"GET": READ, "POST": PLAY}

    throttle_scope = "moves"
    renderer_classes = [Renderer, BrowsableAPIRenderer]

    class MoveResultSerializer(serializers.Serializer):
        version = serializers.IntegerField()
        events = serializers.ListField(child=serializers.DictField(), help_text="what the move caused, as you may see it")
        state = StateSerializer()

        class Meta:
            ref_name = "MoveResult"

    @extend_schema(
        operation_id="tables_moves_list",
        description="The move log as you may see it, oldest first: entries `{seq, seat, type, ..., by, version, at, "
        "events}` (server actions have `by: \"server\"`); `?after=<seq>` for what came since.",
        parameters=[
            OpenApiParameter("after", {"type": "integer", "minimum": 0, "maximum": 2**31}, description="only entries with a greater seq"),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 500},
                             description="at most this many entries (default and maximum 500)"),
        ],
        responses={
            200: inline_serializer(
                "MoveLogEntry",
                {
                    "seq": serializers.IntegerField(),
                    "seat": serializers.IntegerField(allow_null=True),
                    "type": serializers.CharField(),
                    "by": serializers.ChoiceField(choices=["player", "server"]),
                    "version": serializers.IntegerField(),
                    "at": serializers.DateTimeField(),
                    "events": serializers.ListField(child=serializers.DictField()),
                },
                many=True,
            ),
            **errors("invalid", "not_found"),
        },
    )
    def get(self, request, table_id):
        table = selectors.get_table(table_id)
        after = int_param(request, "after", 0, 0, 2**31)
        limit = int_param(request, "limit", 500, 1, 500)
        return Response(selectors.move_log(table, request.user, after=after, limit=limit))

    @extend_schema(
        operation_id="tables_moves_create",
        description="Make a move, in the form `legal_moves` lists it; with `expected_version`, only if the table is "
        "still at that version. The answer is `{version, events, state}`: your new state, with its ETag.",
        parameters=[IDEMPOTENCY_KEY, OpenApiParameter(
            "ETag", str, OpenApiParameter.HEADER, response=[200],
            description="the ETag of `state` (as GET /state would give it): poll on with it in If-None-Match")],
        request=MoveInputSerializer,
        responses={
            200: MoveResultSerializer,
            **errors("invalid", "illegal_move", "forbidden", "not_found", "not_your_turn", "stale_version", "conflict", "idempotency_key_reused"),
        },
    )
    def post(self, request, table_id):
        if "Idempotency-Key" not in request.headers:
            return to_django(edge_moves.answer(str(table_id), request.user, request.data))
        # A keyed move: replayed from its stored answer (move_submit checks expected_version
        # itself, after the seat checks).
        response = self.idempotent(request, lambda: edge_moves.result(str(table_id), request.user, request.data),
                                   versioned=False)
        if response.status_code == 200 and isinstance(response.data, dict):
            for name, value in edge_moves.with_etag(response.data, request.user).items():
                response[name] = value
        return response


class TableStateApi(APIView):
    """Documents `GET /tables/{id}/state`, and names its policy: requests are served by the state
    endpoint (games.edge.state) through the edge or the async view games.api.state, so that a
    waiting poll holds no thread. Polls have their own throttle, counted in each process's memory
    (config.throttling.PollRateThrottle: a 304 costs no Redis round trip)."""

    scopes = {"GET": READ}
    throttle_classes = [PollRateThrottle]

    @extend_schema(
        operation_id="tables_state",
        description="Your view of the table: only your own hidden cards (spectators: public state only), the moves "
        "you may make now, and an `ETag` to poll with (`If-None-Match`: 304 while nothing changed; `?wait=`: a "
        "long-poll that answers as soon as the table changes).",
        parameters=[
            OpenApiParameter("wait", {"type": "number", "minimum": 0, "maximum": 30},
                             description="long-poll: hold up to this many seconds (0 to 30) until the version differs "
                             "from the one in If-None-Match (or from the current one)"),
            OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER, description="the ETag of your last state: 304 while unchanged"),
            OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[200, 304],
                             description="this viewer's tag of the state's version (per viewer: another's never matches)"),
        ],
        responses={
            200: StateSerializer,
            304: OpenApiResponse(description="not modified: the version has not changed"),
            **errors("invalid", "not_found"),
        },
    )
    def get(self, request, table_id):  # pragma: no cover - served by games.api.state
        raise NotImplementedError



class TableBotsApi(Idempotent, APIView):
    scopes = {"POST": HOST}
    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, min_value=0,
                                        help_text="with `level`: the free seat it takes (default: the lowest free one)")
        level = serializers.ChoiceField(choices=["random", "easy", "hard"], required=False,
                                        help_text="a built-in bot, played by the server: it sits at once")
        account = serializers.CharField(max_length=150, required=False,
                                        help_text="a bot account's username (docs/bots-accounts.md): it is invited, "
                                        "and takes the lowest free seat when its program accepts")

        class Meta:
            ref_name = "TableAddBot"

        def validate(self, attrs):
            if ("level" in attrs) == ("account" in attrs):
                raise serializers.ValidationError("give either `level` (a built-in bot) or `account` (a bot account)")
            if "account" in attrs and "seat" in attrs:
                raise serializers.ValidationError({"seat": ["a bot account takes the lowest free seat when it accepts"]})
            return attrs

    @extend_schema(
        operation_id="tables_bots_add",
        description="The host fills a seat of their open table with a bot. `{level}`: a built-in bot sits at once "
        "(200, the table). `{account}`: a bot account, someone's program playing through this API, is invited "
        "(201, the invitation: it gets `invited` on its account stream and sits when it accepts). 400 `invalid` "
        "when `account` is not a bot account (people are invited with `/invitations`); 409 `conflict` when the "
        "table is full or the account already sits there or holds a pending invitation.",
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={200: TableOutputSerializer, 201: InvitationSerializer,
                   **errors("invalid", "forbidden", "not_found", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        def run():
            data = validated(self.InputSerializer, request.data)
            if "account" in data:
                invitation = invitations.invitation_create(
                    table_id=table_id, user=request.user, username=data["account"], bot_account=True)
                return selectors.invitation_json(invitation)
            automation.table_add_bot(table_id=table_id, user=request.user, level=data["level"], seat=data.get("seat"))
            return selectors.table_summary(selectors.get_table(table_id))

        # A success with `account` is an invitation (the validation admits it with no `level`).
        return self.idempotent(request, run, status=lambda: 201 if "account" in request.data else 200)


class TableBackApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    @extend_schema(
        operation_id="tables_back",
        description="An `away` player takes the seat back from the bot (polling does not bring a player back).",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={200: TableOutputSerializer, **errors("invalid", "forbidden", "not_found", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        def run():
            automation.table_back(table_id=table_id, user=request.user)
            return selectors.table_summary(selectors.get_table(table_id))

        return self.idempotent(request, run)
