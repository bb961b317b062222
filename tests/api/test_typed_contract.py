"""The operation-level typed contract (docs/api.md, "The typed contract"; config/contract.py):
one tag per operation from the declared list, each error response's `code` an enum of the codes
that operation returns, examples valid against what they illustrate."""

from __future__ import annotations

import pytest
from django.test import Client

from config.contract import ERROR_CODES


@pytest.fixture(scope="module")
def raw():
    return Client().get("/api/schema/?format=json").json()


def every_operation(raw):
    for path, methods in raw["paths"].items():
        for method, op in methods.items():
            if isinstance(op, dict) and "operationId" in op:
                yield path, method, op


def test_every_operation_has_exactly_one_declared_tag(raw):
    declared = [tag["name"] for tag in raw["tags"]]
    assert len(declared) == len(set(declared)) and all(tag.get("description") for tag in raw["tags"])
    used = set()
    for path, method, op in every_operation(raw):
        assert len(op.get("tags", [])) == 1 and op["tags"][0] in declared, (method, path, op.get("tags"))
        used.add(op["tags"][0])
    assert used == set(declared)


def error_codes(raw, op) -> dict[str, list[str]]:
    out = {}
    for status, response in op["responses"].items():
        if int(status) < 400:
            continue
        ref = response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        out[status] = raw["components"]["schemas"][ref]["properties"]["code"]["enum"]
    return out


def test_each_error_response_has_its_codes_as_an_enum_of_its_status(raw):
    assert raw["components"]["schemas"]["ErrorCode"]["enum"] == list(ERROR_CODES)
    for path, method, op in every_operation(raw):
        for status, codes in error_codes(raw, op).items():
            assert codes and all(ERROR_CODES[code] == int(status) for code in codes), (method, path, status, codes)


@pytest.mark.parametrize("method", ["post", "patch"])
def test_every_body_can_be_malformed_or_too_large(raw, method):
    for path, m, op in every_operation(raw):
        if m == method and op["tags"] != ["oauth"]:
            codes = error_codes(raw, op)
            assert "invalid" in codes["400"] and codes["413"] == ["too_large"], (method, path)


def test_every_authenticated_operation_may_answer_unavailable_and_none_documents_a_500(raw):
    for path, method, op in every_operation(raw):
        if op.get("security") == [] or op["operationId"] == "games_list":
            continue
        assert error_codes(raw, op)["503"] == ["unavailable"], (method, path)
        assert "500" not in op["responses"]


def test_a_move_documents_every_409(raw):
    codes = error_codes(raw, raw["paths"]["/api/v1/tables/{table_id}/moves"]["post"])
    assert codes["409"] == ["not_your_turn", "stale_version", "conflict", "idempotency_key_reused"]
    assert codes["400"] == ["invalid", "illegal_move"]
