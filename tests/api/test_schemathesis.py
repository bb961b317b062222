"""The OpenAPI schema says what the server does. Schemathesis (v4) fuzzes every
operation of the live schema, with every check it has, authenticated, in-process over WSGI:
each operation with a few generated requests (positive and negative), then a stateful run
that follows the schema's links from a created table to join, start, moves and state.
Bounded to a few examples per operation so that it fits CI in about a minute.

Where the schema cannot say everything (a password on the common-password list, a move the
rules forbid, a seat number past this table's seats), a schema-valid request may be refused
with 400: `ACCEPTS_400` names those operations, and no other. Everything else must hold:
no 5xx, every status and header documented, every body matching its schema, negative data
refused, documented auth enforced."""

from __future__ import annotations

import math

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from tests.tokens import first_party_token

# Operations that may refuse a schema-valid request with 400 (`invalid`/`illegal_move`),
# each because validity depends on something JSON Schema cannot express.
ACCEPTS_400 = {
    "auth_register": "password strength (Django's validators) and taken usernames",
    "auth_token": "wrong credentials are 400 invalid (api.md)",
    "tables_create": "seats and options depend on the game",
    # Found by the CLI run of `make fuzz`: quick play's seats too (President takes 4 to 7).
    "lobby_quick_play": "seats and options depend on the game",
    "tables_bots_add": "the seat must exist at this table",
    # Found by the CLI run of `make fuzz` (tests/reliability/fuzz_live.py): a join naming a seat
    # past this table's seats is 400, as for bots.
    "tables_join": "the seat must exist at this table",
    "tables_moves_create": "the game's rules decide which moves are legal",
    "tables_invitations_create": "the username must name an account other than the host's",
    "lopti_house_rules_submit": "a house rule's meaning is checked by the engine (L-11.7)",
    "lopti_house_rules_edit": "a house rule's meaning is checked by the engine (L-11.7)",
    "lopti_votes_propose": "a proposal's meaning is checked by the engine (L-12)",
    "me_tokens_create": "the `bot` scope is for bot accounts only (accounts.services.held_scopes)",
    "me_webhooks_create": "the URL's host must resolve to a public address",
    "me_webhooks_update": "the URL's host must resolve to a public address",
    "replays_verify": "an export's deals and moves are numbered in order, its game and options must exist",
}
POSITIVE_STATUSES = '["2xx", "3xx", "401", "403", "404", "409", "429"]'

CONFIG_TEXT = (
    "seed = 18\n"
    # No crash cache in the work tree: every run starts from the same state.
    "[cache]\nenabled = false\n"
    # The parser refuses U+0000 anywhere in a body (400 invalid: PostgreSQL cannot store it,
    # tests/reliability/test_bad_input.py): it is not positive data.
    "[generation]\nmax-examples = 4\nallow-x00 = false\n"
    "[phases.stateful]\nmax-steps = 12\n"
    + "".join(
        f'[[operations]]\ninclude-operation-id = "{op}"\n'
        f'checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429"]\n'
        for op in ACCEPTS_400
    )
    # The account stream has no path to get wrong, so every negative case schemathesis makes of
    # it reaches the stream; one is "a header beside the declared ones", which HTTP allows (a
    # client sends many). Its real negative cases (a bad Last-Event-ID or ?after=: 400) are
    # tested in tests/api/test_events.py and tests/integration/test_account_stream.py.
    + '[[operations]]\ninclude-operation-id = "stream_events"\nchecks.negative_data_rejection.enabled = false\n'
    + "[checks]\nenabled = true\n"  # every check schemathesis has, built-in and stateful
    # A long-poll holds a request for its `wait`, up to 30 s (the CLI's default limit is 10 s).
    + "max_response_time = 35\n"
    + f"[checks.positive_data_acceptance]\nexpected-statuses = {POSITIVE_STATUSES}\n"
)
CONFIG = SchemathesisConfig.from_str(CONFIG_TEXT)

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application(), config=CONFIG)

