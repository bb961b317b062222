"""The hard bots' recorded choices (tests/engine/data/hard_decisions.json), for the test that
holds every optimisation of their searches to exactly the same moves
(tests/engine/test_bots_hard_recorded.py).

The positions are decisions of seeded tables (`games.bots.arena.decisions`) played by `easy`
and `random` seats, in several configurations of each game (variations, seat counts,
partnerships, later hands with an exchange), so that every path of the searches is met; the
hard bot decides each again with its own seeded generator (`Decision.seed`). The fixture keeps
a fingerprint of each position (view and history), so that a changed position (an engine or
`easy` that no longer plays the tables the same way) is told apart from a changed choice, and
one of the scores the search compared (every playout's score for every candidate, as
`search.best_move` hands them to its `select`): a search that plays any playout differently
shows there even when the move it picks stays the same.

Re-record only when a decision is meant to change (a new budget, another score), never to make
the test pass after an optimisation:

    .venv/bin/python -m tests.engine.hard_decisions
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
from pathlib import Path

from games.bots import choose_move, search, wants_history
from games.bots import lopti as lopti_bots
from games.bots import pitch as pitch_bots
from games.bots import president as president_bots
from games.bots.arena import decisions

FIXTURE = Path(__file__).parent / "data" / "hard_decisions.json"

# name: (game, players, options, levels round the table, tables, decisions kept)
CONFIGS: dict[str, tuple[str, int, dict, list[str], int, int]] = {
    "president-4-one-hand": ("president", 4, {"hands": 1}, ["easy", "easy", "easy", "random"], 6, 40),
    "president-4-to-11": ("president", 4, {}, ["easy", "easy", "easy", "random"], 2, 40),
    "president-5-jokers-revolution-equal": (
        "president", 5, {"jokers": True, "revolution": True, "equal_rank_beats": True, "hands": 3},
        ["easy", "easy", "random"], 2, 16),
    "president-6-larger-twos-threes-two-by-rank": (
        "president", 6, {"larger_sets_beat_lower": True, "twos_high_and_low": True, "clear_threes": True,
                         "exchange": "two", "seating": "by_rank", "hands": 3},
        ["easy", "random"], 2, 16),
    "president-7-larger-any": ("president", 7, {"larger_sets_beat_any": True, "hands": 2}, ["easy"], 2, 12),
    "pitch-3": ("pitch", 3, {}, ["easy", "easy", "random"], 3, 30),
    "pitch-4": ("pitch", 4, {}, ["easy", "easy", "easy", "random"], 3, 40),
    "pitch-4-partnerships": ("pitch", 4, {"partnerships": True}, ["easy", "easy", "easy", "random"], 3, 40),
    "pitch-5-low-dealt": ("pitch", 5, {"low_to": "dealt", "target_score": 5}, ["easy", "random"], 2, 16),
    "pitch-7": ("pitch", 7, {}, ["easy"], 1, 12),
    "lopti-2": ("lopti", 2, {"rounds": 1}, ["easy"], 12, 40),
    "lopti-3": ("lopti", 3, {"rounds": 1}, ["easy", "easy", "random"], 8, 30),
    "lopti-4-counterclockwise-places": (
        "lopti", 4, {"rounds": 1, "direction": "counterclockwise", "play_for_places": True}, ["easy"], 4, 16),
}


def _searched(game: str, view: dict) -> bool:
    """Whether the hard bot may search this decision (the others return easy's move or the only
    one, and are left out: they cost nothing)."""
    if len(view["legal_moves"]) < 2:
        return False
    if game == "lopti":
        return view.get("phase") == "play" and view["public"]["draw_pile_count"] <= lopti_bots.SEARCH_DRAW_PILE
    return view["phase"] in ("play", "auction")


def fingerprint(view: dict, history: list[dict] | None) -> str:
    return hashlib.sha256(json.dumps([view, history], sort_keys=True).encode()).hexdigest()[:16]


def positions(name: str) -> list:
    """The decisions of configuration `name` the fixture holds: `kept` of the searched ones,
    evenly spread over the tables."""
    game, players, options, levels, tables, kept = CONFIGS[name]
    found = [d for d in decisions(game, levels, players, tables=tables, options=options, history=game == "president",
                                  max_moves=3000)
             if _searched(game, d.view)]
    step = max(1, len(found) // kept)
    return found[::step][:kept]


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value).encode()).hexdigest()[:16]


@contextlib.contextmanager
def _watching_searches(seen: list):
    """`search.best_move`, wherever a bot module reaches it, appends the scores each search
    compared to `seen`."""
    original = search.best_move

    def watched(*args, select=None, **kwargs):
        def pick(scores):
            seen.append(scores)
            return (select or search.best_total)(scores)

        return original(*args, select=pick, **kwargs)

    modules = [m for m in (search, president_bots, pitch_bots, lopti_bots) if getattr(m, "best_move", None) is original]
    for m in modules:
        m.best_move = watched
    try:
        yield
    finally:
        for m in modules:
            m.best_move = original


def decide(game: str, decision) -> tuple[dict, str | None]:
    """The hard bot's move, and the digest of the scores its search compared (None when it
    did not search)."""
    history = decision.history if wants_history(game, "hard") else None
    seen: list = []
    with _watching_searches(seen):
        move = choose_move(game, "hard", decision.view, random.Random(decision.seed), history=history)
    return move, (_digest(seen) if seen else None)


def record() -> dict:
    strict = lopti_bots.STRICT
    lopti_bots.STRICT = True  # a failing Lopti search raises rather than falling back to easy
    try:
        out = []
        for name, (game, *_rest) in CONFIGS.items():
            for d in positions(name):
                choice, scores = decide(game, d)
                out.append({"config": name, "table": d.table, "move": d.move,
                            "position": fingerprint(d.view, d.history), "choice": choice, "scores": scores})
            print(name, sum(1 for e in out if e["config"] == name))
        return {"configs": {name: list(c) for name, c in CONFIGS.items()}, "decisions": out}
    finally:
        lopti_bots.STRICT = strict


if __name__ == "__main__":
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(record(), indent=None, separators=(",", ":")).replace('},{"config"', '},\n{"config"') + "\n")
