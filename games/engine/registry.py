"""The games the service hosts, by slug."""

from __future__ import annotations

from .base import Game

_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    _GAMES[game.slug] = game
    return game


def get(slug: str) -> Game:
    _load()
    return _GAMES[slug]


def all_games() -> list[Game]:
    _load()
    return [_GAMES[s] for s in sorted(_GAMES, key=lambda s: ORDER.index(s) if s in ORDER else 99)]


ORDER = ["president", "pitch", "lopti"]


def _load() -> None:
    import importlib

    for slug in ORDER:
        if slug not in _GAMES:
            try:
                importlib.import_module(f"games.engine.{slug}")
            except ModuleNotFoundError as exc:
                if exc.name != f"games.engine.{slug}":
                    raise
