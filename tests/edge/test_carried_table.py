"""A move's wake-up message carries the committed table (games.notify `encode_table`), so the
waiters of another web process answer from it without reading the table, as this process's
waiters answer from the move's own object (docs/performance.md, "Bursts").

What it must hold: the views rendered from a carried table are those of a read,
for every seat and a spectator, in every game; it carries neither the staff-only set-up (deck,
seed) nor any private field of a player; a message that is not signed with this SECRET_KEY, or
not in this code's format, carries nothing, and its waiters read the table instead."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from unittest import mock

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.test import override_settings

from games import notify, selectors
from games.edge import waiting
from games.edge.http import render
from games.engine import registry
from games.models import Table
from games.services import automation, moves, tables
from tests.edge.test_state import client, counted_queries, get, run, url
from tests.services.test_automation import start_table

pytestmark = pytest.mark.django_db(transaction=True)
WHOLE_ROW = '"games_table"."finished_at" FROM "games_table"'


def views(table, viewers) -> list[bytes]:
    return [render(selectors.state_view(table, viewer)) for viewer in viewers]


def viewers_of(table, users, make_user):
    return [*users, make_user(), AnonymousUser()]


def captured_snapshots(monkeypatch) -> list:
    """The tables this process's moves hand to its waiters (games.notify's listeners)."""
    seen = []
    monkeypatch.setattr(notify, "_listeners", [lambda table_id, version, snapshot: seen.append(snapshot)])
    return seen


def play_first_legal(table_id, user_of_seat):
    table = Table.objects.get(pk=table_id)
    engine = registry.get(table.game)
    seat = engine.to_act(table.state)[0]
    moves.move_submit(table_id=table_id, user=user_of_seat[seat], move=engine.legal_moves(table.state, seat)[0])


@pytest.mark.parametrize("game, n, options", [
    ("president", 4, {"hands": 1}),
    ("pitch", 4, {"partnerships": True}),
    ("lopti", 3, {}),
])
def test_a_carried_table_renders_every_viewers_state_as_a_read_does(make_user, monkeypatch, game, n, options):
    table, users = start_table(make_user, game=game, n=n, bots=1, options=options, turn_timeout=60)
    seats = {row.index: row.user for row in table.seats.all()}
    by_seat = {selectors.viewer_seat(table, u): u for u in users}
    snapshots = captured_snapshots(monkeypatch)
    everyone = viewers_of(table, users, make_user)
    for _ in range(3):  # a few moves of the humans (a bot's turn: its move, by the service)
        table = Table.objects.get(pk=table.pk)
        seat = registry.get(game).to_act(table.state)[0]
        if by_seat.get(seat) is None:
            automation.table_bot_step(table_id=table.pk, version=table.version)
        else:
            play_first_legal(table.pk, by_seat)
        moved = snapshots[-1]
        assert moved is not None, "a move hands its table to the waiters"
        carried = notify.encode_table(moved)
        assert carried is not None
        with counted_queries() as seen:
            decoded = notify.decode_table(carried)
            rendered = views(decoded, everyone)
        assert seen == [], "the carried table is whole for a view: nothing is read"
        read = selectors.table_for_state(table.pk)
        assert decoded.version == read.version and decoded.deadline == read.deadline
        expected = views(read, everyone)
        # The same answers (on PostgreSQL a read's JSON objects come in jsonb's key order).
        assert [json.loads(v) for v in rendered] == [json.loads(v) for v in expected]
    assert len(seats) == n


def test_an_open_table_and_a_polls_read_are_carried_too(make_user):
    host, guest = make_user(), make_user()
    table = tables.table_create(user=host, game="president", seats=4)
    tables.table_join(table_id=table.pk, user=guest)
    read = selectors.table_for_state(table.pk)
    everyone = [host, guest, make_user(), AnonymousUser()]
    assert views(notify.decode_table(notify.encode_table(read)), everyone) == views(read, everyone)


def test_the_message_never_carries_the_set_up_columns_or_a_players_private_fields(make_user):
    """The engine's state travels whole (the views need every hand): Redis is as private as the
    database (docs/operations.md). The staff-only set-up columns and the players' private fields
    do not: the decoded objects have them deferred, so a view that reached for one would read it
    from the database rather than see something made up."""
    table, users = start_table(make_user, n=4, seed=987654321987, first_dealer=3, options={"hands": 1})
    for user in users:
        user.email = f"{user.username}@example.invalid"
        user.first_name, user.last_name = "Secret", "Surname"
        user.save()
    carried = notify.encode_table(selectors.table_for_state(table.pk))
    for user in users:
        user.refresh_from_db()
        assert user.password not in carried and user.email not in carried
    assert "Secret" not in carried and "Surname" not in carried
    decoded = notify.decode_table(carried)
    assert {"deck", "seed"} <= decoded.get_deferred_fields()
    assert {"password", "email", "first_name", "last_name"} <= decoded._seat_rows[0].user.get_deferred_fields()


def test_a_message_not_signed_here_or_not_in_this_format_carries_nothing(make_user, settings):
    table, _ = start_table(make_user, n=4)
    carried = notify.encode_table(selectors.table_for_state(table.pk))
    signature, _, text = carried.partition(" ")
    assert notify.decode_table(carried) is not None
    # Changed on the way: the signature no longer matches.
    assert notify.decode_table(f"{signature} {text.replace('president', 'presidenT', 1)}") is None
    assert notify.decode_table(f"{'0' * 64} {text}") is None
    assert notify.decode_table(f"é{signature[1:]} {text}") is None
    # Signed with another deployment's key.
    with override_settings(SECRET_KEY="another deployment's key, long enough to be a key"):
        assert notify.decode_table(carried) is None
    # Signed here, but not what this code writes (another release, mid-deploy).
    for other in ("[]", "[[1, 2], []]", '{"a": 1}', "not json", '[[], [[[1], null]]]'):
        assert notify.decode_table(f"{notify._sign(other.encode())} {other}") is None


def test_a_message_names_the_table_its_version_and_what_it_carries(make_user, settings, monkeypatch):
    table, users = start_table(make_user, n=4, first_dealer=3, options={"hands": 1})
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # only to make it publish: _publish is replaced
    published = []
    monkeypatch.setattr(notify, "_publish", published.append)
    by_seat = {selectors.viewer_seat(table, u): u for u in users}
    play_first_legal(table.pk, by_seat)
    version = Table.objects.get(pk=table.pk).version
    table_id, heard, carried = notify.parse(published[-1])
    assert (table_id, heard) == (str(table.pk), version)
    assert notify.decode_table(carried).version == version
    # A change with no table to hand over (a save elsewhere) names only the version; the
    # old messages still parse.
    notify.table_changed(table.pk, version + 1)
    assert notify.parse(published[-1]) == (str(table.pk), version + 1, None)
    assert notify.parse(str(table.pk)) == (str(table.pk), None, None)


def waiters_hear(table_id, viewers, message_of):
    """Long-poll as each viewer, then deliver `message_of()` (made on a thread, with this process's
    own listeners deaf: the move is another process's) to the room as its Redis listener would;
    (answers, statements run from the message on)."""
    tags = {u.pk: get(u, table_id).headers["etag"] for u in viewers}
    # Each long-poll reads the version twice (with no version cache): before it waits, and once
    # more once it is in the room (a change may have committed in between). Both must be done
    # before the message comes, or the second is counted as the wake-up's: a waiter counts in
    # the room before its second read.
    clock_reads = []
    real_clock = automation.table_clock

    def counting_clock(*args):
        clock_reads.append(args)
        return real_clock(*args)

    async def scenario():
        room = waiting.room()
        async with client() as c:
            polls = [asyncio.create_task(c.get(url(table_id, "?wait=30"), headers={
                "Authorization": f"Token {u.token}", "If-None-Match": tags[u.pk]})) for u in viewers]
            for _ in range(500):
                if room.waiter_count() >= len(polls) and len(clock_reads) >= 2 * len(polls):
                    break
                await asyncio.sleep(0.02)
            message = await sync_to_async(message_of)()
            with counted_queries() as seen:
                room._message(notify.CHANNEL, message)
                answers = await asyncio.gather(*polls)
            return answers, seen

    with mock.patch.object(automation, "table_clock", counting_clock):
        return run(scenario)


@pytest.mark.parametrize("tampered", [False, True])
def test_waiters_woken_by_another_process_answer_from_the_carried_table(make_user, monkeypatch, settings, tampered):
    """The message of another process's move wakes this process's waiters, who answer from the
    table it carries with no statement; one whose signature does not match costs them one
    shared read, and they answer the same."""
    settings.LONGPOLL_RECHECK_SECONDS = 60  # only the message wakes them
    settings.REDIS_URL = ""  # no listener of its own: the test hands the room the message
    # The copy is kept HOLD_SECONDS (1 s) after it came: on a loaded machine the last of seven
    # waiters could reach it later than that and read, which is not what this test is about.
    monkeypatch.setattr(waiting, "HOLD_SECONDS", 30.0)
    table, users = start_table(make_user, n=4, first_dealer=3, options={"hands": 1})
    spectators = [make_user() for _ in range(3)]
    by_seat = {selectors.viewer_seat(table, u): u for u in users}

    def move_elsewhere():
        snapshots = []
        with mock.patch.object(notify, "_listeners", [lambda t, v, s: snapshots.append(s)]):
            play_first_legal(table.pk, by_seat)
        version = Table.objects.get(pk=table.pk).version
        carried = notify.encode_table(snapshots[-1])
        if tampered:
            carried = "f" * 64 + carried[64:]
        return f"{table.pk} {version} {carried}"

    viewers = [*users, *spectators]
    answers, seen = waiters_hear(str(table.pk), viewers, move_elsewhere)
    for user, answer in zip(viewers, answers, strict=True):
        assert answer.status_code == 200
        assert answer.json() == user.api.get(f"/api/v1/tables/{table.pk}/state").json()
    reads = [sql for sql in seen if WHOLE_ROW in sql]
    assert len(reads) == (1 if tampered else 0), seen
    if not tampered:
        assert [sql for sql in seen if "accounts_apitoken" not in sql] == []


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="the message travels through Redis (CI's second pass)")
def test_through_redis_the_waiters_of_another_process_read_nothing(make_user, settings, monkeypatch):
    """The whole way: a move whose committing process is not this one (its listeners deaf here)
    publishes on Redis; this process's room hears it and its waiters answer without reading."""
    settings.LONGPOLL_RECHECK_SECONDS = 60
    monkeypatch.setattr(waiting, "HOLD_SECONDS", 30.0)  # as above: the copy outlives a slow wake-up
    table, users = start_table(make_user, n=4, first_dealer=3, options={"hands": 1})
    by_seat = {selectors.viewer_seat(table, u): u for u in users}
    spectators = [make_user() for _ in range(3)]
    tags = {u.pk: get(u, table.pk).headers["etag"] for u in spectators}

    async def scenario():
        room = waiting.room()
        async with client() as c:
            polls = [asyncio.create_task(c.get(url(table.pk, "?wait=30"), headers={
                "Authorization": f"Token {u.token}", "If-None-Match": tags[u.pk]})) for u in spectators]
            for _ in range(500):
                if room.waiter_count() >= len(polls):
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.5)  # the listener has subscribed (its first wake-up is over)
            mover = []

            def move():
                mover.append(threading.get_ident())
                play_first_legal(table.pk, by_seat)

            with counted_queries(by_thread=True) as seen:
                with mock.patch.object(notify, "_listeners", []):
                    await sync_to_async(move)()
                answers = await asyncio.gather(*polls)
            return answers, [sql for thread, sql in seen if thread != mover[0]]

    answers, others = run(scenario)
    version = Table.objects.get(pk=table.pk).version
    assert [a.json()["version"] for a in answers] == [version] * len(spectators)
    assert [sql for sql in others if WHOLE_ROW in sql] == [], "a waiter read the table"


