"""Fault drills (docs/reliability.md) with real components, on PostgreSQL and Redis (CI's second pass).

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

(b) Redis stopped for 20 s: a redis-server of the drill's own on a free port (never the
machine's) is the broker, the cache (throttling on) and the wake-up channel of two web
processes and two workers. Human clients play and long-poll (`?wait=`) throughout, bot tables
play through the workers, and a probe measures how fast a long-poll on one process sees a move
made through the other. Redis is killed (without persistence: what it held is lost), a table
is created and started while it is down, and it comes back empty on the same port after
DOWN_SECONDS. Moves keep applying (the database is the truth), no request is a 5xx, the
long-polls fall back to re-checking, every move answered 200 is in the log; once Redis is
back the workers are still alive, bots move again and every overdue deadline is enforced,
`verify_tables` is clean and every log has contiguous `seq`."""

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

from games.management.commands.serve import stop
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


def start_web(tmp_path, name: str, **extra_env: str) -> tuple[subprocess.Popen, str]:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "API_THROTTLE_RATES": "off",
        "VAR_DIR": str(tmp_path),
        **extra_env,
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

    def start(name: str, **extra_env: str) -> str:
        web, base = start_web(tmp_path, name, **extra_env)
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

    from tests.reliability.test_soak import Stats, assert_logs_whole, human_client, pool_of

    # Every table is made before the cuts, in this thread: the cutter spares only this
    # thread's session.
    pool = [human_table(make_user) for _ in range(6)]
    every = [t.pk for t, _ in pool]
    make_table = pool_of(pool)
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
    assert_logs_whole(every)
    out = io.StringIO()
    call_command("verify_tables", stdout=out)
    assert "0 differ(s)" in out.getvalue(), out.getvalue()[-2000:]
    # After the cuts, every process answers again.
    for base in cluster:
        table, users = human_table(make_user)
        assert call(base, "GET", f"/tables/{table.pk}/state", users[0].token)[0] == 200


class PrivateRedis:
    """A redis-server of the drill's own on a free port (never the machine's Redis), without
    persistence: `stop()` kills it and everything it held (queued tasks, unacked messages) is
    gone; `start()` brings an empty one back on the same port."""

    def __init__(self, tmp_path):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.dir = tmp_path / "redis"
        self.dir.mkdir()
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir)],
            stdout=log, stderr=subprocess.STDOUT,
        )
        eventually(self.answers, timeout=20)

    def answers(self) -> bool:
        import socket

        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=15)


@pytest.fixture
def private_redis(tmp_path, monkeypatch):
    """The drill's Redis, in the environment the web processes and workers are started with
    (request it before `worker` and `webs`)."""
    import shutil

    if shutil.which("redis-server") is None:
        pytest.skip("drill (b) starts its own redis-server, which is not installed")
    server = PrivateRedis(tmp_path)
    server.start()
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        monkeypatch.setenv(name, server.url)
    yield server
    server.stop()


def api_table(base, host, *, game: str, seats: int, options: dict, bots: list[str], turn_timeout: int, leave: bool) -> str:
    """A table made through a web process (so its follow-up work is queued on the drill's
    Redis): the host, `bots`, started; the host leaves when `leave` (a bot plays the seat)."""
    status, table = call(base, "POST", "/tables", host.token,
                         {"game": game, "seats": seats, "options": options, "turn_timeout": turn_timeout})
    assert status == 201, table
    for level in bots:
        status, body = call(base, "POST", f"/tables/{table['id']}/bots", host.token, {"level": level})
        assert status == 200, body
    status, body = call(base, "POST", f"/tables/{table['id']}/start", host.token, {})
    assert status == 200, body
    if leave:
        status, body = call(base, "POST", f"/tables/{table['id']}/leave", host.token, {})
        assert status == 200, body
    return table["id"]


def wake_latency(bases, table, users) -> tuple[float, float]:
    """One long-poll probe: a `?wait=10` long-poll on the second process, then a move through the
    first. Returns (seconds from sending the move to the long-poll's answer, seconds the move
    request took)."""
    mover, state = None, None
    for user in users:
        status, state = call(bases[0], "GET", f"/tables/{table.pk}/state", user.token)
        assert status == 200, state
        if state["legal_moves"]:
            mover = user
            break
    assert mover is not None, "a human is always on turn at the probe table"
    answered: list = []

    def poll():
        status, body = call(bases[1], "GET", f"/tables/{table.pk}/state?wait=10", users[0].token, None,
                            {"If-None-Match": f'"v{state["version"]}"'})
        answered.append((status, time.monotonic()))

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.5)  # the long-poll is waiting
    body = {**state["legal_moves"][0], "expected_version": state["version"]}
    sent = time.monotonic()
    status, answer = call(bases[0], "POST", f"/tables/{table.pk}/moves", mover.token, body,
                          {"Idempotency-Key": uuid.uuid4().hex})
    took = time.monotonic() - sent
    assert status == 200, answer
    poller.join(timeout=20)
    assert answered and answered[0][0] == 200, answered
    return answered[0][1] - sent, took


DOWN_SECONDS = 20


