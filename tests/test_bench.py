"""The benchmark's own parts (`make bench`, docs/performance.md): the floor connects to the
database exactly as the project does, the load driver counts what a server answers, and the
report divides project by floor. No figure of speed is asserted anywhere."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def bench_modules(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    monkeypatch.syspath_prepend(str(ROOT / "bench" / "floor"))
    import load
    import longpoll
    import run
    from floor_api import dbconfig

    yield {"load": load, "run": run, "dbconfig": dbconfig, "longpoll": longpoll}
    for name in ("load", "run", "longpoll", "stack", "floor_api", "floor_api.dbconfig"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("pool", [None, "0", "1"])
@pytest.mark.parametrize("age", [None, "0", "60"])
def test_the_floor_opens_database_connections_as_the_project_does(bench_modules, monkeypatch, age, pool):
    from config.settings.base import database_from_env

    monkeypatch.setenv("DATABASE_URL", "postgres://bench@127.0.0.1:5999/floor")
    if pool is None:
        monkeypatch.delenv("DB_POOL", raising=False)
    else:
        monkeypatch.setenv("DB_POOL", pool)
    if age is None:
        monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    else:
        monkeypatch.setenv("DB_CONN_MAX_AGE", age)
    # When this fails, the project changed how it connects (a pool, another default): change
    # bench/floor/floor_api/dbconfig.py the same way, or the ratios measure that difference.
    assert bench_modules["dbconfig"].database_from_env() == database_from_env()


def test_the_driver_accepts_only_this_machine(bench_modules):
    parse = bench_modules["load"].parse_args
    with pytest.raises(SystemExit):
        parse(["--base", "http://example.com:80", "--scenario", "read", "--targets", "t.json"])
    args = parse(["--base", "http://127.0.0.1:8123", "--scenario", "play", "--targets", "t.json", "-c", "4"])
    assert (args.port, args.concurrency, args.wait) == (8123, 4, 30)


async def _etag_server(requests: list):
    """An HTTP server answering 200 + ETag, or 304 when If-None-Match matches; the 200 body
    chunked (so the driver reads both framings)."""

    async def handle(reader, writer):
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode().lower()
                requests.append(head)
                if 'if-none-match: "v1"' in head:
                    writer.write(b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n')
                else:
                    body = json.dumps({"version": 1}).encode()
                    writer.write(b'HTTP/1.1 200 OK\r\nETag: "v1"\r\nContent-Type: application/json\r\n'
                                 b"Transfer-Encoding: chunked\r\n\r\n"
                                 + f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


def test_the_driver_revalidates_with_the_etag_and_counts_the_answers(bench_modules, tmp_path):
    load = bench_modules["load"]
    targets = tmp_path / "targets.json"
    targets.write_text(json.dumps([{"token": "t1", "path": "/state"}, {"token": "t2", "path": "/state"}]))
    requests: list[str] = []

    async def scenario():
        server = await _etag_server(requests)
        port = server.sockets[0].getsockname()[1]
        args = load.parse_args(["--base", f"http://127.0.0.1:{port}", "--scenario", "read304", "--targets",
                                str(targets), "-c", "2", "-d", "0.5", "--warmup", "0"])
        try:
            return await load.run(args)
        finally:
            server.close()

    out = asyncio.run(scenario())
    # each client's first answer is a 200; every later request names its ETag and gets a 304
    assert out["status"]["200"] == 2
    assert out["status"]["304"] == out["requests"] - 2 > 0
    assert out["unexpected"] == {} and out["failures"] == {}
    assert all("authorization: token t" in head for head in requests)


def test_the_report_divides_project_by_floor_within_each_repetition(bench_modules):
    run = bench_modules["run"]
    cfg = run.config({"PAIRS": "read"})

    def row(target, rep, rps, p95):
        return {"pair": "read", "rep": rep, "target": target, "rps": rps, "p95_ms": p95, "unexpected": {},
                "failures": {"TimeoutError": 1} if target == "project" else {}}

    rows = [row("floor", 1, 100, 10), row("project", 1, 50, 30), row("floor", 2, 200, 10), row("project", 2, 200, 20),
            row("floor", 3, 100, 10), row("project", 3, 70, 10),
            row("floor_gthread", 1, 25, 60), row("floor_gthread", 2, 100, 40), row("floor_gthread", 3, 70, 10)]
    lines = run.report(rows, cfg).splitlines()
    assert lines[0].startswith("| pair (") and "| floor | rate ratio |" in lines[0]
    uvicorn, gthread = lines[2:]
    # against the uvicorn floor: ratios 0.5, 1.0, 0.7 (median 0.7); p95 ratios 3, 2, 1 (median
    # 2); 3 failed project requests
    assert uvicorn.startswith("| GET state (200) vs floor read | floor (uvicorn, CONN_MAX_AGE=0) |")
    assert "| 0.70× (0.50–1.00) | 2.00× (1.00–3.00) |" in uvicorn
    assert uvicorn.endswith("| 3/0 |")
    # against the gthread floor, within the same repetitions: 2.0, 2.0, 1.0; p95 0.5, 0.5, 1.0
    assert gthread.startswith("| GET state (200) vs floor read | floor (gunicorn gthread, CONN_MAX_AGE=600) |")
    assert "| 2.00× (1.00–2.00) | 0.50× (0.50–1.00) |" in gthread
    assert "| 70/s, 20.0 ms | 70/s, 40.0 ms | 3/0 |" in gthread
    # the bar for the 200 is judged against the gthread floor only
    assert run.bars(rows, cfg) == [
        "- read vs floor (gunicorn gthread, CONN_MAX_AGE=600): 2.00× against the bar of ≥ 1.2×: met"]
    for r, cpu in zip(rows, (2, 1, 2, 1, 2, 1, 4, 5, 6), strict=True):
        r["server_cpu_ms_per_request"] = cpu
    assert run.cpu_line(rows, cfg).endswith(
        "read: project 1.00, floor (uvicorn, CONN_MAX_AGE=0) 2.00, floor (gunicorn gthread, CONN_MAX_AGE=600) 5.00")


def test_a_run_measures_the_project_and_both_floors_in_a_rotated_order(bench_modules):
    run = bench_modules["run"]
    cfg = run.config({"DB_CONN_MAX_AGE": "0"})
    assert cfg["floor_labels"] == {"floor": "floor (uvicorn, CONN_MAX_AGE=0)",
                                   "floor_gthread": "floor (gunicorn gthread, CONN_MAX_AGE=600)"}
    orders = [run.plan("read304", rep, cfg["order"]) for rep in (1, 2, 3)]
    for runs in orders:
        assert sorted(r[0] for r in runs) == ["floor", "floor_gthread", "project"]
    # over three repetitions every target is measured first, second and last once
    for place in range(3):
        assert sorted(runs[place][0] for runs in orders) == ["floor", "floor_gthread", "project"]
    # each floor reads with its own tokens (its own database); only the project plays
    assert set(orders[0]) == {("floor", "read304", "floor_read", False),
                              ("floor_gthread", "read304", "floor_gthread_read", False),
                              ("project", "read304", "read", False)}
    assert ("floor_gthread", "write", "floor_gthread_write", False) in run.plan("play", 1, cfg["order"])
    assert ("project", "play", "play", True) in run.plan("play", 1, cfg["order"])
    # one floor on request; the gthread workers' threads follow the load's concurrency
    assert list(run.config({"FLOORS": "uvicorn"})["floor_labels"]) == ["floor"]
    assert [run.config({"CONC": c})["gthreads"] for c in (1, 6, 8, 64)] == [4, 6, 8, 8]
    with pytest.raises(SystemExit):
        run.config({"FLOORS": "gevent"})


def test_the_gthread_floor_keeps_its_connections(bench_modules, monkeypatch, tmp_path):
    """Its settings as Django reads them through floor_api.wsgi (the module gunicorn loads):
    persistent connections for 600 s and no pool; the uvicorn floor's asgi.py turns the pool on."""
    run = bench_modules["run"]
    assert "--worker-class gthread" in run.GUNICORN_GTHREAD and "{threads}" in run.GUNICORN_GTHREAD
    env = run.gthread_env("postgres://bench@127.0.0.1:5999/floorgthread")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    db = bench_modules["dbconfig"].database_from_env()
    assert db["CONN_MAX_AGE"] == 600 and "pool" not in db.get("OPTIONS", {})

    show = ("import json, sys, importlib; importlib.import_module(sys.argv[1]); from django.conf import settings; "
            "d = settings.DATABASES['default']; print(json.dumps([d['CONN_MAX_AGE'], 'pool' in d['OPTIONS']]))")
    base = {k: v for k, v in os.environ.items() if not k.startswith("DB_")}
    uvicorn_env = {"DATABASE_URL": env["DATABASE_URL"], "DJANGO_SETTINGS_MODULE": "floor_api.settings",
                   "DB_CONN_MAX_AGE": "0"}  # as run.py gives the uvicorn floor
    seen = {}
    for module, module_env in (("floor_api.wsgi", env), ("floor_api.asgi", uvicorn_env)):
        done = subprocess.run([sys.executable, "-c", show, module], cwd=ROOT / "bench" / "floor",
                              env={**base, **module_env}, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        seen[module] = json.loads(done.stdout)
    assert seen == {"floor_api.wsgi": [600, False], "floor_api.asgi": [0, True]}


def test_both_floors_serve_the_same_answers(bench_modules, tmp_path):
    """The floor under gunicorn gthread (run.py's command and environment) and under uvicorn,
    each on its copy of one seeded SQLite file, give byte-identical answers: the 200 with its
    ETag, the 304, a move and a stale move's 409."""
    run = bench_modules["run"]
    import stack as bench_stack

    floor = ROOT / "bench" / "floor"
    seeded = tmp_path / "seeded.sqlite3"
    tokens = tmp_path / "tokens.txt"
    seed_env = {**os.environ, "DATABASE_URL": f"sqlite:///{seeded}", "DJANGO_SETTINGS_MODULE": "floor_api.settings"}
    for cmd in (["migrate", "-v0"], ["seed", "--users", "2", "--out", str(tokens)]):
        subprocess.run([sys.executable, "manage.py", *cmd], cwd=floor, env=seed_env, check=True, capture_output=True)
    token = tokens.read_text().split()[0]
    for name in ("uvicorn", "gthread"):
        shutil.copy(seeded, tmp_path / f"{name}.sqlite3")
    envs = {"uvicorn": {"DATABASE_URL": f"sqlite:///{tmp_path / 'uvicorn.sqlite3'}",
                        "DJANGO_SETTINGS_MODULE": "floor_api.settings"},
            "gthread": run.gthread_env(f"sqlite:///{tmp_path / 'gthread.sqlite3'}")}
    apps = {"uvicorn": ("floor_api.asgi:application", "uvicorn"),
            "gthread": ("floor_api.wsgi:application", run.GUNICORN_GTHREAD.replace("{threads}", "4"))}
    stack = bench_stack.Stack()
    try:
        base = {}
        for name, (app, server) in apps.items():
            port, proc = stack.serve(name, app, floor, envs[name], server, 1)
            bench_stack.wait_http(f"http://127.0.0.1:{port}/floor/state", 60, proc, proc.logfile)
            base[name] = f"http://127.0.0.1:{port}/floor"
        run.same_bodies({name: (f"{url}/state", token) for name, url in base.items()})

        def call(name, path, body=None, etag=None):
            headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
            if etag:
                headers["If-None-Match"] = etag
            req = urllib.request.Request(f"{base[name]}/{path}", headers=headers,
                                         data=None if body is None else json.dumps(body).encode())
            try:
                with urllib.request.urlopen(req, timeout=10) as answer:
                    return answer.status, answer.headers["ETag"], answer.headers["Content-Type"], answer.read()
            except urllib.error.HTTPError as answer:
                return answer.code, answer.headers["ETag"], answer.headers["Content-Type"], answer.read()

        answers = {}
        for name in apps:
            first = call(name, "state")
            answers[name] = [first, call(name, "state", etag=first[1]),
                             call(name, "move", {"type": "pass", "expected_version": 0}),
                             call(name, "move", {"type": "pass", "expected_version": 0})]
        assert [a[0] for a in answers["gthread"]] == [200, 304, 200, 409]
        assert answers["gthread"] == answers["uvicorn"]
    finally:
        stack.close()


FLOOR_CHECK = """
from django.test import Client
token = open(TOKENS).read().split()[0]
c = Client(HTTP_AUTHORIZATION=f"Token {token}", SERVER_NAME="127.0.0.1")
assert Client(SERVER_NAME="127.0.0.1").get("/floor/state").status_code == 401
first = c.get("/floor/state")
assert first.status_code == 200 and first.json()["version"] == 0, first
size = len(first.content)
assert c.get("/floor/state", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
moved = c.post("/floor/move", {"type": "pass", "expected_version": 0}, content_type="application/json")
assert moved.status_code == 200 and moved.json()["version"] == 1 and moved["ETag"] != first["ETag"], moved
assert c.get("/floor/state", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200
stale = c.post("/floor/move", {"type": "pass", "expected_version": 0}, content_type="application/json")
assert stale.status_code == 409, stale
from floor_api.models import Move
assert Move.objects.count() == 1
print("FLOOR OK", size)
"""


def test_the_floor_answers_as_docs_performance_md_says(tmp_path):
    """The floor on a throwaway SQLite file, in a process of its own (it is another Django
    project): 401 without a token, a ~2 KB state with an ETag, 304 on If-None-Match, a move
    bumps the version and logs one row, a stale expected_version is 409."""
    floor = ROOT / "bench" / "floor"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'floor.sqlite3'}",
           "DJANGO_SETTINGS_MODULE": "floor_api.settings"}
    tokens = tmp_path / "tokens.txt"
    for cmd in (["migrate", "-v0"], ["seed", "--users", "2", "--out", str(tokens)]):
        subprocess.run([sys.executable, "manage.py", *cmd], cwd=floor, env=env, check=True, capture_output=True)
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", f"TOKENS = {str(tokens)!r}\n" + FLOOR_CHECK],
                          cwd=floor, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    size = int(done.stdout.split("FLOOR OK")[1])
    assert 1500 < size < 2600


