"""One access-log line per request, whichever door served it (config.logs.access, written by the
edge), as JSON in production: request id, method, path, route, status, duration and the
authenticated user's id; never a query string, a token or a body."""

from __future__ import annotations

import json
import logging

import pytest

from config import logs
from config.asgi import application
from tests.edge.test_paired import REQUEST_ID, auth, call
from tests.edge.test_paired import table as table  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db(transaction=True)


def lines(caplog) -> list[dict]:
    assert logs.access_drained()
    formatter = logs.JsonFormatter()
    return [json.loads(formatter.format(r)) for r in caplog.records if r.name == "cardgames.access"]


def test_one_line_per_request_with_its_route_status_and_user(table, caplog):  # noqa: F811
    table_id, users, _ = table
    with caplog.at_level(logging.INFO):
        edge = call(application, "GET", f"/api/v1/tables/{table_id}/state", headers=auth(users[1]), query="wait=0")
        django = call(application, "GET", "/api/v1/me", headers=auth(users[2]))
        refused = call(application, "GET", f"/api/v1/tables/{table_id}/state", headers={"authorization": "Token nope"})
        unknown = call(application, "GET", "/api/v1/nothing-here/7")
        unsafe = call(application, "GET", "/api/v1/me", headers={**auth(users[2]), "x-request-id": "<script>x</script>"})
    assert [a[0] for a in (edge, django, refused, unknown, unsafe)] == [200, 200, 401, 404, 200]
    found = lines(caplog)
    assert len(found) == 5
    state, me, bad, missing, replaced = found
    assert state["route"] == "GET /api/v1/tables/{id}/state" and state["status"] == 200
    assert state["user_id"] == users[1].pk and state["request_id"] == REQUEST_ID
    assert state["path"] == f"/api/v1/tables/{table_id}/state" and "wait" not in json.dumps(state)
    assert me["route"] == "GET /api/v1/me" and me["user_id"] == users[2].pk
    assert bad["status"] == 401 and bad["user_id"] is None and "nope" not in json.dumps(bad)
    assert missing["route"] == "GET (unmatched)" and missing["status"] == 404
    # The one request-id rule: the unsafe id is replaced, and the line has the id the client got.
    assert replaced["request_id"] == dict(unsafe[1])["x-request-id"] != "<script>x</script>"
    assert all(line["duration_ms"] > 0 and line["method"] == "GET" for line in found)
    assert all(line["message"] == f"GET {line['path']} {line['status']}" for line in found)


def test_a_waiting_poll_is_its_own_route(table, caplog):  # noqa: F811
    table_id, users, _ = table
    tag = users[1].api.get(f"/api/v1/tables/{table_id}/state")["ETag"]
    with caplog.at_level(logging.INFO):
        answer = call(application, "GET", f"/api/v1/tables/{table_id}/state",
                      headers={**auth(users[1]), "if-none-match": tag}, query="wait=0.1")
    assert answer[0] == 304
    (line,) = lines(caplog)
    assert line["route"] == "GET /api/v1/tables/{id}/state?wait" and line["status"] == 304