def test_a_bot_runs_wake_up_carries_the_table_it_left(make_user, settings, monkeypatch):
    """The worker's bot moves wake the web processes' waiters the same way: the run's one wake-up
    carries the table as its last move left it, so the human's long-poll reads nothing."""
    monkeypatch.setattr(automation, "BOT_RUN_MOVES", 10_000)
    monkeypatch.setattr(automation, "BOT_RUN_SECONDS", 3600.0)
    table, users = start_table(make_user, n=4, bots=3, first_dealer=3, options={"hands": 1, "bot_delay": 0},
                               turn_timeout=0)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # only to make it publish: _publish is replaced
    published = []
    monkeypatch.setattr(notify, "_publish", published.append)
    play_first_legal(table.pk, {0: users[0]})  # the human leads; the three bots answer in one run
    final = Table.objects.get(pk=table.pk)
    assert registry.get("president").to_act(final.state) == [0]
    ours = [notify.parse(m) for m in published if m.startswith(str(table.pk))]
    assert ours[-1][1] == final.version and ours[-1][2] is not None
    decoded = notify.decode_table(ours[-1][2])
    everyone = [users[0], make_user(), AnonymousUser()]
    assert [json.loads(v) for v in views(decoded, everyone)] == [json.loads(v) for v in views(final, everyone)]
