"""Table lifecycle: create, join, leave, start, abort."""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone

from config.errors import Conflict, Forbidden, Invalid
from games.engine import base as engine_base
from games.engine import registry
from games.models import Invitation, Move, Seat, Table

from .common import apply_move, bump, engine_error, engine_for, lock_table, refresh_deadline

MAX_TURN_TIMEOUT = 7 * 24 * 3600
MAX_SEED = 2**63 - 1
DEFAULT_BOT_DELAY = 0.5
MAX_BOT_DELAY = 60
QUICK_PLAY_REFUSES_BOT_ACCOUNTS = ("quick play is for people: a bot account plays the tables it is invited to or "
                                   "joins by their id (docs/bots-accounts.md)")
# api.md: `bot_delay` is a table option of every game, handled here rather than by engines.
RATED_OPTION = {
    "type": "bool",
    "default": True,
    "description": "the finished table counts for the players' ratings (public tables only; default on for "
    "public tables, off for private ones; never with a staff deck or seed, and only with two or more humans)",
}
BOT_DELAY_OPTION = {
    "type": "number",
    "default": DEFAULT_BOT_DELAY,
    "minimum": 0,
    "maximum": MAX_BOT_DELAY,
    "description": "seconds a bot waits before its move, so humans can follow",
}


def table_create(
    *,
    user,
    game: str,
    seats: int,
    options: dict | None = None,
    turn_timeout: int = 60,
    private: bool = False,
    invite_only: bool = False,
    deck: list[str] | None = None,
    first_dealer: int | None = None,
    seed: int | None = None,
    duplicate_of=None,
) -> Table:
    """Create a table with the creator as host in seat 0. `deck`, `first_dealer` and `seed`
    are for staff only (support, teaching, duplicate tournaments), and so is `duplicate_of`: the
    id of a table whose seed (and fixed deck) the new table takes, so it deals the same deals in
    the same order, without the seed being shown."""
    staff_fields = [
        name
        for name, value in (("deck", deck), ("first_dealer", first_dealer), ("seed", seed), ("duplicate_of", duplicate_of))
        if value is not None
    ]
    if staff_fields and not user.is_staff:
        raise Forbidden(f"only staff may set {', '.join(staff_fields)}", {"fields": staff_fields})
    try:
        engine = registry.get(game)
    except KeyError as exc:
        choices = [g.slug for g in registry.all_games()]
        raise Invalid("unknown game", {"fields": {"game": [f"must be one of {choices}"]}}) from exc
    if not engine.min_players <= seats <= engine.max_players:
        raise Invalid(
            f"{engine.name} takes {engine.min_players} to {engine.max_players} seats",
            {"fields": {"seats": [f"must be between {engine.min_players} and {engine.max_players}"]}},
        )
    if not 0 <= turn_timeout <= MAX_TURN_TIMEOUT:
        raise Invalid("turn_timeout out of range", {"fields": {"turn_timeout": [f"must be 0..{MAX_TURN_TIMEOUT}"]}})
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise Invalid("seed out of range", {"fields": {"seed": ["must be between 0 and 2^63-1"]}})
    if first_dealer is not None and not 0 <= first_dealer < seats:
        raise Invalid("first_dealer out of range", {"fields": {"first_dealer": [f"must be 0..{seats - 1}"]}})
    options = dict(options or {})
    bot_delay = options.pop("bot_delay", DEFAULT_BOT_DELAY)
    # api.md: `rated` (default: on for public tables) is the platform's, like bot_delay.
    rated = options.pop("rated", not private)
    if not isinstance(rated, bool):
        raise Invalid("rated must be true or false", {"fields": {"options": {"rated": ["must be a boolean"]}}})
    if rated and private:
        raise Invalid("private tables are not rated", {"fields": {"options": {"rated": ["private tables are not rated"]}}})
    if isinstance(bot_delay, bool) or not isinstance(bot_delay, (int, float)) or not 0 <= bot_delay <= MAX_BOT_DELAY:
        raise Invalid("bot_delay out of range", {"fields": {"options": {"bot_delay": [f"seconds, 0..{MAX_BOT_DELAY}"]}}})
    try:
        clean_options = engine.validate_table_options(options, players=seats)
    except engine_base.InvalidMove as exc:
        raise Invalid(exc.message, {"fields": {"options": exc.fields}}) from exc
    source = None
    if duplicate_of is not None:
        source = _duplicate_source(duplicate_of, game=game, seats=seats, given=(seed, deck, first_dealer))
        seed, deck, first_dealer = source.seed, source.deck, source.first_dealer
    seed_given = seed is not None
    if seed is None:
        seed = secrets.randbits(63)
    if deck is not None:
        # A trial deal checks the deck now rather than at the start.
        try:
            engine.new_game(players=seats, options=clean_options, seed=seed, deck=deck, first_dealer=first_dealer)
        except engine_base.EngineError as exc:
            raise engine_error(exc) from exc
    with transaction.atomic():
        table = Table.objects.create(
            game=game,
            host=user,
            seat_count=seats,
            options=clean_options,
            turn_timeout=turn_timeout,
            private=private,
            invite_only=invite_only,
            deck=deck,
            first_dealer=first_dealer,
            seed=seed,
            bot_delay=float(bot_delay),
            rated=rated,
            staff_seed=seed_given,
            duplicate_of=source,
        )
        Seat.objects.bulk_create(
            [Seat(table=table, index=i, user=user if i == 0 else None) for i in range(seats)]
        )
    return table


