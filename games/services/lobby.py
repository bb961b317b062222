"""Quick play (api.md, "Ratings, leaderboards and quick play"): `POST /lobby/{game}/quick-play`
seats the caller at a waiting public table of that game and shape (seat count and options),
the one whose players' average rating is nearest to the caller's, or opens one when none is
within QUICK_PLAY_MAX_RATING_GAP display points (so strong and new players are not thrown
together while both could wait a little for their own kind). The table
starts as soon as it is full; when `bots_after` seconds pass first, its free seats go to bots
of the level whose rating is nearest to the table's average, and it starts.

Every seating for a shape runs under a lock on that shape's row (QuickPlayLock), so two players
asking at once for one remaining seat end up at the same table, never at two half-filled ones.
A player waits in one quick-play queue per game at a time: asking again returns the same table,
whatever shape is asked for (a lock per player and game orders one player's requests).

Quick play is for people (api.md, "Bot accounts"): a bot account is refused (403 `forbidden`),
here and when joining a quick-play table by its id (`tables.table_join`), and the seats left free
go to the built-in bots only, so quick play never seats a bot account."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.errors import Forbidden, Invalid, NotFound
from games import bots
from games.engine import base as engine_base
from games.engine import registry
from games.models import QuickPlayLock, Rating, Seat, Table

from . import ratings
from .common import bump, lock_table
from .tables import DEFAULT_BOT_DELAY, QUICK_PLAY_REFUSES_BOT_ACCOUNTS, start_locked, table_create

DEFAULT_BOTS_AFTER = 30
MAX_BOTS_AFTER = 3600


def shape(game: str, seats: int | None, options: dict | None) -> tuple[int, dict, str]:
    """The validated seat count and options, and the key of tables of that shape."""
    try:
        engine = registry.get(game)
    except KeyError as exc:
        raise NotFound("no such game") from exc
    if seats is None:
        seats = min(max(4, engine.min_players), engine.max_players)
    if not engine.min_players <= seats <= engine.max_players:
        raise Invalid(
            f"{engine.name} takes {engine.min_players} to {engine.max_players} seats",
            {"fields": {"seats": [f"must be between {engine.min_players} and {engine.max_players}"]}},
        )
    options = dict(options or {})
    for platform_option in ("rated", "bot_delay"):
        if platform_option in options:
            raise Invalid(f"{platform_option} is set by quick play", {"fields": {"options": {platform_option: ["not allowed here"]}}})
    try:
        clean = engine.validate_table_options(options, players=seats)
    except engine_base.InvalidMove as exc:
        raise Invalid(exc.message, {"fields": {"options": exc.fields}}) from exc
    raw = json.dumps([game, seats, clean], sort_keys=True, separators=(",", ":"))
    return seats, clean, hashlib.sha256(raw.encode()).hexdigest()


def _rating(user, game: str) -> float:
    row = Rating.objects.filter(user=user, game=game).values_list("rating", flat=True).first()
    return float(row if row is not None else ratings.display(ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA))


def _average(table: Table, game: str, default: float) -> float:
    users = [row.user_id for row in table.seats.all() if row.user_id and not row.is_bot]
    known = dict(Rating.objects.filter(user_id__in=users, game=game).values_list("user_id", "rating"))
    if not users:
        return default
    fresh = ratings.display(ratings.DEFAULT_MU, ratings.DEFAULT_SIGMA)
    return sum(known.get(u, fresh) for u in users) / len(users)


def _waiting(user, game: str) -> Table | None:
    return (
        Table.objects.filter(game=game, status=Table.Status.OPEN, seats__user=user, seats__is_bot=False)
        .exclude(quick_play_key="")
        .first()
    )


def quick_play_join(*, user, game: str, seats: int | None = None, options: dict | None = None,
                    bots_after: int = DEFAULT_BOTS_AFTER) -> Table:
    seats, clean, key = shape(game, seats, options)
    if isinstance(bots_after, bool) or not isinstance(bots_after, int) or not 0 <= bots_after <= MAX_BOTS_AFTER:
        raise Invalid("bots_after out of range", {"fields": {"bots_after": [f"seconds, 0..{MAX_BOTS_AFTER}"]}})
    # The player's own lock first, then the shape's (always in that order): one player asking
    # at once for two shapes of a game is queued once, at one table (the second request
    # finds the first's table); players of one shape are seated one at a time.
    player_key = f"player:{user.pk}:{game}"  # shape keys are sha256 hex: no clash
    for lock_key in (player_key, key):
        try:
            QuickPlayLock.objects.get_or_create(key=lock_key)
        except IntegrityError:
            pass  # created by a concurrent request
    with transaction.atomic():
        # Read under a lock on the user row, which the upgrade to a bot account takes too: an
        # upgrade either sees this seating (and is refused) or is seen here.
        if type(user).objects.select_for_update().filter(pk=user.pk, is_bot_account=True).exists():
            raise Forbidden(QUICK_PLAY_REFUSES_BOT_ACCOUNTS)
        QuickPlayLock.objects.select_for_update().get(key=player_key)
        QuickPlayLock.objects.select_for_update().get(key=key)
        already = _waiting(user, game)
        if already is not None:
            return already
        mine = _rating(user, game)
        candidates = [
            t for t in Table.objects.filter(quick_play_key=key, status=Table.Status.OPEN, private=False).prefetch_related("seats")
            if any(row.user_id is None for row in t.seats.all())
        ]
        gaps = [(abs(_average(t, game, default=mine) - mine), t.created_at, t) for t in candidates]
        gaps = sorted((g for g in gaps if g[0] <= settings.QUICK_PLAY_MAX_RATING_GAP), key=lambda g: g[:2])
        table, row = _first_free_seat([t for _, _, t in gaps])
        if table is None:
            table = table_create(user=user, game=game, seats=seats, options={**clean, "bot_delay": DEFAULT_BOT_DELAY})
            Table.objects.filter(pk=table.pk).update(
                quick_play_key=key, bots_at=timezone.now() + timedelta(seconds=bots_after) if bots_after else None
            )
            table = lock_table(table.pk)
            _schedule_fill(table)
            return table
        row.user = user
        row.save(update_fields=["user"])
        if not table.seats.filter(user__isnull=True).exists():
            table.bots_at = None
            table.save(update_fields=["bots_at"])
            start_locked(table)
        else:
            bump(table, update_fields=[])
        return table


def _first_free_seat(choices: list[Table]) -> tuple[Table | None, Seat | None]:
    """The first of `choices` (best first) that, once locked, is still open with a free seat,
    and that seat. The shape's lock orders quick-play seatings only: the bot fill, a join by
    the table's id or a leave may have changed a table since it was read."""
    for choice in choices:
        try:
            table = lock_table(choice.pk)
        except NotFound:
            continue  # left empty and deleted
        if table.status == Table.Status.OPEN:
            row = table.seats.filter(user__isnull=True).order_by("index").first()
            if row is not None:
                return table, row
    return None, None


