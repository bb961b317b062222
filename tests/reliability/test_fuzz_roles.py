"""Schema fuzzing (docs/reliability.md) as the roles that meet a table. tests/api/test_schemathesis.py
fuzzes as one staff user on tables it creates itself (the host); here every operation is
fuzzed as a seated player, a spectator and an outsider of a started table: every generated
request that names a table names that one (a Lopti table for Lopti's operations). Same
checks, same bounded examples: zero 5xx, every response documented and matching its schema,
one error shape. `make fuzz` runs the same with more examples, and the CLI against a live
uvicorn."""

from __future__ import annotations

import os
import uuid

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from tests.api.test_schemathesis import CONFIG, MAX_TEST_WAIT
from tests.reliability.tables import build
from tests.tokens import first_party_token

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application(), config=CONFIG)

# Set by the `as_role` fixture before Hypothesis generates anything.
CURRENT: dict[str, str] = {}
LOPTI_PATHS = ("/house-rules", "/rule-votes", "/duels", "/sessions")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "3"))


@schema.hook
def map_path_parameters(context, path_parameters):
    table_id = (path_parameters or {}).get("table_id")
    try:
        uuid.UUID(str(table_id))
    except ValueError:
        return path_parameters  # a negative case (not a UUID): keep it
    lopti = any(part in context.operation.path for part in LOPTI_PATHS)
    path_parameters["table_id"] = CURRENT.get("lopti" if lopti else "president", table_id)
    return path_parameters


@schema.hook
def map_query(context, query):
    wait = (query or {}).get("wait")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 0 < wait <= 30:
        query["wait"] = min(wait, MAX_TEST_WAIT)
    return query


# Schemathesis asks an auth provider for credentials while it generates cases, which may be
# before the `as_role` fixture has made the role's user: the key is fixed, and the fixture
# gives it to whichever user holds the role in that test's database.
ROLE_TOKEN = "r" * 40


@schema.auth(refresh_interval=None)
class RoleAuth:
    def get(self, case, context):
        return ROLE_TOKEN

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


@pytest.fixture(params=["player", "spectator", "outsider"])
def as_role(request, db):

    president = build("president", "active")
    lopti = build("lopti", "active")
    # The same person holds the role at both tables (a seated player sits at both).
    user = president.users[request.param]
    if request.param == "player":
        from games.models import Seat

        Seat.objects.filter(table_id=lopti.table_id, user=lopti.users["player"]).update(user=user)
    first_party_token(user, ROLE_TOKEN)
    CURRENT.update(president=president.table_id, lopti=lopti.table_id)
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield request.param
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        CURRENT.clear()


@pytest.mark.filterwarnings("ignore")
@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms_as_each_role(case, as_role):
    response = case.call_and_validate()
    # The role's token is real in this test's database: the case was answered as that role.
    if (case.headers or {}).get("Authorization") == f"Token {ROLE_TOKEN}":
        assert response.status_code != 401, response.text[:300]
