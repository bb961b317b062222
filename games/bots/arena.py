"""Bots playing whole games against each other on the pure engines (no database): the
`simulate` command and the bot-strength benchmark in docs/bots.md use it."""

from __future__ import annotations

import math
import multiprocessing
import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from games.bots import choose_move, wants_history
from games.engine import registry

Z95 = 1.96


@dataclass
class Table:
    """One finished table as the statistics need it: the level of each player (by player
    number), the winners' share per level, and the finishing order (players, best first), sides
    (players) and rated matches (finishing orders of players, the engine's `rating_matches`)
    for the ratings."""

    levels: list[str]
    wins: dict[str, float]
    places: list[list[int]]
    teams: list[list[int]]
    matches: list[list[list[int]]] = field(default_factory=list)


@dataclass
class Result:
    games: int = 0
    unfinished: int = 0
    moves: int = 0
    seconds: float = 0.0
    seats: dict[str, int] = field(default_factory=dict)
    wins: dict[str, float] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)
    played: int = 0  # tables played (finished or not): fewer than asked when the run was stopped

    def win_rate(self, level: str) -> float:
        return self.wins.get(level, 0.0) / self.seats[level] if self.seats.get(level) else 0.0

    def interval(self, level: str) -> tuple[float, float]:
        """Wilson 95 % interval of the win rate per seat."""
        n = self.seats.get(level, 0)
        if not n:
            return (0.0, 0.0)
        p, z = self.win_rate(level), Z95
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    def difference(self, better: str, worse: str) -> tuple[float, float, float]:
        """`better`'s win rate per seat minus `worse`'s, with its 95 % interval: (d, low, high).

        The table is the unit of sampling (its seats are not independent: one of them wins), so
        the interval is the normal one of a difference of two ratio estimates (wins per seat),
        linearised per table: table t contributes z_t = (w_bt - r_b k_bt) / k_b - (w_wt - r_w
        k_wt) / k_w, with w its wins, k its seats of the level, r the overall rates and k_b, k_w
        the mean seats per table; the variance of d is the sample variance of z over n tables,
        divided by n. With the same seats per level at every table this is the plain interval
        of the per-table difference."""
        d = self.win_rate(better) - self.win_rate(worse)
        n = len(self.tables)
        if n < 2 or not self.seats.get(better) or not self.seats.get(worse):
            return (d, float("-inf"), float("inf"))
        rb, rw = self.win_rate(better), self.win_rate(worse)
        kb, kw = self.seats[better] / n, self.seats[worse] / n
        zs = []
        for t in self.tables:
            seats_b, seats_w = t.levels.count(better), t.levels.count(worse)
            zs.append((t.wins.get(better, 0.0) - rb * seats_b) / kb - (t.wins.get(worse, 0.0) - rw * seats_w) / kw)
        mean = sum(zs) / n
        variance = sum((z - mean) ** 2 for z in zs) / (n - 1)
        half = Z95 * math.sqrt(variance / n)
        return (d, d - half, d + half)


def seat_levels(levels: list[str], players: int, table_no: int) -> list[str]:
    """Levels round the table, rotated every table so that no level keeps the same seats."""
    return [levels[(seat + table_no) % len(levels)] for seat in range(players)]


def play_table(game: str, levels: list[str], options: dict, seed: int, max_moves: int) -> tuple[list[int], int, dict]:
    """One table to the end; returns (winning players, moves, final state). Each bot sees its
    own view only, and (the bots that remember, `wants_history`) the table's events as its
    seat may see them, as a player at the table would (the move log)."""
    engine = registry.get(game)
    rng = random.Random(seed)
    state = engine.new_game(players=len(levels), options=engine.validate_options(options), seed=seed)
    events: list[dict] = []
    moves = 0
    while not engine.is_finished(state):
        if moves >= max_moves:
            return [], moves, state
        seat = engine.to_act(state)[0]
        player = engine.seat_players(state)[seat]
        level = levels[player]
        history = [engine.view_event(e, seat) for e in events] if wants_history(game, level) else None
        move = choose_move(game, level, engine.view(state, seat), rng, history=history)
        state, new_events = engine.apply(state, seat, move)
        events.extend(new_events)
        moves += 1
    players = engine.seat_players(state)
    winners = engine.winners(state)
    return [players[s] for s in winners], moves, state


@dataclass(frozen=True)
class Decision:
    """One decision of a seeded table (`decisions`): what the deciding seat saw, and the seed
    of the generator its bot got, so that any bot can decide it again reproducibly."""

    table: int
    move: int  # the table's move number (0 for the first move)
    seat: int
    level: str  # the level that plays the seat at the table
    view: dict
    history: list[dict] | None  # the table's events as the seat sees them (see `decisions`)
    seed: int


