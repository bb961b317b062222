"""JSON log lines with the request id of the request being served, and the access log.

A client may send `X-Request-ID` (an id of up to 64 safe characters); otherwise one is made.
It is echoed in the response. Log lines carry method, path and status, never bodies, tokens
or cards: a log line is treated as visible to every player.

The access log (`access`, called by the edge, games.edge.app, once per request whichever door
served it) is written by a thread of its own: writing to a slow stderr pipe must never stall the
event loop that serves every request of the process."""

from __future__ import annotations

import atexit
import contextvars
import json
import logging
import random
import re
import threading
import time
from datetime import UTC, datetime

from asgiref.sync import iscoroutinefunction, markcoroutinefunction

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_ids = random.Random()  # seeded from the system's entropy once
# The edge's per-request holder of the authenticated user's id, for its access-log line: written
# by the API's authentication wherever it runs (a view's thread shares the holder).
_user_holder: contextvars.ContextVar[list | None] = contextvars.ContextVar("request_user", default=None)


def note_user(user_id: int) -> None:
    holder = _user_holder.get()
    if holder is not None:
        holder[0] = user_id


def hold_user() -> tuple[list, contextvars.Token]:
    holder = [None]
    return holder, _user_holder.set(holder)


def release_user(token: contextvars.Token) -> None:
    _user_holder.reset(token)
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def request_id(incoming: str | None) -> str:
    """The one request-id rule, for the edge (games.edge.app) and this middleware alike: the
    client's `X-Request-ID` when it is a short token of safe characters (up to 64 of
    `A-Z a-z 0-9 . _ -`), else a new random id. Anything else would be echoed into a response
    header and every log line. (An id needs to be unique, not secret: 128 random bits from
    Python's generator, without a system call per request.)"""
    return incoming if incoming and _SAFE_ID.match(incoming) else f"{_ids.getrandbits(128):032x}"


class RequestIdMiddleware:
    async_capable = True
    sync_capable = True

    def __init__(self, get_response):
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def _begin(self, request) -> contextvars.Token:
        request.request_id = request_id(request.headers.get("X-Request-ID"))
        return request_id_var.set(request.request_id)

    def __call__(self, request):
        if iscoroutinefunction(self):
            return self.__acall__(request)
        token = self._begin(request)
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request.request_id
            return response
        finally:
            request_id_var.reset(token)

    async def __acall__(self, request):
        token = self._begin(request)
        try:
            response = await self.get_response(request)
            response["X-Request-ID"] = request.request_id
            return response
        finally:
            request_id_var.reset(token)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):  # an access-log line carries its own
            record.request_id = request_id_var.get()
        return True


ACCESS = logging.getLogger("cardgames.access")
_FIELDS = ("method", "path", "route", "duration_ms", "user_id")
# Access-log records wait here; a thread of their own writes them every WRITE_EVERY seconds, so
# the loop that serves every request of the process never waits on a slow stderr pipe, and is
# not woken to hand over each line.
WRITE_EVERY = 0.05
_pending: list[logging.LogRecord] = []
_pending_lock = threading.Lock()
_writer: threading.Thread | None = None


def _write() -> None:
    """Hand the waiting records to the access logger (its filters, then the handlers configured
    now: LOGGING's, a test's), in order."""
    global _pending
    with _pending_lock:
        batch, _pending = _pending, []
    for record in batch:
        ACCESS.handle(record)


def _write_forever() -> None:
    while True:
        time.sleep(WRITE_EVERY)
        _write()


def _started() -> None:
    global _writer
    if _writer is None:
        with _pending_lock:
            if _writer is None:
                _writer = threading.Thread(target=_write_forever, name="access-log", daemon=True)
                _writer.start()
                atexit.register(_write)


def access(*, request_id: str, method: str, path: str, route: str, status: int, duration_ms: float,
           user_id: int | None) -> None:
    """One access-log line (no query string: nothing in it is needed, and nothing secret may be),
    made here and written by the writer thread."""
    if not ACCESS.isEnabledFor(logging.INFO):
        return
    _started()
    record = ACCESS.makeRecord(ACCESS.name, logging.INFO, __file__, 0, "%s %s %s", (method, path, status), None, extra={
        "request_id": request_id, "method": method, "path": path, "route": route, "status_code": status,
        "duration_ms": round(duration_ms, 3), "user_id": user_id,
    })
    with _pending_lock:
        _pending.append(record)


def access_drained() -> bool:
    """Write the waiting access-log records now (tests)."""
    _write()
    return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", request_id_var.get()),
        }
        status = getattr(record, "status_code", None)
        if status is not None:
            entry["status"] = status
        for name in _FIELDS:
            if hasattr(record, name):
                entry[name] = getattr(record, name)
        task_id = getattr(record, "task_id", None)
        if task_id:  # a worker's line that belongs to a task (config.task_logs.TaskFilter)
            entry["task_name"], entry["task_id"] = getattr(record, "task_name", None), task_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)
