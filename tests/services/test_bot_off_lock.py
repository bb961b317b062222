"""A bot that searches decides before the lock. The decision (a hard bot's search) runs with
no transaction open, hence without the table row's lock (or SQLite's write lock); the move is
submitted through the command path only if the table is still at the version the bot read,
and a stale decision is made again, a bounded number of times. (The quick rules of random and
easy bots are decided under the lock: tests/services/test_bot_runs.py. Here every bot decides
as a search would.)"""

import pytest
from django.db import connection

from games import scheduling
from games.models import Move, Table
from games.services import automation
from games.services.common import bump, lock_table
from tests.services.test_automation import start_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def bot_table(make_user, monkeypatch):
    # One human and three bots; queued bot moves are dropped, so the test drives
    # `table_bot_step` itself.
    monkeypatch.setattr(scheduling, "queue_bot_move", lambda *args: None)
    monkeypatch.setattr(automation.bots, "decides_at_once", lambda game, level: False)
    table, users = start_table(make_user, n=4, bots=3, options={"hands": 1}, turn_timeout=0, first_dealer=0)
    # Dealer 0: seat 1, a bot, leads; seat 2, a bot, follows.
    assert automation.engine_for(table).to_act(table.state) == [1]
    return table


def recording_policy(monkeypatch, during=None):
    """Replace the bots' policy by one that records, while it decides, whether a transaction
    is open; `during(n)` runs inside the n-th decision (a concurrent change)."""
    seen = []
    real = automation.bots.choose_move

    def choose(game, level, view, rng, history=None):
        seen.append(connection.in_atomic_block)
        if during is not None:
            during(len(seen))
        return real(game, level, view, rng, history=history)

    monkeypatch.setattr(automation.bots, "choose_move", choose)
    return seen


def bot_moves(table):
    return Move.objects.filter(table=table, by=Move.By.BOT).count()


def test_the_bot_decides_with_no_transaction_open(bot_table, monkeypatch):
    seen = recording_policy(monkeypatch)
    assert automation.table_bot_step(table_id=bot_table.pk, version=bot_table.version)
    assert seen == [False]
    assert bot_moves(bot_table) == 1


def test_a_change_during_the_decision_means_deciding_again_and_one_move(bot_table, monkeypatch):
    def concurrent_change(n):
        if n == 1:
            # Another request commits a change of the table while the bot thinks (as a
            # player coming back would): the bot's decision is now stale.
            from django.db import transaction

            with transaction.atomic():
                bump(lock_table(bot_table.pk), update_fields=[])

    seen = recording_policy(monkeypatch, concurrent_change)
    assert automation.table_bot_step(table_id=bot_table.pk, version=bot_table.version)
    assert seen == [False, False]
    assert bot_moves(bot_table) == 1
    table = Table.objects.get(pk=bot_table.pk)
    assert table.version == bot_table.version + 2  # the concurrent change, then one bot move


def test_another_workers_move_during_the_decision_leaves_one_move(bot_table, monkeypatch):
    def other_worker(n):
        if n == 1:
            # The same bot step, run by another worker, moves first (its own decision is #2).
            assert automation.table_bot_step(table_id=bot_table.pk)

    seen = recording_policy(monkeypatch, other_worker)
    assert automation.table_bot_step(table_id=bot_table.pk, version=bot_table.version)
    # Decisions: the first step's (stale: never applied), the other worker's (applied, seat 1),
    # the first step's again (seat 2 now, a bot too: applied). One move per version.
    assert seen == [False, False, False]
    logged = list(Move.objects.filter(table=bot_table, by=Move.By.BOT).order_by("seq").values_list("seat", "version"))
    assert [seat for seat, _ in logged] == [1, 2]
    assert logged[1][1] == logged[0][1] + 1


def test_a_decision_that_stays_stale_is_given_up_quietly(bot_table, monkeypatch):
    def always_change(n):
        from django.db import transaction

        with transaction.atomic():
            bump(lock_table(bot_table.pk), update_fields=[])

    seen = recording_policy(monkeypatch, always_change)
    assert not automation.table_bot_step(table_id=bot_table.pk, version=bot_table.version)
    assert len(seen) == automation.BOT_TRIES
    assert bot_moves(bot_table) == 0


def test_a_bot_that_remembers_gets_the_tables_events_as_its_seat_sees_them(make_user, monkeypatch):
    # The hard President bot counts the cards played in the hand (every play is public, P-8):
    # the server gives it the move log's events, projected for its seat, nothing more.
    histories = []
    real = automation.bots.choose_move

    def choose(game, level, view, rng, history=None):
        histories.append((level, view["you"]["seat"], history))
        return real(game, level, view, rng, history=history)

    monkeypatch.setattr(automation.bots, "choose_move", choose)
    table, users = start_table(make_user, n=4, bots=3, level="hard", options={"hands": 1}, turn_timeout=0,
                               first_dealer=0)
    assert histories, "the bots moved before the human's turn"
    level, seat, history = histories[-1]
    engine = automation.engine_for(table)
    logged = [e for events in Move.objects.filter(table=table).order_by("seq").values_list("events", flat=True)
              for e in events]
    assert level == "hard" and history == [engine.view_event(e, seat) for e in logged[: len(history)]]
    assert [e for e in history if e["type"] == "play"], "the plays before this decision are in it"
    assert not any("secret" in e or "secret_to" in e for e in history)
