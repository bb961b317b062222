"""api.md, Polling: ETag, If-None-Match -> 304, and the `?wait=` long-poll."""

import asyncio
import os

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import AsyncClient

from games import notify
from games.models import Table
from games.services import automation
from tests.api.helpers import move


def state_url(table_id, query=""):
    return f"/api/v1/tables/{table_id}/state{query}"


@pytest.mark.django_db
def test_etag_then_304_with_no_body_until_the_version_changes(started):
    table_id, seats = started
    first = seats[1].api.get(state_url(table_id))
    assert first.status_code == 200 and first["ETag"]
    same = seats[1].api.get(state_url(table_id), HTTP_IF_NONE_MATCH=first["ETag"])
    assert same.status_code == 304 and same.content == b""
    move(seats[0], table_id, {"type": "play", "cards": ["3C"]})
    changed = seats[1].api.get(state_url(table_id), HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert changed.json()["version"] > first.json()["version"]


@pytest.mark.django_db
def test_state_has_the_contract_fields_and_only_the_callers_hand(started):
    table_id, seats = started
    hands = {s: u.api.get(state_url(table_id)).json() for s, u in seats.items()}
    for seat, state in hands.items():
        assert {"table", "game", "version", "status", "phase", "turn", "deadline", "dealer", "round", "you",
                "seats", "legal_moves", "public", "scores"} <= set(state)
        assert state["you"]["seat"] == seat
        others = {c for s, st in hands.items() if s != seat for c in st["you"]["hand"]}
        text = str({k: v for k, v in state.items() if k != "you"}) + str(state["you"])
        assert not any(f"'{card}'" in text for card in others)
        assert all({"seat", "player", "is_bot", "away", "card_count"} <= set(s) for s in state["seats"])
    assert hands[0]["legal_moves"] and hands[1]["legal_moves"] == []


@pytest.mark.django_db
def test_a_spectator_sees_public_state_only(started, make_user):
    table_id, seats = started
    state = make_user().api.get(state_url(table_id)).json()
    assert state["you"] is None and state["legal_moves"] == []
    hand = seats[0].api.get(state_url(table_id)).json()["you"]["hand"]
    assert not any(f"'{card}'" in str(state) for card in hand)


@pytest.mark.django_db
@pytest.mark.parametrize("wait", ["31", "-1", "soon"])
def test_wait_out_of_range_is_invalid(started, wait):
    table_id, seats = started
    r = seats[0].api.get(state_url(table_id, f"?wait={wait}"))
    assert r.status_code == 400 and r.json()["code"] == "invalid"


@pytest.mark.django_db
def test_state_needs_a_token(started, anon):
    table_id, _ = started
    r = anon.get(state_url(table_id))
    assert r.status_code == 401 and r.json()["code"] == "not_authenticated"


@pytest.mark.django_db(transaction=True)
def test_long_poll_wakes_as_soon_as_a_move_commits(started, settings):
    """The re-check interval is set far beyond the wait, so only the commit's wake-up can
    answer the poll before the test's own timeout."""
    settings.LONGPOLL_RECHECK_SECONDS = 60
    table_id, seats = started
    etag = seats[1].api.get(state_url(table_id))["ETag"]

    async def scenario():
        poll = asyncio.create_task(
            AsyncClient().get(state_url(table_id, "?wait=30"), AUTHORIZATION=f"Token {seats[1].token}", IF_NONE_MATCH=etag)
        )
        await asyncio.sleep(0.5)
        assert not poll.done()
        await sync_to_async(move)(seats[0], table_id, {"type": "play", "cards": ["3C"]})
        try:
            return await asyncio.wait_for(poll, timeout=10)
        finally:
            await sync_to_async(connections.close_all)()

    response = asyncio.run(scenario())
    assert response.status_code == 200
    assert response["ETag"] != etag and response.json()["turn"] == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(bool(os.environ.get("REDIS_URL")), reason="with Redis, other processes' changes arrive by message (next test)")
def test_long_poll_sees_a_change_committed_by_another_process(started, settings, monkeypatch):
    """Without Redis only the process's batched re-check can see this change (no wake-up is
    sent). The poll carries the ETag it knows, and the change is made once the watcher has
    re-read at least once: a fixed sleep raced the poll's first read on a loaded machine, which
    then took the changed version as its baseline and waited out the whole 30 s."""
    settings.LONGPOLL_RECHECK_SECONDS = 0.1
    table_id, seats = started
    etag = seats[1].api.get(state_url(table_id))["ETag"]
    reads = []
    real_versions = automation.table_versions

    def counted_versions(table_ids):
        reads.append(table_ids)
        return real_versions(table_ids)

    monkeypatch.setattr(automation, "table_versions", counted_versions)

    async def scenario():
        poll = asyncio.create_task(
            AsyncClient().get(state_url(table_id, "?wait=30"), AUTHORIZATION=f"Token {seats[1].token}", IF_NONE_MATCH=etag)
        )
        # The watcher's batched re-read has run with the table in it: the poll is waiting.
        for _ in range(1000):
            if any(str(table_id) in batch for batch in reads) or poll.done():
                break
            await asyncio.sleep(0.01)
        assert reads and not poll.done()
        # Another process's commit: the version changes with no in-process wake-up.
        await sync_to_async(lambda: Table.objects.filter(pk=table_id).update(version=99))()
        try:
            return await asyncio.wait_for(poll, timeout=10)
        finally:
            await sync_to_async(connections.close_all)()

    response = asyncio.run(scenario())
    assert response.status_code == 200 and response.json()["version"] == 99


@pytest.mark.django_db(transaction=True)
def test_long_poll_that_times_out_answers_304(started):
    table_id, seats = started
    etag = seats[1].api.get(state_url(table_id))["ETag"]
    r = seats[1].api.get(state_url(table_id, "?wait=0.3"), HTTP_IF_NONE_MATCH=etag)
    assert r.status_code == 304 and r.content == b""


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="cross-process wake-ups use Redis pub/sub (CI's second pass)")
def test_long_poll_is_woken_by_a_change_published_from_another_process(started, settings):
    """Another web process or a worker publishes the change on Redis; the re-check interval
    is set far beyond the wait, so only the published message can answer in time."""
    import redis

    settings.LONGPOLL_RECHECK_SECONDS = 60
    table_id, seats = started
    etag = seats[1].api.get(state_url(table_id))["ETag"]

    async def scenario():
        poll = asyncio.create_task(
            AsyncClient().get(state_url(table_id, "?wait=30"), AUTHORIZATION=f"Token {seats[1].token}", IF_NONE_MATCH=etag)
        )
        await asyncio.sleep(1.0)
        assert not poll.done()
        await sync_to_async(lambda: Table.objects.filter(pk=table_id).update(version=77))()
        publisher = redis.Redis.from_url(settings.REDIS_URL)
        try:
            # Published until it lands: the listener subscribes asynchronously, and a message
            # sent before that is lost (as a real one would be, until the re-check).
            for _ in range(50):
                publisher.publish(notify.CHANNEL, str(table_id))
                done, _ = await asyncio.wait({poll}, timeout=0.2)
                if done:
                    break
            return await asyncio.wait_for(poll, timeout=1)
        finally:
            await sync_to_async(connections.close_all)()

    response = asyncio.run(scenario())
    assert response.status_code == 200 and response.json()["version"] == 77


