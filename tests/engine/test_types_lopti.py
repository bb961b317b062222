"""Lopti's typed contract where no random walk goes (tests/engine/types_walk_lopti.py, RARE):
champions and their knockout (L-12.3) are called only when a tied rule's author no longer sits
at the table, a state no move makes, so it is built by hand as in test_lopti_votes.py; every
view, legal move, event and log entry on the way is validated as test_types.py does."""

from __future__ import annotations

import datetime as dt
import random
import uuid

import pytest

from games import selectors
from games.engine import registry

from .test_lopti_house_rules import rule, with_rules
from .test_types import Validators, components, platform_seats, strict  # noqa: F401 (components: the fixture)

pytestmark = pytest.mark.django_db
AT = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@pytest.mark.parametrize("forward", [(), (2,), (3, 2)])
def test_champions_and_knockouts_match_the_schema(forward, components):  # noqa: F811
    """No champion (the tie passes), one (a duel with the proposer) or two (a knockout first)."""
    seed = len(forward)
    game = registry.get("lopti")
    check = Validators(strict(components)).check
    rng = random.Random(seed)
    players = 4
    st = game.new_game(players=players, options={}, seed=seed)
    # the author's seat (4) is not at this 4-seat table: a tie calls champions (L-12.3)
    st = with_rules(st, rule("play"), author=players)
    seats = platform_seats(players, rng)
    base = {"table": str(uuid.UUID(int=seed)), "game": "lopti", "status": "active", "deadline": None}
    ballots = [(0, {"type": "propose_vote", "kind": "remove", "rule_id": 1, "applies": rng.choice(["now", "next_round"])}),
               (1, {"type": "ballot", "vote_id": 1, "yes": True}),
               (2, {"type": "ballot", "vote_id": 1, "yes": False}),
               (3, {"type": "ballot", "vote_id": 1, "yes": False})]
    seen = set()
    for version in range(1, 400):
        for viewer in [*range(players), None]:
            shown = selectors.started_state({**base, "version": version}, [dict(s) for s in seats], game.view(st, viewer),
                                            active=True)
            check("LoptiState", shown, f"view of seat {viewer}")
            for move in shown["legal_moves"]:
                check("LoptiLegalMove", move, "legal move")
        if ballots:
            seat, move = ballots.pop(0)
        elif st["open_vote"]:
            seat = rng.choice(game.to_act(st))
            move = rng.choice(game.legal_moves(st, seat))
            if move["type"] in ("champion", "no_champion"):
                move = {"type": "champion" if seat in forward else "no_champion", "vote_id": 1}
        else:
            break
        result = game.apply(st, seat, move)
        for viewer in [*range(players), None]:
            for event in result.events:
                check("LoptiEvent", game.view_event(event, viewer), f"event seen by {viewer}")
                seen.add(event["type"])
            entry = selectors.log_entry(game, move=move, mover=seat, events=result.events, viewer=viewer, seq=version,
                                        by="player", version=version, at=AT, state=result.state)
            entry["at"] = AT.isoformat()
            check("LoptiLogEntry", entry, f"log entry seen by {viewer}")
        st = result.state
    assert {"champion_call", "champion", "vote_closed"} <= seen
    kinds = {d["kind"] for d in st["duels"]}
    assert kinds == {(): set(), (2,): {"duel"}, (3, 2): {"knockout", "duel"}}[forward]
