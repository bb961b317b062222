"""Ratings (api.md, "Ratings, leaderboards and quick play"): a rated table updates its
players' ratings in the order it finished them, once; unrated tables change nothing; the
history rebuilds every rating exactly; leaderboards and profiles show them."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from games.engine import registry
from games.models import RatedTable, Rating, RatingHistory, Table
from games.services import automation, moves, ratings, tables

pytestmark = pytest.mark.django_db


def play_out(table_id, users_by_row, bots=False):
    """Every seat plays its first legal move until the table finishes (bots move themselves)."""
    for _ in range(2000):
        table = Table.objects.get(pk=table_id)
        if table.status != Table.Status.ACTIVE:
            return table
        engine = registry.get(table.game)
        seat = engine.to_act(table.state)[0]
        player = engine.seat_players(table.state)[seat]
        user = users_by_row.get(player)
        if user is None:
            assert bots and automation.table_bot_step(table_id=table_id)
            continue
        move = engine.legal_moves(table.state, seat)[0]
        moves.move_submit(table_id=table_id, user=user, move=move)
    raise AssertionError("the table did not finish")


def new_table(make_user, *, humans=4, game="president", seats=4, options=None, bots_level="easy", **fields):
    users = [make_user() for _ in range(humans)]
    table = tables.table_create(user=users[0], game=game, seats=seats, options={"hands": 1, **(options or {})}
                                if game == "president" else dict(options or {}), **fields)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    for _ in range(seats - humans):
        automation.table_add_bot(table_id=table.pk, user=users[0], level=bots_level)
    tables.table_start(table_id=table.pk, user=users[0])
    return table, {i: u for i, u in enumerate(users)}


def test_a_rated_table_moves_ratings_in_its_finishing_order(make_user):
    table, users = new_table(make_user)
    assert Table.objects.get(pk=table.pk).rated is True
    finished = play_out(table.pk, users)
    engine = registry.get("president")
    places = engine.finishing_order(finished.state)
    history = {h.user_id: h for h in RatingHistory.objects.filter(rated_table__table=finished)}
    assert len(history) == 4
    rows = {row.index: row for row in finished.seats.all()}
    players = engine.seat_players(finished.state)
    deltas = []
    for place, group in enumerate(places, start=1):
        for seat in group:
            entry = history[rows[players[seat]].user_id]
            assert entry.place == place and entry.won == (place == 1)
            assert (entry.mu_before, entry.sigma_before) == (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA)
            deltas.append((place, entry.mu_after - entry.mu_before))
    # Better places gain more (or lose less) than worse ones, the first gains and the last loses.
    assert [d for _, d in deltas] == sorted((d for _, d in deltas), reverse=True)
    assert deltas[0][1] > 0 > deltas[-1][1]
    for user in users.values():
        rating = Rating.objects.get(user=user, game="president")
        assert rating.games == 1 and rating.rating == ratings.display(rating.mu, rating.sigma)
        assert rating.wins == int(history[user.pk].won)
        assert rating.sigma < ratings.DEFAULT_SIGMA


def test_rating_a_table_twice_changes_nothing(make_user):
    table, users = new_table(make_user)
    finished = play_out(table.pk, users)
    before = list(Rating.objects.order_by("pk").values_list("mu", "sigma", "games"))
    engine = registry.get("president")
    from games.services.common import seat_rows

    again = ratings.record_finished(finished, rows=seat_rows(finished), places=engine.finishing_order(finished.state),
                                    teams=engine.teams(finished.state))
    assert again is False
    assert list(Rating.objects.order_by("pk").values_list("mu", "sigma", "games")) == before
    assert RatedTable.objects.count() == 1


@pytest.mark.parametrize(
    "kind",
    ["private", "option_off", "one_human", "staff_seed", "staff_deck"],
)
def test_unrated_tables_change_no_rating(make_user, kind):
    fields = {}
    humans, seats = 4, 4
    options = {}
    if kind == "private":
        fields["private"] = True
    elif kind == "option_off":
        options["rated"] = False
    elif kind == "one_human":
        humans = 1
    elif kind == "staff_seed":
        fields["seed"] = 12345
    elif kind == "staff_deck":
        from tests.api.helpers import president_hands_deck

        fields["deck"] = president_hands_deck()[1]
    if "seed" in fields or "deck" in fields:
        staff = make_user(staff=True)
        users = [staff] + [make_user() for _ in range(3)]
        table = tables.table_create(user=staff, game="president", seats=4, options={"hands": 1}, **fields)
        for user in users[1:]:
            tables.table_join(table_id=table.pk, user=user)
        tables.table_start(table_id=table.pk, user=staff)
        users = dict(enumerate(users))
    else:
        table, users = new_table(make_user, humans=humans, seats=seats, options=options, **fields)
    finished = play_out(table.pk, users, bots=True)
    assert finished.status == Table.Status.FINISHED
    assert Rating.objects.count() == 0 and RatedTable.objects.count() == 0


def test_an_aborted_table_is_not_rated(make_user):
    table, users = new_table(make_user)
    tables.table_abort(table_id=table.pk)
    assert RatedTable.objects.count() == 0


def test_private_tables_cannot_ask_to_be_rated(make_user):
    from config.errors import Invalid

    with pytest.raises(Invalid):
        tables.table_create(user=make_user(), game="president", seats=4, private=True, options={"rated": True})


def test_bots_are_rated_as_their_levels_shared_account(make_user):
    table, users = new_table(make_user, humans=2, bots_level="easy")
    finished = play_out(table.pk, users, bots=True)
    bot = Rating.objects.get(user__username="bot:easy", game="president")
    # Two seats, one table: one game for the shared account, two history rows.
    assert bot.games == 1
    assert RatingHistory.objects.filter(rated_table__table=finished, user=bot.user).count() == 2
    entries = RatingHistory.objects.filter(rated_table__table=finished, user=bot.user)
    assert {(e.mu_after, e.sigma_after) for e in entries} == {(bot.mu, bot.sigma)}


def test_pitch_partners_rate_as_one_team(make_user):
    table, users = new_table(make_user, game="pitch", options={"partnerships": True, "target_score": 3})
    finished = play_out(table.pk, users)
    history = list(RatingHistory.objects.filter(rated_table__table=finished))
    teams = {}
    for entry in history:
        teams.setdefault(entry.team, []).append(entry)
    assert sorted(len(t) for t in teams.values()) == [2, 2]
    assert sorted(t[0].place for t in teams.values()) == [1, 2]
    rows = {row.user_id: row.index for row in finished.seats.all()}
    for team in teams.values():
        # Partners sit opposite (seats 0+2, 1+3, A-9.1).
        assert len({rows[e.user_id] % 2 for e in team}) == 1
        assert len({e.won for e in team}) == 1


def test_recompute_reproduces_the_stored_ratings_and_reports_tampering(make_user, capsys):
    players = [make_user() for _ in range(6)]
    for rotation in range(3):
        seated = players[rotation:rotation + 4]
        table = tables.table_create(user=seated[0], game="president", seats=4, options={"hands": 1})
        for user in seated[1:]:
            tables.table_join(table_id=table.pk, user=user)
        tables.table_start(table_id=table.pk, user=seated[0])
        play_out(table.pk, dict(enumerate(seated)))
        if rotation == 1:
            ratings.rating_reset(user=players[2], game="president")
    assert RatedTable.objects.count() == 3
    assert ratings.ratings_recompute() == []
    call_command("recompute_ratings")
    Rating.objects.filter(user=players[1]).update(mu=99.0)
    with pytest.raises(CommandError):
        call_command("recompute_ratings")
    call_command("recompute_ratings", "--write")
    assert ratings.ratings_recompute() == []
    assert Rating.objects.get(user=players[1], game="president").mu != 99.0


def test_leaderboard_order_pagination_and_profiles(make_user, settings, anon):
    settings.LEADERBOARD_MIN_GAMES = 1
    users = [make_user() for _ in range(4)]
    for i, user in enumerate(users):
        Rating.objects.create(user=user, game="pitch", mu=20 + i, sigma=3, rating=ratings.display(20 + i, 3), games=i)
    board = users[0].api.get("/api/v1/leaderboards/pitch").json()
    # The player with no rated game is below the minimum; the rest by rating, best first.
    assert [e["username"] for e in board["results"]] == [u.username for u in reversed(users[1:])]
    assert [e["rank"] for e in board["results"]] == [1, 2, 3] and board["count"] == 3
    assert users[0].api.get("/api/v1/leaderboards/chess").status_code == 404
    settings.LEADERBOARD_MIN_GAMES = 0
    for _ in range(60):
        extra = make_user()
        Rating.objects.create(user=extra, game="pitch", mu=10, sigma=5, rating=ratings.display(10, 5), games=0)
    first = users[0].api.get("/api/v1/leaderboards/pitch").json()
    second = users[0].api.get("/api/v1/leaderboards/pitch?page=2").json()
    assert len(first["results"]) == 50 and len(second["results"]) == 14 and second["results"][0]["rank"] == 51
    profile = anon.get(f"/api/v1/players/{users[3].username.upper()}")
    assert profile.status_code == 401
    profile = users[0].api.get(f"/api/v1/players/{users[3].username.upper()}").json()
    assert profile["username"] == users[3].username and profile["ratings"]["pitch"]["games"] == 3
    assert users[0].api.get("/api/v1/players/nobody-here").status_code == 404
    me = users[3].api.get("/api/v1/me").json()
    assert me["ratings"]["pitch"]["rating"] == ratings.display(23, 3)
