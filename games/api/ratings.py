"""Leaderboards and public profiles (api.md, "Ratings, leaderboards and quick play")."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from accounts.scopes import PLAY, READ
from config.errors import NotFound
from config.schema import IDEMPOTENCY_KEY, errors
from games import selectors
from games.services import lobby, ratings

from .http import Idempotent, bool_param, validated
from .tables import TableOutputSerializer


class RatingSerializer(serializers.Serializer):
    rating = serializers.IntegerField(help_text="display rating: 1000 + 40 (mu - 3 sigma); a new player shows 1000")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField(help_text="rated tables played")
    wins = serializers.IntegerField()

    class Meta:
        ref_name = "Rating"


class LeaderboardEntrySerializer(RatingSerializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField(help_text="a bot level's shared account")
    is_bot_account = serializers.BooleanField(help_text="a bot account (only on the `bots=true` leaderboard)")

    class Meta:
        ref_name = "LeaderboardEntry"


class LeaderboardPageSerializer(serializers.Serializer):
    """What the leaderboard answers: a page of DRF's PageNumberPagination."""

    count = serializers.IntegerField(help_text="players on the leaderboard")
    next = serializers.URLField(allow_null=True, help_text="the next page, null on the last")
    previous = serializers.URLField(allow_null=True, help_text="the previous page, null on the first")
    results = LeaderboardEntrySerializer(many=True)

    class Meta:
        ref_name = "LeaderboardPage"


class LeaderboardApi(APIView):
    scopes = {"GET": READ}
    class Pagination(PageNumberPagination):
        page_size = 50

    @extend_schema(
        operation_id="leaderboards_retrieve",
        description=(
            "Players ordered by display rating, with at least LEADERBOARD_MIN_GAMES rated tables of the game. Two "
            "pools that never meet (docs/ratings.md): by default the people's (human accounts, and the built-in "
            "bot levels); with `bots=true`, the bot accounts' (docs/bots-accounts.md)."
        ),
        parameters=[
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="page number, from 1 (50 players a page)"),
            OpenApiParameter("bots", {"type": "boolean", "default": False},
                             description="`true`: the bot accounts' leaderboard; `false` (the default): the people's"),
        ],
        responses={200: LeaderboardPageSerializer, **errors("invalid", "not_found")},
    )
    def get(self, request, game):
        if game not in selectors.game_slugs():
            raise NotFound("no such game")
        bot_accounts = bool_param(request, "bots")
        paginator = self.Pagination()
        page = paginator.paginate_queryset(ratings.leaderboard(game, bot_accounts=bot_accounts), request, view=self)
        start = (paginator.page.number - 1) * paginator.page_size
        return paginator.get_paginated_response(
            [
                {"rank": start + i + 1, "username": r.user.username, "is_bot": r.user.is_bot,
                 "is_bot_account": r.user.is_bot_account, **ratings.rating_json(r)}
                for i, r in enumerate(page)
            ]
        )


class PlayerApi(APIView):
    scopes = {"GET": READ}
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        is_bot = serializers.BooleanField(help_text="a built-in bot level's shared account")
        is_bot_account = serializers.BooleanField(help_text="a bot account: its ratings are the bot accounts' pool's")
        date_joined = serializers.DateTimeField()
        ratings = serializers.DictField(child=RatingSerializer(), help_text="per game slug")

        class Meta:
            ref_name = "PlayerProfile"

    @extend_schema(operation_id="players_retrieve", responses={200: OutputSerializer, **errors("not_found")})
    def get(self, request, username):
        user = User.objects.filter(username__iexact=username, is_active=True).first()
        if user is None:
            raise NotFound("no such player")
        return Response(
            {"username": user.username, "is_bot": user.is_bot, "is_bot_account": user.is_bot_account,
             "date_joined": user.date_joined, "ratings": ratings.ratings_of(user)}
        )


class QuickPlayApi(Idempotent, APIView):
    scopes = {"POST": PLAY, "DELETE": PLAY}
    class InputSerializer(serializers.Serializer):
        seats = serializers.IntegerField(required=False, min_value=2, max_value=7, help_text="default: 4 (2 for Lopti's minimum games)")
        options = serializers.DictField(required=False, default=dict, help_text="the game's options (GET /games); bot_delay and rated are quick play's")
        bots_after = serializers.IntegerField(required=False, default=30, min_value=0, max_value=3600,
                                              help_text="seconds before free seats go to bots and the table starts; 0 = never")

        class Meta:
            ref_name = "QuickPlayRequest"

    @extend_schema(
        operation_id="lobby_quick_play",
        description=(
            "Seats you at a waiting public table of this game and shape (seats and options), the one whose "
            "players' average rating is nearest yours, or opens one. The table starts as soon as it is full; "
            "when `bots_after` seconds pass first, its free seats go to bots of the level whose rating is "
            "nearest and it starts. Asking again while you wait returns the same table. Not for bot accounts "
            "(403 `forbidden`): quick play seats people with people, and never fills a seat with a bot account."
        ),
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={200: TableOutputSerializer, **errors("invalid", "forbidden", "not_found", "idempotency_key_reused")},
    )
    def post(self, request, game):
        # Idempotent (api.md): a retry after the request that started the table must not queue
        # the caller at a second one, which asking again without the key does.
        def run():
            table = lobby.quick_play_join(user=request.user, game=game, **validated(self.InputSerializer, request.data))
            return selectors.table_summary(selectors.get_table(table.pk))

        return self.idempotent(request, run, versioned=False)

    @extend_schema(operation_id="lobby_quick_play_leave", request=None,
                   responses={204: None, **errors("not_found")})
    def delete(self, request, game):
        lobby.quick_play_leave(user=request.user, game=game)
        return Response(status=204)
