"""The bot arena behind `manage.py simulate` and the bot benchmark."""

import io

from django.core.management import call_command

from games.bots.arena import Result, run, seat_levels


def test_levels_rotate_round_the_table():
    assert seat_levels(["random", "easy"], 4, 0) == ["random", "easy", "random", "easy"]
    assert seat_levels(["random", "easy"], 4, 1) == ["easy", "random", "easy", "random"]
    assert seat_levels(["random", "easy"], 3, 1) == ["easy", "random", "easy"]


def test_win_rates_count_every_finished_table_once():
    result = run(game="president", levels=["random", "easy"], players=4, tables=6, options={"hands": 1})
    assert result.games + result.unfinished == 6
    assert sum(result.wins.values()) == result.games
    assert sum(result.seats.values()) == 4 * result.games
    low, high = result.interval("easy")
    assert 0 <= low <= result.win_rate("easy") <= high <= 1


def test_wilson_interval_narrows_with_more_games():
    small = Result(games=10, seats={"easy": 10}, wins={"easy": 5})
    large = Result(games=1000, seats={"easy": 1000}, wins={"easy": 500})
    assert (small.interval("easy")[1] - small.interval("easy")[0]) > (large.interval("easy")[1] - large.interval("easy")[0])


def test_simulate_command_prints_win_rates_and_moves_per_second():
    out = io.StringIO()
    call_command("simulate", "lopti", "--tables", "3", "--players", "2", "--levels", "random,easy",
                 "--options", '{"rounds": 1}', stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    assert "lopti: 3 finished tables" in text
    assert "random" in text and "easy" in text and "moves/s" in text
