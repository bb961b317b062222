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


def test_every_request_is_counted_by_route_and_open_waiters_are_gauged(table):  # noqa: F811
    """The request metrics of config.metrics, recorded by the edge for either door, and the
    gauge of waiters while a long-poll waits."""
    import asyncio

    from config import metrics
    from tests.edge.test_state import run

    table_id, users, _ = table

    def count(route: str, status: int) -> float:
        registry = metrics._registry()
        value = registry.get_sample_value("cardgames_http_requests_total",
                                          {"route": route, "method": "GET", "status": str(status)})
        return value or 0.0

    state_route, me_route = "GET /api/v1/tables/{id}/state", "GET /api/v1/me"
    before = count(state_route, 200), count(me_route, 200)
    call(application, "GET", f"/api/v1/tables/{table_id}/state", headers=auth(users[1]))
    call(application, "GET", "/api/v1/me", headers=auth(users[1]))
    assert (count(state_route, 200), count(me_route, 200)) == (before[0] + 1, before[1] + 1)

    tag = users[1].api.get(f"/api/v1/tables/{table_id}/state")["ETag"]

    def waiters() -> float:
        return metrics._registry().get_sample_value("cardgames_http_open_waiters", {"kind": "longpoll"}) or 0.0

    async def waiting_gauge():
        idle = waiters()
        task = asyncio.ensure_future(asyncio.to_thread(
            call, application, "GET", f"/api/v1/tables/{table_id}/state",
            headers={**auth(users[1]), "if-none-match": tag}, query="wait=1"))
        for _ in range(200):
            await asyncio.sleep(0.01)
            if waiters() == idle + 1:
                break
        during = waiters()
        answer = await task
        return idle, during, answer, waiters()

    idle, during, answer, after = run(waiting_gauge)
    assert during == idle + 1 and after == idle and answer[0] == 304
