"""What a President hard-bot decision costs (docs/bots.md): CPU seconds per decision of the hard
bot, on the decisions of one-hand 4-seat tables (easy, hard, easy, hard), with the table score
of a deciding hand (the bot as it is) and, as the baseline measured in the same run on the same
positions, the place score it used before (`_deciding` forced off). Pure engines, no Django:

    .venv/bin/python bench/bot_cost.py [tables, default 20]

Prints its figures; asserts nothing (tests never time anything).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.bots import president as bots  # noqa: E402
from games.engine import registry  # noqa: E402

SEED = 15_005


def positions(tables: int):
    """(view, history) of every hard decision with a choice, in `tables` one-hand tables."""
    engine = registry.get("president")
    found = []
    for t in range(tables):
        rng = random.Random(SEED + t)
        state = engine.new_game(players=4, options=engine.validate_options({"hands": 1}), seed=SEED + t)
        events: list[dict] = []
        while not engine.is_finished(state):
            seat = engine.to_act(state)[0]
            view = engine.view(state, seat)
            if seat % 2:
                history = [engine.view_event(e, seat) for e in events]
                if len(view["legal_moves"]) > 1:
                    found.append((view, history))
                move = bots.hard(view, rng, history=history)
            else:
                move = bots.easy(view, rng)
            state, new = engine.apply(state, seat, move)
            events.extend(new)
    return found


def cost(found, *, deciding: bool) -> list[float]:
    original = bots._deciding
    if not deciding:
        bots._deciding = lambda view: False
    try:
        spent = []
        for i, (view, history) in enumerate(found):
            rng = random.Random(i)
            started = time.process_time()
            bots.hard(view, rng, history=history)
            spent.append(time.process_time() - started)
        return spent
    finally:
        bots._deciding = original


def main() -> None:
    tables = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    found = positions(tables)
    print(f"President hard bot, {len(found)} decisions with a choice from {tables} one-hand 4-seat tables")
    print(f"{'score':28} {'mean s':>8} {'p95 s':>8} {'max s':>8}")
    for label, deciding in (("place (baseline, before)", False), ("table in a deciding hand", True)):
        spent = sorted(cost(found, deciding=deciding))
        p95 = spent[min(len(spent) - 1, int(0.95 * len(spent)))]
        print(f"{label:28} {statistics.mean(spent):8.3f} {p95:8.3f} {spent[-1]:8.3f}")


if __name__ == "__main__":
    main()
