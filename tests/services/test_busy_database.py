"""A busy embedded database (config/sqlite3, docs/reliability.md): a write waits for SQLite's
write lock, in turn, instead of failing; it takes the lock at BEGIN; it gives up only after
OPTIONS["write_wait"], with nothing written and no lock kept; the writers of one process take
turns.

Two holders keep the lock from the service: an outsider (a connection outside the backend, as
the sqlite3 shell would be) holding SQLite's own lock, and another process's turn (the flock
the backend takes). SQLite's own wait is cut to a tenth of a second here (it is 30 s in the
settings), so that an outsider holding the lock for a second holds it "longer than the busy
timeout"; each test first shows that its holder does hold the lock."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time

import pytest
from django.db import connection, transaction

from config.settings.base import database_from_env
from config.sqlite3.base import DatabaseBusy
from games.models import Seat, Table
from games.services import tables

pytestmark = pytest.mark.django_db(transaction=True)
SQLITE_ONLY = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's write lock: the embedded database only")

SHORT = 0.1


@pytest.fixture
def short_busy_timeout(monkeypatch):
    """SQLite's own wait cut to SHORT seconds on the test's connection (reconnected)."""
    connection.close()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", SHORT)
    yield
    connection.close()


def locked_for_a_plain_connection() -> bool:
    """Whether a connection with SQLite's wait cut to SHORT gets `database is locked` now."""
    plain = sqlite3.connect(connection.settings_dict["NAME"], timeout=SHORT, isolation_level=None)
    try:
        plain.execute("BEGIN IMMEDIATE")
        plain.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        return "database is locked" in str(exc)
    finally:
        plain.close()


def writer_file() -> int:
    return os.open(f"{connection.settings_dict['NAME']}-writer", os.O_RDONLY | os.O_CREAT, 0o644)


class Outsider:
    """A connection outside the backend holding SQLite's write lock (`BEGIN IMMEDIATE`) until
    `release()`."""

    def __init__(self):
        self.taken, self.released = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)
        self.thread.start()
        assert self.taken.wait(10)

    def _hold(self):
        held = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        held.execute("BEGIN IMMEDIATE")
        self.taken.set()
        self.released.wait(30)
        held.execute("ROLLBACK")
        held.close()

    def holding(self) -> bool:
        return locked_for_a_plain_connection()

    def release(self):
        self.released.set()
        self.thread.join(10)


class OtherProcessTurn:
    """Another process's write turn as the backend takes it, an flock on `<database>-writer`,
    through an open file of its own (a flock belongs to the open file: this one conflicts with
    the backend's even within one process), until `release()`."""

    def __init__(self):
        self.fd = writer_file()
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def holding(self) -> bool:
        fd = writer_file()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(fd)

    def release(self):
        os.close(self.fd)


HOLDERS = pytest.mark.parametrize("holder_kind", [Outsider, OtherProcessTurn], ids=["outsider", "other process"])


def release_later(holder) -> tuple[threading.Timer, threading.Event]:
    """Release `holder` in a second; the event is set just before."""
    released = threading.Event()

    def release():
        released.set()
        holder.release()

    timer = threading.Timer(10 * SHORT, release)
    timer.start()
    return timer, released


@SQLITE_ONLY
@HOLDERS
def test_a_service_write_waits_for_the_lock_and_is_applied(make_user, short_busy_timeout, holder_kind):
    host, guest = make_user(), make_user()
    table = tables.table_create(user=host, game="president", seats=4)
    holder = holder_kind()
    assert holder.holding()
    timer, released = release_later(holder)
    joined = tables.table_join(table_id=table.pk, user=guest)
    assert released.is_set(), "the join went through only once the lock was released"
    timer.join()
    assert joined.version == table.version + 1
    assert Seat.objects.filter(table=table, user=guest).exists()


@SQLITE_ONLY
def test_a_write_outside_a_transaction_waits_too(make_user, short_busy_timeout):
    table = tables.table_create(user=make_user(), game="president", seats=4)
    holder = Outsider()
    assert holder.holding()
    timer, released = release_later(holder)
    assert Table.objects.filter(pk=table.pk).update(bot_pending=True) == 1  # autocommit
    assert released.is_set()
    timer.join()
    assert Table.objects.get(pk=table.pk).bot_pending


