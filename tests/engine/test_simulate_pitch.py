"""`manage.py simulate pitch` with the partnership option (A-9)."""

import io

import pytest
from django.core.management import CommandError, call_command


def test_simulate_plays_partnership_tables_and_splits_a_sides_win():
    out = io.StringIO()
    call_command("simulate", "pitch", "--tables", "2", "--players", "4", "--levels", "random,easy",
                 "--options", '{"partnerships": true, "target_score": 3}', stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "pitch: 2 finished tables (0 unfinished), 4 players" in text
    assert '"partnerships": true' in text


@pytest.mark.parametrize("players, options, message", [
    ("3", '{"partnerships": true}', "4 seats"),
    ("4", '{"target_score": 0}', "target_score"),
])
def test_simulate_refuses_options_the_table_cannot_take(players, options, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate", "pitch", "--tables", "1", "--players", players, "--options", options,
                     stdout=io.StringIO(), stderr=io.StringIO())
