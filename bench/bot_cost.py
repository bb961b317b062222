"""What a bot decision costs (docs/bots.md, "What a decision costs"): CPU seconds
(`time.process_time`) per decision of every level in every game, and the engine's own cost per
move beside them. Pure engines, no Django:

    .venv/bin/python bench/bot_cost.py [--games president,pitch,partnerships,lopti] [--tables N]
                                       [--before REV]

`--before REV` first runs this benchmark on the code of the git revision REV (exported to a
temporary folder, this script copied over its own, with this run's options), so that one run
prints the figures of both (docs/bots.md: `1097530`, the bots before the speed-up of
2026-12-02; REV needs `games.bots.arena.decisions`, 1097530 or later). Each game's lines end
with a digest of every move its tables played: the same digest on two revisions says that
every bot, the hard one included, made the same moves there.

The positions are the decisions with a choice (more than one legal move) of the hard seats of
seeded tables of easy against hard, levels alternating round the table as in `make bench-bots`
(`games.bots.arena.decisions`; the same tables on every run and machine). Each position is
decided once by every level, each with its own generator seeded by the position
(`Decision.seed`), and the table plays on with the hard bot's move, so the hard bot meets the
positions it meets against easy. `hard, searched` counts the hard decisions that ran a search
(the others return easy's move or the only sensible one). The engine line is the cost of a move
to the engine, over every move of the same tables replayed: the seat's view, its legal moves
and `apply` (the checked door), which every bot decision in the service also pays.

Prints its figures; asserts nothing (tests never time anything).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import math
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.bots import LEVELS, choose_move, search, wants_history  # noqa: E402
from games.bots import lopti as lopti_bots  # noqa: E402
from games.bots import pitch as pitch_bots  # noqa: E402
from games.bots import president as president_bots  # noqa: E402
from games.bots.arena import decisions, table_seed  # noqa: E402
from games.engine import registry  # noqa: E402

SEED = 15_005
# name: (game, seats, options, tables by default); the lines of `make bench-bots`
GAMES = {
    "president": ("president", 4, {"hands": 1}, 20),
    "pitch": ("pitch", 4, {}, 3),
    "partnerships": ("pitch", 4, {"partnerships": True}, 8),
    "lopti": ("lopti", 2, {"rounds": 1}, 60),
}
LEVELS_AT_TABLE = ["easy", "hard"]


class Searches:
    """Counts the searches `search.best_move` runs, wherever a bot module reaches it."""

    def __init__(self):
        self.count = 0
        self.original = search.best_move
        self.modules = [m for m in (search, president_bots, pitch_bots, lopti_bots)
                        if getattr(m, "best_move", None) is self.original]

    def __enter__(self):
        def counted(*args, **kwargs):
            self.count += 1
            return self.original(*args, **kwargs)

        for m in self.modules:
            m.best_move = counted
        return self

    def __exit__(self, *exc):
        for m in self.modules:
            m.best_move = self.original


def measure(name: str, tables: int) -> tuple[dict[str, list[float]], list[float], str]:
    """({row: CPU seconds per decision}, engine CPU seconds per move, the digest of every move
    played) for one game."""
    game, seats, options, _ = GAMES[name]
    spent: dict[str, list[float]] = {level: [] for level in LEVELS}
    spent["hard, searched"] = []
    played: dict[int, list[tuple[int, dict]]] = {}
    digest = hashlib.sha256()

    def choose(d) -> dict:
        history = d.history
        move = None
        if d.level == "hard" and len(d.view["legal_moves"]) > 1:
            for level in LEVELS:
                with Searches() as searches:
                    started = time.process_time()
                    chosen = choose_move(game, level, d.view, random.Random(d.seed),
                                         history=history if wants_history(game, level) else None)
                    cost = time.process_time() - started
                spent[level].append(cost)
                if level == "hard":
                    move = chosen
                    if searches.count:
                        spent["hard, searched"].append(cost)
        if move is None:
            move = choose_move(game, d.level, d.view, random.Random(d.seed),
                               history=history if wants_history(game, d.level) else None)
        played.setdefault(d.table, []).append((d.seat, move))
        digest.update(json.dumps([d.table, d.move, d.level, move], sort_keys=True).encode())
        return move

    for _ in decisions(game, LEVELS_AT_TABLE, seats, tables=tables, options=options, seed=SEED, choose=choose):
        pass
    engine = registry.get(game)
    valid = engine.validate_table_options(options, players=seats)
    per_move = []
    for table_no, moves in played.items():
        state = engine.new_game(players=seats, options=valid, seed=table_seed(SEED, table_no))
        for seat, move in moves:
            started = time.process_time()
            engine.view(state, seat)
            engine.legal_moves(state, seat)
            state = engine.apply(state, seat, move).state
            per_move.append(time.process_time() - started)
    moves = sum(len(m) for m in played.values())
    return spent, per_move, f"{digest.hexdigest()[:16]} ({moves} moves)"


def quantile(ordered: list[float], q: float) -> float:
    """The q-quantile of sorted values, the nearest rank (p99 of 300 values: the 297th)."""
    return ordered[max(0, math.ceil(q * len(ordered) - 1e-9) - 1)]


def ms(seconds: float) -> str:
    v = seconds * 1000
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def row(label: str, values: list[float]) -> str:
    if not values:
        return f"| {label} | 0 | | | | |"
    ordered = sorted(values)
    figures = [statistics.mean(ordered), quantile(ordered, 0.95), quantile(ordered, 0.99), ordered[-1]]
    return f"| {label} | {len(ordered)} | " + " | ".join(ms(v) for v in figures) + " |"


def before(rev: str, names: list[str], tables: int | None) -> None:
    """This benchmark on the code of revision `rev`."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], check=True,
                            capture_output=True, text=True).stdout.strip()
    print(f"=== before: revision {commit} ===", flush=True)
    with tempfile.TemporaryDirectory(prefix="bot_cost_") as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        script = Path(folder) / "bench" / "bot_cost.py"
        shutil.copyfile(__file__, script)
        command = [sys.executable, str(script), "--games", ",".join(names)]
        subprocess.run(command + (["--tables", str(tables)] if tables else []), check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help=f"among {','.join(GAMES)}")
    parser.add_argument("--tables", type=int, help="tables per game (default: the game's own, see GAMES)")
    parser.add_argument("--before", metavar="REV", help="first run this benchmark on the code of git revision REV")
    args = parser.parse_args()
    names = [n.strip() for n in args.games.split(",") if n.strip()]
    unknown = [n for n in names if n not in GAMES]
    if unknown:
        parser.error(f"unknown game(s) {unknown}; among {list(GAMES)}")
    if args.before:
        before(args.before, names, args.tables)
        print(f"\n=== after: this checkout ({ROOT}) ===")
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average at the start {load}")
    print("CPU milliseconds per decision with a choice (the engine line: per move): count, mean, p95, p99, max")
    for name in names:
        game, seats, options, default_tables = GAMES[name]
        started = time.perf_counter()
        tables = args.tables or default_tables
        spent, per_move, digest = measure(name, tables)
        print(f"\n{name}: {game}, {seats} seats, options {options}, {tables} tables of easy against hard, "
              f"seed {SEED} ({time.perf_counter() - started:.0f} s)")
        print("| level | decisions | mean ms | p95 ms | p99 ms | max ms |")
        print("| --- | --- | --- | --- | --- | --- |")
        for label in (*LEVELS, "hard, searched"):
            print(row(label, spent[label]))
        print(row("engine, per move (view + legal moves + apply)", per_move))
        print(f"moves digest {digest}")
    print(f"\nload average at the end {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
