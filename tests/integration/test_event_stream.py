"""`GET /tables/{id}/events` (api.md, Push) over a real ASGI server: uvicorn in a child process
on the test's database. Order, resume with Last-Event-ID, spectator view, the per-user cap, a
disconnect freeing everything, an idle stream holding no thread and no database connection,
and (with Redis) a wake-up published by another process."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from games.models import Table
from games.services import moves, tables
from tests.api.helpers import president_hands_deck
from tests.integration.conftest import ROOT, eventually

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
MAX_STREAMS = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """uvicorn serving config.asgi on the test database; yields its port and process."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "VAR_DIR": str(tmp_path),
        "API_THROTTLE_RATES": "off",
        "LONGPOLL_RECHECK_SECONDS": "0.2",
        "SSE_PING_SECONDS": "1",
        "SSE_MAX_STREAMS_PER_USER": str(MAX_STREAMS),
        "CELERY_TASK_ALWAYS_EAGER": "true",
        # Without the connection pool, whose idle connections would hide whether a stream
        # returns its connection after each read (the pool with its health checks: drill (c) of tests/reliability/test_fault_drills.py).
        "DB_POOL": "0",
    }
    if db["ENGINE"].endswith("sqlite3"):
        env["SQLITE_PATH"] = str(db["NAME"])
        env.pop("DATABASE_URL", None)
    else:
        env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    port = free_port()
    log = open(tmp_path / "web.log", "wb")  # noqa: SIM115 - closed below
    child = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )

    def up():
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            return conn.getresponse().status == 200
        except OSError:
            return False

    eventually(up, timeout=30)
    child.port = port
    yield child
    child.terminate()
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    log.close()


class Stream:
    """A raw SSE client: reads events (id, event, data) and comments off one connection."""

    def __init__(self, port, table_id, token=None, headers=None, query=""):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f"GET /api/v1/tables/{table_id}/events{query} HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream"]
        if token:
            lines.append(f"Authorization: Token {token}")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.headers = head.decode("latin-1").lower()
        if "transfer-encoding: chunked" not in self.headers:
            length = int(self.headers.split("content-length:")[1].split("\r\n")[0])
            self.body = self._take(length)
        self.text = ""

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            self.buffer += data
        head, self.buffer = self.buffer.split(marker, 1)
        return head

    def _take(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.buffer += self.sock.recv(65536)
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _chunk(self) -> bytes:
        size = int(self._until(b"\r\n"), 16)
        data = self._take(size)
        self._take(2)
        return data

    def next_block(self) -> str:
        """The next SSE block (up to a blank line), events and comments alike."""
        while "\n\n" not in self.text:
            self.text += self._chunk().decode()
        block, self.text = self.text.split("\n\n", 1)
        return block

    def next_event(self) -> dict:
        while True:
            block = self.next_block()
            fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":") and ": " in line)
            if "data" in fields:
                return {"id": int(fields["id"]), "event": fields["event"], "data": json.loads(fields["data"])}

    def close(self):
        self.sock.close()


def started_table(make_user):
    hands, deck = president_hands_deck()
    users = [make_user(staff=True)] + [make_user() for _ in range(3)]
    table = tables.table_create(user=users[0], game="president", seats=4, options={"hands": 1}, deck=deck, first_dealer=3)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    return table, users, hands


def version(table) -> int:
    return Table.objects.get(pk=table.pk).version


def test_stream_sends_the_state_then_every_change_in_order_and_resumes(server, make_user):
    table, users, hands = started_table(make_user)
    stream = Stream(server.port, table.pk, users[1].token)
    assert stream.status == 200 and "text/event-stream" in stream.headers
    first = stream.next_event()
    assert first["event"] == "state" and first["id"] == version(table) == first["data"]["version"]
    assert first["data"]["you"]["seat"] == 1 and first["data"]["you"]["hand"] == hands[1]
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    second = stream.next_event()
    assert second["id"] > first["id"] and second["data"]["public"]["trick"]
    moves.move_submit(table_id=table.pk, user=users[1], move={"type": "pass"})
    third = stream.next_event()
    assert third["id"] > second["id"] and third["data"]["you"]["hand"] == hands[1]
    stream.close()
    # Resume: nothing the client has is sent again; the next change comes first.
    resumed = Stream(server.port, table.pk, users[1].token, headers={"Last-Event-ID": str(third["id"])})
    moves.move_submit(table_id=table.pk, user=users[2], move={"type": "pass"})
    event = resumed.next_event()
    assert event["id"] > third["id"] and event["id"] == version(table)
    resumed.close()
    behind = Stream(server.port, table.pk, users[1].token, query=f"?after={first['id']}")
    assert behind.next_event()["id"] == version(table)
    behind.close()


