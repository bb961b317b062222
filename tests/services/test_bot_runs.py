"""Bot runs (docs/performance.md, "Bot runs"): with `bot_delay` 0 one `bot_move` task plays a
table's consecutive bot turns until a human must act, each move still its own transaction under
the table lock with its version check, its commit and its log entry, and the run wakes the
table's waiters once, with its last move (not once a move); a run stops at its bound and queues
the rest; a stale or duplicate task plays nothing; with a delay every
bot move stays a task queued after its delay.

The tasks queued are counted by replacing `scheduling.queue_bot_move`, so no queued task runs
by itself here: the test runs the task (`tasks.bot_move`, Celery's eager loop as in the other
tests) or the service."""

import threading

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import notify, scheduling, tasks
from games.engine import registry
from games.models import Move, Table
from games.services import automation, moves
from tests.services.test_automation import start_table

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = registry.get("president")


@pytest.fixture
def queued(monkeypatch):
    """The bot tasks queued, as (table id, version, delay), none of them run; and no bound
    reached by accident on a slow machine unless a test sets one."""
    sent = []
    monkeypatch.setattr(scheduling, "queue_bot_move", lambda table_id, version, delay: sent.append(
        (str(table_id), version, delay)))
    monkeypatch.setattr(automation, "BOT_RUN_MOVES", 10_000)
    monkeypatch.setattr(automation, "BOT_RUN_SECONDS", 3600.0)
    return sent


@pytest.fixture
def woken(monkeypatch):
    """The wake-ups sent, as (table id, version)."""
    seen = []
    real = notify.table_changed

    def record(table_id, version=None, snapshot=None):
        seen.append((str(table_id), version))
        real(table_id, version, snapshot)

    monkeypatch.setattr(notify, "table_changed", record)
    return seen


@pytest.fixture
def searching(monkeypatch):
    """The bots decide as a search would: never under the table lock, so each move of a run is
    decided off the lock and applied in a transaction of its own (without this, the quick rules
    of random and easy bots are decided in the transaction of the move before: a chain)."""
    monkeypatch.setattr(automation.bots, "decides_at_once", lambda game, level: False)


def human_leads(make_user, **fields):
    """1 human (seat 0) and 3 bots; dealer 3, so the human leads (P-4.1) and the three bots
    follow: the human's first move leaves three bot turns in a row."""
    fields = {"options": {"hands": 1, "bot_delay": 0}, "turn_timeout": 0, **fields}
    table, users = start_table(make_user, n=4, bots=3, first_dealer=3, **fields)
    assert ENGINE.to_act(table.state) == [0]
    return table, users[0]


def human_moves(table, human):
    """The human's move; returns the table as it committed."""
    moves.move_submit(table_id=table.pk, user=human, move=ENGINE.legal_moves(table.state, 0)[0])
    return Table.objects.get(pk=table.pk)


def bot_log(table, after: int = 0):
    return list(Move.objects.filter(table=table, by=Move.By.BOT, version__gt=after).order_by("seq")
                .values_list("seq", "seat", "version"))


def a_human_must_act(table) -> bool:
    table.refresh_from_db()
    return table.status != Table.Status.ACTIVE or 0 in ENGINE.to_act(table.state)


def test_one_task_plays_every_bot_turn_after_the_human_each_with_its_own_version_and_entry(
        make_user, queued, woken):
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    # The human's move queued one task, for the version it made.
    assert queued == [(str(table.pk), table.version, 0.0)]
    woken.clear()
    tasks.bot_move(str(table.pk), table.version)
    logged = bot_log(table, after=table.version)
    assert len(logged) >= 3, "the three bots following the human's lead"
    assert [seat for _, seat, _ in logged[:3]] == [1, 2, 3]
    # One version and one log entry per bot move, in order, none skipped; one wake-up for the
    # run, with its last version (a waiter reads the latest state, whoever woke it).
    versions = [v for _, _, v in logged]
    assert versions == list(range(table.version + 1, table.version + 1 + len(logged)))
    assert [seq for seq, _, _ in logged] == list(range(logged[0][0], logged[0][0] + len(logged)))
    assert [v for t, v in woken if t == str(table.pk)] == [versions[-1]]
    # ... by that one task: nothing else was queued, and it stopped where the human must act.
    assert queued == [(str(table.pk), table.version, 0.0)]
    assert a_human_must_act(table) and table.version == versions[-1]


