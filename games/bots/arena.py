"""Bots playing whole games against each other on the pure engines (no database): the
`simulate` command and the bot-strength benchmark in docs/bots.md use it."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from games.bots import choose_move
from games.engine import registry


@dataclass
class Result:
    games: int = 0
    unfinished: int = 0
    moves: int = 0
    seconds: float = 0.0
    seats: dict[str, int] = field(default_factory=dict)
    wins: dict[str, float] = field(default_factory=dict)

    def win_rate(self, level: str) -> float:
        return self.wins.get(level, 0.0) / self.seats[level] if self.seats.get(level) else 0.0

    def interval(self, level: str) -> tuple[float, float]:
        """Wilson 95 % interval of the win rate per seat."""
        n = self.seats.get(level, 0)
        if not n:
            return (0.0, 0.0)
        p, z = self.win_rate(level), 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


def seat_levels(levels: list[str], players: int, table_no: int) -> list[str]:
    """Levels round the table, rotated every table so that no level keeps the same seats."""
    return [levels[(seat + table_no) % len(levels)] for seat in range(players)]


def play_table(game: str, levels: list[str], options: dict, seed: int, max_moves: int) -> tuple[list[int], int]:
    """One table to the end; returns (winning seats, moves). Each bot sees its own view only."""
    engine = registry.get(game)
    rng = random.Random(seed)
    state = engine.new_game(players=len(levels), options=engine.validate_options(options), seed=seed)
    moves = 0
    while not engine.is_finished(state):
        if moves >= max_moves:
            return [], moves
        seat = engine.to_act(state)[0]
        player = engine.seat_players(state)[seat]
        move = choose_move(game, levels[player], engine.view(state, seat), rng)
        state, _ = engine.apply(state, seat, move)
        moves += 1
    winners = engine.winners(state)
    return [engine.seat_players(state)[s] for s in winners], moves


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
) -> Result:
    result = Result()
    started = time.perf_counter()
    for table_no in range(tables):
        table_levels = seat_levels(levels, players, table_no)
        winners, moves = play_table(game, table_levels, options or {}, seed * 1_000_003 + table_no, max_moves)
        result.moves += moves
        if not winners:
            result.unfinished += 1
        else:
            result.games += 1
            for level in table_levels:
                result.seats[level] = result.seats.get(level, 0) + 1
            for player in winners:
                level = table_levels[player]
                # A shared win is split so that win rates add up to one per table.
                result.wins[level] = result.wins.get(level, 0.0) + 1 / len(winners)
        if progress:
            progress(table_no + 1, tables)
    result.seconds = time.perf_counter() - started
    return result
