"""Every read that depends on the viewer. Hidden information is removed by the engine's
`view`, `view_event` and `view_move`; everything here is built from those."""

from __future__ import annotations

from django.db.models import Case, Q, When

from config.errors import Conflict, NotFound
from games import deal_log, prepared
from games.engine import lopti as lopti_engine
from games.engine import registry
from games.models import Invitation, Move, Seat, Table


def get_table(table_id) -> Table:
    """A table with its host and seats, or the contract's 404."""
    try:
        return Table.objects.select_related("host").prefetch_related("seats__user").get(pk=table_id)
    except (Table.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("no such table") from exc


def table_for_state(table_id) -> Table | None:
    """The table and its seats with their players, in two queries (the state view needs no
    host): the state endpoint's read (games.edge.state)."""
    found = _TABLE.run(table_id)
    if not found:
        return None
    table = found[0]
    table._seat_rows = _SEATS.run(table.pk)
    return table


# The polling path's two reads, compiled once (games.prepared).
_TABLE = prepared.Prepared(lambda table_id: Table.objects.filter(pk=table_id), Table._meta.pk)
_SEATS = prepared.Prepared(
    lambda table_id: Seat.objects.filter(table_id=table_id).select_related("user").order_by("index"), Table._meta.pk
)


def games_catalogue() -> list[dict]:
    """The registered games and their options (`GET /games`), before the platform's own."""
    return [g.catalogue() for g in registry.all_games()]


def game_slugs() -> list[str]:
    return [g.slug for g in registry.all_games()]


def seat_range() -> tuple[int, int]:
    """The fewest and most seats any game takes."""
    games = registry.all_games()
    return min(g.min_players for g in games), max(g.max_players for g in games)


def move_events(table: Table, events: list[dict], seat: int | None) -> list[dict]:
    """A move's events as `seat` (None: a spectator) may see them."""
    engine = registry.get(table.game)
    return [engine.view_event(e, seat) for e in events]


def player_json(user) -> dict | None:
    if user is None:
        return None
    return {"id": user.pk, "username": user.username}


def seats_of(table: Table) -> list[Seat]:
    cache = getattr(table, "_prefetched_objects_cache", {})
    if "seats" in cache:
        return list(cache["seats"])
    # Read once per table object: a state view asks for the seats several times.
    if not hasattr(table, "_seat_rows"):
        table._seat_rows = list(table.seats.select_related("user").order_by("index"))
    return list(table._seat_rows)


def _seat_players(table: Table) -> list[int]:
    if table.state is None:
        return list(range(table.seat_count))
    return registry.get(table.game).seat_players(table.state)


def table_seats(table: Table) -> list[dict]:
    """The public seat list in current seat order. A bot account's seat says so (docs/api.md,
    "Bot accounts"): `is_bot: true` and `bot: {account}`; the other seats carry no `bot` (a
    human's and a built-in bot's seat keep the shape they always had)."""
    rows = {row.index: row for row in seats_of(table)}
    out = []
    for seat, player in enumerate(_seat_players(table)):
        row = rows[player]
        shown = {
            "seat": seat,
            "player": player_json(row.user),
            "is_bot": row.is_bot or row.left,
            "away": row.away,
        }
        if row.user is not None and row.user.is_bot_account:
            shown["is_bot"] = True
            shown["bot"] = {"account": row.user.username}
        out.append(shown)
    return out


def viewer_seat(table: Table, user) -> int | None:
    """The caller's current seat, or None for a spectator."""
    if user is None or not user.is_authenticated:
        return None
    for row in seats_of(table):
        if row.user_id == user.pk and not row.is_bot:
            return _seat_players(table).index(row.index)
    return None


def table_summary(table: Table) -> dict:
    return {
        "id": str(table.id),
        "game": table.game,
        "status": table.status,
        "version": table.version,
        "host": player_json(table.host),
        "seats": table_seats(table),
        "options": {**table.options, "bot_delay": table.bot_delay, "rated": table.rated},
        "turn_timeout": table.turn_timeout,
        "private": table.private,
        "invite_only": table.invite_only,
        "rematch": None if table.rematch_id is None else str(table.rematch_id),
        "aborted": table.aborted,
        "created_at": table.created_at,
        "started_at": table.started_at,
        "finished_at": table.finished_at,
    }


def state_view(table: Table, user) -> dict:
    """`GET /tables/{id}/state` for this caller."""
    seat = viewer_seat(table, user)
    seats = table_seats(table)
    base = {
        "table": str(table.id),
        "game": table.game,
        "version": table.version,
        "status": table.status,
        "deadline": table.deadline,
    }
    if table.state is None:
        return waiting_state(base, seats, seat)
    view = registry.get(table.game).view(table.state, seat)
    return started_state(base, seats, view, active=table.status == Table.Status.ACTIVE)


def waiting_state(base: dict, seats: list[dict], seat: int | None) -> dict:
    """The state view before the start. Ruling (docs/api.md, "The state view"): `public` is
    null until there is a game to show (it was `{}`, which no game's typed `public` fits), and
    `you` is `{seat, hand: []}` for a seated player."""
    return {
        **base,
        "phase": "waiting",
        "turn": None,
        "dealer": None,
        "round": 0,
        "you": None if seat is None else {"seat": seat, "hand": []},
        "seats": seats,
        "legal_moves": [],
        "public": None,
        "scores": None,
    }


def started_state(base: dict, seats: list[dict], view: dict, *, active: bool) -> dict:
    """The state view of a started table: the platform's fields, then the engine's view, each
    seat the platform's facts plus the engine's (the platform's win a shared name). Pure, so the
    typed contract's test (tests/engine/test_types.py) checks exactly what the API answers.
    `seats` (fresh from `table_seats`) is completed in place: a poll's render copies nothing."""
    for public, engine_seat in zip(seats, view["seats"], strict=True):
        public.update({k: v for k, v in engine_seat.items() if k not in public})
    # api.md: `turn` is the one seat with a decision due; a table no longer in play (aborted
    # mid-hand) has none, like the moves it lists.
    return {
        **base,
        **view,
        "turn": view["turn"] if active else None,
        "seats": seats,
        "legal_moves": view["legal_moves"] if active else [],
    }


def move_log(table: Table, user, *, after: int = 0, limit: int = 500) -> list[dict]:
    """The move log as the caller may see it, oldest first."""
    engine = registry.get(table.game)
    player = None
    if user is not None and user.is_authenticated:
        row = next((r for r in seats_of(table) if r.user_id == user.pk and not r.is_bot), None)
        player = None if row is None else row.index
    records = list(Move.objects.filter(table=table, seq__gt=after).order_by("seq")[:limit])
    entries = []
    first = deal_log.first_deal_entry(table, records[0].version if records else None) if after < 1 else None
    if first is not None:
        entries.append(first)
    for record in records:
        seat = None
        if player is not None:
            mapping = record.seat_players or list(range(table.seat_count))
            seat = mapping.index(player)
        entries.append(log_entry(engine, move=record.move, mover=record.seat, events=record.events, viewer=seat,
                                 seq=record.seq, by=record.by, version=record.version, at=record.created_at,
                                 state=table.state))
    aborted = deal_log.abort_entry(table)
    if aborted is not None and aborted["seq"] > after and len(records) < limit:
        entries.append(aborted)
    return entries


def log_entry(engine, *, move: dict, mover: int | None, events: list[dict], viewer: int | None, seq: int, by: str,
              version: int, at, state: dict | None) -> dict:
    """One move-log entry as `viewer` (a seat, None: a spectator) may see it. Pure, so the typed
    contract's test (tests/engine/test_types.py) checks exactly what the API answers."""
    entry = {
        **engine.view_move(move, mover, events, viewer),
        "seq": seq,
        "seat": mover,
        "type": move.get("type"),
        "by": "player" if by == Move.By.PLAYER else "server",
        "version": version,
        "at": at,
        "events": [engine.view_event(e, viewer) for e in events],
    }
    if by == Move.By.BOT:
        entry["bot"] = True
    return engine.view_log_entry(entry, state)


def spectator_move(table: Table, record: Move) -> dict:
    """A logged move's own fields as a spectator may see them (the admin's recent moves)."""
    return registry.get(table.game).view_move(record.move, record.seat, record.events, None)


def tables_list(*, game: str | None = None, status: str | None = None):
    qs = Table.objects.filter(private=False, invite_only=False).select_related("host").prefetch_related("seats__user")
    if game:
        qs = qs.filter(game=game)
    if status:
        qs = qs.filter(status=status)
    return qs.order_by("-created_at")


def user_tables(user):
    return (
        Table.objects.filter(Q(seats__user=user) & Q(seats__is_bot=False))
        .distinct()
        .select_related("host")
        .prefetch_related("seats__user")
        .order_by("-created_at")
    )


def invitation_json(invitation: Invitation) -> dict:
    """An invitation as its invitee and the API see it: the table's id, game and status, who
    invited whom, the answer. Public facts only (no table state)."""
    table = invitation.table
    return {
        "id": invitation.pk,
        "table": str(table.pk),
        "game": table.game,
        "table_status": table.status,
        "by": player_json(invitation.by),
        "to": player_json(invitation.to),
        "status": invitation.status,
        "rematch": invitation.rematch,
        "created_at": invitation.created_at,
        "answered_at": invitation.answered_at,
    }


# GET /me/invitations: the pending ones first, then the answered, newest first, at most this many.
MY_INVITATIONS = 100


def user_invitations(user, *, status: str | None = None) -> list[Invitation]:
    """The caller's invitations: pending first, then newest first (MY_INVITATIONS at most)."""
    qs = Invitation.objects.filter(to=user).select_related("table", "by", "to")
    if status:
        qs = qs.filter(status=status)
    pending_first = Case(When(status=Invitation.Status.PENDING, then=0), default=1)
    return list(qs.order_by(pending_first, "-created_at", "-id")[:MY_INVITATIONS])


def table_winners(table: Table) -> list[int]:
    """The winning seats of a finished table (none for an aborted one)."""
    if table.state is None or table.status != Table.Status.FINISHED or table.aborted:
        return []
    return list(registry.get(table.game).winners(table.state))


def your_turn(table: Table, user) -> bool:
    if table.status != Table.Status.ACTIVE or table.state is None:
        return False
    seat = viewer_seat(table, user)
    return seat is not None and seat in registry.get(table.game).to_act(table.state)


# --- Lopti's session reads (house rules, votes, duels) -----------------------------------------
def lopti_check(table: Table) -> None:
    """The contract's errors for a path that needs a started Lopti table."""
    if table.game != "lopti":
        raise NotFound("house rules, votes and duels exist only at Lopti tables")
    if table.state is None:
        raise Conflict("the table has not started")


def lopti_table(table_id) -> Table:
    """A started Lopti table, or the contract's error."""
    try:
        table = Table.objects.prefetch_related("seats__user").get(pk=table_id)
    except (Table.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("no such table") from exc
    lopti_check(table)
    return table


def house_rules(table: Table) -> list[dict]:
    return lopti_engine.house_rules_view(table.state)


def find_rule(table: Table, rule_id: int) -> dict:
    rule = next((r for r in lopti_engine.house_rules_view(table.state) if r["id"] == rule_id), None)
    if rule is None:
        raise NotFound("no such house rule")
    return rule


def vote_detail(table: Table, vote_id: int) -> dict:
    vote = lopti_engine.vote_view(table.state, vote_id)
    if vote is None:
        raise NotFound("no such vote")
    return vote


def duel_detail(table: Table, duel_id: int) -> dict:
    duel = lopti_engine.duel_view(table.state, duel_id)
    if duel is None:
        raise NotFound("no such duel")
    return duel
