"""Tables stored by older code still replay, read and play on: those of commit 23faf31, before
the engines moved behind the front door of docs/architecture.md (new state layouts, events
and checks). `verify_tables` must replay every table stored before a change.

The data file holds six tables that 23faf31's own services played with random legal moves: a
finished and an unfinished one per game, each as that code stored it (the Table row's fields,
the state in its old layout, the move log with the old events). A change to an engine's state
layout, its deal or its events that old tables cannot follow fails here."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from games.engine import registry
from games.models import Move, Seat, Table
from tests.services.helpers import pick

DATA = Path(__file__).with_name("data") / "tables_made_at_23faf31.json"
TABLES = json.loads(DATA.read_text())["tables"]
IDS = [f"{t['game']}-{t['seat_count']}-{t['status']}" for t in TABLES]


def load(stored: dict, users) -> Table:
    now = timezone.now()
    table = Table.objects.create(
        game=stored["game"], host=users[0], seat_count=stored["seat_count"], options=stored["options"],
        seed=stored["seed"], deck=stored["deck"], first_dealer=stored["first_dealer"], turn_timeout=0,
        status=stored["status"], state=stored["state"], version=stored["version"], move_count=stored["move_count"],
        started_at=now, finished_at=now if stored["status"] == Table.Status.FINISHED else None,
    )
    Seat.objects.bulk_create(Seat(table=table, index=i, user=users[i]) for i in range(stored["seat_count"]))
    Move.objects.bulk_create(
        Move(table=table, seq=m["seq"], seat=m["seat"], by=m["by"], move=m["move"], events=m["events"],
             seat_players=m["seat_players"], version=m["version"],
             user=None if m["seat"] is None else users[m["seat_players"][m["seat"]]])
        for m in stored["moves"]
    )
    return table


def verify(table: Table) -> str:
    out = io.StringIO()
    call_command("verify_tables", "--table", str(table.pk), stdout=out)
    return out.getvalue()


@pytest.mark.django_db
@pytest.mark.parametrize("stored", TABLES, ids=IDS)
def test_a_table_stored_before_issue_11_replays_reads_and_plays_on(make_user, stored):
    users = [make_user(staff=True)] + [make_user() for _ in range(stored["seat_count"] - 1)]
    table = load(stored, users)
    assert "1 table(s) checked, 0 differ(s)" in verify(table)
    engine = registry.get(table.game)
    players = engine.seat_players(table.state)
    for seat, player in enumerate(players):
        user = users[player]
        state = user.api.get(f"/api/v1/tables/{table.pk}/state")
        assert state.status_code == 200, state.content
        view = state.json()
        # Pitch's record of the hand before is public, and its cards are in new hands now.
        view["public"].pop("last_hand", None)
        shown = json.dumps(view)
        assert not [c for c in engine.secret_cards(table.state, seat) if f'"{c}"' in shown]
        assert '"seed"' not in shown
        log = user.api.get(f"/api/v1/tables/{table.pk}/moves?limit=500")
        assert log.status_code == 200, log.content
    # An unfinished one plays on to its end through today's API, and still replays.
    rng = random.Random(stored["seed"])
    for _ in range(5000):
        table.refresh_from_db()
        if table.status != Table.Status.ACTIVE:
            break
        seat = rng.choice(engine.to_act(table.state))
        user = users[engine.seat_players(table.state)[seat]]
        answer = user.api.post(
            f"/api/v1/tables/{table.pk}/moves", pick(engine.legal_moves(table.state, seat), rng), format="json"
        )
        assert answer.status_code == 200, answer.content
    assert table.status == Table.Status.FINISHED
    assert "1 table(s) checked, 0 differ(s)" in verify(table)
