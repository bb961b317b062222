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
    assert len(history) == 4 and {h.match for h in history.values()} == {0}  # one match
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
    # Its change is its two seats' changes together (each seat rated as a distinct player).
    history = list(RatingHistory.objects.filter(rated_table__table=finished).order_by("team"))
    seats = _separately([e.place for e in history], (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA))
    gains = [after[0] - ratings.DEFAULT_MU for e, after in zip(history, seats, strict=True) if e.user_id == bot.user_id]
    assert len(gains) == 2 and bot.mu - ratings.DEFAULT_MU == pytest.approx(sum(gains))


def _separately(places, before):
    """The (mu, sigma) OpenSkill gives each seat of a match rated with every seat a distinct
    player holding `before` (places: the rank of each seat)."""
    out = ratings.MODEL.rate([[ratings.MODEL.rating(mu=before[0], sigma=before[1])] for _ in places], ranks=places)
    return [(team[0].mu, team[0].sigma) for team in out]


def test_an_account_in_two_seats_of_a_match_gets_both_seats_updates():
    """The update both paths use (the service and `simulate --rated`): one account in two
    seats (a bot level) moves by the two seats' changes together, as one skill seen twice in
    one match, not by their mean (which counted a level's two seats as one): first and second
    place gain it more than first place alone gains a player, and it ends surer."""
    fresh = (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA)
    places, teams = [[0], [1], [2], [3]], [[0], [1], [2], [3]]
    seats = _separately([1, 2, 3, 4], fresh)
    shared, team_places, entrants = ratings.match({"bot": fresh, 2: fresh, 3: fresh}, places, teams,
                                                  lambda s: "bot" if s < 2 else s)
    assert team_places == [1, 2, 3, 4] and [key for _, key in entrants] == ["bot", "bot", 2, 3]
    gain = shared["bot"][0] - fresh[0]
    assert gain == pytest.approx((seats[0][0] - fresh[0]) + (seats[1][0] - fresh[0]))
    assert gain > seats[0][0] - fresh[0] > 0
    assert shared["bot"][1] < min(seats[0][1], seats[1][1])
    # The other players' updates are those of the match with four distinct players.
    assert (shared[2], shared[3]) == (seats[2], seats[3])
    # First and last: the two seats' changes nearly cancel out (one skill, both ends).
    ends, _, _ = ratings.match({"bot": fresh, 1: fresh, 2: fresh}, [[0], [1], [2], [3]], teams,
                               lambda s: "bot" if s in (0, 3) else s)
    assert abs(ends["bot"][0] - fresh[0]) < 0.5 * (seats[0][0] - fresh[0])


FRESH = (ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA)
ALONE = [[0], [1], [2]]  # a 3-seat Lopti table's sides


def lopti_table(make_user, outs: list[list[int]], *, play_for_places: bool):
    """A rated 3-human Lopti table of len(outs) rounds where round r's seats go out in the order
    of outs[r] (with play_for_places the first two, else the winner alone), built directly up to
    the last of them, whose going out the service plays: the move that finishes and rates it."""
    from tests.engine.test_lopti_rules import finish_round, ready_to_go_out
    from tests.engine.test_lopti_support import table as engine_table

    options = {"rounds": len(outs), "play_for_places": play_for_places}
    table, users = new_table(make_user, humans=3, game="lopti", seats=3, options=options)
    assert {row.index: row.user_id for row in table.seats.all()} == {i: u.pk for i, u in users.items()}
    order = [seat for r in outs for seat in r]
    st = engine_table(players=3, turn=order[0], options=options)
    for seat in order[:-1]:
        st, _ = finish_round(st, seat)
    Table.objects.filter(pk=table.pk).update(state=ready_to_go_out(st, order[-1]))  # a position reached in play
    moves.move_submit(table_id=table.pk, user=users[order[-1]], move={"type": "play_face_down", "index": 0})
    finished = Table.objects.get(pk=table.pk)
    assert finished.status == Table.Status.FINISHED
    return finished, users


def rows_by_match(table) -> dict:
    """{(match, user id): history row} of a rated table."""
    return {(h.match, h.user_id): h for h in RatingHistory.objects.filter(rated_table__table=table)}


