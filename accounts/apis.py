"""Accounts endpoints: register, token, me, my tables, my tokens, the bot account upgrade."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes, selectors, services
from accounts.models import ApiToken, User
from accounts.scopes import READ
from config.errors import Invalid
from config.schema import errors


class StrictCharField(serializers.CharField):
    """A string field that takes only a JSON string: DRF's CharField turns a number into one
    (`"username": 0` would register "0"), which the schema's `type: string` does not allow."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class RegisterApi(APIView):
    scopes = {}
    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(serializers.Serializer):
        username = StrictCharField(max_length=150, validators=[User.username_validator])
        password = StrictCharField(write_only=True, max_length=128)
        email = serializers.EmailField(required=False, allow_blank=True, default="")

        class Meta:
            ref_name = "Register"

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        token = serializers.CharField()

        class Meta:
            ref_name = "Registered"

    @extend_schema(operation_id="auth_register", request=InputSerializer, responses={201: OutputSerializer, **errors("invalid")}, auth=[])
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user, token = services.user_register(**serializer.validated_data)
        return Response({"id": user.pk, "username": user.username, "token": token}, status=201)


class TokenApi(APIView):
    scopes = {}
    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(serializers.Serializer):
        username = StrictCharField()
        password = StrictCharField(write_only=True)

        class Meta:
            ref_name = "TokenRequest"

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

        class Meta:
            ref_name = "Token"

    @extend_schema(operation_id="auth_token", request=InputSerializer, responses={200: OutputSerializer, **errors("invalid")}, auth=[])
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(request, **serializer.validated_data)
        if user is None or user.is_bot:
            raise Invalid("unknown username or wrong password", {"fields": {"non_field_errors": ["bad credentials"]}})
        return Response({"token": services.token_issue(user=user)})


class MeApi(APIView):
    scopes = {"GET": READ}

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.CharField()
        is_staff = serializers.BooleanField()
        is_bot_account = serializers.BooleanField(help_text="a bot account (POST /bot/account/upgrade): it plays with "
                                                  "the `bot` scope, is rated in the bots' pool and has no quick play")
        date_joined = serializers.DateTimeField()
        stats = serializers.DictField(help_text="tables_played, tables_active, tables_finished, wins, by_game")
        ratings = serializers.DictField(help_text="per game slug: {rating, mu, sigma, games, wins} (rated tables only)")

        class Meta:
            ref_name = "Me"

    @extend_schema(operation_id="me", responses={200: OutputSerializer, **errors()})
    def get(self, request):
        return Response(selectors.profile(request.user))


class BotAccountUpgradeApi(APIView):
    """Bring your own bot (docs/bots-accounts.md): the caller's account becomes a bot account."""

    scopes = {"POST": None}
    first_party_only = True  # the schema offers no OAuth app this (games.edge.auth)

    @extend_schema(
        operation_id="bot_account_upgrade",
        description=(
            "Turns your account into a bot account, for good: your program plays it through the ordinary "
            "endpoints with a token holding the `bot` scope (your first-party tokens hold it from now on; a "
            "personal access token may ask for it), your profile and seats are marked as a bot's, you are rated "
            "in the bot accounts' pool (`GET /leaderboards/{game}?bots=true`) and quick play is closed to you. "
            "Only an account that has played no table (never seated at one, hosting none, no rating) may "
            "upgrade: 409 `conflict` otherwise, with `detail.played` saying what it found. Only with a "
            "first-party login (the web client, or a token from `/auth/token`): 403 `forbidden` for an app's "
            "or a personal token. Upgrading a bot account again changes nothing and answers 200 with the "
            "profile, so a retry is safe. Answers your profile, as `GET /me`."
        ),
        request=None,
        responses={200: MeApi.OutputSerializer, **errors("forbidden", "conflict")},
    )
    def post(self, request):
        user = services.bot_account_upgrade(user=request.user, grant=request.auth)
        return Response(selectors.profile(user))


