"""Invitations and rematches (docs/api.md, "Account stream, invitations and rematch"): one view
per operation, each calling one service or selector."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import HOST, PLAY, READ
from config.errors import Invalid
from config.schema import IDEMPOTENCY_KEY, errors
from games import selectors
from games.models import Invitation
from games.services import invitations

from .http import Idempotent, validated
from .tables import InvitationSerializer, TableOutputSerializer


class TableInvitationsApi(Idempotent, APIView):
    scopes = {"POST": PLAY}

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150, help_text="the player to invite")

        class Meta:
            ref_name = "InvitationCreate"

    @extend_schema(
        operation_id="tables_invitations_create",
        description="The host invites a player to their open table: the invitee is told on their account stream "
        "(`invited`) and finds it in `GET /me/invitations`. 400 `invalid` for an unknown user, yourself or a "
        "table that has started; 409 `conflict` when the invitee already sits there or already holds a pending "
        "invitation to it (`detail.invitation` names it).",
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={201: InvitationSerializer,
                   **errors("invalid", "forbidden", "not_found", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        def run():
            data = validated(self.InputSerializer, request.data)
            invitation = invitations.invitation_create(table_id=table_id, user=request.user, username=data["username"])
            return selectors.invitation_json(invitation)

        return self.idempotent(request, run, status=201)


class TableRematchApi(Idempotent, APIView):
    scopes = {"POST": HOST}

    @extend_schema(
        operation_id="tables_rematch",
        description="A player of a finished table opens its rematch: a new open table of the same game, seats, "
        "options, time limit and visibility, you its host in seat 0, the old table's bots seated again and every "
        "other player invited (`invited` and `rematch_offered` on their account streams). 201 with the new table; "
        "any later call, by any of its players, 200 with the same table.",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={
            201: TableOutputSerializer,
            200: TableOutputSerializer,
            **errors("not_found", "forbidden", "stale_version", "conflict", "idempotency_key_reused"),
        },
    )
    def post(self, request, table_id):
        answered = {"status": 201}

        def run():
            table, opened = invitations.table_rematch(table_id=table_id, user=request.user)
            answered["status"] = 201 if opened else 200
            return selectors.table_summary(selectors.get_table(table.pk))

        return self.idempotent(request, run, status=lambda: answered["status"])


class MeInvitationsApi(APIView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="me_invitations_list",
        description=f"Your invitations: the pending ones first, then the answered ones, newest first "
        f"({selectors.MY_INVITATIONS} at most).",
        parameters=[OpenApiParameter("status", str, enum=Invitation.Status.values, description="only these")],
        responses={200: InvitationSerializer(many=True), **errors("invalid")},
    )
    def get(self, request):
        status = request.query_params.get("status")
        if status is not None and status not in Invitation.Status.values:
            raise Invalid("unknown status", {"fields": {"status": [f"must be one of {Invitation.Status.values}"]}})
        found = selectors.user_invitations(request.user, status=status)
        return Response([selectors.invitation_json(invitation) for invitation in found])


class MeInvitationAcceptApi(Idempotent, APIView):
    scopes = {"POST": PLAY}

    @extend_schema(
        operation_id="me_invitations_accept",
        description="Take a seat at the table you are invited to, as `POST /tables/{id}/join` would (409 "
        "`conflict` when it is full or has started). Accepting again answers the same; a declined invitation is "
        "409 `conflict`. Someone else's invitation is 404.",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={200: InvitationSerializer, **errors("not_found", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, invitation_id):
        def run():
            return selectors.invitation_json(
                invitations.invitation_accept(invitation_id=invitation_id, user=request.user))

        return self.idempotent(request, run, versioned=False)


class MeInvitationDeclineApi(Idempotent, APIView):
    scopes = {"POST": PLAY}

    @extend_schema(
        operation_id="me_invitations_decline",
        description="Say no: the table's host is told on their account stream (`invitation_declined`). "
        "Declining again answers the same; an accepted invitation is 409 `conflict`. Someone else's invitation "
        "is 404.",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={200: InvitationSerializer, **errors("not_found", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, invitation_id):
        def run():
            return selectors.invitation_json(
                invitations.invitation_decline(invitation_id=invitation_id, user=request.user))

        return self.idempotent(request, run, versioned=False)