def test_spectators_get_the_spectator_view_and_no_hand(server, make_user):
    table, users, hands = started_table(make_user)
    outsider = make_user()
    stream = Stream(server.port, table.pk, outsider.token)
    state = stream.next_event()["data"]
    assert state["you"] is None and state["legal_moves"] == []
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    later = json.dumps(stream.next_event()["data"])
    assert not any(f'"{card}"' in later for hand in hands for card in hand[1:])
    stream.close()


def test_pings_keep_an_idle_stream_open(server, make_user):
    table, users, _ = started_table(make_user)
    stream = Stream(server.port, table.pk, users[0].token)
    stream.next_event()
    assert stream.next_block() == ": ping"
    stream.close()


def test_errors_come_in_the_one_shape(server, make_user):
    table, users, _ = started_table(make_user)
    anonymous = Stream(server.port, table.pk)
    assert anonymous.status == 401 and json.loads(anonymous.body)["code"] == "not_authenticated"
    missing = Stream(server.port, "00000000-0000-0000-0000-000000000000", users[0].token)
    assert missing.status == 404 and json.loads(missing.body)["code"] == "not_found"
    bad = Stream(server.port, table.pk, users[0].token, query="?after=soon")
    assert bad.status == 400 and json.loads(bad.body)["detail"]["fields"] == {"after": ["0..2147483648"]}


def test_the_cap_on_open_streams_and_a_disconnect_frees_a_slot(server, make_user):
    table, users, _ = started_table(make_user)
    open_streams = [Stream(server.port, table.pk, users[0].token) for _ in range(MAX_STREAMS)]
    for stream in open_streams:
        stream.next_event()
    over = Stream(server.port, table.pk, users[0].token)
    assert over.status == 429 and json.loads(over.body)["code"] == "throttled" and "retry-after:" in over.headers
    # Another user is not affected.
    other = Stream(server.port, table.pk, users[1].token)
    assert other.status == 200
    other.close()
    open_streams.pop().close()

    def reopened():
        stream = Stream(server.port, table.pk, users[0].token)
        if stream.status == 200:
            return stream
        return None

    eventually(reopened, timeout=10).close()
    for stream in open_streams:
        stream.close()


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no thread count")


def _database_connections(pid: int) -> int:
    """Open database connections of the server: sockets to PostgreSQL, or handles on the
    SQLite file."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        name = str(db["NAME"])
        return sum(1 for fd in Path(f"/proc/{pid}/fd").iterdir() if os.readlink(fd).startswith(name))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def test_idle_streams_hold_no_thread_and_no_database_connection(server, make_user, settings):
    table, users, hands = started_table(make_user)
    viewers = [make_user() for _ in range(12)]
    one = Stream(server.port, table.pk, viewers[0].token)
    one.next_event()
    time.sleep(1)
    threads_with_one = _threads(server.pid)
    streams = [one] + [Stream(server.port, table.pk, v.token) for v in viewers[1:] for _ in range(MAX_STREAMS - 1)]
    for stream in streams[1:]:
        stream.next_event()
    time.sleep(1)
    # Forty-odd open streams cost no thread more than one (the shared pool is bounded and
    # made before), and while idle no connection to the database. The margin is for threads a
    # server starts once, lazily (a pool's second worker, the access log's writer): a thread per
    # stream would be thirty and more.
    assert len(streams) > 30
    assert _threads(server.pid) <= threads_with_one + 4
    assert eventually(lambda: _database_connections(server.pid) == 0, timeout=10)
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    assert all(stream.next_event()["data"]["public"]["trick"] for stream in streams)
    for stream in streams:
        stream.close()


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="cross-process wake-ups use Redis pub/sub (CI's second pass)")
def test_a_change_committed_by_another_process_reaches_the_stream_through_redis(server, make_user):
    table, users, hands = started_table(make_user)
    stream = Stream(server.port, table.pk, users[1].token)
    first = stream.next_event()
    # The server's listener re-reads every waited table once when it connects to Redis: two
    # pings (a second each) let it connect first, so only a published message can wake the
    # stream below, not that catch-up read.
    assert [stream.next_block() for _ in range(2)] == [": ping", ": ping"]
    # This test process is the other process: its commit publishes on Redis.
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    # Pings come every second: an event missing for five of them is one the server never heard of.
    blocks = []
    while len(blocks) < 5 and (block := stream.next_block()) == ": ping":
        blocks.append(block)
    assert block.startswith("id: ") and int(block.split("\n")[0][4:]) > first["id"], blocks
    stream.close()
