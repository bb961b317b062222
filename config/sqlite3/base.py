"""The embedded database: Django's SQLite backend, whose writers take the write lock in turn and
wait for it as long as it takes (docs/reliability.md, "A busy embedded database").

SQLite has one write lock per database file. Where it answers SQLITE_BUSY ("database is
locked") although every connection has a busy timeout, and what this backend does about each:

- The busy timeout runs out. A connection that finds the lock taken sleeps and tries again
  (1 ms, 2 ms, 5 ms, ... then every 100 ms) until its timeout (30 s) is spent, and then fails.
  Under load a holder can keep the lock that long: it holds it while its thread waits for the
  CPU and the GIL (measured: a registration's two-row transaction held it 55 s while two
  hundred request threads of the web process hashed passwords), and the sleeping is unfair: a
  waiter that sleeps 100 ms between tries loses the lock, commit after commit, to writers that
  arrive just after each one, so its 30 s run out while later writers go through. This is what
  answered 500 under load (tests/integration/test_sqlite_busy.py), always at `BEGIN IMMEDIATE`.
  Here the writers of a process queue on a lock of the process (a waiting thread sleeps in the
  kernel and the next one is woken the moment the lock is released), the processes take turns
  through an flock on `<database>-writer`, and a BUSY that still comes (from a connection outside
  this backend, such as the sqlite3 shell) is tried again until OPTIONS["write_wait"] seconds
  have passed, then raised as `DatabaseBusy`.
- A deferred transaction (a read first) that then writes while another connection holds the
  lock, or after another connection committed since its read (in WAL mode, SQLITE_BUSY_SNAPSHOT):
  SQLite refuses at once, without waiting, since waiting could deadlock or write over a stale
  read. Only the whole transaction could be tried again, which the database layer cannot do; so
  no transaction begins deferred here: every `atomic()` is `BEGIN IMMEDIATE`, whatever the
  settings say (`DATABASE_URL=sqlite:///...` gave Django's defaults: deferred, 5 s, no WAL).
- A statement outside `atomic()` (Django's autocommit) is a transaction of its own, which begins
  as it runs: it waits like a BEGIN, and its writes queue like a transaction's.
- `PRAGMA journal_mode=WAL` on every new connection needs only a read once the file is in WAL
  mode (only the first switch takes the write lock, at `migrate`); WAL checkpoints never answer
  BUSY to a writer (the automatic ones are passive), and a long read (a long-lived connection of
  the worker, `verify_tables`) only delays them: in WAL mode readers never block the writer.

What is tried again is always the whole transaction: a `BEGIN IMMEDIATE` that got BUSY has done
nothing yet, and neither has an autocommit statement that got BUSY (in WAL mode it takes the
lock before it writes). A statement inside a transaction that already began is never retried,
nor an autocommit `executemany`, whose rows commit one by one.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time

from django.db import OperationalError
from django.db.backends.sqlite3 import base

SQLITE_BUSY = 5
# A deferred read's snapshot went stale: only the whole transaction could be tried again.
SQLITE_BUSY_SNAPSHOT = 517
WRITE_WAIT_SECONDS = 300.0
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")
# The process's queue of writers, one per database file.
_queues: dict[str, threading.Lock] = {}
_queues_lock = threading.Lock()


def _forget_queues_after_fork() -> None:
    # A child process (Celery's pool) starts with its own queues: a lock that some thread of
    # the parent held at the fork would never be released in the child.
    global _queues_lock
    _queues.clear()
    _queues_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_queues_after_fork)


class DatabaseBusy(OperationalError):
    """The write lock stayed taken longer than OPTIONS["write_wait"] seconds: nothing was written."""


def _busy(exc: OperationalError) -> bool:
    code = getattr(exc.__cause__, "sqlite_errorcode", None)
    return code is not None and code & 0xFF == SQLITE_BUSY and code != SQLITE_BUSY_SNAPSHOT


def _queue(name: str) -> threading.Lock:
    with _queues_lock:
        return _queues.setdefault(name, threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.write_wait = WRITE_WAIT_SECONDS
        # (queue, lock file descriptor or None, pid) while this connection holds the write turn.
        self._turn = None
        self.execute_wrappers.append(self._autocommit_write)

    def get_connection_params(self):
        params = super().get_connection_params()
        self.write_wait = float(params.pop("write_wait", WRITE_WAIT_SECONDS))
        self.transaction_mode = "IMMEDIATE"
        return params

    def get_new_connection(self, conn_params):
        conn = super().get_new_connection(conn_params)
        if not self.is_in_memory_db():
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    # The write turn -----------------------------------------------------------------------

    def _take_turn(self, begin, retry: bool = True):
        """Queue for the write lock, then run `begin` (a BEGIN IMMEDIATE, an autocommit write),
        again while it is BUSY if `retry`. The turn is held on return; released here on failure."""
        deadline = time.monotonic() + self.write_wait
        queue = _queue(self.settings_dict["NAME"])
        if not queue.acquire(timeout=self.write_wait):
            raise self._gave_up()
        self._turn = (queue, None, os.getpid())
        try:
            self._turn = (queue, self._lock_file(deadline), os.getpid())
            while True:
                try:
                    return begin()
                except OperationalError as exc:
                    if not retry or not _busy(exc):
                        raise
                    if time.monotonic() >= deadline:
                        raise self._gave_up() from exc
                    time.sleep(0.001)  # SQLite's own wait may be zero
        except BaseException:
            self._end_turn()
            raise

    def _lock_file(self, deadline: float) -> int | None:
        """The processes' turn: an exclusive flock on `<database>-writer` (None in memory),
        waited for in the kernel, which wakes the waiter the moment the lock is released (a
        waiter that polls loses it, time after time, to the releasing process's next writer:
        measured, a lone writer process then waited 0.25 s on average behind twelve busy
        threads of another, instead of 4 ms). Only the thread of each process that holds the
        process's queue waits here."""
        if self.is_in_memory_db():
            return None
        # Read-only is enough for a flock, so that a file another user created (`sudo manage.py
        # ...`) does not lock this one's writers out.
        fd = os.open(f"{self.settings_dict['NAME']}-writer", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            pass
        except BaseException:
            os.close(fd)
            raise
        # The blocking call runs on a thread of its own, on a copy of the descriptor (the same
        # open file, so the same lock), so that this thread can give up at the deadline: the
        # late lock, if it comes, is then released with the file's last descriptor.
        taken, waiting = threading.Event(), os.dup(fd)

        def wait() -> None:
            try:
                fcntl.flock(waiting, fcntl.LOCK_EX)
                taken.set()
            finally:
                os.close(waiting)

        threading.Thread(target=wait, name="sqlite-writer-turn", daemon=True).start()
        if taken.wait(max(0.0, deadline - time.monotonic())):
            return fd
        os.close(fd)
        raise self._gave_up()

    def _gave_up(self) -> DatabaseBusy:
        return DatabaseBusy(f"the database stayed locked for {self.write_wait:g} s; nothing was written")

    def _end_turn(self) -> None:
        if self._turn is None:
            return
        queue, fd, pid = self._turn
        self._turn = None
        if pid != os.getpid():
            # Inherited across a fork mid-turn: the parent's turn, not this process's to end.
            if fd is not None:
                os.close(fd)
            return
        if fd is not None:
            os.close(fd)  # the flock goes with the file's last descriptor
        queue.release()

    def _start_transaction_under_autocommit(self):
        self._take_turn(super()._start_transaction_under_autocommit)

    def _autocommit_write(self, execute, sql, params, many, context):
        """Django's execute wrapper: a write outside a transaction takes the turn for itself."""
        if self._turn is not None or self.in_atomic_block or not sql.lstrip()[:7].upper().startswith(_WRITES):
            return execute(sql, params, many, context)
        try:
            # Each row of an executemany commits alone: the rows before a BUSY one are written.
            return self._take_turn(lambda: execute(sql, params, many, context), retry=not many)
        finally:
            self._end_turn()

    def _commit(self):
        self._ending(super()._commit)

    def _rollback(self):
        self._ending(super()._rollback)

    def _ending(self, end) -> None:
        """COMMIT or ROLLBACK, and the turn ends with the transaction (a COMMIT that failed leaves
        it open: the ROLLBACK that Django sends next ends it)."""
        try:
            end()
        finally:
            if self.connection is None or not self.connection.in_transaction:
                self._end_turn()

    def _close(self):
        try:
            super()._close()
        finally:
            self._end_turn()
