"""Bot policies: pure functions from what one seat may see (the engine's `view` for that
seat) to a move. Levels: `random` (any legal move), `easy` (rule-based), `hard`
(search-based). A game without its own policy for a level falls back to the level below."""

from __future__ import annotations

import importlib
import random

LEVELS = ("random", "easy", "hard")


def random_move(view: dict, rng: random.Random) -> dict:
    return rng.choice(view["legal_moves"])


def _policy(game: str, level: str):
    """The policy function playing `level` in `game` (None: a random move)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    if level == "random":
        return None
    try:
        policies = importlib.import_module(f"games.bots.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"games.bots.{game}":
            raise
        return None
    for name in LEVELS[LEVELS.index(level):0:-1]:
        policy = getattr(policies, name, None)
        if policy is not None:
            return policy
    return None


# The levels whose decision is a quick rule, not a search: tens of microseconds a move
# (docs/bots.md). A bot run may decide these under the table lock, in the transaction of the
# move before (games.services.automation); a search never runs there.
QUICK_LEVELS = frozenset({"random", "easy"})


def decides_at_once(game: str, level: str) -> bool:
    """Whether `level` decides with a rule, fast enough to decide while the table is locked."""
    return level in QUICK_LEVELS and not wants_history(game, level)


def wants_history(game: str, level: str) -> bool:
    """Whether the policy reads the table's history (the events of the move log, as its seat
    may see them): the caller builds it only for those."""
    return bool(getattr(_policy(game, level), "wants_history", False))


def choose_move(game: str, level: str, view: dict, rng: random.Random, history: list[dict] | None = None) -> dict:
    """The bot's move for the seat whose `view` this is. `view["legal_moves"]` is non-empty.
    `history`: the table's events so far, oldest first, as this seat may see them (the engine's
    `view_event`; what a player at the seat could have read in the move log), for the policies
    that `wants_history`; None when the caller has none."""
    policy = _policy(game, level)
    if policy is None:
        return random_move(view, rng)
    if getattr(policy, "wants_history", False):
        return policy(view, rng, history=history)
    return policy(view, rng)