def test_the_account_bench_gives_every_stream_one_invitation_a_round_on_tables_of_its_own(bench_modules):
    """KIND=account (`make bench-longpoll`): TABLES x ROUNDS open tables and a user per stream
    are seeded; in each round each table's host invites WAITERS users, every user exactly once,
    and no table serves two rounds (a user holds one pending invitation per table)."""
    longpoll = bench_modules["longpoll"]
    cfg = longpoll.config({"KIND": "account", "TABLES": "3", "WAITERS": "4", "ROUNDS": "2"})
    assert (cfg["kind"], cfg["invites"]) == ("account", "serial")
    args = longpoll.seed_args(cfg)
    assert args[args.index("--open") + 1] == "6" and args[args.index("--invitees") + 1] == "12"
    assert "--spectators" not in args
    seeded = {"open": [{"table": f"t{i}", "token": f"host{i}"} for i in range(6)],
              "invitees": [{"username": f"u{i}", "token": f"k{i}"} for i in range(12)]}
    used = []
    for rnd in (1, 2):
        plan = longpoll.account_plan(seeded, cfg, rnd)
        assert len(plan) == 3 and all(len(users) == 4 for _, users in plan)
        assert sorted(u["username"] for _, users in plan for u in users) == sorted(f"u{i}" for i in range(12))
        used += [table["table"] for table, _ in plan]
    assert sorted(used) == [f"t{i}" for i in range(6)]
    with pytest.raises(SystemExit):
        longpoll.account_plan(seeded, cfg, 3)
    # INVITE_RATE=4: the 12 invitations go out a quarter of a second apart, the hosts taking turns
    assert longpoll.invitation_times(cfg, 1.0) is None
    times = longpoll.invitation_times(longpoll.config({"KIND": "account", "TABLES": "3", "WAITERS": "4",
                                                       "INVITE_RATE": "4"}), 1.0)
    assert times[0] == [1.0, 1.75, 2.5, 3.25] and times[2][0] == 1.5
    assert sorted(t for host in times for t in host) == [1.0 + k / 4 for k in range(12)]
    # the table waiters' kinds seed as before
    assert "--open" not in longpoll.seed_args(longpoll.config({}))
    for bad in ({"KIND": "webhook"}, {"KIND": "account", "INVITES": "later"}, {"KIND": "account", "INVITE_RATE": "-1"}):
        with pytest.raises(SystemExit):
            longpoll.config(bad)


