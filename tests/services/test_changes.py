"""One command path (docs/architecture.md). Every change publishes one `Change` through the hook in
`games.services.changes`, and features subscribe there without touching a service; a move
costs the platform few engine calls (the Result says the rest)."""

from collections import Counter

import pytest
from django.db import transaction

from config.errors import IllegalMoveError
from games.engine import registry
from games.models import Table
from games.services import changes, moves, tables

pytestmark = pytest.mark.django_db(transaction=True)


def started_president(make_user, n=4):
    users = [make_user(staff=True)] + [make_user() for _ in range(n - 1)]
    table = tables.table_create(user=users[0], game="president", seats=n, seed=99, first_dealer=0, turn_timeout=0)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    return table, users


@pytest.fixture
def subscriber():
    """A later feature (ratings, an event stream) subscribing to changes from outside."""
    seen = {"during": [], "after": []}

    def during(change):
        seen["during"].append((change.version, transaction.get_connection().in_atomic_block))

    def after(change):
        seen["after"].append(change)

    undo = [changes.subscribe(during, during=True), changes.subscribe(after)]
    yield seen
    for fn in undo:
        fn()


def test_a_subscriber_sees_every_committed_change_once_with_its_facts(make_user, subscriber):
    table, users = started_president(make_user)
    subscriber["after"].clear()
    subscriber["during"].clear()
    seat = registry.get("president").to_act(table.state)[0]
    move = registry.get("president").legal_moves(table.state, seat)[0]
    table, _, events = moves.move_submit(table_id=table.pk, user=users[seat], move=move)
    assert [c.version for c in subscriber["after"]] == [table.version]
    assert subscriber["during"] == [(table.version, True)]
    change = subscriber["after"][0]
    assert change.table_id == str(table.pk) and change.game == "president"
    assert change.move == move and list(change.events) == events
    assert change.to_act == tuple(registry.get("president").to_act(table.state))
    assert change.human_to_act and not change.bot_to_act


def test_a_rejected_move_publishes_nothing_after_commit(make_user, subscriber):
    table, users = started_president(make_user)
    subscriber["after"].clear()
    seat = registry.get("president").to_act(table.state)[0]
    with pytest.raises(IllegalMoveError):
        # P-4: leading with a pass is not allowed (the engine refuses it: nothing commits).
        moves.move_submit(table_id=table.pk, user=users[seat], move={"type": "pass"})
    assert subscriber["after"] == []
    assert Table.objects.get(pk=table.pk).version == table.version


def test_table_lifecycle_changes_go_through_the_same_hook(make_user, subscriber):
    host = make_user()
    table = tables.table_create(user=host, game="president", seats=4)
    tables.table_join(table_id=table.pk, user=make_user())
    assert [c.status for c in subscriber["after"]] == [Table.Status.OPEN]
    assert subscriber["after"][0].to_act == ()


class CountingEngine:
    """The registered engine behind a wrapper that counts the platform's calls (the engine's
    calls to itself, inside `apply`, are not counted: they are not the platform's)."""

    def __init__(self, engine):
        self._engine = engine
        self.calls = Counter()

    def __getattr__(self, name):
        value = getattr(self._engine, name)
        if callable(value) and not name.startswith("_"):
            def counted(*args, **kwargs):
                self.calls[name] += 1
                return value(*args, **kwargs)

            return counted
        return value


@pytest.mark.parametrize("with_webhook", [False, True])
def test_a_move_costs_the_platform_three_engine_calls_with_or_without_webhooks(make_user, monkeypatch, with_webhook):
    from games.models import AccountEvent, WebhookDelivery, WebhookEndpoint

    table, users = started_president(make_user)
    engine = registry.get("president")
    seat = engine.to_act(table.state)[0]
    move = engine.legal_moves(table.state, seat)[0]
    if with_webhook:
        # Recorded with the move; not delivered here (no network in a test).
        monkeypatch.setattr("games.scheduling.queue_webhook", lambda *args, **kwargs: None)
        WebhookEndpoint.objects.create(user=users[(seat + 1) % 4], url="https://hooks.example/x", events=["your_turn"],
                                       secret="s" * 32)
    counting = CountingEngine(engine)
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda slug: counting if slug == "president" else real_get(slug))
    moves.move_submit(table_id=table.pk, user=users[seat], move=move)
    # Under the lock: who sits where (the platform's checks), then the one `apply`; its Result
    # says the rest. Who acted before the move is worked out once, for its players' account
    # events (every player has an account stream: the events compare before and after),
    # whether or not anyone has a webhook, never in the lock itself.
    expected = Counter({"seat_players": 1, "apply": 1, "to_act": 1})
    assert counting.calls == expected
    # Every player hears of their turn on their account stream, webhook or not.
    assert list(AccountEvent.objects.filter(type="your_turn", version=table.version + 1)
                .values_list("user_id", flat=True)) == [users[(seat + 1) % 4].pk]
    # ... and the webhook still learns that its owner's turn came.
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == (["your_turn"] if with_webhook else [])
