"""No message waits at the broker longer than Redis holds it before delivering it again
(games/scheduling.py): each scheduling helper, called with the longest wait the settings allow
(a week's turn timeout, its warning, a full hour's quick-play fill, the last webhook retry with
its largest jitter, the longest bot delay), sends only messages that wait at most
longest_wait() (half of BROKER_VISIBILITY_TIMEOUT), and relaying them hop by hop on a clock
that advances as the broker would delivers the task itself once, at its exact time."""

from __future__ import annotations

import inspect
import re
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from games import scheduling, tasks
from games.services import lobby, webhooks
from games.services.tables import MAX_BOT_DELAY, MAX_TURN_TIMEOUT

ROOT = Path(__file__).resolve().parents[2]


class Broker:
    """Stands in for the broker: records every message sent, with the time it was sent."""

    def __init__(self, clock):
        self.clock = clock
        self.sent: list[tuple[str, tuple, dict, datetime]] = []

    def task(self, name: str):
        broker = self

        class Task:
            def apply_async(self, args, **options):
                broker.sent.append((name, tuple(args), options, broker.clock.now))

        return Task()


class Clock:
    def __init__(self, now: datetime):
        self.now = now


@pytest.fixture
def broker(monkeypatch, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    clock = Clock(datetime(2030, 1, 1, 12, 0, tzinfo=UTC))
    fake = Broker(clock)
    monkeypatch.setattr(timezone, "now", lambda: clock.now)
    monkeypatch.setattr(scheduling, "_task", fake.task)
    monkeypatch.setattr(scheduling._broker, "_until", 0.0)
    return fake


def longest_webhook_retry(monkeypatch) -> float:
    """The longest retry_delay the settings allow: every try that is retried, at the top of its jitter."""
    monkeypatch.setattr(webhooks.random, "uniform", lambda low, high: high)
    return max(webhooks.retry_delay(attempts) for attempts in range(1, django_settings.WEBHOOK_MAX_ATTEMPTS))


# Each helper of games/scheduling.py with the longest wait allowed: (call, task, args, wait in seconds).
def cases(monkeypatch):
    table, delivery = str(uuid.uuid4()), str(uuid.uuid4())
    retry = longest_webhook_retry(monkeypatch)
    return {
        "queue_bot_move": (lambda now: scheduling.queue_bot_move(table, 3, MAX_BOT_DELAY), "bot_move", (table, 3), MAX_BOT_DELAY),
        "queue_deadline": (lambda now: scheduling.queue_deadline(table, 3, now + timedelta(seconds=MAX_TURN_TIMEOUT)),
                           "enforce_deadline", (table, 3), MAX_TURN_TIMEOUT),
        "queue_timeout_warning": (
            lambda now: scheduling.queue_timeout_warning(table, 3, now + timedelta(seconds=MAX_TURN_TIMEOUT), MAX_TURN_TIMEOUT),
            "timeout_warning", (table, 3), MAX_TURN_TIMEOUT * 3 / 4),
        "queue_quick_play_fill": (lambda now: scheduling.queue_quick_play_fill(table, now + timedelta(seconds=lobby.MAX_BOTS_AFTER)),
                                  "quick_play_fill", (table,), lobby.MAX_BOTS_AFTER),
        "queue_webhook": (lambda now: scheduling.queue_webhook(delivery, delay=retry), "deliver_webhook", (delivery,), retry),
    }


def test_every_scheduling_helper_is_checked_here(monkeypatch):
    helpers = {name for name, _ in inspect.getmembers(scheduling, inspect.isfunction) if name.startswith("queue_")}
    assert helpers == set(cases(monkeypatch))


def test_nothing_but_games_scheduling_sends_a_task_with_a_wait():
    """Every countdown and eta goes through the helpers checked here."""
    sending = re.compile(r"\.apply_async\(|\.send_task\(|\.delay\(|\bcountdown\s*=|\beta\s*=")
    found = [
        str(path.relative_to(ROOT))
        for folder in ("games", "config", "accounts")
        for path in (ROOT / folder).rglob("*.py")
        if path != ROOT / "games" / "scheduling.py" and "migrations" not in path.parts
        and sending.search(path.read_text())
    ]
    assert found == []


@pytest.mark.parametrize("helper", ["queue_bot_move", "queue_deadline", "queue_timeout_warning", "queue_quick_play_fill",
                                    "queue_webhook"])
def test_the_longest_wait_is_sent_in_hops_the_broker_holds_for_less_than_its_visibility_timeout(broker, monkeypatch, helper):
    call, task, args, wait = cases(monkeypatch)[helper]
    start = broker.clock.now
    due = start + timedelta(seconds=wait)
    limit = scheduling.longest_wait()
    assert limit < django_settings.BROKER_VISIBILITY_TIMEOUT
    call(start)
    hops = 0
    while True:
        assert len(broker.sent) == 1, broker.sent
        name, sent_args, options, sent_at = broker.sent.pop()
        held = options["countdown"] if "countdown" in options else (options["eta"] - sent_at).total_seconds()
        assert held <= limit, f"{name} would wait {held} s at the broker"
        if name != "relay":
            break
        hops += 1
        # The hop runs when its countdown is up (a busy worker: a little later), as the task.
        broker.clock.now = sent_at + timedelta(seconds=options["countdown"] + 0.25)
        tasks.relay(*sent_args)
    assert (name, sent_args) == (task, args)
    # It runs when it was due, exactly: however late the hops ran, the last one sends the eta.
    runs_at = sent_at + timedelta(seconds=options["countdown"]) if "countdown" in options else options["eta"]
    assert runs_at == due
    if wait > limit:
        assert hops >= wait // limit - 1
    else:
        assert hops == 0


def test_a_relay_hop_sends_on_only_the_tasks_that_are_relayed(broker):
    with pytest.raises(ValueError):
        tasks.relay("purge_idempotency_keys", [], broker.clock.now.isoformat())
    assert broker.sent == []