# A table (games.api.tables' `Table`) with the two facts of yours (selectors.user_tables_with_turns).
MY_TABLES = {
    "type": "array",
    "items": {"allOf": [
        {"$ref": "#/components/schemas/Table"},
        {"type": "object", "properties": {
            "your_turn": {"type": "boolean", "description": "a decision of yours is due"},
            "deadline": {"type": ["string", "null"], "format": "date-time", "description": "of the decision due, if any"},
        }, "required": ["your_turn", "deadline"]},
    ]},
}


class MeTablesApi(APIView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="me_tables",
        responses={
            200: OpenApiResponse(MY_TABLES, description="your tables, newest first: each a table with your_turn and deadline"),
            **errors(),
        },
    )
    def get(self, request):
        return Response(selectors.user_tables_with_turns(request.user))


class ApiTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ApiToken.Kind.choices, help_text="first_party: a login (/auth/token); personal: made here")
    name = serializers.CharField(allow_blank=True)
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=list(scopes.SCOPES)))
    prefix = serializers.CharField(help_text="the token's first characters, to recognise it (the token itself is never shown again)")
    created = serializers.DateTimeField()
    last_used = serializers.DateTimeField(allow_null=True, help_text="to within five minutes")
    expires = serializers.DateTimeField(allow_null=True)

    class Meta:
        ref_name = "ApiToken"


def token_json(token: ApiToken) -> dict:
    return {"id": token.pk, "kind": token.kind, "name": token.name, "scopes": token.scopes, "prefix": token.prefix,
            "created": token.created_at, "last_used": token.last_used_at, "expires": token.expires_at}


class MeTokensApi(APIView):
    """Your tokens: the first-party ones (a login each) and your personal access tokens. Made,
    listed and revoked with a first-party login only (the web client's session, or a token from
    `/auth/token`): a token never makes or sees another."""

    scopes = {"GET": None, "POST": None}
    first_party_only = True  # the schema offers no OAuth app this (games.edge.auth)

    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=100)
        scopes = serializers.ListField(child=serializers.ChoiceField(choices=list(scopes.SCOPES)), min_length=1,
                                       max_length=len(scopes.SCOPES))
        expires_in = serializers.IntegerField(required=False, min_value=60, max_value=services.MAX_EXPIRES_IN,
                                              help_text="seconds; no expiry when left out")

        class Meta:
            ref_name = "ApiTokenCreate"

    class CreatedSerializer(ApiTokenSerializer):
        token = serializers.CharField(help_text="the token: shown only in this response")

        class Meta:
            ref_name = "ApiTokenCreated"

    @extend_schema(operation_id="me_tokens_list", responses={200: ApiTokenSerializer(many=True), **errors("forbidden")})
    def get(self, request):
        if not request.auth.first_party:
            services.token_list_refused()
        return Response([token_json(t) for t in selectors.live_tokens(request.user)])

    @extend_schema(
        operation_id="me_tokens_create",
        description="A personal access token with the scopes you choose (`read`, `play`, `host`, `webhooks`; `bot` for "
        "a bot account, whose play needs it in place of `play`) and an optional lifetime. The token is in this answer "
        "only; it is stored hashed.",
        request=InputSerializer,
        responses={201: CreatedSerializer, **errors("invalid", "forbidden")},
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        token, raw = services.personal_token_create(user=request.user, grant=request.auth, name=data["name"],
                                                    scopes_asked=data["scopes"], expires_in=data.get("expires_in"))
        return Response({**token_json(token), "token": raw}, status=201)


class MeTokenDetailApi(APIView):
    scopes = {"DELETE": None}
    first_party_only = True

    @extend_schema(
        operation_id="me_tokens_revoke",
        description="Revoke one of your tokens: within a second no process accepts it.",
        responses={204: None, **errors("forbidden", "not_found")},
    )
    def delete(self, request, token_id):
        services.token_revoke(user=request.user, grant=request.auth, token_id=token_id)
        return Response(status=204)
