"""The account stream's outbox (docs/api.md, "Account stream, invitations and rematch"): every
event about a user beyond one table — their turns, warnings, seats marked away, tables started
and finished (the webhooks' events, for every player whether or not they have a webhook),
invitations and rematch offers — is a row written in the transaction of the change that causes
it. On commit this process's waiting room, and with Redis every web process's, hears that the
user has news (`notify.account_changed`); the user's open streams then read it.

Numbering. Rows get their id from the database as they are inserted, but two transactions can
commit in the other order: a stream that sent row 101 and resumes "after 101" would never see row
100 committing a moment later. So an event's id on the stream (`seq`) is given when a reader
first sees it committed: under the user's `AccountEventSeq` row lock, the user's unnumbered
events in row order get the next numbers. A later commit is numbered later, whatever its row id.

Bodies are the webhooks' `{id, type, created, table, version, data}`: public facts only, never a
card. Events are kept KEEP (24 hours) for `Last-Event-ID`; the beat sweep prunes older ones."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games import notify
from games.models import AccountEvent, AccountEventSeq

EVENTS = ("your_turn", "timeout_warning", "seat_away", "table_started", "table_finished",
          "invited", "invitation_declined", "rematch_offered")
KEEP = timedelta(hours=24)
PAGE = 100


@dataclass(frozen=True)
class Pending:
    user_id: int
    type: str
    table_id: object
    version: int | None
    data: dict


def record(*, user_id: int, type: str, table_id=None, version: int | None = None, data: dict) -> None:
    """In the caller's transaction: an event for `user_id`'s account stream."""
    record_many([Pending(user_id, type, table_id, version, data)])


def record_many(events: list[Pending]) -> None:
    """In the caller's transaction: these events, in one INSERT; the users' streams hear of them
    once it commits."""
    if not events:
        return
    unknown = {e.type for e in events} - set(EVENTS)
    if unknown:
        raise ValueError(f"not an account event: {sorted(unknown)}")
    now = timezone.now()
    AccountEvent.objects.bulk_create([
        AccountEvent(user_id=e.user_id, type=e.type, table_id=e.table_id, version=e.version, data=e.data, created=now)
        for e in events
    ])
    users = sorted({e.user_id for e in events})
    transaction.on_commit(lambda: notify.account_changed(users))


def number(user_id: int) -> None:
    """Give the user's committed, unnumbered events their stream ids, in row order (one reader
    at a time: the user's sequence row is locked)."""
    if not AccountEvent.objects.filter(user_id=user_id, seq__isnull=True).exists():
        return
    with transaction.atomic():
        counter = AccountEventSeq.objects.select_for_update().filter(user_id=user_id).first()
        if counter is None:  # the user's first events
            AccountEventSeq.objects.get_or_create(user_id=user_id)
            counter = AccountEventSeq.objects.select_for_update().get(user_id=user_id)
        fresh = list(AccountEvent.objects.filter(user_id=user_id, seq__isnull=True).order_by("id"))
        for event in fresh:
            counter.last += 1
            event.seq = counter.last
        AccountEvent.objects.bulk_update(fresh, ["seq"])
        counter.save(update_fields=["last"])


def after(user_id: int, seq: int, limit: int = PAGE) -> list[dict]:
    """The user's events after stream id `seq` (numbering any new ones first), oldest first, at
    most `limit`, none older than KEEP: their bodies."""
    number(user_id)
    rows = (AccountEvent.objects.filter(user_id=user_id, seq__gt=seq, created__gte=timezone.now() - KEEP)
            .order_by("seq")[:limit])
    return [body(row) for row in rows]


def last_seq(user_id: int) -> int:
    """The id of the user's newest event (numbering any new ones first); 0 when none."""
    number(user_id)
    top = AccountEvent.objects.filter(user_id=user_id, seq__isnull=False).order_by("-seq").values_list("seq", flat=True).first()
    return top or 0


def news(known: dict[int, int]) -> set[int]:
    """Of these users (user id → the last stream id a stream of theirs sent), those with events
    it has not: unnumbered ones, or numbered past it (by another of their streams)."""
    from django.db.models import Count, Max, Q

    found = set()
    rows = (AccountEvent.objects.filter(user_id__in=list(known)).values("user_id")
            .annotate(top=Max("seq"), fresh=Count("id", filter=Q(seq__isnull=True))))
    for row in rows:
        if row["fresh"] or (row["top"] or 0) > known[row["user_id"]]:
            found.add(row["user_id"])
    return found


def body(row: AccountEvent) -> dict:
    return {
        "id": row.seq,
        "type": row.type,
        "created": row.created.isoformat(),
        "table": None if row.table_id is None else str(row.table_id),
        "version": row.version,
        "data": row.data,
    }


def prune() -> int:
    """Delete the events older than KEEP (the beat sweep); how many."""
    deleted, _ = AccountEvent.objects.filter(created__lt=timezone.now() - KEEP).delete()
    return deleted