def _account_event(seq: int, type_: str, table: str) -> bytes:
    from games.edge.account import event

    return event({"id": seq, "type": type_, "created": "2026-12-03T00:00:00+00:00", "table": table,
                  "version": 0, "data": {"game": "president", "table": table}})


async def _stream_server(chunks: list[bytes], heads: list, status: str = "200 OK"):
    """An HTTP server answering a stream: the status line, then `chunks` as chunked framing,
    each in a write of its own, and then holding the connection open."""

    async def handle(reader, writer):
        heads.append((await reader.readuntil(b"\r\n\r\n")).decode().lower())
        writer.write(f"HTTP/1.1 {status}\r\nContent-Type: text/event-stream\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n".encode())
        for chunk in chunks:
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            await writer.drain()
            await asyncio.sleep(0.01)
        await asyncio.sleep(5)
        writer.close()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


def _stream_once(longpoll, chunks, after=3, status="200 OK", timeout=2.0):
    heads: list[str] = []
    rec = longpoll.account_record({"username": "u1"}, after, "t2")

    async def scenario():
        server = await _stream_server(chunks, heads, status)
        port = server.sockets[0].getsockname()[1]
        try:
            task = asyncio.create_task(longpoll.account_waiter(port, "k1", "t2", {"t1"}, 0.0, rec))
            await asyncio.wait([task], timeout=timeout)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        finally:
            server.close()

    asyncio.run(scenario())
    return rec, heads