def table_seed(seed: int, table_no: int) -> int:
    """The engine seed of table `table_no` of a run with `seed` (as `run` deals them)."""
    return seed * 1_000_003 + table_no


def decisions(
    game: str,
    levels: list[str],
    players: int,
    *,
    tables: int,
    options: dict | None = None,
    seed: int = 0,
    max_moves: int = 20000,
    history: bool = False,
    choose: Callable[[Decision], dict] | None = None,
):
    """Every decision of `tables` seeded tables (the deals of `run`'s, levels rotated round
    the table each table), yielded as a `Decision` before its move is made. The move is the
    seat's level's (`choose_move` with `random.Random(decision.seed)` and, for the policies
    that want it, the history), or `choose(decision)`'s when given (the benchmark times every
    level there and plays one). `history`: every decision carries its seat's history, not only
    those whose level reads it. A decision's view and history are its own: nothing here reads
    them again once the move is chosen. bench/bot_cost.py and the tests that hold the hard bots
    to their recorded choices (tests/engine/hard_decisions.py) read their positions here."""
    engine = registry.get(game)
    options = engine.validate_table_options(options or {}, players=players)
    keep = history or any(wants_history(game, level) for level in levels)
    for table_no in range(tables):
        table_levels = seat_levels(levels, players, table_no)
        state = engine.new_game(players=players, options=options, seed=table_seed(seed, table_no))
        seen: list[list[dict]] = [[] for _ in range(players)]  # the events as each seat sees them
        moves = 0
        while not engine.is_finished(state) and moves < max_moves:
            seat = engine.to_act(state)[0]
            level = table_levels[engine.seat_players(state)[seat]]
            wants = wants_history(game, level)
            decision = Decision(table_no, moves, seat, level, engine.view(state, seat),
                                list(seen[seat]) if history or wants else None,
                                table_seed(seed, table_no) * 100_003 + moves)
            yield decision
            if choose is not None:
                move = choose(decision)
            else:
                move = choose_move(game, level, decision.view, random.Random(decision.seed),
                                   history=decision.history if wants else None)
            state, new_events = engine.apply(state, seat, move)
            if keep:
                for s in range(players):
                    seen[s].extend(engine.view_event(e, s) for e in new_events)
            moves += 1


def _child() -> None:
    """A table-playing process: signals are the parent's business (it ends the pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _one(job: tuple) -> tuple[int, list[str], list[int], int, list[list[int]], list[list[int]], list]:
    game, levels, players, options, seed, max_moves, table_no = job
    table_levels = seat_levels(levels, players, table_no)
    winners, moves, state = play_table(game, table_levels, options, table_seed(seed, table_no), max_moves)
    places: list[list[int]] = []
    teams: list[list[int]] = []
    matches: list[list[list[int]]] = []
    if winners:
        engine = registry.get(game)
        by_seat = engine.seat_players(state)

        def players_of(order):
            return [[by_seat[s] for s in group] for group in order]

        places = players_of(engine.finishing_order(state))
        teams = players_of(engine.teams(state))
        matches = [players_of(order) for order in engine.rating_matches(state)]
    return table_no, table_levels, winners, moves, places, teams, matches


def run(
    *,
    game: str,
    levels: list[str],
    players: int,
    tables: int,
    options: dict | None = None,
    seed: int = 0,
    max_moves: int = 20000,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    stop: Callable[[], bool] | None = None,
) -> Result:
    """`tables` tables; with `jobs` > 1 in that many processes (the same tables and results
    as one process: each table's seed depends on its number only). `stop()`, asked after each
    table, ends the run early: the result then counts the tables played so far (`played`)."""
    result = Result()
    started = time.perf_counter()
    work = [(game, levels, players, options or {}, seed, max_moves, t) for t in range(tables)]
    if jobs > 1:
        pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_child)
        outcomes = pool.imap(_one, work)
    else:
        pool = None
        outcomes = map(_one, work)
    try:
        for done, (_, table_levels, winners, moves, places, teams, matches) in enumerate(outcomes, start=1):
            result.moves += moves
            if not winners:
                result.unfinished += 1
            else:
                result.games += 1
                for level in table_levels:
                    result.seats[level] = result.seats.get(level, 0) + 1
                shares: dict[str, float] = {}
                for player in winners:
                    level = table_levels[player]
                    # A shared win is split so that win rates add up to one per table.
                    shares[level] = shares.get(level, 0.0) + 1 / len(winners)
                for level, share in shares.items():
                    result.wins[level] = result.wins.get(level, 0.0) + share
                result.tables.append(Table(levels=table_levels, wins=shares, places=places, teams=teams, matches=matches))
            result.played = done
            if progress:
                progress(done, tables)
            if stop is not None and stop() and done < tables:
                break
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    result.seconds = time.perf_counter() - started
    return result
