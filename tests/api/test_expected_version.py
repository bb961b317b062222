"""api.md, optimistic concurrency: every state-changing POST on a table accepts
`expected_version` and answers 409 `stale_version` (changing nothing) unless it is the table's
version; moves checked it before, and now every operation does."""

import pytest

from games.models import Table


@pytest.fixture
def open_table(make_user):
    host = make_user()
    table = host.api.post("/api/v1/tables", {"game": "president", "seats": 4, "options": {"hands": 1}}, format="json").json()
    return host, table["id"], table["version"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, body",
    [("join", {}), ("bots", {"level": "easy"})],
)
def test_a_stale_expected_version_changes_nothing(open_table, make_user, path, body):
    host, table_id, version = open_table
    caller = host if path == "bots" else make_user()
    stale = caller.api.post(f"/api/v1/tables/{table_id}/{path}", {**body, "expected_version": version + 5}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    assert stale.json()["detail"]["version"] == version
    assert Table.objects.get(pk=table_id).version == version
    fresh = caller.api.post(f"/api/v1/tables/{table_id}/{path}", {**body, "expected_version": version}, format="json")
    assert fresh.status_code == 200 and fresh.json()["version"] > version


@pytest.mark.django_db
def test_start_leave_and_lopti_operations_check_it_too(make_user):
    users = [make_user() for _ in range(2)]
    table = users[0].api.post("/api/v1/tables", {"game": "lopti", "seats": 2, "options": {"rounds": 1}}, format="json").json()
    table_id = table["id"]
    users[1].api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    version = Table.objects.get(pk=table_id).version
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start", {"expected_version": version - 1},
                             format="json").json()["code"] == "stale_version"
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start", {"expected_version": version},
                             format="json").status_code == 200
    version = Table.objects.get(pk=table_id).version
    proposal = {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    stale = users[1].api.post(f"/api/v1/tables/{table_id}/rule-votes", {**proposal, "expected_version": version + 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    assert Table.objects.get(pk=table_id).version == version
    made = users[1].api.post(f"/api/v1/tables/{table_id}/rule-votes", {**proposal, "expected_version": version}, format="json")
    assert made.status_code == 201
    bad = users[0].api.post(f"/api/v1/tables/{table_id}/leave", {"expected_version": "soon"}, format="json")
    assert bad.status_code == 400 and "expected_version" in bad.json()["detail"]["fields"]


@pytest.mark.django_db
def test_without_expected_version_nothing_is_checked(open_table, make_user):
    _, table_id, _ = open_table
    assert make_user().api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