@SQLITE_ONLY
@HOLDERS
def test_past_write_wait_a_write_fails_with_nothing_written_and_keeps_no_lock(
    make_user, short_busy_timeout, monkeypatch, holder_kind
):
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "write_wait", 3 * SHORT)
    connection.close()
    host, guest = make_user(), make_user()
    table = tables.table_create(user=host, game="president", seats=4)
    holder = holder_kind()
    try:
        with pytest.raises(DatabaseBusy):
            tables.table_join(table_id=table.pk, user=guest)
    finally:
        holder.release()
    assert Table.objects.get(pk=table.pk).version == table.version
    assert not Seat.objects.filter(table=table, user=guest).exists()
    # Nothing of the abandoned wait is kept (this process's queue, a late flock): the next
    # write goes through instead of failing again.
    tables.table_join(table_id=table.pk, user=guest)
    assert Seat.objects.filter(table=table, user=guest).exists()


@SQLITE_ONLY
def test_a_transaction_holds_the_write_lock_from_its_begin_even_before_it_writes(make_user, monkeypatch):
    # Even where the settings ask for deferred transactions: a deferred one that read first and
    # then wrote would get `database is locked` at once, without waiting, under a busy writer.
    connection.close()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "transaction_mode", "DEFERRED")
    table = tables.table_create(user=make_user(), game="president", seats=4)
    try:
        with transaction.atomic():
            Table.objects.get(pk=table.pk)  # a read, no write yet
            assert locked_for_a_plain_connection()
    finally:
        connection.close()


@SQLITE_ONLY
def test_the_writers_of_one_process_take_turns_and_none_fails(make_user, monkeypatch):
    """Eight threads write at once, each transaction lasting longer than SQLite's own wait: on
    SQLite alone most would get `database is locked`; here each waits for its turn."""
    connection.close()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.001)
    table = tables.table_create(user=make_user(), game="president", seats=4)
    errors: list = []
    start = threading.Barrier(8)

    def write():
        start.wait()
        try:
            for _ in range(5):
                with transaction.atomic():
                    version = Table.objects.get(pk=table.pk).version
                    time.sleep(0.01)  # the transaction outlasts SQLite's own wait
                    Table.objects.filter(pk=table.pk).update(version=version + 1)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    # Every read-then-increment was alone while it ran: no increment was lost.
    assert Table.objects.get(pk=table.pk).version == table.version + 8 * 5
    connection.close()


def test_every_sqlite_database_of_the_settings_goes_through_the_backend(monkeypatch, tmp_path):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("SQLITE_PATH", str(tmp_path / "embedded.sqlite3"))
    embedded = database_from_env()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'url.sqlite3'}")
    from_url = database_from_env()
    for db, name in ((embedded, "embedded.sqlite3"), (from_url, "url.sqlite3")):
        assert db["ENGINE"] == "config.sqlite3"
        assert db["NAME"] == str(tmp_path / name)
        assert db["OPTIONS"]["write_wait"] > db["OPTIONS"]["timeout"] > 0


@SQLITE_ONLY
def test_past_write_wait_the_api_answers_503_unavailable_and_the_retry_goes_through(make_user, short_busy_timeout,
                                                                                   monkeypatch):
    """A busy database is a clean retry, never a 500: 503 `unavailable` with Retry-After, nothing
    written, and the same request (same Idempotency-Key) applied once the lock is free."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "write_wait", 3 * SHORT)
    connection.close()
    host, guest = make_user(), make_user()
    table = tables.table_create(user=host, game="president", seats=4)
    holder = Outsider()
    try:
        busy = guest.api.post(f"/api/v1/tables/{table.pk}/join", {}, format="json", HTTP_IDEMPOTENCY_KEY="join-1")
    finally:
        holder.release()
    assert busy.status_code == 503 and busy.json()["code"] == "unavailable" and int(busy["Retry-After"]) >= 1
    assert not Seat.objects.filter(table=table, user=guest).exists()
    again = guest.api.post(f"/api/v1/tables/{table.pk}/join", {}, format="json", HTTP_IDEMPOTENCY_KEY="join-1")
    assert again.status_code == 200 and Seat.objects.filter(table=table, user=guest).count() == 1