def _duplicate_source(table_id, *, game: str, seats: int, given: tuple) -> Table:
    """The table a duplicate copies: same game and seat count (the deals depend on both), and
    no seed, deck or first dealer of its own (`given`)."""
    def refuse(message: str) -> Invalid:
        return Invalid(message, {"fields": {"duplicate_of": [message]}})

    if any(value is not None for value in given):
        raise refuse("a duplicate takes its source's seed, deck and first dealer: give none of them")
    try:
        source = Table.objects.get(pk=table_id)
    except (Table.DoesNotExist, ValueError, TypeError) as exc:
        raise refuse("no such table") from exc
    if source.game != game or source.seat_count != seats:
        raise refuse(f"the source is a {source.game} table of {source.seat_count} seats")
    return source


def _seated(table: Table, user) -> Seat | None:
    return table.seats.filter(user=user, is_bot=False).first()


def free_seat(table: Table, seat: int | None) -> Seat:
    """The named free seat, or the lowest free one, of a locked open table."""
    free = table.seats.filter(user__isnull=True).order_by("index")
    if seat is not None:
        if not 0 <= seat < table.seat_count:
            raise Invalid("no such seat", {"fields": {"seat": [f"must be 0..{table.seat_count - 1}"]}})
        free = free.filter(index=seat)
    row = free.first()
    if row is None:
        raise Conflict("that seat is taken" if seat is not None else "the table is full")
    return row


def table_join(*, table_id, user, seat: int | None = None) -> Table:
    """Take a free seat (the lowest free one unless `seat` is named). At an `invite_only` table,
    only a holder of a pending invitation (or the host) may; joining accepts the caller's pending
    invitation to the table, if any. A quick-play table's seats are not for bot accounts (403
    `forbidden`; services.lobby)."""
    with transaction.atomic():
        table = lock_table(table_id)
        invitation = pending_invitation(table, user)
        if table.invite_only and invitation is None and table.host_id != user.pk:
            raise Forbidden("this table is invite-only: only the host's invitees may join")
        join_locked(table, user=user, seat=seat, invitation=invitation)
        return table


def pending_invitation(table: Table, user) -> Invitation | None:
    """The user's pending invitation to a locked table (invitations change only under its lock)."""
    return Invitation.objects.filter(table=table, to=user, status=Invitation.Status.PENDING).first()


def join_locked(table: Table, *, user, seat: int | None = None, invitation: Invitation | None = None) -> None:
    """Seat `user` at a locked open table, accepting `invitation` (theirs, pending): the join and
    an invitation's acceptance are this one step, with the same errors."""
    if table.status != Table.Status.OPEN:
        raise Conflict("the table has already started")
    if table.quick_play_key and user.is_bot_account:
        raise Forbidden(QUICK_PLAY_REFUSES_BOT_ACCOUNTS)
    if _seated(table, user) is not None:
        raise Conflict("you already sit at this table")
    row = free_seat(table, seat)
    row.user = user
    row.save(update_fields=["user"])
    if invitation is not None:
        invitation.status = Invitation.Status.ACCEPTED
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
    bump(table, update_fields=[])


def table_leave(*, table_id, user) -> Table | None:
    """Before the start: free the seat; a leaving host passes hosting to the lowest seated
    player, and a table left empty is deleted (returns None). After the start: a bot plays
    the seat for the rest of the session."""
    with transaction.atomic():
        table = lock_table(table_id)
        row = _seated(table, user)
        if row is None:
            raise Forbidden("you do not sit at this table")
        if table.status == Table.Status.FINISHED:
            raise Conflict("the table has finished")
        if table.status == Table.Status.OPEN:
            row.user = None
            row.save(update_fields=["user"])
            remaining = table.seats.filter(user__isnull=False).order_by("index").first()
            if remaining is None:
                table.delete()
                return None
            if table.host_id == user.pk:
                table.host = remaining.user
            bump(table, update_fields=["host"])
            return table
        if row.left:
            raise Conflict("you already left this table")
        row.left = True
        row.away = True
        row.bot_level = row.bot_level or "easy"
        row.save(update_fields=["left", "away", "bot_level"])
        bump(table, update_fields=[])
        return table


def table_start(*, table_id, user) -> Table:
    """Host only: deal the first hand once every seat is filled."""
    with transaction.atomic():
        table = lock_table(table_id)
        if table.host_id != user.pk:
            raise Forbidden("only the host may start the table")
        if table.status == Table.Status.ACTIVE and engine_for(table).phase(table.state) == "setup":
            # L-12.5: a new Lopti session waits in `setup` until the host starts it.
            apply_move(table, seat=None, move={"type": "start_session"}, by=Move.By.SERVER)
            return table
        if table.status != Table.Status.OPEN:
            raise Conflict("the table has already started")
        if table.seats.filter(user__isnull=True).exists():
            raise Conflict("every seat must be filled before the start")
        start_locked(table)
        return table


def start_locked(table: Table) -> None:
    """Deal the first hand of a locked, full, open table (the host's start, or quick play's)."""
    engine = engine_for(table)
    try:
        table.state = engine.new_game(
            players=table.seat_count,
            options=table.options,
            seed=table.seed,
            deck=table.deck,
            first_dealer=table.first_dealer,
        )
    except engine_base.EngineError as exc:
        raise engine_error(exc) from exc
    table.status = Table.Status.ACTIVE
    table.started_at = timezone.now()
    refresh_deadline(table)
    bump(table, update_fields=["state", "status", "started_at", "deadline"])


def table_abort(*, table_id) -> Table:
    """Operators: stop a table for good (moderation, a stuck game)."""
    with transaction.atomic():
        table = lock_table(table_id)
        if table.status == Table.Status.FINISHED:
            raise Conflict("the table has finished")
        table.status = Table.Status.FINISHED
        table.aborted = True
        table.finished_at = timezone.now()
        table.deadline = None
        bump(table, update_fields=["status", "aborted", "finished_at", "deadline"])
        return table