# A long-poll may hold a request for up to 30 s: the fuzzer's waits are cut to a few
# milliseconds (still in the documented range, so still positive data).
MAX_TEST_WAIT = 0.02


@schema.hook
def map_query(context, query):
    wait = (query or {}).get("wait")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and math.isfinite(wait) and 0 < wait <= 30:
        query["wait"] = min(wait, MAX_TEST_WAIT)
    return query


# The fuzzer's token: a fixed key, stored by the `fuzz_token` fixture in each test's database.
FUZZ_TOKEN = "f" * 40


@schema.auth(refresh_interval=None)
class TokenAuth:
    """Declared to schemathesis as the API's auth, so its auth checks (ignored_auth) know
    which credentials are real and which ones it made up."""

    def get(self, case, context):
        return FUZZ_TOKEN

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


@pytest.fixture
def fuzz_token(db):
    """A staff user's token, with Django's per-request connection closing switched off (as
    Django's own test client does): the WSGI app runs inside the test's transaction."""

    from accounts.models import User

    # Staff, so that staff-only fields (deck, seed, first_dealer) are exercised too.
    user = User.objects.create_user(username="fuzzer", password="fuzzer password 1", is_staff=True)
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield first_party_token(user, FUZZ_TOKEN)
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


FUZZ_SETTINGS = settings(
    max_examples=4, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture
def positive_statuses(request):
    """The statuses of an operation's positive (schema-valid) cases, then schemathesis's CLI
    warning "Schema validation mismatch" as a failure: every valid request refused, with 4xx
    other than auth, not-found, conflict and throttling (its own rule, StatusCodeStatistic).
    The pytest integration has no run-level warnings; this is the one the CLI would give (and
    tests/reliability/fuzz_live.py fails on it there). Not for ACCEPTS_400's operations."""
    from schemathesis.cli.commands.run.warnings import StatusCodeStatistic

    statuses: list[int] = []
    operations: list = []
    yield statuses, operations
    if not operations or operations[0].definition.raw.get("operationId") in ACCEPTS_400:
        return  # they may refuse valid data: the mismatch is expected there
    counts = {code: statuses.count(code) for code in set(statuses)}
    statistic = StatusCodeStatistic(counts=counts, total=len(statuses))
    served = any(code < 400 for code in statuses)
    assert served or not statistic.should_warn_about_validation_mismatch(), (
        f"schema validation mismatch: every valid request of {request.node.name} was refused: {counts}")


@pytest.mark.filterwarnings("ignore")
@schema.parametrize()
@FUZZ_SETTINGS
def test_every_operation_conforms_to_the_schema(case, fuzz_token, positive_statuses):
    from schemathesis.generation.modes import GenerationMode

    statuses, operations = positive_statuses
    operations[:] = [case.operation]
    response = case.call_and_validate()
    if case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE:
        statuses.append(response.status_code)


@pytest.mark.django_db
@pytest.mark.filterwarnings("ignore")
def test_stateful_runs_follow_the_links_and_conform(fuzz_token):
    reached: set[tuple[str, int]] = set()

    class Workflow(schema.as_state_machine()):
        def setup(self):
            # Every scenario starts from the same database, so that a replayed scenario meets
            # the same responses (Hypothesis refuses data generation that drifts).
            from games.models import IdempotencyRecord, Table

            Table.objects.all().delete()
            IdempotencyRecord.objects.all().delete()

        def after_call(self, response, case):
            super().after_call(response, case)
            reached.add((case.operation.label, response.status_code))

    # 90 runs: a generated create body that names a `duplicate_of` (a random id: no such table)
    # or a random deck is refused, so only some runs create a table to follow links from.
    Workflow.run(
        settings=settings(
            max_examples=90, stateful_step_count=12, deadline=None, derandomize=True, database=None,
            suppress_health_check=list(HealthCheck),
        )
    )
    # The links took the runs past "no such table" into the operations on a created table
    # (which ones varies with the generated data; several always do).
    deep = {label for label, status in reached if status != 404}
    linked = {f"POST /api/v1/tables/{{table_id}}/{name}" for name in ("join", "start", "moves", "bots", "leave", "back")}
    linked |= {"GET /api/v1/tables/{table_id}/state", "GET /api/v1/tables/{table_id}", "GET /api/v1/tables/{table_id}/moves"}
    assert "POST /api/v1/tables" in deep and len(deep & linked) >= 2, sorted(reached)


def served_schema() -> dict:
    """The schema as the server serves it (schemathesis rewrites its own copy's links)."""
    from django.test import Client

    return Client().get("/api/schema/?format=json").json()


def test_the_schema_links_a_created_table_to_the_operations_on_it():
    raw = served_schema()
    created = raw["paths"]["/api/v1/tables"]["post"]["responses"]["201"]
    targets = {link["operationId"] for link in created["links"].values()}
    assert {"tables_join", "tables_start", "tables_moves_create", "tables_state"} <= targets


def test_only_json_request_bodies_are_advertised():
    raw = served_schema()
    media = {
        content_type
        for methods in raw["paths"].values()
        for operation in methods.values()
        if isinstance(operation, dict) and "requestBody" in operation
        for content_type in operation["requestBody"]["content"]
    }
    assert media == {"application/json"}


def test_the_tables_list_is_documented_as_a_page_and_wait_and_keys_have_their_bounds():
    raw = served_schema()
    listing = raw["paths"]["/api/v1/tables"]["get"]
    page = listing["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert set(raw["components"]["schemas"][page]["properties"]) == {"count", "next", "previous", "results"}
    state = {p["name"]: p["schema"] for p in raw["paths"]["/api/v1/tables/{table_id}/state"]["get"]["parameters"]}
    assert (state["wait"]["minimum"], state["wait"]["maximum"]) == (0, 30)
    key = next(p for p in raw["paths"]["/api/v1/tables"]["post"]["parameters"] if p["name"] == "Idempotency-Key")
    assert (key["schema"]["minLength"], key["schema"]["maxLength"]) == (1, 255)


@pytest.mark.parametrize(
    "operation", ["tables_start", "tables_leave", "tables_back", "lopti_votes_champion", "lopti_sessions_new"]
)
def test_every_idempotent_operation_documents_the_400_of_a_bad_key(operation):
    raw = served_schema()
    found = [op for methods in raw["paths"].values() for op in methods.values() if op.get("operationId") == operation]
    assert found and "400" in found[0]["responses"]


def test_a_body_the_server_needs_is_required_in_the_schema():
    # The CLI run found the house-rule POST's oneOf body left optional: an empty POST is 400.
    raw = served_schema()
    assert raw["paths"]["/api/v1/tables/{table_id}/house-rules"]["post"]["requestBody"]["required"] is True


def test_the_event_streams_resume_points_have_their_bounds():
    # Found by the fuzzer: a Last-Event-ID over 2^31 is 400 invalid, and the schema did not say so.
    raw = served_schema()
    params = {p["name"]: p["schema"] for p in raw["paths"]["/api/v1/tables/{table_id}/events"]["get"]["parameters"]}
    for name in ("after", "Last-Event-ID"):
        assert (params[name]["minimum"], params[name]["maximum"]) == (0, 2**31), name


def test_each_event_of_the_stream_is_documented_as_a_state():
    # Found by fuzzing as a seated player (tests/reliability/test_fuzz_roles.py): every event
    # was checked against `string`, while its `data` is the state JSON.
    raw = served_schema()
    stream = raw["paths"]["/api/v1/tables/{table_id}/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]
    assert stream["schema"] == {"$ref": "#/components/schemas/TableStreamEvent"}
    event = raw["components"]["schemas"]["TableStreamEvent"]
    assert event["type"] == "object"
    assert event["properties"]["data"]["type"] == "string"
    assert event["properties"]["data"]["contentSchema"] == {"$ref": "#/components/schemas/State"}
    assert event["properties"]["event"]["enum"] == ["state"]
