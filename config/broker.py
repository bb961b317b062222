"""The embedded Celery broker: kombu's filesystem transport, made safe for concurrent use.

kombu's stock transport (kombu 5.7, https://github.com/celery/kombu/issues/1551) creates a message file under its final
name and only then writes it, while the consumer lists the folder and reads whatever it
finds without a lock: a worker polling at the wrong moment reads a half-written (often
empty) file and dies with `Unrecoverable error: JSONDecodeError`. The same window exists
for an exchange's binding table in the control folder (created with "wb", then locked).
This subclass closes both windows:

- a message is written to a private temporary file in `tmp_folder` and renamed into the
  queue folder once complete (rename on one filesystem is atomic: a consumer sees no file
  or the whole file);
- a consumer claims a message by renaming it into `claim_folder` (only one rename of a
  name can succeed, so two consumers never take the same message), then reads and deletes
  it. kombu moves it to the system temporary folder instead, which may be another
  filesystem, where the move silently becomes a non-atomic copy;
- a binding table is created and rewritten in place under an exclusive lock, and a reader
  that opens it before its first write (empty) sees no bindings instead of crashing.

Like the stock transport, a message is gone once taken (no redelivery if the worker dies
before running it); the beat sweep re-queues any deadline or bot move that was lost
(docs/operations.md). Importing this module registers it as the URL scheme
`filesystem-atomic://`, the embedded default of config/settings/base.py (a scheme rather than
Celery's `broker_transport` setting, so that the URL alone names the broker: setting
`CELERY_BROKER_URL=redis://...` needs nothing else). `filesystem://` stays kombu's own.
"""

from __future__ import annotations

import logging
import os
import uuid
from functools import cached_property
from pathlib import Path
from queue import Empty
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem, virtual
from kombu.transport.filesystem import LOCK_EX, LOCK_SH, exchange_queue_t, lock, unlock
from kombu.utils.json import dumps, loads

log = logging.getLogger(__name__)

SCHEME = "filesystem-atomic"

FOLDERS = ("out", "processed", "control", "tmp", "claimed")


def transport_options(root: Path, polling_interval: float = 0.1) -> dict:
    """The transport's folders under `root` (created), as Celery's broker transport options."""
    for sub in FOLDERS:
        (root / sub).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(root / "out"),
        "data_folder_out": str(root / "out"),
        "processed_folder": str(root / "processed"),
        "control_folder": str(root / "control"),
        "tmp_folder": str(root / "tmp"),
        "claim_folder": str(root / "claimed"),
        "store_processed": False,
        # Folder polls are cheap (one listdir); kombu's 1 s default would add up to a second
        # to every bot move and deadline.
        "polling_interval": polling_interval,
    }


class Channel(filesystem.Channel):
    @cached_property
    def tmp_folder(self) -> str:
        return self.transport_options.get("tmp_folder") or os.path.join(
            os.path.dirname(os.path.abspath(self.data_folder_out)), "tmp")

    @cached_property
    def claim_folder(self) -> str:
        return self.transport_options.get("claim_folder") or os.path.join(
            os.path.dirname(os.path.abspath(self.data_folder_in)), "claimed")

    def _put(self, queue, payload, **kwargs):
        # The stock name, so that kombu's _size/_purge apply, but with the milliseconds
        # zero-padded: unpadded, "9999_…" sorts after "10000_…" and the queue's order breaks
        # each time the clock gains a digit.
        name = f"{int(round(monotonic() * 1000)):015d}_{uuid.uuid4()}.{queue}.msg"
        tmp = os.path.join(self.tmp_folder, name)
        try:
            os.makedirs(self.tmp_folder, exist_ok=True)
            with open(tmp, "xb") as f:
                f.write(dumps(payload).encode())
            # No fsync: a message lost in a power cut is recovered by the sweep, and fsync
            # per message would cost more than the whole put.
            os.replace(tmp, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise ChannelError(f"Cannot add a message to {self.data_folder_out!r}") from exc

    def _get(self, queue):
        wanted = f"{queue}.msg"
        os.makedirs(self.claim_folder, exist_ok=True)
        for filename in sorted(os.listdir(self.data_folder_in)):
            if filename.partition(".")[2] != wanted:
                continue
            claimed = os.path.join(self.claim_folder, filename)
            try:
                os.rename(os.path.join(self.data_folder_in, filename), claimed)
            except FileNotFoundError:
                continue  # another consumer took it first
            try:
                with open(claimed, "rb") as f:
                    payload = f.read()
                if self.store_processed:
                    os.replace(claimed, os.path.join(self.processed_folder, filename))
                else:
                    os.unlink(claimed)
            except OSError as exc:
                raise ChannelError(f"Cannot read a message from {self.data_folder_in!r}") from exc
            try:
                return loads(payload)
            except ValueError:
                # Only a file left by another writer (the stock transport, a crash of an
                # older version) can be malformed; dropping it beats killing the worker.
                log.error("dropped a malformed broker message %s (%d bytes)", filename, len(payload))
        raise Empty()

    def get_table(self, exchange):
        file = self._exchange_file(exchange)
        try:
            with file.open("rb") as f:
                lock(f, LOCK_SH)
                try:
                    data = f.read()
                finally:
                    unlock(f)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc
        # Empty: created by a binder that has not written it yet (it holds the lock next).
        return [exchange_queue_t(*q) for q in loads(data)] if data.strip() else []

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        file = self._exchange_file(exchange)
        self.control_folder.mkdir(parents=True, exist_ok=True)
        entry = exchange_queue_t(routing_key or "", pattern or "", queue or "")
        try:
            # Created without truncation and rewritten under the lock: a concurrent binder
            # or reader never finds it truncated by "wb".
            fd = os.open(file, os.O_RDWR | os.O_CREAT, 0o644)
            with os.fdopen(fd, "rb+", buffering=0) as f:
                lock(f, LOCK_EX)
                try:
                    data = f.read()
                    queues = [exchange_queue_t(*q) for q in loads(data)] if data.strip() else []
                    if entry not in queues:
                        queues.insert(0, entry)
                        f.seek(0)
                        f.write(dumps(queues).encode())
                        f.truncate()
                finally:
                    unlock(f)
        except OSError as exc:
            raise ChannelError(f"Cannot open {file}") from exc


class Transport(filesystem.Transport):
    Channel = Channel
    # Its own state object: the stock transport's class attribute would be shared.
    global_state = virtual.BrokerState()


TRANSPORT_ALIASES[SCHEME] = "config.broker:Transport"
