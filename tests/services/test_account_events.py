"""The account stream's outbox (games.services.account_events; docs/api.md, "Account stream,
invitations and rematch"): every player's turns, starts, ends, warnings and away seats are
written in the change's own transaction, whether or not the player has a webhook; a change that
rolls back writes none; stream ids follow the order events became visible, not their row ids; a
resume sends only what came after; 24 hours are kept; no card is ever in an event."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
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


def test_stream_ids_follow_the_order_events_became_visible_not_row_ids(make_user):
    """Two transactions can commit in the other order than their rows were inserted: the one
    with the smaller row id, committing later, is still sent to a stream that already has the
    other."""
    user = make_user()
    late = AccountEvent.objects.create(user=user, type="invited", data={}, created=timezone.now())
    late_id = late.pk
    late.delete()  # its id is free: "inserted first, committed last"
    AccountEvent.objects.create(user=user, type="invited", data={"n": "early"}, created=timezone.now())
    [first] = events_of(user)
    assert first["data"] == {"n": "early"}
    AccountEvent.objects.create(id=late_id, user=user, type="invited", data={"n": "late"}, created=timezone.now())
    news = events_of(user, first["id"])
    assert [e["data"] for e in news] == [{"n": "late"}] and news[0]["id"] > first["id"]
    # Numbers are given once: reading again changes nothing.
    assert events_of(user) == [first, *news]


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
    top_b = account_events.last_seq(b.pk)  # numbered by b's other stream
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