def test_a_run_stops_at_its_move_bound_and_queues_the_rest_as_a_new_task(make_user, queued, woken, monkeypatch):
    monkeypatch.setattr(automation, "BOT_RUN_MOVES", 2)
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    queued.clear()
    woken.clear()
    assert automation.table_bot_run(table_id=table.pk, version=table.version) == 2
    assert [seat for _, seat, _ in bot_log(table)] == [1, 2]
    # A bot acts next, yet the run ends: its waiters learn of its two moves now, not later.
    assert woken == [(str(table.pk), table.version + 2)]
    assert queued == [(str(table.pk), table.version + 2, 0)], "the third bot's turn, as a task of its own"
    queued.clear()
    # That task plays on from there: seat 3, and whatever bot turns follow, up to its own bound.
    assert automation.table_bot_run(table_id=table.pk, version=table.version + 2) >= 1
    assert [seat for _, seat, _ in bot_log(table)][:3] == [1, 2, 3]


def test_a_run_stops_at_its_time_bound_and_queues_the_rest(make_user, queued, monkeypatch):
    monkeypatch.setattr(automation, "BOT_RUN_SECONDS", 0.0)
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    queued.clear()
    assert automation.table_bot_run(table_id=table.pk, version=table.version) == 1
    assert queued == [(str(table.pk), table.version + 1, 0)]


def test_a_duplicate_or_late_task_plays_nothing(make_user, queued):
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    tasks.bot_move(str(table.pk), table.version)
    after = Table.objects.get(pk=table.pk)
    logged = bot_log(table)
    queued.clear()
    # The same task delivered again (a redelivery, a duplicate), and a task of each version
    # the run played through: the table has moved on from all of them.
    for version in range(table.version, after.version):
        tasks.bot_move(str(table.pk), version)
        assert automation.table_bot_run(table_id=table.pk, version=version) == 0
    assert bot_log(table) == logged and Table.objects.get(pk=table.pk).version == after.version
    assert queued == []


def test_a_duplicate_running_beside_the_run_leaves_one_move_per_version(make_user, queued, searching, monkeypatch):
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    decisions = []
    real = automation.bots.choose_move

    def choose(game, level, view, rng, history=None):
        decisions.append(view["you"]["seat"])
        if len(decisions) == 2:
            # While the run's second bot thinks, a duplicate of the task (the version the run
            # started from) runs to the end in another worker: it plays nothing.
            assert automation.table_bot_run(table_id=table.pk, version=table.version) == 0
        return real(game, level, view, rng, history=history)

    monkeypatch.setattr(automation.bots, "choose_move", choose)
    tasks.bot_move(str(table.pk), table.version)
    logged = bot_log(table)
    assert [v for _, _, v in logged] == list(range(table.version + 1, table.version + 1 + len(logged)))
    assert len(logged) == len(decisions) and a_human_must_act(table)


def test_another_requests_change_during_the_run_queues_its_own_task_which_then_plays_nothing(
        make_user, queued, searching, monkeypatch):
    from django.db import transaction

    from games.services.common import bump, lock_table

    table, human = human_leads(make_user)
    table = human_moves(table, human)
    queued.clear()
    decisions = []
    real = automation.bots.choose_move

    def choose(game, level, view, rng, history=None):
        decisions.append(view["you"]["seat"])
        if len(decisions) == 2:
            # Another request changes the table while the run's second bot thinks (as a player
            # coming back would), in a thread of its own: that change queues the bot turn it
            # leaves, as always.
            other = threading.Thread(target=another_request)
            other.start()
            other.join()
        return real(game, level, view, rng, history=history)

    def another_request():
        try:
            with transaction.atomic():
                bump(lock_table(table.pk), update_fields=[])
        finally:
            connection.close()

    monkeypatch.setattr(automation.bots, "choose_move", choose)
    played = automation.table_bot_run(table_id=table.pk, version=table.version)
    logged = bot_log(table)
    # The run's second decision was stale: the step decides again on the table as it is now
    # (as a lone bot step does) and the run plays on; every move has its own version.
    assert played == len(logged) >= 3
    versions = [v for _, _, v in logged]
    assert versions[0] == table.version + 1 and versions[1] == table.version + 3
    assert versions[1:] == list(range(versions[1], versions[1] + len(versions) - 1))
    assert queued == [(str(table.pk), table.version + 2, 0.0)], "the other change's follow-up"
    # ... which, when its task runs, finds the table moved on and plays nothing.
    assert automation.table_bot_run(table_id=table.pk, version=table.version + 2) == 0


