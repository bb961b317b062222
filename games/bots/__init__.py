"""Bot policies: pure functions from what one seat may see (the engine's `view` for that
seat) to a move. Levels: `random` (any legal move), `easy` (rule-based), `hard`
(search-based). A game without its own policy for a level falls back to the level below."""

from __future__ import annotations

import importlib
import random

LEVELS = ("random", "easy", "hard")


def random_move(view: dict, rng: random.Random) -> dict:
    return rng.choice(view["legal_moves"])


def choose_move(game: str, level: str, view: dict, rng: random.Random) -> dict:
    """The bot's move for the seat whose `view` this is. `view["legal_moves"]` is non-empty."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    if level == "random":
        return random_move(view, rng)
    try:
        policies = importlib.import_module(f"games.bots.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"games.bots.{game}":
            raise
        return random_move(view, rng)
    for name in LEVELS[LEVELS.index(level):0:-1]:
        policy = getattr(policies, name, None)
        if policy is not None:
            return policy(view, rng)
    return random_move(view, rng)
