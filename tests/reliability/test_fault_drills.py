"""Issue 17.4: fault drills with real components, on PostgreSQL and Redis (CI's second pass).

(d) A web process killed (SIGKILL) while it serves a move sent with an `Idempotency-Key`: the
client retries the same request on the other process and the move is applied exactly once,
whether the kill came before the move committed or after. The kill lands at a different point
of the request in each round (from right after the request is sent to well after).

(a) A Celery worker killed (SIGKILL, with its beat) while it holds a bot move (the task waits
for its `bot_delay` in the worker): a new worker's sweep makes the move, exactly once. The same
drill for a held deadline is tests/integration/test_worker.py's
`test_a_killed_worker_is_replaced_and_the_sweep_enforces_the_missed_deadline`.

(c) PostgreSQL connections cut: while human clients play through two web processes and two
workers, every session of the app processes on the test database is terminated
(`pg_terminate_backend`, all but the test's own) every half second for CUT_SECONDS. Requests
cut that way may fail (a 5xx, in the error shape: a body that is not JSON fails the drill); the
clients retry with the same Idempotency-Key; afterwards no move is half-applied (contiguous
`seq`, one entry per version) and `verify_tables` is clean.

Drill (b) (Redis stopped for 20 s) is not written yet: docs/reliability.md lists it as a gap."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

import pytest
from django.db import connection

from games.models import Move, Table
from tests.integration.conftest import ROOT, eventually, stop_group
from tests.integration.test_multiprocess import call, free_port, human_table

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="fault drills need PostgreSQL (DATABASE_URL=postgres://...) and Redis (REDIS_URL): CI's second pass",
    ),
]


def start_web(tmp_path, name: str) -> tuple[subprocess.Popen, str]:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "API_THROTTLE_RATES": "off",
        "VAR_DIR": str(tmp_path),
    }
    port = free_port()
    log = open(tmp_path / f"web-{name}.log", "wb")  # noqa: SIM115 - closed with the process
    web = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/api/v1"

    def up():
        try:
            return urllib.request.urlopen(base.replace("/api/v1", "/healthz"), timeout=2).status == 200
        except OSError:
            return False

    eventually(up, timeout=60)
    return web, base


@pytest.fixture
def webs(transactional_db, tmp_path):
    started: list[subprocess.Popen] = []

    def start(name: str) -> str:
        web, base = start_web(tmp_path, name)
        started.append(web)
        return base, web

    yield start
    for web in started:
        if web.poll() is None:
            web.terminate()
            web.wait(timeout=15)


def test_a_a_worker_killed_holding_a_bot_move_is_replaced_and_the_move_is_made_once(worker, make_user):
    from games.services import automation, tables

    first = worker()
    host, second_human, third_human = make_user(staff=True), make_user(), make_user()
    # P-4.1: with the first dealer at seat 0, seat 1 (the bot) leads; seats 2 and 3 are humans
    # with no time limit, so the table stops after the bot's move.
    table = tables.table_create(user=host, game="president", seats=4, first_dealer=0, turn_timeout=0,
                                options={"hands": 1, "bot_delay": 3})
    automation.table_add_bot(table_id=table.pk, user=host, level="easy", seat=1)
    tables.table_join(table_id=table.pk, user=second_human, seat=2)
    tables.table_join(table_id=table.pk, user=third_human, seat=3)
    tables.table_start(table_id=table.pk, user=host)
    eventually(lambda: any("bot_move[" in line and "received" in line
                           for line in first.log_path.read_text(errors="replace").splitlines()))
    stop_group(first, signal.SIGKILL)
    first.wait()
    assert not Move.objects.filter(table=table).exists(), "the bot move died with the worker"
    worker()
    record = eventually(lambda: Move.objects.filter(table=table, seq=1).first())
    assert (record.seat, record.by) == (1, Move.By.BOT)
    # The next decision is a human's, with no time limit: nothing else may be applied, so the
    # log stays at exactly this one move (checked once the sweep has run again).
    table.refresh_from_db()
    assert not table.bot_pending
    assert list(Move.objects.filter(table=table).values_list("seq", "seat", "by")) == [(1, 1, Move.By.BOT)]


KILL_DELAYS = [0.0, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.3]


def test_d_a_web_process_killed_mid_request_the_retry_elsewhere_applies_once(webs, make_user):
    survivor, _ = webs("survivor")
    table, users = human_table(make_user)
    by_id = {u.pk: u for u in users}
    outcomes = []
    for round_, delay in enumerate(KILL_DELAYS):
        victim, victim_process = webs(f"victim-{round_}")
        summary = call(survivor, "GET", f"/tables/{table.pk}", users[0].token)[1]
        mover = None
        for seat in summary["seats"]:
            user = by_id[seat["player"]["id"]]
            state = call(survivor, "GET", f"/tables/{table.pk}/state", user.token)[1]
            if state["legal_moves"]:
                mover = user
                break
        assert mover is not None, "a human is always on turn at this table"
        body = {**state["legal_moves"][0], "expected_version": state["version"]}
        key = {"Idempotency-Key": uuid.uuid4().hex}
        moves_before = max(Move.objects.filter(table=table).values_list("seq", flat=True), default=0)
        version_before = state["version"]
        sent: list = []
        request = threading.Thread(
            target=_send, args=(sent, victim, f"/tables/{table.pk}/moves", mover.token, body, key)
        )
        request.start()
        time.sleep(delay)
        os.kill(victim_process.pid, signal.SIGKILL)
        victim_process.wait(timeout=15)
        request.join(timeout=60)
        # The client saw a dropped connection (or, when the kill came late, the answer).
        retry = call(survivor, "POST", f"/tables/{table.pk}/moves", mover.token, body, key)
        again = call(survivor, "POST", f"/tables/{table.pk}/moves", mover.token, body, key)
        assert retry[0] == 200, (delay, retry)
        assert again == retry, "a second retry replays the first answer"
        player_moves = Move.objects.filter(table=table, seq__gt=moves_before, by=Move.By.PLAYER).count()
        assert player_moves == 1, (delay, player_moves)
        table.refresh_from_db()
        assert table.version > version_before
        outcomes.append("answered before the kill" if sent and sent[0][0] == 200 else "cut")
    # The rounds covered both sides of the commit (or at least the cut side).
    assert "cut" in outcomes, outcomes
    from django.core.management import call_command

    call_command("verify_tables")
    assert Table.objects.get(pk=table.pk).status in ("active", "finished")


def _send(out: list, base, path, token, body, headers) -> None:
    try:
        out.append(call(base, "POST", path, token, body, headers))
    except OSError as exc:  # the connection died with the process
        out.append((None, repr(exc)))


CUT_SECONDS = 15


def test_c_postgresql_connections_cut_mid_load_fail_cleanly_and_retries_succeed(cluster, make_user):
    import io

    from django.core.management import call_command

    from tests.reliability.test_soak import Stats, human_client

    # Every table is made before the cuts, in this thread: the cutter spares only this
    # thread's session.
    pool = [human_table(make_user) for _ in range(6)]
    lock = threading.Lock()

    def make_table():
        with lock:
            if not pool:
                raise LookupError("no more tables")
            return pool.pop()

    every = [t.pk for t, _ in pool]
    stats = Stats()
    until = time.monotonic() + CUT_SECONDS
    clients = [threading.Thread(target=human_client, args=(stats, cluster, make_table, i, until)) for i in range(3)]
    for thread in clients:
        thread.start()
    cuts = 0
    with connection.cursor() as cursor:
        while time.monotonic() < until:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            cuts += cursor.fetchone()[0]
            time.sleep(0.5)
    for thread in clients:
        thread.join(timeout=120)
    # A client only stops early when the pool of tables ran out.
    assert all(e == repr(LookupError("no more tables")) for e in stats.errors), stats.errors
    print("pg cuts:", cuts, "statuses:", dict(sorted(stats.statuses.items())))
    assert cuts > 0
    assert sum(n for status, n in stats.statuses.items() if status == 200) > 0, stats.statuses
    for table_id in every:
        rows = list(Move.objects.filter(table_id=table_id).order_by("seq").values_list("seq", "version"))
        assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1)), table_id
        versions = [v for _, v in rows]
        assert versions == sorted(set(versions)), table_id
    out = io.StringIO()
    call_command("verify_tables", stdout=out)
    assert "0 differ(s)" in out.getvalue(), out.getvalue()[-2000:]
    # After the cuts, every process answers again.
    for base in cluster:
        table, users = human_table(make_user)
        assert call(base, "GET", f"/tables/{table.pk}/state", users[0].token)[0] == 200
