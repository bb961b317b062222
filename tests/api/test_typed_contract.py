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


# --- validation against the document ----------------------------------------------------------
def validator_for(raw, schema):
    """A JSON Schema 2020-12 validator of `schema`, its `$ref`s resolved in the document."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    registry = Registry().with_resource("urn:openapi", Resource.from_contents(raw, default_specification=DRAFT202012))
    return Draft202012Validator(schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


def in_document(schema):
    """`schema` with its local refs (`#/components/...`) pointed at the document."""
    import json

    return json.loads(json.dumps(schema).replace('"#/components/', '"urn:openapi#/components/'))


def check(raw, schema, value, where):
    errors = sorted(validator_for(raw, in_document(schema)).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, f"{where}: " + "; ".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5])


@pytest.mark.django_db
def test_real_webhook_deliveries_match_their_webhook_entries(raw, make_user, monkeypatch):
    """Deliveries made by the service code (a President table started, played, timed out, then
    finished): each body, and the headers of a try, validate against its event's entry."""
    import json
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Table, WebhookDelivery
    from games.services import automation, moves, tables, webhooks
    from tests.api.helpers import president_hands_deck

    hands, deck = president_hands_deck()
    users = [make_user(staff=True)] + [make_user() for _ in range(3)]
    for user in users:
        webhooks.WebhookEndpoint.objects.create(user=user, url="https://example.com/hook", events=list(webhooks.EVENTS),
                                                secret="s" * 32)
    table = tables.table_create(user=users[0], game="president", seats=4, options={"hands": 1}, deck=deck,
                                first_dealer=3, turn_timeout=40)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    version = Table.objects.get(pk=table.pk).version
    webhooks.record_timeout_warning(table_id=table.pk, version=version)
    for _ in range(12):  # deadlines until a seat is away, then to the end (bots play the away seats)
        if Table.objects.get(pk=table.pk).status == Table.Status.FINISHED:
            break
        Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        automation.table_enforce_deadline(table_id=table.pk)
    tables.table_abort(table_id=table.pk)

    bodies = [json.loads(d.body) for d in WebhookDelivery.objects.all()]
    assert {b["type"] for b in bodies} == set(webhooks.EVENTS), sorted({b["type"] for b in bodies})
    for body in bodies:
        entry = raw["webhooks"][body["type"]]["post"]
        check(raw, entry["requestBody"]["content"]["application/json"]["schema"], body, body["type"])

    sent = {}
    monkeypatch.setattr(webhooks, "_send", lambda url, headers, body: sent.update(headers) or (200, "ok"))
    monkeypatch.setattr(webhooks, "resolve", lambda host, port: ["93.184.215.14"])
    delivery = WebhookDelivery.objects.first()
    webhooks.delivery_attempt(delivery_id=delivery.pk)
    for parameter in raw["webhooks"][delivery.event]["post"]["parameters"]:
        check(raw, parameter["schema"], sent[parameter["name"]], parameter["name"])


def test_every_operation_has_an_example_and_every_example_is_valid(raw):
    """Request bodies and success responses carry an example (an operation with neither, a
    204 DELETE, its path parameters'); each one validates against the schema it illustrates
    (JSON Schema 2020-12, the document's $refs resolved)."""
    checked = 0
    for path, method, op in every_operation(raw):
        where = f"{method.upper()} {path}"
        found = False
        if "requestBody" in op:
            for media in op["requestBody"]["content"].values():
                assert media.get("examples"), f"{where}: no request example"
                for example in media["examples"].values():
                    check(raw, media["schema"], example["value"], where + " request")
                    checked += 1
                    found = True
        success = [(status, r) for status, r in op["responses"].items() if status.startswith("2")]
        for status, response in success:
            for media in response.get("content", {}).values():
                for example in media.get("examples", {}).values():
                    check(raw, media["schema"], example["value"], f"{where} {status}")
                    checked += 1
                    found = True
        if any(r.get("content") for _, r in success):
            assert any(media.get("examples") for _, r in success for media in r.get("content", {}).values()), \
                f"{where}: no response example"
        for parameter in op.get("parameters", []):
            if "example" in parameter:
                check(raw, parameter["schema"], parameter["example"], f"{where} {parameter['name']}")
                found = True
        assert found, f"{where}: no example"
    assert checked > 40
