"""Production logs: JSON lines carrying the id of the request they belong to."""

import json
import logging

import pytest

from config.logs import JsonFormatter, RequestIdFilter, request_id_var


@pytest.mark.django_db
def test_every_response_carries_a_request_id_and_echoes_a_safe_one(anon):
    made = anon.get("/api/v1/games")["X-Request-ID"]
    assert len(made) == 32
    assert anon.get("/api/v1/games", HTTP_X_REQUEST_ID="client-42")["X-Request-ID"] == "client-42"
    # An unsafe id (it would end up in log lines) is replaced.
    assert anon.get("/api/v1/games", HTTP_X_REQUEST_ID="bad id\n{}")["X-Request-ID"] != "bad id\n{}"


def test_log_lines_are_json_with_the_request_id():
    record = logging.LogRecord("games", logging.WARNING, __file__, 1, "table %s stuck", ("t1",), None)
    token = request_id_var.set("req-7")
    try:
        RequestIdFilter().filter(record)
    finally:
        request_id_var.reset(token)
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == "req-7" and line["message"] == "table t1 stuck" and line["level"] == "WARNING"
