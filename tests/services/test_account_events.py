"""The account stream's outbox (games.services.account_events; docs/api.md, "Account stream,
invitations and rematch"): every player's turns, starts, ends, warnings and away seats are
written in the change's own transaction, whether or not the player has a webhook; a change that
rolls back writes none; stream ids follow the order events became visible, whichever change began
first, and a rollback leaves no gap; a
resume sends only what came after; 24 hours are kept; no card is ever in an event."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games import notify
from games.engine import registry
from games.models import AccountEvent, Table
from games.services import account_events, moves
from tests.services.test_automation import start_table

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE = registry.get("president")


def events_of(user, after=0):
    return account_events.after(user.pk, after)


def play(table, users):
    table = Table.objects.get(pk=table.pk)
    seat = ENGINE.to_act(table.state)[0]
    mover = next(u for u in users if u.pk == {r.index: r.user_id for r in table.seats.all()}[
        ENGINE.seat_players(table.state)[seat]])
    moves.move_submit(table_id=table.pk, user=mover, move=ENGINE.legal_moves(table.state, seat)[0])
    return mover


def test_every_player_hears_of_the_start_and_their_turns_without_a_webhook(make_user):
    table, users = start_table(make_user, n=4, first_dealer=3, options={"hands": 1})
    for user in users:
        started = [e for e in events_of(user) if e["type"] == "table_started"]
        assert len(started) == 1 and started[0]["table"] == str(table.pk)
    # Dealer 3: seat 0 leads (P-4.1); its player hears it is their turn.
    first = users[0]
    assert [e["type"] for e in events_of(first)][-1] == "your_turn"
    seen = events_of(users[1])
    play(table, users)
    news = events_of(users[1], seen[-1]["id"])
    assert [e["type"] for e in news] == ["your_turn"]
    body = news[0]
    assert set(body) == {"id", "type", "created", "table", "version", "data"}
    assert body["version"] == Table.objects.get(pk=table.pk).version
    assert body["data"]["seat"] == 1 and body["data"]["game"] == "president"


def test_a_change_that_rolls_back_leaves_no_event_and_wakes_no_one(make_user, monkeypatch):
    table, users = start_table(make_user, n=4, first_dealer=3, options={"hands": 1})
    before = AccountEvent.objects.count()
    woken = []
    monkeypatch.setattr(notify, "account_changed", lambda users: woken.append(users))

    class Boom(Exception):
        pass

    with pytest.raises(Boom), transaction.atomic():
        play(table, users)
        assert AccountEvent.objects.count() > before  # written in the change's transaction
        raise Boom
    assert AccountEvent.objects.count() == before
    assert woken == []
    play(table, users)
    assert woken, "a committed change wakes its players' streams"


def test_stream_ids_follow_the_order_events_became_visible(make_user):
    """An event is numbered as it is written, under its user's counter row, locked until the
    transaction ends: a second change for the same user waits for the first to commit, so the
    one that commits later has the later id (a stream that sent it and resumes after it misses
    nothing), whichever began first."""
    user = make_user()
    order = []
    first_wrote, second_began = threading.Event(), threading.Event()

    def first():
        try:
            with transaction.atomic():
                account_events.record(user_id=user.pk, type="invited", data={"n": "first"})
                first_wrote.set()
                second_began.wait(10)
                time.sleep(0.3)  # room for the second to overtake, were it not held
                order.append("first committed")
        finally:
            connection.close()

    def second():
        try:
            first_wrote.wait(10)
            second_began.set()
            with transaction.atomic():
                account_events.record(user_id=user.pk, type="invited", data={"n": "second"})
            order.append("second committed")
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert order == ["first committed", "second committed"]
    bodies = events_of(user)
    assert [(b["id"], b["data"]["n"]) for b in bodies] == [(1, "first"), (2, "second")]


def test_a_rolled_back_change_gives_its_ids_back_and_ids_are_contiguous(make_user):
    user, other = make_user(), make_user()
    account_events.record(user_id=user.pk, type="invited", data={"n": 0})
    with pytest.raises(RuntimeError), transaction.atomic():
        account_events.record_many([account_events.Pending(user.pk, "invited", None, None, {"n": "gone"})] * 2)
        raise RuntimeError
    account_events.record_many([
        account_events.Pending(user.pk, "invited", None, None, {"n": 1}),
        account_events.Pending(other.pk, "invited", None, None, {"n": "o"}),
        account_events.Pending(user.pk, "invited", None, None, {"n": 2}),
    ])
    assert [(b["id"], b["data"]["n"]) for b in events_of(user)] == [(1, 0), (2, 1), (3, 2)]
    assert [(b["id"], b["data"]["n"]) for b in events_of(other)] == [(1, "o")]
    assert account_events.last_seq(user.pk) == 3


def test_a_resume_gets_what_came_after_and_only_the_last_24_hours(make_user):
    user = make_user()
    for n in range(3):
        account_events.record(user_id=user.pk, type="invited", data={"n": n})
    bodies = events_of(user)
    assert [b["data"]["n"] for b in bodies] == [0, 1, 2]
    assert [b["id"] for b in bodies] == sorted(b["id"] for b in bodies)
    assert [b["data"]["n"] for b in events_of(user, bodies[0]["id"])] == [1, 2]
    AccountEvent.objects.filter(user=user, seq=bodies[0]["id"]).update(created=timezone.now() - timedelta(hours=25))
    assert [b["data"]["n"] for b in events_of(user)] == [1, 2]
    assert account_events.prune() == 1
    assert AccountEvent.objects.filter(user=user).count() == 2


def test_news_tells_which_users_have_events_a_stream_has_not_sent(make_user):
    a, b, c = make_user(), make_user(), make_user()
    account_events.record(user_id=a.pk, type="invited", data={})
    account_events.record(user_id=b.pk, type="invited", data={})
    top_b = account_events.last_seq(b.pk)  # sent by b's other stream
    assert account_events.news({a.pk: 0, b.pk: 0, c.pk: 0}) == {a.pk, b.pk}
    assert account_events.news({b.pk: top_b, c.pk: 0}) == set()


def test_an_unknown_event_type_is_refused():
    with pytest.raises(ValueError):
        account_events.record(user_id=1, type="card_dealt", data={})


def test_no_card_is_in_any_event(make_user):
    table, users = start_table(make_user, n=4, first_dealer=3, options={"hands": 1})
    for _ in range(6):
        play(table, users)
    state = Table.objects.get(pk=table.pk).state
    cards = {card for hand in state["hands"] for card in hand}
    assert cards
    import json

    for user in users:
        text = json.dumps(events_of(user))
        assert not any(f'"{card}"' in text for card in cards)