def test_a_lopti_table_is_rated_round_by_round_by_each_rounds_places(make_user):
    """Ruling (docs/ratings.md): one match per round, in order, each from the last one's values; with
    play_for_places a round's places are the order of going out (L-10.3). Seat 0 wins both
    rounds, seat 2 is last in both; the table is one game, won by seat 0 (L-2.2)."""
    finished, users = lopti_table(make_user, [[0, 1], [0, 1]], play_for_places=True)
    assert registry.get("lopti").rating_matches(finished.state) == [ALONE, ALONE]
    rows = rows_by_match(finished)
    assert sorted((m, uid, h.place) for (m, uid), h in rows.items()) == sorted(
        (m, users[seat].pk, seat + 1) for m in (0, 1) for seat in range(3)
    )
    expected = ratings.matches_in_order({u.pk: FRESH for u in users.values()}, [ALONE, ALONE], ALONE,
                                        lambda s: users[s].pk)
    for m, (before, after, _, _) in enumerate(expected):
        for uid in before:
            assert (rows[(m, uid)].mu_before, rows[(m, uid)].sigma_before) == before[uid]
            assert (rows[(m, uid)].mu_after, rows[(m, uid)].sigma_after) == after[uid]
    first, last = users[0].pk, users[2].pk
    for m in (0, 1):
        assert rows[(m, first)].mu_after > rows[(m, first)].mu_before  # gains in both rounds
        assert rows[(m, last)].mu_after < rows[(m, last)].mu_before  # loses in both
        # second place is its own, not tied with the last as the order by round wins has it
        assert rows[(m, users[1].pk)].mu_after > rows[(m, last)].mu_after
    assert (rows[(1, last)].mu_before, rows[(1, last)].sigma_before) == (rows[(0, last)].mu_after, rows[(0, last)].sigma_after)
    for seat, user in users.items():
        rating = Rating.objects.get(user=user, game="lopti")
        assert (rating.mu, rating.sigma) == (rows[(1, user.pk)].mu_after, rows[(1, user.pk)].sigma_after)
        assert rating.games == 1 and rating.wins == (seat == 0)
        assert rows[(0, user.pk)].won == rows[(1, user.pk)].won == (seat == 0)


def test_a_lopti_table_without_play_for_places_rates_each_round_winner_against_the_rest(make_user):
    """L-10.1: a round's winner first, the others tied, round by round. Seats 1 and 2 each win a
    round, so both win the table (L-2.2) and seat 0 loses twice; the wins are the table's, on
    every match's row."""
    finished, users = lopti_table(make_user, [[1], [2]], play_for_places=False)
    rows = rows_by_match(finished)
    places = {(m, seat): rows[(m, users[seat].pk)].place for m in (0, 1) for seat in range(3)}
    assert places == {(0, 0): 2, (0, 1): 1, (0, 2): 2, (1, 0): 2, (1, 1): 2, (1, 2): 1}
    loser = users[0].pk
    assert rows[(1, loser)].mu_after < rows[(1, loser)].mu_before < rows[(0, loser)].mu_before == ratings.DEFAULT_MU
    # The winner of round 1 gains in it, and loses in round 2 (tied second there).
    assert rows[(0, users[1].pk)].mu_after > ratings.DEFAULT_MU > rows[(0, users[2].pk)].mu_after
    assert rows[(1, users[1].pk)].mu_after < rows[(1, users[1].pk)].mu_before
    for seat, user in users.items():
        rating = Rating.objects.get(user=user, game="lopti")
        assert rating.games == 1 and rating.wins == (seat != 0)
        assert {rows[(m, user.pk)].won for m in (0, 1)} == {seat != 0}


def test_a_one_round_lopti_table_is_rated_as_before(make_user):
    """Without play_for_places, one round: one match, the table's order by round wins."""
    finished, users = lopti_table(make_user, [[2]], play_for_places=False)
    engine = registry.get("lopti")
    assert engine.rating_matches(finished.state) == [engine.finishing_order(finished.state)] == [[[2], [0, 1]]]
    after, _, _ = ratings.match({u.pk: FRESH for u in users.values()}, [[2], [0, 1]], ALONE, lambda s: users[s].pk)
    rows = rows_by_match(finished)
    assert {m for m, _ in rows} == {0}
    assert {uid: (h.mu_after, h.sigma_after) for (_, uid), h in rows.items()} == after


def test_recompute_replays_lopti_tables_match_by_match(make_user):
    lopti_table(make_user, [[0, 1], [2, 0]], play_for_places=True)
    lopti_table(make_user, [[1], [1], [0]], play_for_places=False)
    assert RatingHistory.objects.filter(match=2).count() == 3
    assert ratings.ratings_recompute() == []
    # A round's place changed: that round no longer rebuilds, and neither does what follows.
    RatingHistory.objects.filter(match=1, place=1).update(place=3)
    differences = ratings.ratings_recompute()
    assert differences and " match 1: " in differences[0] and not any(" match 0: " in d for d in differences)


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


