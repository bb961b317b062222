"""Random tables played through the service layer: every game, every step through
`move_submit`, then `verify_tables` replays each log and finds no difference; and it does
find one when a stored state is tampered with."""

import io
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine import registry
from games.models import Move, Seat, Table
from games.services import moves, tables
from tests.services.helpers import pick

GAMES = [
    ("president", 4, {"hands": 2, "seating": "by_rank", "exchange": "two"}),
    ("president", 5, {"hands": 2, "revolution": True, "equal_rank_beats": True}),
    ("president", 7, {"hands": 1, "jokers": True, "clear_threes": True}),
    ("pitch", 3, {"target_score": 7}),
    ("pitch", 5, {"low_to": "dealt"}),
    ("lopti", 2, {"rounds": 2}),
    ("lopti", 4, {"rounds": 1, "draw_rule": "refill"}),
]


def play_randomly(table: Table, rng: random.Random, max_steps: int = 5000) -> int:
    engine = registry.get(table.game)
    users = {row.index: row.user for row in Seat.objects.filter(table=table).select_related("user")}
    steps = 0
    while steps < max_steps:
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            return steps
        seat = rng.choice(engine.to_act(table.state))
        player = engine.seat_players(table.state)[seat]
        move = pick(engine.legal_moves(table.state, seat), rng)
        moves.move_submit(table_id=table.pk, user=users[player], move=move)
        steps += 1
    raise AssertionError(f"{table.game} did not finish in {max_steps} moves")


@pytest.mark.django_db
@pytest.mark.parametrize("game, n, options", GAMES, ids=[f"{g}-{n}" for g, n, _ in GAMES])
def test_random_tables_replay_exactly(make_user, game, n, options):
    rng = random.Random(f"{game}-{n}")
    users = [make_user(staff=True)] + [make_user() for _ in range(n - 1)]
    for number in range(3):
        # Fixed seeds: the same deals on every run, so a failure reproduces.
        table = tables.table_create(user=users[0], game=game, seats=n, options=options, seed=1000 * n + number)
        for user in users[1:]:
            tables.table_join(table_id=table.pk, user=user)
        tables.table_start(table_id=table.pk, user=users[0])
        steps = play_randomly(table, rng)
        table.refresh_from_db()
        assert table.status == Table.Status.FINISHED
        assert table.move_count == steps == Move.objects.filter(table=table).count()
        assert table.version >= steps
    out = io.StringIO()
    call_command("verify_tables", stdout=out)
    assert "3 table(s) checked, 0 differ(s)" in out.getvalue()


@pytest.mark.django_db
def test_verify_tables_reports_a_tampered_table_and_exits_non_zero(make_user):
    rng = random.Random(1)
    users = [make_user() for _ in range(4)]
    table = tables.table_create(user=users[0], game="president", seats=4, options={"hands": 1})
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    engine = registry.get("president")
    for _ in range(5):
        table.refresh_from_db()
        seat = engine.to_act(table.state)[0]
        moves.move_submit(table_id=table.pk, user=users[engine.seat_players(table.state)[seat]],
                          move=rng.choice(engine.legal_moves(table.state, seat)))
    clean = io.StringIO()
    call_command("verify_tables", stdout=clean)
    assert "0 differ(s)" in clean.getvalue()
    table.refresh_from_db()
    state = table.state
    state["hands"][0], state["hands"][1] = state["hands"][1], state["hands"][0]
    Table.objects.filter(pk=table.pk).update(state=state)
    out = io.StringIO()
    with pytest.raises(CommandError) as excinfo:
        call_command("verify_tables", stdout=out)
    assert excinfo.value.returncode == 1
    assert f"DIFFERS {table.pk}" in out.getvalue() and "hands" in out.getvalue()
    Move.objects.filter(table=table, seq=2).delete()
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_tables", stdout=out)
    assert f"DIFFERS {table.pk}" in out.getvalue()
