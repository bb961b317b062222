"""Lopti endpoints: house rules, Rule Votes, duels and sessions (api.md, Lopti section).
Thin views over games.services.lopti; the engine validates rules and proposals."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import HOST, PLAY, READ
from config.errors import Invalid
from config.schema import IDEMPOTENCY_KEY, errors
from games import selectors
from games.services import lopti

from .http import Idempotent
from .tables import TableOutputSerializer


class WhenSerializer(serializers.Serializer):
    event = serializers.ChoiceField(
        choices=["round_start", "turn_start", "play", "clear", "take_pile", "draw", "face_up_pickup", "face_down_reveal", "go_out"]
    )
    timing = serializers.ChoiceField(choices=["before", "after"], required=False, help_text="default after")
    ranks = serializers.ListField(child=serializers.CharField(), required=False, help_text="play: ranks that trigger (2-10, J, Q, K, A)")
    min_cards = serializers.IntegerField(required=False, help_text="play: at least this many cards (default 1)")
    max_cards = serializers.IntegerField(required=False, help_text="play: at most this many cards")
    source = serializers.ChoiceField(choices=["hand", "face_down"], required=False, help_text="play")
    causes = serializers.ListField(
        child=serializers.ChoiceField(choices=["ten", "four_of_a_kind", "four_threes", "house_rule"]), required=False, help_text="clear"
    )
    legal = serializers.BooleanField(required=False, help_text="face_down_reveal")

    class Meta:
        ref_name = "HouseRuleWhen"


class IfSerializer(serializers.Serializer):
    actor_phase = serializers.ChoiceField(choices=["hand", "face_down"], required=False)
    pile_at_least = serializers.IntegerField(required=False)
    draw_pile_empty = serializers.BooleanField(required=False)
    actor_hand_at_most = serializers.IntegerField(required=False)

    class Meta:
        ref_name = "HouseRuleIf"


class EffectSerializer(serializers.Serializer):
    effect = serializers.ChoiceField(
        choices=["draw", "skip_next_turn", "reverse_direction", "clear_pile", "give_card", "return_cleared", "reveal_hand", "announce"]
    )
    target = serializers.ChoiceField(
        choices=["actor", "next_player", "previous_player", "all_other_players", "all_players", "most_cards", "fewest_cards", "last_round_winner"],
        required=False,
        help_text="required by draw, skip_next_turn, give_card, return_cleared, reveal_hand; refused by the others",
    )
    count = serializers.IntegerField(required=False, min_value=1, max_value=3, help_text="draw, return_cleared: 1-3")
    which = serializers.ChoiceField(choices=["lowest", "highest"], required=False, help_text="give_card")

    class Meta:
        ref_name = "HouseRuleEffect"


class HouseRuleSerializer(serializers.Serializer):
    """The machine form of a house rule (L-11.7). A closed vocabulary: no effect can cancel
    an event, no target names a person, and effects never trigger house rules."""

    description = serializers.CharField(max_length=280, help_text="1-280 characters, shown to the table")
    when = WhenSerializer()
    # "if" is a Python keyword: the field is declared under another name and renamed.
    if_ = IfSerializer(required=False, help_text="all optional conditions must hold")
    then = EffectSerializer(many=True, help_text="one to three effects, run in order")

    class Meta:
        ref_name = "HouseRule"

    def get_fields(self):
        fields = super().get_fields()
        fields["if"] = fields.pop("if_")
        return fields


class HouseRuleWriteSerializer(serializers.Serializer):
    rule = HouseRuleSerializer()

    class Meta:
        ref_name = "HouseRuleWrite"


@extend_schema_field({"type": "boolean", "const": True})
class _TrueField(serializers.BooleanField):
    """Documented as the constant `true`: `{"decline": false}` declines nothing (400). A `const`,
    not a one-value `enum`: drf-spectacular names every enum, and the two fields' enums would be
    one choice set under two names (a schema warning)."""


class HouseRuleDeclineSerializer(serializers.Serializer):
    decline = _TrueField(help_text="the winner writes no rule")

    class Meta:
        ref_name = "HouseRuleDecline"


class HouseRuleDeclinedSerializer(serializers.Serializer):
    """The answer to a decline, typed so that generated clients read it (not an untyped 200)."""

    declined = _TrueField()
    version = serializers.IntegerField(help_text="the table's version after the decline")

    class Meta:
        ref_name = "HouseRuleDeclined"


# POST takes `{rule}` or `{"decline": true}`: one of two bodies, not one body with two
# optional fields (the schema says what the server accepts: tests/api/test_schema_findings.py).
HOUSE_RULE_SUBMIT = PolymorphicProxySerializer(
    component_name="HouseRuleSubmit",
    serializers=[HouseRuleWriteSerializer, HouseRuleDeclineSerializer],
    resource_type_field_name=None,
)


class RuleViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    author = serializers.IntegerField(help_text="the author's seat")
    status = serializers.CharField(help_text="active, removed or deleted")
    rule = serializers.DictField(help_text="the rule; a moderated description is replaced")

    class Meta:
        ref_name = "HouseRuleView"


class VoteProposalSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["remove", "modify", "restore", "base_rule"])
    rule_id = serializers.IntegerField(required=False, help_text="remove, modify, restore")
    rule = HouseRuleSerializer(required=False, help_text="modify: the new form")
    key = serializers.CharField(required=False, help_text="base_rule: an L-13 key")
    value = serializers.JSONField(required=False, help_text="base_rule: the new value")
    applies = serializers.ChoiceField(choices=["now", "next_round"])

    class Meta:
        ref_name = "VoteProposal"


@extend_schema_field({"type": ["string", "null"], "enum": ["yes", "no", "abstain", None]})
class _BallotField(serializers.CharField):
    """A seat's ballot as the vote shows it: null while the seat has not voted."""


class VoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField()
    round = serializers.IntegerField()
    setup = serializers.BooleanField(help_text="a restore vote of a new session's setup (L-12.5)")
    kind = serializers.ChoiceField(choices=["remove", "modify", "restore", "base_rule"])
    proposer = serializers.IntegerField(help_text="seat")
    applies = serializers.ChoiceField(choices=["now", "next_round"])
    rule_id = serializers.IntegerField(allow_null=True)
    rule = serializers.DictField(allow_null=True)
    key = serializers.CharField(allow_null=True)
    value = serializers.JSONField(allow_null=True)
    tally = serializers.DictField(help_text="yes, no, abstain, members")
    ballots = serializers.ListField(child=_BallotField(allow_null=True), help_text="public ballots, by seat (null: not voted yet)")
    status = serializers.ChoiceField(choices=["open", "passed", "failed", "tied", "decided"])
    stage = serializers.CharField(help_text="ballots, champions or duel")
    opponent = serializers.IntegerField(allow_null=True, help_text="the seat facing the proposer in a duel")
    champions = serializers.ListField(child=serializers.IntegerField())
    champion_waiting = serializers.ListField(child=serializers.IntegerField())
    duel = serializers.IntegerField(allow_null=True, help_text="the deciding duel's id")
    duels = serializers.ListField(child=serializers.IntegerField(), help_text="every duel of this vote, knockouts included")
    decided_for = serializers.CharField(allow_null=True)
    result = serializers.CharField(allow_null=True)
    reason = serializers.CharField(allow_null=True)

    class Meta:
        ref_name = "RuleVote"


class DuelSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    vote_id = serializers.IntegerField()
    kind = serializers.CharField(help_text="duel (first to 16) or knockout (one decisive throw)")
    players = serializers.ListField(child=serializers.IntegerField())
    first_to = serializers.IntegerField()
    score = serializers.ListField(child=serializers.IntegerField())
    throws = serializers.ListField(child=serializers.DictField(), help_text="completed pairs only: a throw is shown once both threw")
    waiting = serializers.ListField(child=serializers.IntegerField(), help_text="seats still to throw this pair")
    status = serializers.CharField()
    winner = serializers.IntegerField(allow_null=True)

    class Meta:
        ref_name = "Duel"


