"""The event stream's Django view (api.md, Push): what a request gets when it does not come
through the ASGI app (a WSGI server, a test client): the opening of the stream, then its end."""

import pytest

from tests.api.helpers import president_hands_deck


def body(response) -> str:
    return b"".join(response.streaming_content).decode()


@pytest.fixture
def started(table_of):
    _, deck = president_hands_deck()
    table_id, users = table_of("president", 4, deck=deck, first_dealer=3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    return table_id, users


@pytest.mark.django_db
def test_the_opening_is_the_reconnection_delay_and_the_callers_state(started):
    table_id, users = started
    response = users[0].api.get(f"/api/v1/tables/{table_id}/events", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    retry, event = body(response).split("\n\n")[:2]
    assert retry == "retry: 2000"
    lines = dict(line.split(": ", 1) for line in event.splitlines())
    state = users[0].api.get(f"/api/v1/tables/{table_id}/state").json()
    assert lines["id"] == str(state["version"]) and lines["event"] == "state"
    assert lines["data"].startswith("{") and f'"version":{state["version"]}' in lines["data"]
    # A client that already has this version gets no event.
    again = users[0].api.get(f"/api/v1/tables/{table_id}/events", HTTP_LAST_EVENT_ID=str(state["version"]))
    assert body(again) == "retry: 2000\n\n"


@pytest.mark.django_db
def test_event_stream_errors(started, anon):
    table_id, users = started
    assert anon.get(f"/api/v1/tables/{table_id}/events").json()["code"] == "not_authenticated"
    bad = users[0].api.get(f"/api/v1/tables/{table_id}/events?after=-1")
    assert bad.status_code == 400 and bad.json()["detail"]["fields"] == {"after": ["0..2147483648"]}
    missing = users[0].api.get("/api/v1/tables/00000000-0000-0000-0000-000000000000/events")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


@pytest.mark.django_db(transaction=True)
def test_a_disconnect_frees_the_waiter_and_the_slot_at_once(started, settings):
    """A client that disconnects frees everything at once. The edge is driven in this process,
    so its waiting room and its slots (no Redis: this process's count) can be read the moment
    the app returns."""
    import asyncio

    from config.asgi import application
    from games.edge import events, waiting

    settings.REDIS_URL = ""
    table_id, users = started
    scope = {
        "type": "http", "method": "GET", "path": f"/api/v1/tables/{table_id}/events", "query_string": b"",
        "scheme": "http", "server": ("testserver", 80), "client": ("127.0.0.1", 5000),
        "headers": [(b"host", b"testserver"), (b"authorization", f"Token {users[1].token}".encode()),
                    (b"accept", b"text/event-stream")],
    }

    async def run():
        sent, opened = [], asyncio.Event()

        async def send(message):
            sent.append(message)
            if message["type"] == "http.response.body" and b"event: state" in message.get("body", b""):
                opened.set()

        async def receive():
            await opened.wait()
            await asyncio.sleep(0.2)  # the stream subscribes once its opening is sent
            # While the stream is open it holds a waiter on the table and a slot of the user.
            room = waiting.room()
            held.append((len(room.tables.get(table_id).waiters), len(events.slots.local.get(users[1].pk, ()))))
            return {"type": "http.disconnect"}

        held: list[tuple[int, int]] = []
        await asyncio.wait_for(application(scope, receive, send), timeout=30)
        return sent, held, table_id in waiting.room().tables

    sent, held, still_waiting = asyncio.run(run())
    assert sent[0]["status"] == 200 and held == [(1, 1)]
    assert not still_waiting and users[1].pk not in events.slots.local


@pytest.mark.django_db
def test_the_account_streams_opening_through_django_resumes_and_a_new_one_starts_from_now(started, anon):
    """Through Django (a WSGI server) the account stream is its opening: a new stream sends
    nothing old; one resuming with Last-Event-ID or ?after= sends what came after, in order."""
    _, users = started
    user = users[1]
    fresh = body(user.api.get("/api/v1/stream/events", HTTP_ACCEPT="text/event-stream"))
    assert fresh.startswith("retry: ") and "id: " not in fresh
    resumed = body(user.api.get("/api/v1/stream/events?after=0"))
    ids = [int(line[4:]) for line in resumed.splitlines() if line.startswith("id: ")]
    assert ids and ids == sorted(ids) and ids[0] == 1
    assert "event: table_started" in resumed
    later = body(user.api.get("/api/v1/stream/events", HTTP_LAST_EVENT_ID=str(ids[0])))
    assert [int(line[4:]) for line in later.splitlines() if line.startswith("id: ")] == ids[1:]
    assert anon.get("/api/v1/stream/events").json()["code"] == "not_authenticated"
    bad = user.api.get("/api/v1/stream/events?after=-1")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