def test_an_account_stream_is_answered_by_its_own_invitation(bench_modules):
    """The waiter resumes with Last-Event-ID, reads the chunked stream as it comes (events split
    across chunks, inside their data too; `: ping` comments), skips an earlier round's event
    and answers with the first `invited` event of its table."""
    longpoll = bench_modules["longpoll"]
    old, mine = _account_event(4, "invited", "t1"), _account_event(5, "invited", "t2")
    cut = mine.index(b'"table"') + 3
    chunks = [b"retry: 3000\n\n", b": ping\n\n" + old[:10], old[10:] + mine[:cut], mine[cut:]]
    rec, heads = _stream_once(longpoll, chunks)
    assert heads and heads[0].startswith("get /api/v1/stream/events http/1.1")
    assert "last-event-id: 3" in heads[0] and "authorization: token k1" in heads[0]
    assert rec["error"] is None and rec["opened"] is not None and rec["t"] is not None
    assert (rec["id"], rec["last"], rec["skipped"]) == (5, 5, 1)


@pytest.mark.parametrize("sent, status, error", [
    ((4, "your_turn", "t2"), "200 OK", "wrong event: your_turn"),
    ((4, "invited", "t9"), "200 OK", "wrong event: invited"),
    (None, "200 OK", "no event"),
    (None, "429 Too Many Requests", "HTTP 429"),
])
def test_an_account_stream_fails_on_anything_but_its_invitation(bench_modules, sent, status, error):
    chunks = [b"retry: 3000\n\n", b": ping\n\n"] + ([_account_event(*sent)] if sent else [])
    rec, _ = _stream_once(bench_modules["longpoll"], chunks, status=status, timeout=0.5)
    assert rec["error"] == error and rec["id"] is None


def test_the_seeded_open_tables_take_the_seeded_invitees(db, monkeypatch):
    """bench/seed_project.py's open tables and invitees are what an account round needs: the
    host alone at an open table, a user seated nowhere whose username the host invites, and
    that invitation is an `invited` event on the user's account stream."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import seed_project

    from accounts.models import User
    from games.models import Table
    from games.services import account_events, invitations

    try:
        table = seed_project.open_table("o0", {"bot_delay": 0})
        user = seed_project.invitee("i0")
        host = User.objects.get(username__endswith="_o0_host")
        assert Table.objects.get(pk=table["table"]).status == Table.Status.OPEN
        invitations.invitation_create(table_id=table["table"], user=host, username=user["username"])
        invitee = User.objects.get(username=user["username"])
        events = account_events.after(invitee.pk, 0)
        assert [(e["id"], e["type"], e["table"]) for e in events] == [(1, "invited", table["table"])]
    finally:
        sys.modules.pop("seed_project", None)
