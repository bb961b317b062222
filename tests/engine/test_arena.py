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


def test_the_difference_of_two_levels_has_a_normal_interval_over_tables():
    from games.bots.arena import Table

    # 100 tables at 4 seats, 2 of each level: hard wins 70 of them.
    tables = [Table(levels=["easy", "hard"] * 2, wins={"hard" if t < 70 else "easy": 1.0}, places=[], teams=[])
              for t in range(100)]
    result = Result(games=100, seats={"easy": 200, "hard": 200}, wins={"hard": 70.0, "easy": 30.0}, tables=tables)
    d, low, high = result.difference("hard", "easy")
    assert round(d, 6) == 0.2  # 0.35 - 0.15 per seat
    # Per table the difference is +0.5 or -0.5: sd 0.4606 (n - 1), half width 1.96 sd / 10.
    assert abs((high - low) / 2 - 1.96 * 0.46057 / 10) < 1e-4
    assert low < d < high


def test_the_results_do_not_depend_on_the_number_of_processes():
    one = run(game="president", levels=["random", "easy"], players=4, tables=4, options={"hands": 1})
    two = run(game="president", levels=["random", "easy"], players=4, tables=4, options={"hands": 1}, jobs=2)
    assert (one.wins, one.seats, one.moves) == (two.wins, two.seats, two.moves)
    assert [t.places for t in one.tables] == [t.places for t in two.tables]


def test_simulate_states_its_verdict_and_rates_the_levels():
    out = io.StringIO()
    call_command("simulate", "lopti", "--tables", "4", "--players", "2", "--levels", "random,easy",
                 "--options", '{"rounds": 1}', "--rated", stdout=out, stderr=io.StringIO())
    text = out.getvalue()
    # easy wins every table against random (docs/bots.md): +1.0 per seat, and the verdict.
    assert "easy - random: +1.000 per seat" in text
    assert "with 95% confidence (interval above it): yes" in text
    rows = {line.split()[0]: line.split() for line in text.splitlines()[-3:-1]}
    assert rows["easy"][4:6] == ["4", "4"] and rows["random"][4:6] == ["4", "0"]  # games, wins
    assert int(rows["easy"][1]) > int(rows["random"][1])  # the display rating
    assert rows["easy"][6] == "1.00" and rows["random"][6] == "2.00"  # the mean place of its seats


def test_a_stopped_run_reports_the_tables_played_so_far():
    played = []
    result = run(game="lopti", levels=["random", "easy"], players=2, tables=10, options={"rounds": 1},
                 progress=lambda done, total: played.append(done), stop=lambda: len(played) >= 3)
    assert result.played == 3 and result.games + result.unfinished == 3 and len(result.tables) == result.games


def test_simulate_rated_rates_each_lopti_round_as_the_service_does():
    """`--rated` rates the engine's `rating_matches` in order (Lopti: one per round,
    docs/ratings.md), and counts a table as one game."""
    from games.services import ratings

    args = dict(game="lopti", levels=["random", "easy"], players=2, tables=3, options={"rounds": 2})
    result = run(**args)
    assert result.games == 3 and all(len(t.matches) == 2 for t in result.tables)
    assert all(sorted(p for place in m for p in place) == [0, 1] for t in result.tables for m in t.matches)
    current = dict.fromkeys(("random", "easy"), (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA))
    for t in result.tables:
        for _, merged, _, _ in ratings.matches_in_order(current, t.matches, t.teams, lambda p, t=t: t.levels[p]):
            current.update(merged)
    out = io.StringIO()
    call_command("simulate", "lopti", "--tables", "3", "--players", "2", "--levels", "random,easy",
                 "--options", '{"rounds": 2}', "--rated", stdout=out, stderr=io.StringIO())
    rows = {line.split()[0]: line.split() for line in out.getvalue().splitlines()[-3:-1]}
    for level in ("random", "easy"):
        assert rows[level][2:5] == [f"{current[level][0]:.2f}", f"{current[level][1]:.2f}", "3"]  # mu, sigma, games
