"""Redis down (docs/reliability.md, drill (b)): the broker and the throttles' cache fail, the API
does not. The drill itself (tests/reliability/test_fault_drills.py) stops a real Redis; these
are the same promises on the embedded defaults, with the failures injected."""

from datetime import timedelta

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from rest_framework.test import APIRequestFactory

from config import throttling
from games import scheduling, tasks
from games.models import Move, Table
from games.services import automation, tables

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker_down(monkeypatch):
    """Every task sent fails as kombu fails with the broker gone; the breaker starts closed and
    is closed again afterwards (it is per process)."""
    sent = []

    class Down:
        def __init__(self, name):
            self.name = name

        def apply_async(self, *args, **kwargs):
            sent.append(self.name)
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(scheduling, "_task", Down)
    monkeypatch.setattr(scheduling._broker, "_until", 0.0)
    yield sent
    scheduling._broker._until = 0.0


def test_a_move_whose_bot_follow_up_cannot_be_queued_answers_200_and_the_sweep_moves_the_bot(make_user, broker_down):
    host, human = make_user(staff=True), make_user()
    table = tables.table_create(user=host, game="president", seats=4, first_dealer=3, turn_timeout=0,
                                options={"hands": 1, "bot_delay": 0})
    tables.table_join(table_id=table.pk, user=human, seat=1)
    automation.table_add_bot(table_id=table.pk, user=host, level="easy", seat=2)
    automation.table_add_bot(table_id=table.pk, user=host, level="easy", seat=3)
    tables.table_start(table_id=table.pk, user=host)
    # Dealer 3: seat 0 (the host) leads, then seat 1 (a human), then the bots.
    for user in (host, human):
        state = user.api.get(f"/api/v1/tables/{table.pk}/state").json()
        r = user.api.post(f"/api/v1/tables/{table.pk}/moves", state["legal_moves"][0], format="json")
        assert r.status_code == 200, r.json()
    assert broker_down == ["bot_move"], "the bot's task was sent once, then the breaker left the broker alone"
    table.refresh_from_db()
    assert table.bot_pending and not Move.objects.filter(table=table, by=Move.By.BOT).exists()
    # The task is lost; the sweep, once the bot has waited past its time, makes the move.
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - timedelta(minutes=1))
    scheduling._broker._until = 0.0
    assert tasks.sweep() >= 1
    assert Move.objects.filter(table=table, by=Move.By.BOT, seat=2).exists()


def _counters_down(key, ttl):
    raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def test_the_throttles_let_requests_through_while_their_cache_is_down_and_throttle_again_after(make_user, monkeypatch):
    monkeypatch.setattr(throttling.UserRateThrottle, "THROTTLE_RATES", {"user": "1/min"})
    monkeypatch.setattr(throttling._cache, "_until", 0.0)
    user = make_user()
    request = APIRequestFactory().get("/api/v1/me")
    request.user = user
    throttle = throttling.UserRateThrottle()
    monkeypatch.setattr(throttling, "_count", _counters_down)
    assert [throttle.allow_request(request, None) for _ in range(3)] == [True, True, True]
    # Redis is back (the breaker's pause over): the rate applies again.
    monkeypatch.undo()
    throttling._cache._until = 0.0
    monkeypatch.setattr(throttling.UserRateThrottle, "THROTTLE_RATES", {"user": "1/min"})
    throttle = throttling.UserRateThrottle()
    throttling.reset()
    assert [throttle.allow_request(request, None) for _ in range(2)] == [True, False]
    throttling.reset()
    assert [throttle.allow_request(request, None) for _ in range(2)] == [True, False]
    throttle.cache.clear()
