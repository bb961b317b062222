"""What fair deals cost (docs/fair-deals.md): the engines' time per move with the fair shuffle
(shuffle 1: a deal's secret, commitment and recorded hands) against the old generator (shuffle 0)
as the baseline, measured in the same run on the same random games; then the time to verify an
export (games/engine/replay.py) per move replayed. Pure engines, no Django:

    .venv/bin/python bench/fair_deals.py [games per configuration, default 20]

Prints its figures; asserts nothing (tests never time anything).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import fairness, registry, replay  # noqa: E402
from tests.services.helpers import pick  # noqa: E402

CONFIGS = [("president", 5, {"hands": 3}), ("pitch", 4, {"target_score": 7}), ("lopti", 3, {"rounds": 3})]
SEED = 2**62 + 1


def play(game, n, options, seed, shuffle):
    """A random game's moves, and the time spent in `apply` (the pick excluded)."""
    rng = random.Random(seed)
    opts = game.validate_table_options(options, players=n)
    started = time.perf_counter()
    state = game.new_game(players=n, options=opts, seed=seed, shuffle=shuffle)
    spent = time.perf_counter() - started
    moves = []
    while not game.is_over(state) and len(moves) < 5000:
        seat = rng.choice(game.to_act(state))
        move = pick(game.legal_moves(state, seat), rng)
        started = time.perf_counter()
        result = game.apply(state, seat, move)
        spent += time.perf_counter() - started
        moves.append((seat, move, result.events))
        state = result.state
    return state, moves, spent


def document(game, n, options, seed, moves):
    """A minimal export of a game played from `seed` (the service's has more metadata)."""
    opts = game.validate_table_options(options, players=n)
    first = game.new_game(players=n, options=opts, seed=seed)
    final, deals = replay.export_deals(game, first, [(s, m) for s, m, _ in moves], seed=seed, deck=None,
                                       first_dealer_fixed=False)
    return {
        "format": replay.FORMAT, "game": game.slug, "seats": n, "options": opts, "shuffle": fairness.VERSION,
        "first_dealer": first["dealer"], "first_dealer_fixed": False, "aborted": False, "deals": deals,
        "moves": [{"seq": i + 1, "seat": s, "move": m, "events": replay.public_events(game, e)}
                  for i, (s, m, e) in enumerate(moves)],
        "scores": game.scores(final), "winners": list(game.winners(final)),
    }


def main(games: int) -> None:
    print(f"{games} random games per configuration; microseconds per move (apply only)")
    print(f"{'game':<10} {'moves':>7} {'shuffle 0 (baseline)':>21} {'shuffle 1':>10} {'ratio':>6} {'verify':>8}")
    for slug, n, options in CONFIGS:
        game = registry.get(slug)
        total = {0: [0, 0.0], 1: [0, 0.0]}
        verify_time = verify_moves = 0.0
        for g in range(games):
            for shuffle in (0, 1):
                _, moves, spent = play(game, n, options, SEED + g, shuffle)
                total[shuffle][0] += len(moves)
                total[shuffle][1] += spent
                if shuffle == 1:
                    doc = document(game, n, options, SEED + g, moves)
                    started = time.perf_counter()
                    outcome = replay.verify(doc)
                    verify_time += time.perf_counter() - started
                    verify_moves += len(moves)
                    assert outcome["valid"], outcome
        per = {s: 1e6 * t / max(1, m) for s, (m, t) in total.items()}
        print(f"{slug:<10} {total[1][0]:>7} {per[0]:>21.1f} {per[1]:>10.1f} {per[1] / per[0]:>6.2f} "
              f"{1e6 * verify_time / max(1, verify_moves):>8.1f}")
    print("verify: microseconds per move to check an export (commitments, deals, replay, events, scores)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