def test_with_a_bot_delay_each_bot_move_is_a_task_queued_after_its_delay(make_user, queued, woken):
    table, human = human_leads(make_user, options={"hands": 1, "bot_delay": 0.5})
    table = human_moves(table, human)
    assert queued == [(str(table.pk), table.version, 0.5)]
    for n in range(1, 4):
        version = queued[-1][1]
        woken.clear()
        tasks.bot_move(str(table.pk), version)
        assert len(bot_log(table)) == n, "one move per task"
        assert queued[-1] == (str(table.pk), version + 1, 0.5) or a_human_must_act(table)
        # Each delayed move is seen when it is made, not held back.
        assert woken == [(str(table.pk), version + 1)]
    assert [seat for _, seat, _ in bot_log(table)][:3] == [1, 2, 3]


def test_the_deadline_of_a_decision_only_bots_have_is_not_queued_inside_a_run(make_user, queued, monkeypatch):
    deadlines = []
    monkeypatch.setattr(scheduling, "queue_deadline", lambda table_id, version, deadline: deadlines.append(version))
    monkeypatch.setattr(scheduling, "queue_timeout_warning", lambda *args: None)
    table, human = human_leads(make_user, turn_timeout=30)
    table = human_moves(table, human)
    deadlines.clear()
    tasks.bot_move(str(table.pk), table.version)
    table.refresh_from_db()
    assert a_human_must_act(table) and table.deadline is not None
    # The bots' own decisions are played at once (the sweep enforces a stored deadline should
    # the run die); the human's decision the run stopped at has its deadline task.
    assert deadlines == [table.version]


def reads(captured, table_name: str) -> list[str]:
    return [q["sql"] for q in captured.captured_queries
            if q["sql"].startswith("SELECT") and f'FROM "{table_name}"' in q["sql"]]


def test_the_run_decides_on_what_its_last_move_committed_and_reads_the_table_once(make_user, queued, searching):
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    with CaptureQueriesContext(connection) as captured:
        played = automation.table_bot_run(table_id=table.pk, version=table.version)
    # The task first locks the table to see whether its bot decides quickly (it does not:
    # nothing written); the first decision reads the table and its seats; each move then locks
    # the table and reads its seats once; the later decisions read nothing.
    assert played >= 3
    assert len(reads(captured, "games_table")) == 2 + played
    assert len(reads(captured, "games_seat")) == 2 + played


def test_quick_bots_that_follow_each_other_play_in_one_transaction_each_move_its_own_version(
        make_user, queued, woken):
    """Random and easy bots decide by a quick rule: after the first bot's move, the run decides
    the next under the same lock and applies it in the same transaction (a chain), each move
    still its own engine step, version, log entry and change."""
    table, human = human_leads(make_user, level="random")
    table = human_moves(table, human)
    woken.clear()
    with CaptureQueriesContext(connection) as captured:
        played = automation.table_bot_run(table_id=table.pk, version=table.version)
    logged = bot_log(table)
    assert played == len(logged) >= 3 and [seat for _, seat, _ in logged[:3]] == [1, 2, 3]
    assert [v for _, _, v in logged] == list(range(table.version + 1, table.version + 1 + played))
    # Nothing read before the lock: one lock (with its seats), the table's row written once
    # (its last state and version), the log's rows in one INSERT, the human's `your_turn` in
    # the account stream's outbox (the bots' turns are nobody's news), one wake-up; no task
    # queued.
    writes = [q["sql"] for q in captured.captured_queries if q["sql"].startswith(("UPDATE", "INSERT"))]
    events = [sql for sql in writes if sql.startswith('INSERT INTO "games_accountevent"')]
    writes = [sql for sql in writes if sql not in events]
    assert len(reads(captured, "games_table")) == 1
    assert len(reads(captured, "games_seat")) == 1
    assert len(writes) == 2 and len(events) == 1
    assert writes[0].startswith('UPDATE "games_table"') and writes[1].startswith('INSERT INTO "games_move"')
    assert woken == [(str(table.pk), logged[-1][2])]
    assert queued == [(str(table.pk), table.version, 0.0)]  # the human's, before the run
    assert a_human_must_act(table)


