"""`GET /api/v1/stream/events` (docs/api.md, "Account stream") over a real ASGI server: uvicorn in
a child process on the test's database (tests/integration/test_event_stream.py's fixture). The
test process is "another process": its changes reach the server's waiting room by Redis (CI's
second pass) or by the room's re-check (LONGPOLL_RECHECK_SECONDS, 0.2 s here) without it."""

from __future__ import annotations

import json
import socket

import pytest

from games.engine import registry
from games.models import Table
from games.services import moves, tables
from tests.integration.test_event_stream import Stream, server  # noqa: F401, F811 - the fixture

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
ENGINE = registry.get("president")


class AccountStream(Stream):
    """The table streams' raw SSE client, at the account stream's path."""

    def __init__(self, port, token, headers=None, query=""):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        lines = [f"GET /api/v1/stream/events{query} HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream",
                 f"Authorization: Token {token}", *[f"{k}: {v}" for k, v in (headers or {}).items()]]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])
        self.headers = head.decode("latin-1").lower()
        if "transfer-encoding: chunked" not in self.headers:
            length = int(self.headers.split("content-length:")[1].split("\r\n")[0])
            self.body = self._take(length)
        self.text = ""


def four(make_user):
    users = [make_user() for _ in range(4)]
    table = tables.table_create(user=users[0], game="president", seats=4, options={"hands": 1})
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    return table, users


def play_first(table_id, users):
    table = Table.objects.get(pk=table_id)
    seat = ENGINE.to_act(table.state)[0]
    by_index = {row.index: row.user_id for row in table.seats.all()}
    mover = next(u for u in users if u.pk == by_index[ENGINE.seat_players(table.state)[seat]])
    moves.move_submit(table_id=table_id, user=mover, move=ENGINE.legal_moves(table.state, seat)[0])
    return seat


def test_a_stream_hears_its_players_events_as_they_commit_and_a_resume_gets_what_it_missed(server, make_user):  # noqa: F811 - the fixture
    table, users = four(make_user)
    host = users[0]
    live = AccountStream(server.port, host.token)
    assert live.status == 200 and "text/event-stream" in live.headers
    assert live.next_block().startswith("retry: ")
    tables.table_start(table_id=table.pk, user=host)  # in this process: another process's change
    started = live.next_event()
    assert started["event"] == "table_started" and started["data"]["table"] == str(table.pk)
    assert started["id"] == started["data"]["id"]
    assert set(started["data"]) == {"id", "type", "created", "table", "version", "data"}
    # Play until the host's turn comes: the stream says so, with nothing of anyone's hand.
    turns = []
    while not turns:
        current = Table.objects.get(pk=table.pk)
        by_index = {row.index: row.user_id for row in current.seats.all()}
        if by_index[ENGINE.seat_players(current.state)[ENGINE.to_act(current.state)[0]]] == host.pk:
            turns.append(live.next_event())
        else:
            play_first(table.pk, users)
    assert turns[0]["event"] == "your_turn" and turns[0]["id"] > started["id"]
    hands = {card for hand in Table.objects.get(pk=table.pk).state["hands"] for card in hand}
    assert not any(f'"{card}"' in json.dumps(turns[0]) for card in hands)
    live.close()
    # A client that had only the start resumes and gets exactly what came after it, in order.
    again = AccountStream(server.port, host.token, headers={"Last-Event-ID": str(started["id"])})
    assert again.next_block().startswith("retry: ")
    missed = again.next_event()
    assert missed["id"] == started["id"] + 1 and missed["event"] == turns[0]["event"]
    again.close()


def test_an_idle_stream_pings_and_a_bad_last_event_id_is_refused(server, make_user):  # noqa: F811 - the fixture
    user = make_user()
    idle = AccountStream(server.port, user.token)
    assert idle.next_block().startswith("retry: ")
    assert idle.next_block() == ": ping"  # SSE_PING_SECONDS is 1 here
    idle.close()
    bad = AccountStream(server.port, user.token, headers={"Last-Event-ID": "x"})
    assert bad.status == 400 and json.loads(bad.body)["code"] == "invalid"
    bad.close()
