"""Bot accounts are rated in a pool apart (games/services/ratings.py, the ruling in its docstring;
docs/ratings.md): at a table with both, people (humans and the built-in levels) are rated on their
order among themselves and bot accounts on theirs, so a person's rating never moves because of a
bot account; a pool with fewer than two of its own is not rated; the history replays exactly."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from accounts import scopes
from accounts import services as account_services
from games.engine import registry
from games.models import RatedTable, Rating, RatingHistory
from games.services import automation, ratings, tables
from games.services.common import seat_rows
from tests.services.test_ratings import play_out

pytestmark = pytest.mark.django_db


def bot_account(make_user):
    user = make_user()
    return account_services.bot_account_upgrade(user=user, grant=scopes.SESSION)


def president(make_user, players, builtin=0):
    """A rated one-hand President table of `players` (a person hosts it), plus `builtin` easy bots,
    played to its end."""
    table = tables.table_create(user=players[0], game="president", seats=len(players) + builtin, options={"hands": 1})
    for user in players[1:]:
        tables.table_join(table_id=table.pk, user=user)
    for _ in range(builtin):
        automation.table_add_bot(table_id=table.pk, user=players[0], level="easy")
    tables.table_start(table_id=table.pk, user=players[0])
    finished = play_out(table.pk, dict(enumerate(players)), bots=bool(builtin))
    assert finished.rated and finished.status == "finished"
    return finished


def alone(finished, users) -> dict[int, tuple[float, float]]:
    """What OpenSkill gives `users` (all fresh) for their order among themselves at the table,
    as if nobody else had sat there: {user id: (mu, sigma)}."""
    rows = seat_rows(finished)
    place = {seat: i for i, group in enumerate(registry.get("president").finishing_order(finished.state)) for seat in group}
    ids = [u.pk for u in users]
    seat_of = {row.user_id: seat for seat, row in rows.items()}
    order = sorted({place[seat_of[uid]] for uid in ids})
    ranks = [order.index(place[seat_of[uid]]) + 1 for uid in ids]
    rated = ratings.MODEL.rate([[ratings.MODEL.rating(mu=ratings.DEFAULT_MU, sigma=ratings.DEFAULT_SIGMA)] for _ in ids],
                               ranks=ranks)
    return {uid: (team[0].mu, team[0].sigma) for uid, team in zip(ids, rated, strict=True)}


def stored(users) -> dict[int, tuple[float, float]]:
    return {r.user_id: (r.mu, r.sigma) for r in Rating.objects.filter(user__in=users, game="president")}


def test_people_and_bot_accounts_at_one_table_are_rated_each_among_their_own(make_user):
    people = [make_user(), make_user()]
    bots = [bot_account(make_user), bot_account(make_user)]
    finished = president(make_user, [people[0], bots[0], people[1], bots[1]])
    for pool in (people, bots):
        expected = alone(finished, pool)
        got = stored(pool)
        assert set(got) == set(expected)
        for uid in expected:
            assert got[uid] == pytest.approx(expected[uid])
    # Had the four been rated together, the people's values would differ: the pools did not meet.
    four = alone(finished, [*people, *bots])
    assert any(stored(people)[u.pk] != pytest.approx(four[u.pk]) for u in people)
    history = RatingHistory.objects.filter(rated_table__table=finished)
    assert {h.user_id for h in history if h.match == 0} == {u.pk for u in people}
    assert {h.user_id for h in history if h.match == 1} == {u.pk for u in bots}
    assert all(r.games == 1 for r in Rating.objects.all())
    assert ratings.ratings_recompute() == []


def test_a_lone_person_among_bot_accounts_is_not_rated_and_they_are(make_user):
    person = make_user()
    bots = [bot_account(make_user) for _ in range(3)]
    finished = president(make_user, [person, *bots])
    assert not Rating.objects.filter(user=person).exists()
    got, expected = stored(bots), alone(finished, bots)
    assert set(got) == set(expected) and all(got[u] == pytest.approx(expected[u]) for u in expected)
    assert ratings.ratings_recompute() == []


def test_a_lone_bot_account_among_people_is_not_rated_and_the_built_in_bots_stay_with_the_people(make_user):
    people = [make_user(), make_user()]
    bot = bot_account(make_user)
    finished = president(make_user, [people[0], people[1], bot], builtin=1)
    assert not Rating.objects.filter(user=bot).exists()
    builtin = seat_rows(finished)
    easy = next(row.user for row in builtin.values() if row.is_bot)
    got, expected = stored([*people, easy]), alone(finished, [*people, easy])
    assert set(got) == set(expected) and all(got[u] == pytest.approx(expected[u]) for u in expected)
    assert ratings.ratings_recompute() == []


def test_two_bot_accounts_with_built_in_bots_are_rated_and_the_built_in_bots_are_not(make_user):
    bots = [bot_account(make_user) for _ in range(2)]
    finished = president(make_user, bots, builtin=2)
    assert RatedTable.objects.filter(table=finished).count() == 1
    got, expected = stored(bots), alone(finished, bots)
    assert set(got) == set(expected) and all(got[u] == pytest.approx(expected[u]) for u in expected)
    assert not Rating.objects.filter(user__is_bot=True).exists()  # no person here: the people's pool is not rated


def test_the_pools_of_a_partnership_table():
    """Sides keep only their pool's seats; a pool with one side of its own is not rated."""
    seated = {seat: SimpleNamespace(user_id=seat + 1, is_bot=False) for seat in range(4)}
    partnerships = [[0, 2], [1, 3]]
    # People in seats 0 and 1, bot accounts (users 3 and 4) in 2 and 3: a seat of each pool on each side.
    assert ratings.pools(seated, partnerships, {3, 4}) == [[[0], [1]], [[2], [3]]]
    # A partnership of people against one of bot accounts: one side per pool, nothing rated.
    assert ratings.pools(seated, partnerships, {2, 4}) == []
    # No bot account: the people's sides as they are.
    assert ratings.pools(seated, partnerships, set()) == [partnerships]
