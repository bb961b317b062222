"""api.md, Time, bots and absence: timeout moves at deadlines, away after two timeouts in a
row, bots for bot seats, absent and departed players (Celery eager mode here; the real
worker is exercised in tests/integration)."""

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from games import tasks
from games.engine import registry
from games.models import Move, Seat, Table
from games.services import automation, moves, tables
from tests.services.helpers import pick

# Bot and deadline tasks are queued on commit, so these tests commit for real.
pytestmark = pytest.mark.django_db(transaction=True)


def start_table(make_user, game="president", n=4, bots=0, level="easy", **fields):
    users = [make_user(staff=True)] + [make_user() for _ in range(n - 1 - bots)]
    # A fixed seed unless the test names one: the same deals on every run.
    table = tables.table_create(user=users[0], game=game, seats=n, **{"seed": 4242, **fields})
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    for _ in range(bots):
        automation.table_add_bot(table_id=table.pk, user=users[0], level=level)
    tables.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    return table, users


def overdue(table):
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    table.refresh_from_db()


def seat_row(table, user):
    return Seat.objects.get(table=table, user=user)


def test_a_deadline_applies_the_timeout_move_as_a_server_move(make_user):
    # Dealer 3: seat 0 leads; P-4.8's timeout move for a leader is the single lowest card.
    table, users = start_table(make_user, first_dealer=3, turn_timeout=30)
    assert table.deadline is not None
    engine = registry.get("president")
    lowest = engine.timeout_move(table.state, 0)
    assert not automation.table_enforce_deadline(table_id=table.pk, version=table.version)
    overdue(table)
    assert not automation.table_enforce_deadline(table_id=table.pk, version=table.version - 1)
    assert automation.table_enforce_deadline(table_id=table.pk, version=table.version)
    record = Move.objects.get(table=table, seq=1)
    assert (record.by, record.seat, record.move) == ("server", 0, lowest)
    assert seat_row(table, users[0]).timeouts_in_row == 1


def test_two_timeouts_in_a_row_mark_away_then_a_bot_plays_until_back(make_user):
    table, users = start_table(make_user, first_dealer=3, turn_timeout=30)
    engine = registry.get("president")
    # Every human times out until seat 0 has missed two decisions in a row.
    while seat_row(table, users[0]).timeouts_in_row < 2:
        overdue(table)
        tasks.sweep()
        table.refresh_from_db()
    row = seat_row(table, users[0])
    assert row.away
    # While away, a bot moves for seat 0 whenever it must act (eager bot task).
    for _ in range(200):
        table.refresh_from_db()
        if 0 in engine.to_act(table.state) or table.status != Table.Status.ACTIVE:
            break
        seat = engine.to_act(table.state)[0]
        player = users[engine.seat_players(table.state)[seat]]
        moves.move_submit(table_id=table.pk, user=player, move=engine.legal_moves(table.state, seat)[0])
    assert 0 not in engine.to_act(table.state) or table.status != Table.Status.ACTIVE
    assert Move.objects.filter(table=table, by=Move.By.BOT, seat=0).exists()
    automation.table_back(table_id=table.pk, user=users[0])
    row.refresh_from_db()
    assert not row.away and row.timeouts_in_row == 0
    with pytest.raises(Exception) as excinfo:
        automation.table_back(table_id=table.pk, user=users[0])
    assert excinfo.value.code == "conflict"


def test_a_move_by_an_away_player_brings_them_back(make_user):
    table, users = start_table(make_user, first_dealer=3, turn_timeout=0)
    # Marked away without a change of version, so no bot has been queued yet.
    Seat.objects.filter(table=table, user=users[0]).update(away=True, timeouts_in_row=2)
    engine = registry.get("president")
    moves.move_submit(table_id=table.pk, user=users[0], move=engine.legal_moves(table.state, 0)[0])
    row = seat_row(table, users[0])
    assert not row.away and row.timeouts_in_row == 0
    assert Move.objects.get(table=table, seq=1).by == Move.By.PLAYER


def test_reading_the_state_enforces_an_overdue_deadline(make_user):
    table, users = start_table(make_user, first_dealer=3, turn_timeout=30)
    overdue(table)
    r = users[1].api.get(f"/api/v1/tables/{table.pk}/state")
    assert r.status_code == 200 and r.json()["turn"] == 1
    assert Move.objects.get(table=table, seq=1).by == Move.By.SERVER


# Pitch with random bidders can run for hundreds of hands (a random pitcher is set back
# most of the time), so the random level is exercised on the other two games here.
WHOLE_GAMES = [
    (game, n, options, level)
    for game, n, options in [("president", 4, {"hands": 2}), ("pitch", 3, {}), ("lopti", 3, {"rounds": 1})]
    for level in ("random", "easy", "hard")
    if (game, level) != ("pitch", "random")
]


@pytest.mark.parametrize("game, n, options, level", WHOLE_GAMES, ids=[f"{g}-{lv}" for g, _, _, lv in WHOLE_GAMES])
def test_one_human_and_bots_play_a_whole_game(make_user, game, n, options, level):
    table, users = start_table(make_user, game=game, n=n, bots=n - 1, level=level, options=options, turn_timeout=0)
    engine = registry.get(game)
    rng = random.Random(7)
    for _ in range(6000):
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        acting = engine.to_act(table.state)
        assert acting == [0] or 0 in acting, "only the human's decisions are left to the human"
        moves.move_submit(table_id=table.pk, user=users[0], move=pick(engine.legal_moves(table.state, 0), rng))
    assert table.status == Table.Status.FINISHED
    assert Move.objects.filter(table=table, by=Move.By.BOT).count() > 0


def test_a_player_who_leaves_a_started_table_is_replaced_by_a_bot(make_user):
    table, users = start_table(make_user, n=4, bots=3, options={"hands": 1}, turn_timeout=0)
    tables.table_leave(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert not Move.objects.filter(table=table, by=Move.By.PLAYER).exists()


def test_sweep_moves_a_bot_whose_task_was_lost(make_user, settings):
    table, users = start_table(make_user, n=4, bots=3, options={"hands": 1}, turn_timeout=0, first_dealer=0)
    # Dealer 0: seat 1, a bot, leads, and eager mode already played the bots to seat 0.
    engine = registry.get("president")
    assert engine.to_act(table.state) == [0]
    Seat.objects.filter(table=table, user=users[0]).update(away=True)
    Table.objects.filter(pk=table.pk).update(bot_pending=True, updated_at=timezone.now() - timedelta(minutes=1))
    assert tasks.sweep() >= 1
    table.refresh_from_db()
    assert Move.objects.filter(table=table, by=Move.By.BOT, seat=0).exists()


def test_bots_endpoint_rules(make_user):
    host, other = make_user(), make_user()
    table_id = host.api.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json").json()["id"]
    url = f"/api/v1/tables/{table_id}/bots"
    assert other.api.post(url, {"level": "easy"}, format="json").json()["code"] == "forbidden"
    bad = host.api.post(url, {"level": "genius"}, format="json")
    assert bad.status_code == 400 and "level" in bad.json()["detail"]["fields"]
    r = host.api.post(url, {"level": "hard", "seat": 2}, format="json")
    assert r.status_code == 200 and r.json()["seats"][2]["is_bot"] is True
    assert host.api.post(url, {"level": "easy", "seat": 2}, format="json").json()["code"] == "conflict"
    assert host.api.post(url, {"level": "random"}, format="json").status_code == 200
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    assert host.api.post(url, {"level": "easy"}, format="json").json()["code"] == "conflict"