def pitch_table(make_user, scores: list[int]):
    """A rated 3-human Pitch table to 11 whose last hand (H1 of the engine tests, turned so
    that seat 0 pitches and makes its bid of 2 with 3 points, seat 1 takes the jack, seat 2
    nothing) starts from `scores`, built directly up to its last card, which the service plays:
    the move that finishes and rates the table."""
    from tests.engine.test_pitch import H1, H1_BIDS, H1_PLAYS, auction, new, play_all

    def seat(s):  # H1's seat s sits at s - 1 here
        return (s - 1) % 3

    table, users = new_table(make_user, humans=3, game="pitch", seats=3, options={"target_score": 11})
    st = auction(new([H1[(s + 1) % 3] for s in range(3)], dealer=seat(0), target_score=11),
                 [(seat(s), v) for s, v in H1_BIDS])
    st["scores"] = list(scores)
    plays = [(seat(s), card) for s, card in H1_PLAYS]
    st, _ = play_all(st, plays[:-1])
    Table.objects.filter(pk=table.pk).update(state=st)  # a position reached in play
    last, card = plays[-1]
    moves.move_submit(table_id=table.pk, user=users[last], move={"type": "play", "card": card})
    finished = Table.objects.get(pk=table.pk)
    assert finished.status == Table.Status.FINISHED and finished.state["winners"] == [0]
    return finished, users


def test_a_pitch_table_rates_its_winner_first_and_every_other_seat_tied(make_user):
    """Ruling (docs/ratings.md): Pitch's rules name a winner (A-7.1) and no second place, so
    the seats on 7 and 3 points share the last place and, starting alike, end alike."""
    finished, users = pitch_table(make_user, [8, 6, 3])
    assert finished.state["scores"] == [11, 7, 3]
    assert registry.get("pitch").rating_matches(finished.state) == [[[0], [1, 2]]]
    rows = {uid: h for (_, uid), h in rows_by_match(finished).items()}
    assert [rows[users[s].pk].place for s in range(3)] == [1, 2, 2]
    second, third = rows[users[1].pk], rows[users[2].pk]
    assert (second.mu_after, second.sigma_after) == (third.mu_after, third.sigma_after)
    assert rows[users[0].pk].mu_after > ratings.DEFAULT_MU > second.mu_after
    assert [Rating.objects.get(user=users[s], game="pitch").wins for s in range(3)] == [1, 0, 0]


def by_final_scores(self, state):
    """Pitch's reading before 2026-12-02: the winner first, then the others by final score."""
    rest: dict[int, list[int]] = {}
    for s in range(state["players"]):
        if s not in state["winners"]:
            rest.setdefault(state["scores"][s], []).append(s)
    return [list(state["winners"])] + [rest[score] for score in sorted(rest, reverse=True)]


def test_recompute_reproduces_tables_rated_under_either_pitch_reading(make_user, monkeypatch):
    """A table rated under the earlier reading keeps its recorded places and updates, and the
    recompute rebuilds both kinds from the history, whatever the engine reads today."""
    from games.engine import pitch

    with monkeypatch.context() as patch:
        patch.setattr(pitch.Pitch, "finishing_order", by_final_scores)
        old, old_users = pitch_table(make_user, [8, 6, 3])
    current, current_users = pitch_table(make_user, [8, 6, 3])
    assert [rows_by_match(old)[(0, old_users[s].pk)].place for s in range(3)] == [1, 2, 3]
    assert [rows_by_match(current)[(0, current_users[s].pk)].place for s in range(3)] == [1, 2, 2]
    assert ratings.ratings_recompute() == []
    call_command("recompute_ratings")


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


def test_recompute_replays_each_table_with_the_rule_it_was_rated_with(make_user, monkeypatch):
    """Tables rated before the seats of one account were combined by their sum (their mean
    then) still rebuild to the stored values: each rated table records its rule."""
    humans = [make_user() for _ in range(2)]
    for rule in (ratings.MEAN, ratings.SUM):
        monkeypatch.setattr(ratings, "COMBINE", rule)
        table = tables.table_create(user=humans[0], game="president", seats=4, options={"hands": 1})
        tables.table_join(table_id=table.pk, user=humans[1])
        for _ in range(2):
            automation.table_add_bot(table_id=table.pk, user=humans[0], level="easy")
        tables.table_start(table_id=table.pk, user=humans[0])
        play_out(table.pk, {0: humans[0], 1: humans[1]}, bots=True)
    assert list(RatedTable.objects.order_by("id").values_list("combine", flat=True)) == ["mean", "sum"]
    assert Rating.objects.get(user__username="bot:easy", game="president").games == 2
    assert ratings.ratings_recompute() == []
    # Replayed with the other rule, the first table no longer gives what was stored.
    RatedTable.objects.filter(combine="mean").update(combine="sum")
    assert ratings.ratings_recompute() != []


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