def _schedule_fill(table: Table) -> None:
    if table.bots_at is None:
        return
    table_id, when = str(table.pk), table.bots_at

    def queue():
        from games import scheduling

        scheduling.queue_quick_play_fill(table_id, when)

    transaction.on_commit(queue)


def quick_play_leave(*, user, game: str) -> None:
    """Leave the quick-play queue of `game`: the waiting table loses the caller's seat (and
    is deleted when nobody is left)."""
    from .tables import table_leave

    if game not in {g.slug for g in registry.all_games()}:
        raise NotFound("no such game")
    waiting = _waiting(user, game)
    if waiting is None:
        raise NotFound("you are not waiting for a quick-play table of this game")
    table_leave(table_id=waiting.pk, user=user)


def _nearest_level(game: str, average: float) -> str:
    levels = {r.user.bot_level: r.rating for r in Rating.objects.filter(game=game, user__is_bot=True).select_related("user")}
    rated = {level: levels[level] for level in bots.LEVELS if level in levels}
    if not rated:
        return "easy"
    return min(rated, key=lambda level: (abs(rated[level] - average), level))


def quick_play_fill(*, table_id) -> bool:
    """At `bots_at`: the free seats of a waiting quick-play table go to bots, and it starts."""
    from accounts.services import bot_user_get_or_create

    with transaction.atomic():
        try:
            table = lock_table(table_id)
        except NotFound:
            return False
        if table.status != Table.Status.OPEN or not table.quick_play_key or table.bots_at is None:
            return False
        if table.bots_at > timezone.now():
            return False
        humans = [row.user for row in table.seats.filter(user__isnull=False, is_bot=False).select_related("user")]
        average = sum(_rating(u, table.game) for u in humans) / len(humans) if humans else 1000.0
        level = _nearest_level(table.game, average)
        bot = bot_user_get_or_create(level=level)
        Seat.objects.filter(table=table, user__isnull=True).update(user=bot, is_bot=True, bot_level=level)
        table.bots_at = None
        table.save(update_fields=["bots_at"])
        start_locked(table)
        return True


def overdue_fills(now=None) -> list[str]:
    now = now or timezone.now()
    due = Table.objects.filter(status=Table.Status.OPEN, bots_at__lte=now).exclude(quick_play_key="")
    return [str(pk) for pk in due.values_list("pk", flat=True)[:200]]
