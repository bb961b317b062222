"""Bots play N tables of a game against each other (pure engines, no database) and the
command prints win rates per level with 95 % intervals and moves per second."""

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from games.bots import LEVELS
from games.bots.arena import run
from games.engine import registry
from games.engine.base import EngineError


class Command(BaseCommand):
    help = "Bots play N tables of a game; prints win rates per level and moves per second."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=["president", "pitch", "lopti"])
        parser.add_argument("--tables", type=int, default=100)
        parser.add_argument("--players", type=int)
        parser.add_argument("--levels", default="random,easy", help="levels round the table, e.g. random,easy")
        parser.add_argument("--options", default="{}", help="table options as JSON")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--max-moves", type=int, default=20000, help="a table still running after this is counted unfinished")

    def handle(self, *args, game, tables, players, levels, options, seed, max_moves, **kwargs):
        engine = registry.get(game)
        players = players or engine.min_players
        level_list = [lv.strip() for lv in levels.split(",") if lv.strip()]
        if not level_list or any(lv not in LEVELS for lv in level_list):
            raise CommandError(f"levels must be among {LEVELS}")
        try:
            parsed = json.loads(options)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not JSON: {exc}") from exc
        try:
            # Up front, so a bad option or one that needs another seat count (Pitch's
            # `partnerships`, 4 seats) is a one-line error rather than a traceback mid-run.
            engine.validate_table_options(parsed, players=players)
        except EngineError as exc:
            raise CommandError(f"--options: {exc.message}") from exc

        def progress(done, total):
            width = 30
            filled = width * done // total
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} tables")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

        result = run(game=game, levels=level_list, players=players, tables=tables, options=parsed, seed=seed,
                     max_moves=max_moves, progress=progress)
        self.stdout.write(f"{game}: {result.games} finished tables ({result.unfinished} unfinished), {players} players, "
                          f"levels {','.join(level_list)}, options {json.dumps(parsed)}, seed {seed}")
        self.stdout.write(f"{'level':8} {'seats':>6} {'wins':>8} {'win rate':>9}  95% interval")
        for level in dict.fromkeys(level_list):
            low, high = result.interval(level)
            self.stdout.write(f"{level:8} {result.seats.get(level, 0):6d} {result.wins.get(level, 0):8.1f} "
                              f"{result.win_rate(level):9.3f}  [{low:.3f}, {high:.3f}]")
        rate = result.moves / result.seconds if result.seconds else 0.0
        self.stdout.write(f"{result.moves} moves in {result.seconds:.1f} s: {rate:.0f} moves/s")
