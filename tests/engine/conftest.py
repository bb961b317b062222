"""The long random playthroughs are marked `slow` here, so that `make test` stays quick: it
leaves them out (`-m "not slow"`) and `make test-slow` / CI's second step runs them. Every rule scenario
stays in `make test`, and tests/engine/test_all_games.py keeps a bounded random run of every
game there. Listed here rather than in the files so the engine owners' files stay untouched;
a test may equally carry `@pytest.mark.slow` itself."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent
# (test file, test function): each of these plays hundreds to thousands of random deals
# (under load, 20-75 s each; together about 40% of the suite's time).
LONG_RANDOM_RUNS = {
    ("test_lopti_random.py", "test_random_sessions"),
    ("test_lopti_house_rules_random.py", "test_random_house_rules_votes_and_sessions"),
    ("test_pitch_random.py", "test_random_games_thousands_of_hands"),
    ("test_pitch_random.py", "test_random_partnership_games_many_hands"),
    ("test_president_random.py", "test_random_full_games"),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(item.path)
        if path.parent == HERE and (path.name, item.originalname) in LONG_RANDOM_RUNS:
            item.add_marker(pytest.mark.slow)
