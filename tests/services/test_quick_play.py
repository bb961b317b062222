"""Quick play (api.md, "Ratings, leaderboards and quick play"): seating by shape and nearest
rating, the start when full, bots after the delay, one queue per game, leaving it, and two
players asking at once for the last seat ending up at one table."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from config.errors import NotFound
from games.models import Rating, Table
from games.services import lobby, ratings

pytestmark = pytest.mark.django_db(transaction=True)


def quick(user, game="president", **body):
    return user.api.post(f"/api/v1/lobby/{game}/quick-play", body, format="json")


def test_players_of_one_shape_share_a_table_that_starts_when_full(make_user):
    players = [make_user() for _ in range(4)]
    first = quick(players[0], options={"hands": 1}).json()
    assert first["status"] == "open" and first["options"]["rated"] is True
    for player in players[1:3]:
        assert quick(player, options={"hands": 1}).json()["id"] == first["id"]
    # Another shape waits elsewhere.
    other = quick(make_user(), options={"hands": 2}).json()
    assert other["id"] != first["id"]
    last = quick(players[3], options={"hands": 1}).json()
    assert last["id"] == first["id"] and last["status"] == "active"
    assert {s["player"]["id"] for s in last["seats"]} == {p.pk for p in players}


def test_asking_again_returns_the_same_table_and_leaving_frees_the_seat(make_user):
    player, other = make_user(), make_user()
    table = quick(player, game="lopti", seats=2).json()
    assert quick(player, game="lopti", seats=2).json()["id"] == table["id"]
    assert player.api.delete("/api/v1/lobby/lopti/quick-play").status_code == 204
    # The table was left empty and is gone; leaving again is 404.
    assert not Table.objects.filter(pk=table["id"]).exists()
    assert player.api.delete("/api/v1/lobby/lopti/quick-play").status_code == 404
    assert other.api.delete("/api/v1/lobby/chess/quick-play").status_code == 404


def test_players_go_to_the_table_of_the_nearest_average_rating(make_user, settings):
    settings.QUICK_PLAY_MAX_RATING_GAP = 400
    strong, weak, near_weak, near_strong = (make_user() for _ in range(4))
    for user, value in ((strong, 1600), (weak, 900), (near_weak, 1000), (near_strong, 1400)):
        Rating.objects.create(user=user, game="pitch", mu=25, sigma=8, rating=value, games=10)
    strong_table = quick(strong, game="pitch", seats=4).json()["id"]
    # 700 points apart: the weaker player waits at a table of their own.
    weak_table = quick(weak, game="pitch", seats=4).json()["id"]
    assert weak_table != strong_table
    assert quick(near_weak, game="pitch", seats=4).json()["id"] == weak_table
    assert quick(near_strong, game="pitch", seats=4).json()["id"] == strong_table


def test_bad_requests(make_user):
    user = make_user()
    assert quick(user, seats=9).status_code == 400
    assert quick(user, options={"hands": 0}).status_code == 400
    assert quick(user, options={"rated": False}).status_code == 400
    assert quick(user, bots_after=-1).status_code == 400
    assert quick(user, game="chess").status_code == 404


def test_bots_fill_the_free_seats_when_the_delay_runs_out_and_the_table_starts(make_user, monkeypatch):
    Rating.objects.create(user=_bot("hard"), game="president", mu=30, sigma=3, rating=1800, games=50)
    Rating.objects.create(user=_bot("easy"), game="president", mu=25, sigma=3, rating=1050, games=50)
    player = make_user()
    table = quick(player, bots_after=30, options={"hands": 1}).json()
    assert lobby.quick_play_fill(table_id=table["id"]) is False  # not yet
    later = timezone.now() + timedelta(seconds=31)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert lobby.overdue_fills(later) == [table["id"]]
    assert lobby.quick_play_fill(table_id=table["id"]) is True
    filled = Table.objects.get(pk=table["id"])
    assert filled.status == Table.Status.ACTIVE
    # A new player (1000) is nearest the easy level's rating, not the hard one's.
    assert {row.bot_level for row in filled.seats.filter(is_bot=True)} == {"easy"}
    assert filled.seats.filter(is_bot=True).count() == 3


def _bot(level):
    from accounts.services import bot_user_get_or_create

    return bot_user_get_or_create(level=level)


def _at_once(*calls):
    """Run the calls in threads released together; their results (or exceptions), in order."""
    results: list = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(i, call):
        barrier.wait()
        try:
            results[i] = call()
        except Exception as exc:  # reported to the test, not swallowed
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks race for real on PostgreSQL (CI's second pass)")
def test_two_players_asking_at_once_for_the_last_seat_end_at_one_table(make_user):
    for attempt in range(5):
        options = {"target_score": 10 + attempt}
        seated = [make_user() for _ in range(2)]
        racers = [make_user() for _ in range(2)]
        waiting_id = [quick(user, game="pitch", seats=3, options=options).json()["id"] for user in seated][0]
        answers = _at_once(*[
            lambda user=user, options=options: lobby.quick_play_join(user=user, game="pitch", seats=3, options=options)
            for user in racers
        ])
        assert all(isinstance(a, Table) for a in answers), answers
        results = [a.pk for a in answers]
        # One racer took the last seat of the waiting table, which started; the other opened the
        # next table and waits there alone: never two tables each short of players.
        assert sorted(str(pk) == waiting_id for pk in results) == [False, True]
        assert Table.objects.get(pk=waiting_id).status == Table.Status.ACTIVE
        key = Table.objects.get(pk=waiting_id).quick_play_key
        open_tables = Table.objects.filter(quick_play_key=key, status=Table.Status.OPEN)
        assert open_tables.count() == 1 and open_tables.get().seats.filter(user__isnull=False).count() == 1


def test_asking_for_another_shape_while_queued_returns_the_table_one_waits_at(make_user):
    """A player is queued once per game (docs/ratings.md, "Quick play"), whatever shape the second request asks for."""
    player = make_user()
    first = quick(player, game="pitch", seats=3).json()
    again = quick(player, game="pitch", seats=4, options={"target_score": 15})
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    assert Table.objects.filter(game="pitch", seats__user=player).count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks race for real on PostgreSQL (CI's second pass)")
def test_one_player_asking_at_once_for_two_shapes_is_queued_once(make_user):
    """Two shapes have two shape locks; the player's own lock orders the two requests, so the
    second finds the table the first opened instead of opening (or joining) another."""
    for attempt in range(5):
        player = make_user()
        # Shapes of this attempt only: nobody else waits at them.
        shapes = [{"seats": 3, "options": {"target_score": 20 + attempt}}, {"seats": 4, "options": {"target_score": 30 + attempt}}]
        results = _at_once(*[lambda body=body, player=player: lobby.quick_play_join(user=player, game="pitch", **body) for body in shapes])
        assert all(isinstance(r, Table) for r in results), results
        assert results[0].pk == results[1].pk
        assert Table.objects.filter(game="pitch", seats__user=player).count() == 1


def test_leaving_a_game_one_does_not_wait_for_is_404(make_user):
    with pytest.raises(NotFound):
        lobby.quick_play_leave(user=make_user(), game="pitch")
    assert ratings.display(ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA) == 1000


@pytest.mark.parametrize("meanwhile", ["taken", "left"])
def test_a_table_that_changes_between_the_choice_and_its_lock_is_passed_over(make_user, monkeypatch, meanwhile):
    """The bot fill at `bots_after`, a join by the table's id and a leave do not take the
    shape's lock: when the chosen table loses its free seat (or is deleted, left empty) between
    the choice and its lock, the player opens another table rather than getting an error."""
    from games.services import tables

    first, late = make_user(), make_user()
    waiting = quick(first, game="lopti", seats=2).json()["id"]
    real_lock = lobby.lock_table
    changed = []

    def lock_after_a_concurrent_change(table_id, **kwargs):
        if str(table_id) == waiting and not changed:
            changed.append(True)
            if meanwhile == "taken":
                tables.table_join(table_id=waiting, user=make_user())
            else:
                tables.table_leave(table_id=waiting, user=first)
        return real_lock(table_id, **kwargs)

    monkeypatch.setattr(lobby, "lock_table", lock_after_a_concurrent_change)
    answer = quick(late, game="lopti", seats=2)
    assert changed and answer.status_code == 200
    assert answer.json()["id"] != waiting and answer.json()["status"] == "open"
    assert [s["player"]["id"] for s in answer.json()["seats"] if s["player"]] == [late.pk]


def test_the_fill_is_queued_for_bots_after_and_the_sweep_fills_when_the_task_is_lost(make_user, monkeypatch, settings):
    """The fill is a Celery task queued on commit for `bots_at` (like a turn deadline); when
    it is lost, the beat's sweep fills the overdue table. `bots_after: 0` queues nothing and the
    table keeps waiting for players."""
    from games import scheduling, tasks

    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = []
    monkeypatch.setattr(scheduling, "_send", lambda name, args, **options: sent.append((name, args, options)))
    waiting = quick(make_user(), bots_after=30, options={"hands": 1}).json()["id"]
    never = quick(make_user(), game="lopti", seats=2, bots_after=0).json()["id"]
    fills = [(args, options) for name, args, options in sent if name == "quick_play_fill"]
    bots_at = Table.objects.get(pk=waiting).bots_at
    assert fills == [((waiting,), {"eta": bots_at})] and Table.objects.get(pk=never).bots_at is None
    assert tasks.sweep() == 0 and Table.objects.get(pk=waiting).status == Table.Status.OPEN
    later = bots_at + timedelta(seconds=tasks.SWEEP_SECONDS + 1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert tasks.sweep() >= 1
    filled = Table.objects.get(pk=waiting)
    assert filled.status == Table.Status.ACTIVE and filled.seats.filter(is_bot=True).count() == 3
    assert Table.objects.get(pk=never).status == Table.Status.OPEN


def test_a_retried_quick_play_with_its_idempotency_key_is_the_first_answer(make_user):
    """api.md: every state-changing POST accepts an Idempotency-Key. A client retrying the
    request that filled and started a table (its answer lost) must not be queued at a second
    table, which is what asking again without the key does once the first table has started."""
    first, second = make_user(), make_user()
    waiting = quick(first, game="lopti", seats=2).json()["id"]
    body = {"seats": 2}
    key = {"HTTP_IDEMPOTENCY_KEY": "quick-1"}
    answer = second.api.post("/api/v1/lobby/lopti/quick-play", body, format="json", **key)
    assert answer.json()["id"] == waiting and answer.json()["status"] == "active"
    again = second.api.post("/api/v1/lobby/lopti/quick-play", body, format="json", **key)
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true" and again.json() == answer.json()
    assert not Table.objects.filter(status=Table.Status.OPEN, seats__user=second).exists()
    other = second.api.post("/api/v1/lobby/lopti/quick-play", {"seats": 3}, format="json", **key)
    assert other.status_code == 409 and other.json()["code"] == "idempotency_key_reused"
    assert second.api.post("/api/v1/lobby/lopti/quick-play", ["seats"], format="json").status_code == 400