def test_b_redis_stopped_for_20_seconds_moves_apply_long_polls_recheck_and_all_recovers(
    private_redis, worker, webs, make_user
):
    import io
    from datetime import timedelta

    from django.core.management import CommandError, call_command
    from django.utils import timezone

    from tests.reliability.test_soak import Stats, assert_logs_whole, human_client, pool_of

    class PhasedStats(Stats):
        def __init__(self):
            super().__init__()
            self.phase = "before"
            self.by_phase: dict[str, dict[int, int]] = {}

        def record(self, status):
            super().record(status)
            with self.lock:
                counts = self.by_phase.setdefault(self.phase, {})
                counts[status] = counts.get(status, 0) + 1

    # Throttling on (api.md's rates, as in production): its counters live in the Redis cache.
    throttled = {"API_THROTTLE_RATES": "anon=120/min,user=3000/min,moves=600/min"}
    bases = [webs("a", **throttled)[0], webs("b", **throttled)[0]]
    workers = [worker(), worker()]
    pool = [human_table(make_user) for _ in range(6)]
    probe_table, probe_users = human_table(make_user)
    host = make_user()
    # Bot tables that play through the workers for the whole drill, and a table whose seated
    # human never moves: its 2 s deadlines must be enforced (twice, then a bot plays the seat).
    bot_tables = [
        api_table(bases[0], host, game="president", seats=4, options={"hands": 5, "bot_delay": 0.2},
                  bots=["easy", "random", "easy"], turn_timeout=0, leave=True),
        api_table(bases[1], host, game="pitch", seats=3, options={"bot_delay": 0.2},
                  bots=["easy", "random"], turn_timeout=0, leave=True),
    ]
    deadline_tables = [api_table(bases[0], make_user(), game="president", seats=4, options={"hands": 1, "bot_delay": 0.2},
                                 bots=["easy", "easy", "easy"], turn_timeout=2, leave=False)]
    every = [t.pk for t, _ in pool] + [probe_table.pk]
    make_table = pool_of(pool)
    stats = PhasedStats()
    accepted: list = []
    before, down, after = 8.0, float(DOWN_SECONDS), 12.0
    until = time.monotonic() + before + down + after
    clients = [threading.Thread(target=human_client, args=(stats, bases, make_table, i, until, accepted))
               for i in range(3)]
    for thread in clients:
        thread.start()

    def bot_moves() -> int:
        return Move.objects.filter(table_id__in=bot_tables, by=Move.By.BOT).count()

    figures: dict[str, dict] = {}

    def phase_probes(name: str, seconds: float) -> None:
        end = time.monotonic() + seconds
        wakes, moves = [], []
        while time.monotonic() < end - 2:
            wake, took = wake_latency(bases, probe_table, probe_users)
            wakes.append(wake)
            moves.append(took)
            time.sleep(0.5)
        time.sleep(max(0.0, end - time.monotonic()))
        figures[name] = {"long-poll wake s (max)": round(max(wakes), 2), "move request s (max)": round(max(moves), 2),
                         "probes": len(wakes)}

    phase_probes("before", before)
    moved_before = bot_moves()
    stats.phase = "down"
    private_redis.stop()
    down_started = time.monotonic()
    # A table made and started while Redis is down: its deadline tasks cannot be queued.
    deadline_tables.append(api_table(bases[1], make_user(), game="president", seats=4,
                                     options={"hands": 1, "bot_delay": 0.2}, bots=["easy", "easy", "easy"],
                                     turn_timeout=2, leave=False))
    phase_probes("down", down - (time.monotonic() - down_started))
    moved_down = bot_moves()
    stats.phase = "after"
    private_redis.start()
    restarted = time.monotonic()
    figures["down"]["bot moves"] = moved_down - moved_before
    # Bots move again once the workers are back on the broker.
    eventually(lambda: bot_moves() > moved_down, timeout=45)
    figures["after"] = {"bots moving again after s": round(time.monotonic() - restarted, 1)}
    every += bot_tables + deadline_tables

    def no_stale_deadline():
        stale = timezone.now() - timedelta(seconds=2)
        return not Table.objects.filter(pk__in=every, status=Table.Status.ACTIVE, deadline__lte=stale).exists()

    # Every deadline that fell due during the outage is enforced (by the sweep or a read).
    eventually(no_stale_deadline, timeout=30)
    figures["after"]["no deadline overdue by 2 s after s"] = round(time.monotonic() - restarted, 1)
    for thread in clients:
        thread.join(timeout=120)
    assert all(e == repr(LookupError("no more tables")) for e in stats.errors), stats.errors
    assert no_stale_deadline()
    # The workers lived through the outage (Celery 5.7's worker died on it: config/redis_broker.py).
    assert [w.poll() for w in workers] == [None, None], [w.log_path.read_text(errors="replace")[-3000:] for w in workers]
    # The bot tables are still being played: stop the workers, so that the checks below read
    # tables nobody is changing.
    stop(workers)
    print("redis drill:", figures, "statuses by phase:", stats.by_phase)
    # No 5xx storm: not a single 5xx or dropped connection, before, during or after.
    for name, counts in stats.by_phase.items():
        assert not [s for s in counts if s >= 500 or s == 0], (name, counts)
    assert stats.by_phase.get("down", {}).get(200, 0) > 0, stats.by_phase
    # Nothing lost: every move answered 200 is in the log at the version it reported.
    logged = set(Move.objects.filter(table_id__in=every).values_list("table_id", "version"))
    assert accepted and {(str(t), v) for t, v in accepted} <= {(str(t), v) for t, v in logged}
    assert_logs_whole(every)
    # The deadlines were enforced by the server (the humans of those tables never moved).
    for table_id in deadline_tables:
        assert Move.objects.filter(table_id=table_id, by=Move.By.SERVER).exists(), table_id
    out = io.StringIO()
    try:
        call_command("verify_tables", stdout=out)
    except CommandError:
        pass
    assert "0 differ(s)" in out.getvalue(), out.getvalue()[-2000:]
