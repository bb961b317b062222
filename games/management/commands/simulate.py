"""Bots play N tables of a game against each other (pure engines, no database) and the
command prints win rates per level with 95 % intervals and moves per second; with two levels,
the difference of their win rates per seat with its 95 % interval and whether the last level
beats the first by at least `--margin` with 95 % confidence (the benchmark's verdict); with
`--rated`, the ratings each level's shared account would have after these tables.

`--rated` (docs/bots.md, the levels' ratings): the service rates a table only with at least two human seats
(games/services/ratings.py `is_rated`), so a bot-only table is never rated in the database.
The command rates its tables in memory with the service's own update
(`ratings.matches_in_order`: the same model, matches — the engine's `rating_matches`, Lopti one
per round — and sides), each level one shared account as bot seats are, in the order the tables
were played, and writes nothing."""

import json
import signal
import sys

from django.core.management.base import BaseCommand, CommandError

from games.bots import LEVELS
from games.bots.arena import run
from games.engine import registry
from games.engine.base import EngineError
from games.services import ratings


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
        parser.add_argument("--jobs", type=int, default=1, help="processes playing tables (the results do not depend on it)")
        parser.add_argument("--margin", type=float, default=0.08,
                            help="with two levels: the lead in win rate per seat the last level must have over the first")
        parser.add_argument("--rated", action="store_true", help="rate the tables, each level one shared account")

    def handle(self, *args, game, tables, players, levels, options, seed, max_moves, jobs, margin, rated, **kwargs):
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

        # SIGTERM ends a long run early and still reports the tables played so far (the
        # benchmark under a deadline states what it reached).
        stopping = []
        previous = signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
        try:
            result = run(game=game, levels=level_list, players=players, tables=tables, options=parsed, seed=seed,
                         max_moves=max_moves, progress=progress, jobs=max(1, jobs), stop=lambda: bool(stopping))
        finally:
            signal.signal(signal.SIGTERM, previous)
        if result.played < tables:
            self.stdout.write(f"STOPPED (SIGTERM) after {result.played} of {tables} tables")
        self.stdout.write(f"{game}: {result.games} finished tables ({result.unfinished} unfinished), {players} players, "
                          f"levels {','.join(level_list)}, options {json.dumps(parsed)}, seed {seed}")
        self.stdout.write(f"{'level':8} {'seats':>6} {'wins':>8} {'win rate':>9}  95% interval")
        for level in dict.fromkeys(level_list):
            low, high = result.interval(level)
            self.stdout.write(f"{level:8} {result.seats.get(level, 0):6d} {result.wins.get(level, 0):8.1f} "
                              f"{result.win_rate(level):9.3f}  [{low:.3f}, {high:.3f}]")
        distinct = list(dict.fromkeys(level_list))
        if len(distinct) == 2:
            worse, better = distinct
            d, low, high = result.difference(better, worse)
            verdict = "yes" if low >= margin else "no"
            self.stdout.write(f"{better} - {worse}: {d:+.3f} per seat, 95% interval [{low:+.3f}, {high:+.3f}]; "
                              f"lead >= {margin:.2f} with 95% confidence (interval above it): {verdict}")
        if rated:
            self._ratings(result, distinct)
        rate = result.moves / result.seconds if result.seconds else 0.0
        self.stdout.write(f"{result.moves} moves in {result.seconds:.1f} s: {rate:.0f} moves/s")

    def _ratings(self, result, levels):
        current = {level: (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA) for level in levels}
        games = dict.fromkeys(levels, 0)
        wins = dict.fromkeys(levels, 0)
        places = {level: [0, 0] for level in levels}  # the sum of its seats' places, its seats
        for table in result.tables:
            # The service's matches (Lopti: one per round), in order; one game and the table's
            # win per level, its place the table's (finishing order).
            for _, merged, _, _ in ratings.matches_in_order(current, table.matches, table.teams,
                                                             lambda player, t=table: t.levels[player]):
                current.update(merged)
            team_places = ratings.places_of_teams(table.places, table.teams)
            entrants = [(team, table.levels[p]) for team, side in enumerate(table.teams) for p in side]
            for level in {level for _, level in entrants}:
                games[level] += 1
            wins.update({level: wins[level] + 1 for level in {lv for team, lv in entrants if team_places[team] == 1}})
            for team, level in entrants:
                places[level][0] += team_places[team]
                places[level][1] += 1
        self.stdout.write(f"ratings after {len(result.tables)} rated tables (each level one account, "
                          f"display = 1000 + 40 (mu - 3 sigma); place: the mean place of its seats, 1 = first):")
        self.stdout.write(f"{'level':8} {'rating':>6} {'mu':>7} {'sigma':>6} {'games':>6} {'wins':>6} {'place':>6}")
        for level in levels:
            mu, sigma = current[level]
            place = places[level][0] / places[level][1] if places[level][1] else 0.0
            self.stdout.write(f"{level:8} {ratings.display(mu, sigma):6d} {mu:7.2f} {sigma:6.2f} {games[level]:6d} "
                              f"{wins[level]:6d} {place:6.2f}")
