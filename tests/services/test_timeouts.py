"""The timeout move of every decision type, applied by the server at the deadline
(api.md: time, bots and absence; P-3.3, P-4.8, A-3.5, A-4.5, L-3.3, L-11.1, L-12.2, L-12.4)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from games.engine import registry
from games.models import Move, Table
from games.services import automation, moves, tables


def started(make_user, game, n, options):
    users = [make_user() for _ in range(n)]
    table = tables.table_create(user=users[0], game=game, seats=n, options=options, turn_timeout=30)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    return Table.objects.get(pk=table.pk), users


def time_out(table) -> None:
    """One deadline passes: the server applies each waiting seat's timeout move."""
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert automation.table_enforce_deadline(table_id=table.pk)
    table.refresh_from_db()


def server_moves(table) -> list[dict]:
    return [m.move for m in Move.objects.filter(table=table, by=Move.By.SERVER).order_by("seq")]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game, n, options, expected",
    [
        ("president", 4, {"hands": 2}, {"play", "pass", "give"}),
        ("pitch", 3, {}, {"bid", "play"}),
        ("lopti", 2, {"rounds": 0}, {"keep", "play", "take_pile", "decline_rule"}),
    ],
)
def test_every_decision_times_out_to_the_games_timeout_move(make_user, game, n, options, expected):
    table, _ = started(make_user, game, n, options)
    engine = registry.get(game)
    for _ in range(600):
        if table.status != Table.Status.ACTIVE or expected <= {m["type"] for m in server_moves(table)}:
            break
        before = table.state
        waiting = engine.to_act(before)
        time_out(table)
        first = Move.objects.filter(table=table).order_by("-seq")[len(waiting) - 1]
        # The first seat's move is exactly the engine's timeout move for that decision.
        assert first.move == engine.timeout_move(before, waiting[0])
    assert expected <= {m["type"] for m in server_moves(table)}


@pytest.mark.django_db
def test_ballots_time_out_as_abstentions_and_duel_throws_at_random(make_user):
    table, users = started(make_user, "lopti", 2, {"face_up_count": 0})
    moves.move_submit(table_id=table.pk, user=users[0],
                      move={"type": "propose_vote", "kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"})
    table.refresh_from_db()
    # The other member does not vote: an abstention, which is not a formal no (L-12.3).
    time_out(table)
    assert server_moves(table)[-1]["type"] == "abstain"
    vote = registry.get("lopti").view(table.state, None)["public"]["vote"]
    # One yes of two members is a tie (L-12.2); with nobody voting no it passes (L-12.3).
    assert vote["tally"]["yes"] == 1 and vote["status"] == "passed"

    # A tie that goes to a duel: a fresh round's vote with an explicit no.
    table2, users2 = started(make_user, "lopti", 2, {"face_up_count": 0})
    moves.move_submit(table_id=table2.pk, user=users2[0],
                      move={"type": "propose_vote", "kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"})
    table2.refresh_from_db()
    vote_id = registry.get("lopti").view(table2.state, None)["public"]["vote"]["id"]
    moves.move_submit(table_id=table2.pk, user=users2[1], move={"type": "ballot", "vote_id": vote_id, "yes": False})
    table2.refresh_from_db()
    assert registry.get("lopti").view(table2.state, None)["public"]["pause"] == "duel"
    time_out(table2)
    throws = [m for m in server_moves(table2) if m["type"] == "throw"]
    assert len(throws) == 2 and {t["throw"] for t in throws} <= {"rock", "paper", "scissors"}