@pytest.mark.django_db
def test_query_counts_of_a_poll_and_a_move_through_django(started, django_assert_max_num_queries, django_assert_num_queries):
    """A 304 at most one query (the version; the token is cached), a 200 at most
    three, and a move with an Idempotency-Key the statements listed here (docs/performance.md)."""
    from accounts import tokens

    table_id, seats = started
    tokens.clear()
    first = seats[1].api.get(state_url(table_id))  # caches the token
    with django_assert_max_num_queries(1):
        assert seats[1].api.get(state_url(table_id), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    with django_assert_max_num_queries(3):
        assert seats[1].api.get(state_url(table_id)).status_code == 200
    # The move: the key's record, (savepoint), (savepoint), the table FOR UPDATE, its seats
    # with their players (and whether they have webhooks), UPDATE of the changed columns,
    # INSERT of the log entry, INSERT of the next player's account event (the account stream's
    # outbox), (release), INSERT of the key's record, (release). The token is
    # cached (the state GETs above). In a request of its own the outer savepoint pair is BEGIN
    # and COMMIT; in this test's transaction both pairs are savepoints.
    turn_user = seats[0]
    turn_user.api.get(state_url(table_id))  # caches the mover's token too
    with django_assert_num_queries(11):
        response = turn_user.api.post(
            f"/api/v1/tables/{table_id}/moves", {"type": "play", "cards": ["3C"], "expected_version": first.json()["version"]},
            format="json", HTTP_IDEMPOTENCY_KEY="move-1",
        )
    assert response.status_code == 200


@pytest.mark.django_db
def test_a_moves_answer_carries_the_etag_of_the_movers_new_state(started):
    table_id, seats = started
    response = move(seats[0], table_id, {"type": "play", "cards": ["3C"]})
    assert response.status_code == 200
    assert response["ETag"] == seats[0].api.get(state_url(table_id))["ETag"]
    assert seats[0].api.get(state_url(table_id), HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    # It is the mover's: another player polling with it gets the full state.
    assert seats[1].api.get(state_url(table_id), HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 200