def test_a_search_is_never_made_under_the_lock_the_chain_stops_before_it(make_user, queued, monkeypatch):
    """Seats 1 and 3 easy, seat 2 hard: the run plays seat 1 (decided under the lock), stops its
    chain at the hard bot, decides that one off the lock and applies it in a transaction of its
    own, and chains seat 3's easy move after it."""
    from games.services import tables

    users = [make_user(staff=True)]
    table = tables.table_create(user=users[0], game="president", seats=4, seed=4242, first_dealer=3,
                                options={"hands": 1, "bot_delay": 0}, turn_timeout=0)
    for level in ("easy", "hard", "easy"):
        automation.table_add_bot(table_id=table.pk, user=users[0], level=level)
    tables.table_start(table_id=table.pk, user=users[0])
    table = human_moves(Table.objects.get(pk=table.pk), users[0])
    decided = []
    real = automation.bots.choose_move

    def choose(game, level, view, rng, history=None):
        decided.append((view["you"]["seat"], level, connection.in_atomic_block))
        return real(game, level, view, rng, history=history)

    monkeypatch.setattr(automation.bots, "choose_move", choose)
    with CaptureQueriesContext(connection) as captured:
        played = automation.table_bot_run(table_id=table.pk, version=table.version)
    assert played >= 3
    assert decided[:3] == [(1, "easy", True), (2, "hard", False), (3, "easy", True)]
    assert all(not locked for _, level, locked in decided if level == "hard")
    # Two transactions (each lock reads the seats once): seat 1's chain; seat 2's move and
    # seat 3's chained after it. The hard decision between them read nothing: it had the table
    # as the first transaction left it.
    assert len(reads(captured, "games_seat")) == 2


def test_a_bot_that_remembers_gets_the_whole_log_at_every_decision_of_a_run(make_user, queued, monkeypatch):
    histories = []
    real = automation.bots.choose_move
    engine = ENGINE

    def choose(game, level, view, rng, history=None):
        seat = view["you"]["seat"]
        logged = [e for events in Move.objects.filter(table_id=table_id[0]).order_by("seq")
                  .values_list("events", flat=True) for e in events]
        histories.append((history, [engine.view_event(e, seat) for e in logged]))
        return real(game, level, view, rng, history=history)

    table_id = [None]
    table, human = human_leads(make_user, level="hard")
    table_id[0] = table.pk
    table = human_moves(table, human)
    monkeypatch.setattr(automation.bots, "choose_move", choose)
    assert automation.table_bot_run(table_id=table.pk, version=table.version) >= 3
    assert len(histories) >= 3
    for history, expected in histories:
        assert history == expected


@pytest.mark.parametrize("decide", ["searching", "quick"])
def test_a_run_that_dies_midway_leaves_the_table_to_the_sweep(make_user, queued, monkeypatch, request, decide):
    from datetime import timedelta

    from django.utils import timezone

    if decide == "searching":
        request.getfixturevalue("searching")
    table, human = human_leads(make_user)
    table = human_moves(table, human)
    queued.clear()
    real = automation.bots.choose_move
    decisions = []

    def dies_at_the_second(game, level, view, rng, history=None):
        decisions.append(view["you"]["seat"])
        if len(decisions) == 2:
            raise SystemExit("the worker dies")
        return real(game, level, view, rng, history=history)

    monkeypatch.setattr(automation.bots, "choose_move", dies_at_the_second)
    with pytest.raises(SystemExit):
        tasks.bot_move(str(table.pk), table.version)
    # Decided off the lock, the first move committed on its own; decided in a chain, the second
    # died inside the first's transaction, which rolled back whole. Either way the turn left
    # was the run's, so no task carries it: the table says a bot is waiting, and the sweep
    # moves it once the table has waited long enough.
    before = [seat for _, seat, _ in bot_log(table)]
    assert before == ([1] if decide == "searching" else [])
    assert queued == []
    assert Table.objects.get(pk=table.pk).bot_pending
    monkeypatch.setattr(automation.bots, "choose_move", real)
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - timedelta(minutes=1))
    assert tasks.sweep() >= 1
    # The sweep moves the waiting bot: the next seat in turn.
    assert [seat for _, seat, _ in bot_log(table)][:len(before) + 1] == [1, 2][:len(before) + 1]
