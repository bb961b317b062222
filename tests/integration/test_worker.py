"""Deadlines and bots with a real Celery worker and beat (api.md: time, bots and absence)."""

import re
import signal
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import tasks
from games.engine import registry
from games.models import Move, Table
from games.services import automation, moves, tables
from tests.integration.conftest import eventually, stop_group

pytestmark = pytest.mark.integration


def new_table(make_user, *, n=4, bots=0, **fields):
    users = [make_user(staff=True)] + [make_user() for _ in range(n - 1 - bots)]
    table = tables.table_create(user=users[0], game="president", seats=n, first_dealer=3, **fields)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    for _ in range(bots):
        automation.table_add_bot(table_id=table.pk, user=users[0], level="easy")
    return table, users


def test_a_deadline_fires_and_the_timeout_move_is_applied(worker, make_user):
    worker()
    table, users = new_table(make_user, turn_timeout=1)
    tables.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    lowest = registry.get("president").timeout_move(table.state, 0)
    record = eventually(lambda: Move.objects.filter(table=table, seq=1).first())
    assert (record.by, record.seat, record.move) == ("server", 0, lowest)


def test_a_table_of_bots_plays_to_the_end(worker, make_user):
    worker()
    table, users = new_table(make_user, bots=3, turn_timeout=0, options={"hands": 1, "bot_delay": 0})
    tables.table_start(table_id=table.pk, user=users[0])
    tables.table_leave(table_id=table.pk, user=users[0])
    eventually(lambda: Table.objects.get(pk=table.pk).status == Table.Status.FINISHED, timeout=120)
    table.refresh_from_db()
    assert table.move_count == Move.objects.filter(table=table).count() > 20
    assert not Move.objects.filter(table=table, by=Move.By.PLAYER).exists()


def test_a_killed_worker_is_replaced_and_the_sweep_enforces_the_missed_deadline(worker, make_user):
    first = worker()
    table, users = new_table(make_user, turn_timeout=4)
    tables.table_start(table_id=table.pk, user=users[0])
    # The first worker has taken the deadline task (held until its ETA) when it dies, so the
    # task dies with it and only the sweep can enforce the deadline.
    eventually(lambda: any("enforce_deadline[" in line and "received" in line
                           for line in first.log_path.read_text(errors="replace").splitlines()))
    # The whole worker dies at once, its beat included.
    stop_group(first, signal.SIGKILL)
    first.wait()
    assert not Move.objects.filter(table=table).exists()
    second = worker()
    record = eventually(lambda: Move.objects.filter(table=table, seq=1).first())
    assert record.by == "server" and record.seat == 0
    # The sweep reports how many tables it moved on.
    pattern = re.compile(r"games\.tasks\.sweep\[[^]]+\] succeeded in [^:]+: [1-9]")
    eventually(lambda: pattern.search(second.log_path.read_text(errors="replace")), timeout=20)


def test_the_same_decision_never_gets_two_moves(worker, make_user):
    table, users = new_table(make_user, turn_timeout=30)
    tables.table_start(table_id=table.pk, user=users[0])
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    table.refresh_from_db()
    for _ in range(5):
        tasks.enforce_deadline.delay(str(table.pk), table.version)
    tasks.sweep.delay()
    child = worker()

    def finished_copies():
        lines = child.log_path.read_text(errors="replace").splitlines()
        return sum(1 for line in lines if "enforce_deadline[" in line and "succeeded" in line)

    # Every queued copy runs; all but one find the decision already taken.
    eventually(lambda: finished_copies() >= 5)
    records = list(Move.objects.filter(table=table).order_by("seq"))
    assert [(r.seq, r.seat, r.by) for r in records] == [(1, 0, "server")]


def test_the_worker_keeps_its_postgresql_connection_across_tasks(worker, make_user):
    """config/celery.py: a bot task (and every other) reuses the worker's connection instead of
    opening one (Celery's Django fixup would close it after every task). Counted by PostgreSQL
    itself: the sessions opened on the test database while a human plays six moves, each
    followed by a bot task."""
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL sessions (CI's PostgreSQL pass runs it)")

    def sessions() -> int:
        time.sleep(1.2)  # a backend reports its statistics at most once a second
        with connection.cursor() as cursor:
            cursor.execute("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
            return cursor.fetchone()[0]

    worker()
    table, users = new_table(make_user, bots=3, turn_timeout=0, options={"hands": 1, "bot_delay": 0})
    tables.table_start(table_id=table.pk, user=users[0])
    engine = registry.get("president")

    def humans_turn():
        table_now = Table.objects.get(pk=table.pk)
        if table_now.status != Table.Status.ACTIVE or 0 in engine.to_act(table_now.state):
            return table_now
        return None

    def human_plays() -> None:
        now = eventually(humans_turn, timeout=60)
        if now.status == Table.Status.ACTIVE:
            moves.move_submit(table_id=now.pk, user=users[0], move=engine.legal_moves(now.state, 0)[0])
        eventually(humans_turn, timeout=60)

    human_plays()  # the worker's first task opens its connection
    before = sessions()
    for _ in range(6):
        human_plays()
    opened = sessions() - before
    assert Move.objects.filter(table=table, by=Move.By.BOT).count() >= 6
    assert opened <= 2, f"{opened} sessions opened for six bot tasks"
