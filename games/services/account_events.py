"""The account stream's outbox (docs/api.md, "Account stream, invitations and rematch"): every
event about a user beyond one table — their turns, warnings, seats marked away, tables started
and finished (the webhooks' events, for every player whether or not they have a webhook),
invitations and rematch offers — is a row written in the transaction of the change that causes
it. On commit this process's waiting room, and with Redis every web process's, hears that the
user has news (`notify.account_changed`); the user's open streams then read it.

Numbering. An event's id on the stream (`seq`) is given as it is written, in the change's own
transaction: the user's `AccountEventSeq` row is incremented there (one UPDATE ... RETURNING per
user, the users in id order), and that row stays locked until the transaction ends. So a second
change with events for the same user waits for the first to commit or roll back before it takes
the next number: ids follow the order events become visible (a stream that sent 101 and resumes
"after 101" cannot miss a 100 committing later), and a rolled-back change's numbers are reused,
so none is skipped. A woken stream then reads its news with one query and writes nothing.

Before, numbers were given by the first reader, under that lock (migration 0010 numbered the
rows written so). That made every woken stream run a write transaction, and 1,000 streams woken by a burst of invitations saturated the server
(docs/performance.md, "1,000 account streams").

Bodies are the webhooks' `{id, type, created, table, version, data}`: public facts only, never a
card. Events are kept KEEP (24 hours) for `Last-Event-ID`; the beat sweep prunes older ones."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from django.db import connection, transaction
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
    """In the caller's transaction: these events, numbered on their users' streams (each user's
    counter row stays locked until the transaction ends), in one INSERT; the users' streams hear
    of them once it commits."""
    if not events:
        return
    unknown = {e.type for e in events} - set(EVENTS)
    if unknown:
        raise ValueError(f"not an account event: {sorted(unknown)}")
    counts = Counter(e.user_id for e in events)
    users = sorted(counts)
    top = {user_id: _reserve(user_id, counts[user_id]) for user_id in users}
    given = {user_id: top[user_id] - counts[user_id] for user_id in users}
    rows = []
    now = timezone.now()
    for e in events:
        given[e.user_id] += 1
        rows.append(AccountEvent(user_id=e.user_id, type=e.type, table_id=e.table_id, version=e.version, data=e.data,
                                 created=now, seq=given[e.user_id]))
    AccountEvent.objects.bulk_create(rows)
    transaction.on_commit(lambda: notify.account_changed(users))


def _reserve(user_id: int, n: int) -> int:
    """Takes the user's next `n` stream ids (locking their counter row until the transaction
    ends): the last of them. One statement once the user has a counter (their first event
    makes it)."""
    table = connection.ops.quote_name(AccountEventSeq._meta.db_table)
    returning = connection.vendor != "sqlite" or sqlite3.sqlite_version_info >= (3, 35)
    for _ in range(2):
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET last = last + %s WHERE user_id = %s" + (" RETURNING last" if returning else ""),
                           [n, user_id])
            if returning:
                row = cursor.fetchone()
            elif cursor.rowcount:
                cursor.execute(f"SELECT last FROM {table} WHERE user_id = %s", [user_id])
                row = cursor.fetchone()
            else:
                row = None
        if row is not None:
            return row[0]
        # Their first event: the counter, then the increment again (under the lock a concurrent
        # first event may hold, when its INSERT came first).
        AccountEventSeq.objects.bulk_create([AccountEventSeq(user_id=user_id, last=0)], ignore_conflicts=True)
    raise RuntimeError(f"no account event counter for user {user_id}")


def after(user_id: int, seq: int, limit: int = PAGE) -> list[dict]:
    """The user's events after stream id `seq`, oldest first, at most `limit`, none older than
    KEEP: their bodies (one query)."""
    rows = (AccountEvent.objects.filter(user_id=user_id, seq__gt=seq, created__gte=timezone.now() - KEEP)
            .order_by("seq")[:limit])
    return [body(row) for row in rows]


def last_seq(user_id: int) -> int:
    """The id of the user's newest event; 0 when none."""
    top = AccountEvent.objects.filter(user_id=user_id, seq__isnull=False).order_by("-seq").values_list("seq", flat=True).first()
    return top or 0


def news(known: dict[int, int]) -> set[int]:
    """Of these users (user id → the last stream id a stream of theirs sent), those with events
    it has not (numbered past it), in one query."""
    from django.db.models import Max

    rows = AccountEvent.objects.filter(user_id__in=list(known)).values("user_id").annotate(top=Max("seq"))
    return {row["user_id"] for row in rows if (row["top"] or 0) > known[row["user_id"]]}


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
