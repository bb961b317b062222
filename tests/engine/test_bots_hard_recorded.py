"""The hard bots decide exactly as recorded (tests/engine/hard_decisions.py): the same move and
the same scores in every search, on seeded positions of every game. Their strength was measured
on hundreds of tables (docs/bots.md, hours of `make bench-bots`); a change that only makes the
searches cheaper must leave every decision as it was, and this is what shows it.

`make test` checks every EVERY-th recorded decision of each configuration (a few seconds);
`make test-slow` checks them all. No Django."""

from __future__ import annotations

import functools
import json

import pytest

from games.bots import lopti as lopti_bots

from . import hard_decisions as recorded

EVERY = 4
FIXTURE = json.loads(recorded.FIXTURE.read_text())


@pytest.fixture(autouse=True)
def strict(monkeypatch):
    """A failing Lopti search raises instead of quietly falling back to easy (as recorded)."""
    monkeypatch.setattr(lopti_bots, "STRICT", True)


@functools.cache
def positions(name: str) -> dict:
    return {(d.table, d.move): d for d in recorded.positions(name)}


def check(name: str, entries: list[dict]) -> None:
    game = recorded.CONFIGS[name][0]
    found = positions(name)
    for entry in entries:
        where = f"{name}, table {entry['table']}, move {entry['move']}"
        decision = found.get((entry["table"], entry["move"]))
        assert decision is not None, f"{where}: the position is no longer among the configuration's decisions"
        assert recorded.fingerprint(decision.view, decision.history) == entry["position"], (
            f"{where}: the position changed (the engine or easy plays the table differently)")
        choice, scores = recorded.decide(game, decision)
        assert choice == entry["choice"], f"{where}: hard chose {choice}, recorded {entry['choice']}"
        assert scores == entry["scores"], f"{where}: the same move, but the search's scores changed"


def entries(name: str) -> list[dict]:
    return [e for e in FIXTURE["decisions"] if e["config"] == name]


def test_the_fixture_records_the_configurations_of_today():
    assert FIXTURE["configs"] == {name: list(c) for name, c in recorded.CONFIGS.items()}
    assert all(entries(name) for name in recorded.CONFIGS)


@pytest.mark.parametrize("name", list(recorded.CONFIGS))
def test_hard_decides_as_recorded(name):
    check(name, entries(name)[::EVERY])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(recorded.CONFIGS))
def test_hard_decides_as_recorded_everywhere(name):
    check(name, entries(name))
