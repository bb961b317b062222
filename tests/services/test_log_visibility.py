"""P-8: in the exchange only the two players involved see the cards, in the move log too,
after `by_rank` seating has moved players between seats (the log is shown for the viewer's
seat at the time of each move)."""

import random

import pytest

from games import selectors
from games.engine import registry
from games.models import Table
from games.services import moves, tables
from tests.services.helpers import pick


@pytest.mark.django_db
def test_exchange_cards_in_the_log_are_seen_only_by_the_two_players_involved(make_user):
    users = [make_user(staff=True)] + [make_user() for _ in range(3)]
    table = tables.table_create(user=users[0], game="president", seats=4, seed=78,
                                options={"hands": 2, "seating": "by_rank", "exchange": "one"})
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    engine = registry.get("president")
    rng = random.Random(5)
    table.refresh_from_db()
    while table.state["phase"] != "exchange":
        seat = engine.to_act(table.state)[0]
        moves.move_submit(table_id=table.pk, user=users[engine.seat_players(table.state)[seat]],
                          move=pick(engine.legal_moves(table.state, seat), rng))
        table.refresh_from_db()
    # The point of the test: players have changed seats since they joined.
    assert engine.seat_players(table.state) != [0, 1, 2, 3]
    president = engine.to_act(table.state)[0]
    moves.move_submit(table_id=table.pk, user=users[engine.seat_players(table.state)[president]],
                      move=engine.legal_moves(table.state, president)[0])
    table = Table.objects.get(pk=table.pk)
    mapping = engine.seat_players(table.state)
    gives = None
    for player, user in enumerate(users):
        seat = mapping.index(player)
        log = selectors.move_log(table, user)
        shown = [e for entry in log for e in entry["events"] if e["type"] == "give"]
        assert len(shown) == 2  # the Scum's automatic card and the President's card
        involved = {shown[0]["from"], shown[0]["to"]}
        sees = all("cards" in e for e in shown)
        assert sees == (seat in involved), (seat, involved)
        move_entry = next(entry for entry in log if entry["type"] == "give")
        assert ("cards" in move_entry) == (seat in involved)
        gives = involved
    assert gives is not None and len(gives) == 2
