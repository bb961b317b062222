"""games.prepared: the hot paths' reads compiled once give what their querysets give, on either
database (CI runs this file on SQLite and on PostgreSQL)."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import prepared, selectors
from games.models import Seat, Table, WebhookEndpoint
from games.services import common

pytestmark = pytest.mark.django_db


def fields_of(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


@pytest.fixture
def table(table_of, make_user):
    """A started Pitch table: two players, a bot; the second player has an active webhook."""
    table_id, users = table_of("pitch", 3)
    Seat.objects.filter(table_id=table_id, index=2).update(user=None)
    host = users[0]
    assert host.api.post(f"/api/v1/tables/{table_id}/bots", {"level": "easy"}, format="json").status_code in (200, 201)
    WebhookEndpoint.objects.create(user=users[1], url="https://example.com/hook", secret="s" * 32, active=True)
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    return Table.objects.get(pk=table_id), users


def test_the_polling_read_is_the_querysets(table):
    table, _ = table
    read = selectors.table_for_state(str(table.pk))
    assert fields_of(read) == fields_of(Table.objects.get(pk=table.pk))
    orm = list(Seat.objects.filter(table_id=table.pk).select_related("user").order_by("index"))
    assert [fields_of(s) for s in read._seat_rows] == [fields_of(s) for s in orm]
    # The players came with their seats (select_related): reading them is no query.
    with CaptureQueriesContext(connection) as seen:
        users = [None if s.user is None else fields_of(s.user) for s in read._seat_rows]
    assert len(seen) == 0
    assert users == [None if s.user is None else fields_of(s.user) for s in orm]
    assert any(s.is_bot for s in read._seat_rows)
    assert selectors.table_for_state(str(uuid.uuid4())) is None


def test_the_locked_read_is_the_querysets_with_the_webhook_flag(table):
    table, users = table
    with transaction.atomic():
        locked = common.lock_table(str(table.pk), with_seats=True)
        with CaptureQueriesContext(connection) as seen:
            seats = list(locked.seats.all())
            flags = {s.user_id: s.player_has_webhooks for s in seats if s.user_id}
            names = [s.user.username for s in seats if s.user_id]
            assert all(s.table is locked for s in seats)
        assert len(seen) == 0  # all of it came with the lock's two reads
    assert fields_of(locked) == fields_of(Table.objects.get(pk=table.pk))
    assert [fields_of(s) for s in seats] == [fields_of(s) for s in Seat.objects.filter(table=table).order_by("index")]
    assert flags[users[1].pk] is True and flags[users[0].pk] is False
    assert locked._webhook_users == {users[1].pk}
    assert names == [s.user.username for s in Seat.objects.filter(table=table).order_by("index") if s.user_id]


def test_a_missing_table_is_the_contracts_404():
    from config.errors import NotFound

    with transaction.atomic(), pytest.raises(NotFound):
        common.lock_table(str(uuid.uuid4()))


def test_the_locked_read_locks_the_row():
    """The compiled SQL keeps the queryset's FOR UPDATE where the database has it."""
    if not connection.features.has_select_for_update:
        pytest.skip("SQLite locks the whole database for the transaction instead (IMMEDIATE)")
    with transaction.atomic():
        plan = prepared._Plan(Table.objects.select_for_update().filter(pk=prepared._STAND_IN), connection, Table._meta.pk)
    assert plan.sql.rstrip().endswith("FOR UPDATE")


def test_a_read_that_does_not_filter_on_its_id_is_refused():
    with pytest.raises(RuntimeError):
        prepared.Prepared(lambda table_id: Table.objects.all(), Table._meta.pk).run(str(uuid.uuid4()))
