"""Accounts endpoints: register, token, me, my tables."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.models import User
from config.errors import Invalid
from config.schema import errors


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150, validators=[User.username_validator])
        password = serializers.CharField(write_only=True, max_length=128)
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
    permission_classes = [AllowAny]
    authentication_classes: list = []

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField()
        password = serializers.CharField(write_only=True)

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
        return Response({"token": services.token_for(user=user)})


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()
        email = serializers.CharField()
        is_staff = serializers.BooleanField()
        date_joined = serializers.DateTimeField()
        stats = serializers.DictField(help_text="tables_played, tables_active, tables_finished, wins, by_game")
        ratings = serializers.DictField(help_text="per game slug: {rating, mu, sigma, games, wins} (rated tables only)")

        class Meta:
            ref_name = "Me"

    @extend_schema(operation_id="me", responses={200: OutputSerializer, **errors()})
    def get(self, request):
        user = request.user
        return Response(
            {
                "id": user.pk,
                "username": user.username,
                "email": user.email,
                "is_staff": user.is_staff,
                "date_joined": user.date_joined,
                "stats": selectors.user_stats(user),
                "ratings": selectors.user_ratings(user),
            }
        )


class MeTablesApi(APIView):
    @extend_schema(
        operation_id="me_tables",
        responses={
            200: serializers.ListSerializer(
                child=serializers.DictField(), help_text="table summaries with your_turn and deadline, newest first"
            ),
            **errors(),
        },
    )
    def get(self, request):
        return Response(selectors.user_tables_with_turns(request.user))