VOTE_DOC = VoteSerializer
DUEL_DOC = DuelSerializer


def _body(request) -> dict:
    if not isinstance(request.data, dict):
        raise Invalid("the body must be a JSON object", {"fields": {"non_field_errors": ["expected an object"]}})
    # `expected_version` is the platform's (checked under the table lock by Idempotent), not
    # a field of the engine's move.
    return {k: v for k, v in request.data.items() if k != "expected_version"}


class HouseRulesApi(Idempotent, APIView):
    scopes = {"GET": READ, "POST": PLAY}
    @extend_schema(operation_id="lopti_house_rules_list", responses={200: RuleViewSerializer(many=True), **errors("not_found", "conflict")})
    def get(self, request, table_id):
        return Response(selectors.house_rules(selectors.lopti_table(table_id)))

    @extend_schema(
        operation_id="lopti_house_rules_submit",
        description="The round's winner, in the window between rounds (L-11.1): `{rule}` or `{\"decline\": true}`.",
        parameters=[IDEMPOTENCY_KEY],
        request=HOUSE_RULE_SUBMIT,
        responses={
            201: RuleViewSerializer(many=True),
            200: OpenApiResponse(HouseRuleDeclinedSerializer, description="declined"),
            **errors("invalid", "illegal_move", "forbidden", "not_found", "not_your_turn", "stale_version", "conflict", "idempotency_key_reused"),
        },
    )
    def post(self, request, table_id):
        body = _body(request)
        # Exactly the two bodies of the schema's oneOf: an object `rule` writes it; otherwise
        # `"decline": true` declines (whatever else the body holds).
        if not isinstance(body.get("rule"), dict) and body.get("decline") is True:
            def run():
                table = lopti.house_rule_decline(table_id=table_id, user=request.user)
                return {"declined": True, "version": table.version}

            return self.idempotent(request, run)
        if not isinstance(body.get("rule"), dict):
            raise Invalid("send {rule} or {\"decline\": true}", {"fields": {"rule": ["an object in the form of L-11.7"]}})

        def write():
            table = lopti.house_rule_write(table_id=table_id, user=request.user, rule=body["rule"])
            return selectors.house_rules(table)

        return self.idempotent(request, write, status=201)


class HouseRuleDetailApi(APIView):
    scopes = {"PATCH": PLAY, "DELETE": PLAY}
    @extend_schema(
        operation_id="lopti_house_rules_edit",
        description="The author, before the next round begins (L-11.5).",
        request=HouseRuleWriteSerializer,
        responses={200: RuleViewSerializer(many=True), **errors("invalid", "illegal_move", "forbidden", "not_found", "conflict")},
    )
    def patch(self, request, table_id, rule_id):
        body = _body(request)
        if not isinstance(body.get("rule"), dict):
            raise Invalid("send {rule}", {"fields": {"rule": ["an object in the form of L-11.7"]}})
        table = lopti.house_rule_edit(table_id=table_id, user=request.user, rule_id=rule_id, rule=body["rule"])
        return Response(selectors.house_rules(table))

    @extend_schema(
        operation_id="lopti_house_rules_delete",
        description="The author, any time, without a vote (L-11.6).",
        request=None,
        responses={200: RuleViewSerializer(many=True), **errors("forbidden", "not_found", "conflict")},
    )
    def delete(self, request, table_id, rule_id):
        table = lopti.house_rule_delete(table_id=table_id, user=request.user, rule_id=rule_id)
        return Response(selectors.house_rules(table))


class RuleVotesApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    @extend_schema(
        operation_id="lopti_votes_propose",
        description="L-12.1: propose a change; the proposal counts as your yes ballot. One vote per round.",
        parameters=[IDEMPOTENCY_KEY],
        request=VoteProposalSerializer,
        responses={201: VOTE_DOC, **errors("invalid", "illegal_move", "forbidden", "not_found", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        body = _body(request)

        def run():
            table, vote_id = lopti.vote_propose(table_id=table_id, user=request.user, proposal=body)
            return selectors.vote_detail(table, vote_id)

        return self.idempotent(request, run, status=201)


class RuleVoteDetailApi(APIView):
    scopes = {"GET": READ}
    @extend_schema(operation_id="lopti_votes_retrieve", responses={200: VOTE_DOC, **errors("not_found", "conflict")})
    def get(self, request, table_id, vote_id):
        return Response(selectors.vote_detail(selectors.lopti_table(table_id), vote_id))


class BallotsApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    class InputSerializer(serializers.Serializer):
        yes = serializers.BooleanField()

        class Meta:
            ref_name = "Ballot"

    @extend_schema(
        operation_id="lopti_votes_ballot",
        description="Once per member (a second ballot is 409 conflict).",
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={200: VOTE_DOC, **errors("invalid", "forbidden", "not_found", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id, vote_id):
        def run():
            serializer = self.InputSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            table = lopti.vote_ballot(table_id=table_id, user=request.user, vote_id=vote_id, yes=serializer.validated_data["yes"])
            return selectors.vote_detail(table, vote_id)

        return self.idempotent(request, run)


class ChampionsApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    @extend_schema(
        operation_id="lopti_votes_champion",
        description="Come forward as your side's representative (L-12.3).",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={200: VOTE_DOC, **errors("invalid", "forbidden", "not_found", "not_your_turn", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id, vote_id):
        def run():
            table = lopti.vote_champion(table_id=table_id, user=request.user, vote_id=vote_id)
            return selectors.vote_detail(table, vote_id)

        return self.idempotent(request, run)


class DuelDetailApi(APIView):
    scopes = {"GET": READ}
    @extend_schema(operation_id="lopti_duels_retrieve", responses={200: DUEL_DOC, **errors("not_found", "conflict")})
    def get(self, request, table_id, duel_id):
        return Response(selectors.duel_detail(selectors.lopti_table(table_id), duel_id))


class ThrowsApi(Idempotent, APIView):
    scopes = {"POST": PLAY}
    class InputSerializer(serializers.Serializer):
        throw = serializers.ChoiceField(choices=["rock", "paper", "scissors"])

        class Meta:
            ref_name = "Throw"

    @extend_schema(
        operation_id="lopti_duels_throw",
        description="Both representatives throw; each throw stays hidden until both threw (L-12.4).",
        parameters=[IDEMPOTENCY_KEY],
        request=InputSerializer,
        responses={200: DUEL_DOC, **errors("invalid", "forbidden", "not_found", "not_your_turn", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id, duel_id):
        def run():
            serializer = self.InputSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            table = lopti.duel_throw(table_id=table_id, user=request.user, duel_id=duel_id, throw=serializer.validated_data["throw"])
            return selectors.duel_detail(table, duel_id)

        return self.idempotent(request, run)


class SessionsApi(Idempotent, APIView):
    scopes = {"POST": HOST}
    @extend_schema(
        operation_id="lopti_sessions_new",
        description="The host, between rounds: start a new session (L-2.1); rules reset and the table waits in "
        "phase `setup` (restore votes for earlier rules, L-12.5) until the host calls `start` again.",
        parameters=[IDEMPOTENCY_KEY],
        request=None,
        responses={200: TableOutputSerializer, **errors("invalid", "forbidden", "not_found", "stale_version", "conflict", "idempotency_key_reused")},
    )
    def post(self, request, table_id):
        def run():
            lopti.session_new(table_id=table_id, user=request.user)
            return selectors.table_summary(selectors.get_table(table_id))

        return self.idempotent(request, run)
