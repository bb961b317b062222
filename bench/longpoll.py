"""`make bench-longpoll`: TABLES x WAITERS concurrent `GET /tables/{id}/state?wait=WAIT` with
If-None-Match, then one move per table; how soon each waiter hears of it, how many fail, and
what the waiting costs the server (threads, RSS, open file descriptors, PostgreSQL backends).

Two setups, one after the other (MODES, default both):
  pgredis  the production setup: a throwaway PostgreSQL (stock settings) and a private Redis,
           the project under SERVER with WORKERS processes (uvicorn --workers 2, as docker/).
  makerun  `make run`'s embedded setup: `manage.py serve` (one uvicorn process and a Celery
           worker), SQLite and the filesystem broker in a temporary VAR_DIR, no Redis.

A round: read each table's ETag; open the waiters (waiter j of a table uses spectator j mod
SPECTATORS); wait SETTLE seconds (an answer before the move is a failure) and sample the
server; then one mover per table, all at once: the player whose turn it is GETs their state and
POSTs legal_moves[0] with expected_version. Wake-up = a waiter's answer time minus its table's
move answer time (negative: the waiter heard before the mover had its own answer). A waiter
fails on a non-200, a stale version, a socket error or no answer by WAIT + 15 s.

Environment: TABLES (50), WAITERS (20 per table), WAIT (30), SPECTATORS (100), SETTLE (5 s),
ROUNDS (1 per setup), STAGGER (0: all movers at once; else seconds between one table's move and the next),
MODES ("pgredis makerun"), SERVER, WORKERS (2), DB_CONN_MAX_AGE (0), PROJECT_ENV, OUT,
KIND (poll: the waiters are `?wait=` long-polls; sse: event streams, `GET /tables/{id}/events`
with Last-Event-ID, answered by their first event of a later version; account: account streams,
below), INVITES (KIND=account: serial or burst), INVITE_RATE (KIND=account: 0, as fast as
answered), DUMP (a file: each round's answers and moves,
with their times, appended as one JSON line: which tables' waiters were late).
Prints a Markdown table; JSON lines to bench/results/. Asserts nothing about time.

KIND=account: TABLES x WAITERS users, each with one account stream (`GET /api/v1/stream/events`,
Last-Event-ID: the last event id the driver has seen for the user, so the opening sends nothing
already counted); seeded are TABLES x ROUNDS open tables, each with only its host seated. A
round opens every stream, waits until each has its opening (the `retry:` line) and SETTLE more
seconds, then each of the round's TABLES hosts invites its table's WAITERS users (`POST
/tables/{id}/invitations {username}`): one after another on one connection, the hosts all at
once (INVITES=serial), or all TABLES x WAITERS invitations at once, each on a connection of its
own (INVITES=burst); with INVITE_RATE (a second, all hosts together), each no sooner than its
turn, so that they go out evenly at that rate. So each stream gets exactly one new event,
`invited` for that table.
Wake-up = the event's arrival minus its invitation's answer time. Each round has tables of its
own (a user holds at most one pending invitation per table). A stream fails on a non-200, a
socket error, an event before its invitation went out, any other event (one of an earlier
round's table, which a stream of that round missed, is skipped), or no event within WAIT
seconds of the last invitation's answer; an invitation fails on anything but a 201.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import math
import os
import re
import resource
import shlex
import statistics
import sys
import time
from pathlib import Path

from load import Connection, HttpError
from stack import (
    BENCH,
    PYTHON,
    ROOT,
    Stack,
    free_port,
    git_commit,
    log,
    proc_figures,
    proc_tree,
    project_env,
    wait_http,
)


def outcome(rec: dict, cause: dict | None, what: str) -> str | None:
    """A waiter's failure (None: it heard the change): its own error, its cause (the `what`, a
    move or an invitation) failing, or an answer that came before the cause was sent."""
    if rec["error"]:
        return rec["error"]
    if not cause or cause["done"] is None or cause["error"]:
        return f"{what} failed"
    if rec["t"] < cause["sent"]:
        return f"answered before the {what}"
    return None


def pct(values: list[float], q: float):
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 1)


def raise_nofile(need: int) -> tuple[int, int]:
    """The driver holds one socket per waiter: raise its own soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft < need:
        raise SystemExit(f"bench: the driver needs ulimit -n >= {need} (hard limit {hard})")
    return soft, hard


def nofile_of(pid: int) -> str:
    try:
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
            if line.startswith("Max open files"):
                return line.split()[3]
    except OSError:
        pass
    return "?"


async def get(conn, path, token, headers=None):
    status, hdrs, body = await conn.request("GET", path, {"Authorization": f"Token {token}", **(headers or {})})
    return status, hdrs, (json.loads(body) if status == 200 and body else None)


async def waiter(port, table, token, etag, version, wait, t0, out):
    conn = Connection(port, wait + 15)
    rec = {"table": table, "error": None, "t": None}
    try:
        status, _, body = await conn.request("GET", f"/api/v1/tables/{table}/state?wait={wait}",
                                             {"Authorization": f"Token {token}", "If-None-Match": etag})
        rec["t"] = time.perf_counter() - t0  # the answer is here: parsing it is the driver's work
        if status != 200:
            rec["error"] = f"HTTP {status}"
        elif json.loads(body).get("version", -1) <= version:
            rec["error"] = "stale version"
    except HttpError as exc:
        rec["error"] = f"socket: {exc}"
    finally:
        conn.close()
    out.append(rec)


async def stream_waiter(port, table, token, etag, version, wait, t0, out):
    """KIND=sse: the waiter is an event stream (`GET /tables/{id}/events`, Last-Event-ID: the
    version it has, so no opening state): its answer is the first event of a later version."""
    rec = {"table": table, "error": None, "t": None}
    writer = None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write((f"GET /api/v1/tables/{table}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      f"Authorization: Token {token}\r\nAccept: text/event-stream\r\n"
                      f"Last-Event-ID: {version}\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait + 15)
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            rec["error"] = f"HTTP {status}"
            return
        buffer = b""
        deadline = time.monotonic() + wait + 15
        while True:
            chunk = await asyncio.wait_for(reader.read(65536), max(0.1, deadline - time.monotonic()))
            if not chunk:
                rec["error"] = "socket: the stream ended"
                return
            buffer += chunk
            # Events are "id: <version>\nevent: state\ndata: ...\n\n" (in chunked framing).
            found = [int(m) for m in STREAM_ID.findall(buffer)]
            if found:
                rec["t"] = time.perf_counter() - t0
                if max(found) <= version:
                    rec["error"] = "stale version"
                return
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as exc:
        rec["error"] = f"socket: {type(exc).__name__}"
    finally:
        if writer is not None:
            writer.close()
        out.append(rec)


STREAM_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")


async def mover(port, table, t0, out, delay=0.0):
    """The player whose turn it is plays their first legal move (after `delay` seconds)."""
    await asyncio.sleep(delay)
    conn = Connection(port, 60)
    rec = {"sent": None, "done": None, "error": None}
    try:
        path = f"/api/v1/tables/{table['table']}/state"
        status, _, state = await get(conn, path, table["tokens"][0])
        if status != 200:
            raise HttpError(f"GET state answered {status}")
        token = table["tokens"][state["turn"]]
        status, _, mine = await get(conn, path, token)
        if status != 200:
            raise HttpError(f"GET state answered {status}")
        move = dict(mine["legal_moves"][0], expected_version=mine["version"])
        rec["sent"] = time.perf_counter() - t0
        status, _, _ = await conn.request("POST", f"/api/v1/tables/{table['table']}/moves",
                                          {"Authorization": f"Token {token}"}, move)
        rec["done"] = time.perf_counter() - t0
        if status != 200:
            rec["error"] = f"HTTP {status}"
    except (HttpError, KeyError, IndexError, TypeError) as exc:
        rec["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()
    out[table["table"]] = rec


class Dechunker:
    """The payload of a chunked HTTP/1.1 body as it arrives: feed() the bytes read, get back
    those of the chunks now complete (a chunk split across reads waits for its end)."""

    def __init__(self):
        self.raw = b""
        self.ended = False

    def feed(self, data: bytes) -> bytes:
        self.raw += data
        out = []
        while not self.ended:
            line_end = self.raw.find(b"\r\n")
            if line_end < 0:
                break
            size = int(self.raw[:line_end].split(b";")[0], 16)  # ValueError on a framing error
            if size == 0:
                self.ended = True
                break
            start = line_end + 2
            if len(self.raw) < start + size + 2:
                break
            out.append(self.raw[start:start + size])
            self.raw = self.raw[start + size + 2:]
        return b"".join(out)


class EventParser:
    """Server-Sent Events from a stream's payload: feed() bytes, get back the events now
    complete (a block ended by a blank line) as {field: value} ("data" lines joined by a
    newline). Comments (`: ping`) are no field, so a block of comments only is no event."""

    def __init__(self):
        self.text = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def feed(self, data: bytes) -> list[dict]:
        self.text += self.decoder.decode(data)
        *blocks, self.text = self.text.split("\n\n")
        events = []
        for block in blocks:
            fields: dict[str, str] = {}
            for line in block.split("\n"):
                if not line or line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                fields[name] = fields[name] + "\n" + value if name == "data" and name in fields else value
            if fields:
                events.append(fields)
        return events


def account_record(user: dict, after: int, table: str) -> dict:
    return {"table": table, "user": user["username"], "after": after, "last": after, "opened": None,
            "t": None, "id": None, "error": None, "skipped": 0}


async def account_waiter(port, token, table, earlier, t0, rec, open_timeout=60.0):
    """KIND=account: a user's account stream, from the event id in rec["after"]. rec["opened"]
    is set when its opening (the `retry:` line) is read; its answer is the first `invited`
    event for `table`, this round's. An event of a table in `earlier` (an earlier round's, one a
    stream then missed) is skipped; any other is a wrong event. Runs until its answer, an error
    or cancellation (then "no event"); rec["last"] is the newest event id it read."""
    writer = None
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(("GET /api/v1/stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      f"Authorization: Token {token}\r\nAccept: text/event-stream\r\n"
                      f"Last-Event-ID: {rec['after']}\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), open_timeout)
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            rec["error"] = f"HTTP {status}"
            return
        if b"transfer-encoding: chunked" not in head.lower():
            rec["error"] = "socket: not chunked"
            return
        body, parser = Dechunker(), EventParser()
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                rec["error"] = "socket: the stream ended"
                return
            for event in parser.feed(body.feed(chunk)):
                if "retry" in event and rec["opened"] is None:
                    rec["opened"] = time.perf_counter() - t0
                if "id" in event:
                    rec["last"] = max(rec["last"], int(event["id"]))
                if "event" not in event:
                    continue
                about = json.loads(event.get("data") or "{}").get("table")
                if event["event"] == "invited" and about == table:
                    rec["t"] = time.perf_counter() - t0
                    rec["id"] = int(event["id"])
                    return
                if about in earlier:
                    rec["skipped"] += 1
                    continue
                rec["t"] = time.perf_counter() - t0
                rec["error"] = f"wrong event: {event['event']}"
                return
            if body.ended:
                rec["error"] = "socket: the stream ended"
                return
    except asyncio.CancelledError:
        rec["error"] = rec["error"] or "no event"
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError,
            KeyError, AttributeError) as exc:
        rec["error"] = f"socket: {type(exc).__name__}"
    finally:
        if writer is not None:
            writer.close()


async def inviter(port, table, users, t0, out, delay=0.0, burst=False, at=None):
    """The host of an open table invites `users` (after `delay` seconds): one after another on one
    keep-alive connection, or (burst) all at once, each on a connection of its own; with `at`
    (seconds after t0, one per user), each no sooner than its time. out[username]: when its
    invitation was sent and answered, and its error (anything but a 201)."""
    await asyncio.sleep(delay)

    async def invite(conn, user, when=None):
        rec = out[user["username"]] = {"table": table["table"], "sent": None, "done": None, "error": None}
        if when is not None:
            await asyncio.sleep(when - (time.perf_counter() - t0))
        try:
            rec["sent"] = time.perf_counter() - t0
            status, _, _ = await conn.request("POST", f"/api/v1/tables/{table['table']}/invitations",
                                              {"Authorization": f"Token {table['token']}"},
                                              {"username": user["username"]})
            rec["done"] = time.perf_counter() - t0
            if status != 201:
                rec["error"] = f"HTTP {status}"
        except HttpError as exc:
            rec["error"] = f"socket: {exc}"

    conns = [Connection(port, 60) for _ in (users if burst else users[:1])]
    try:
        at = at or [None] * len(users)
        if burst:
            await asyncio.gather(*(invite(conn, user, when) for conn, user, when in zip(conns, users, at, strict=True)))
        else:
            for user, when in zip(users, at, strict=True):
                await invite(conns[0], user, when)
    finally:
        for conn in conns:
            conn.close()


def invitation_times(cfg: dict, start: float) -> list[list[float]] | None:
    """With INVITE_RATE (invitations a second, all hosts together): when (seconds after t0) each
    host sends each of its invitations, the hosts taking turns (table i's j-th invitation is the
    (j x TABLES + i)-th), so the invitations go out evenly; None without it (as fast as answered)."""
    if not cfg["rate"]:
        return None
    return [[start + (j * cfg["tables"] + i) / cfg["rate"] for j in range(cfg["waiters"])]
            for i in range(cfg["tables"])]


def machine_cpu_s() -> float:
    """CPU seconds every process on the machine has spent so far (/proc/stat: all but idle and
    iowait), so that what other sessions ran beside a round shows."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def cpu_now(server, stack) -> dict:
    """CPU seconds so far: the web processes', PostgreSQL's (every backend, live ones only), the
    driver's own and the whole machine's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"web": proc_figures(server())["cpu_s"],
            "postgres": proc_figures(proc_tree(stack.pg_pid()))["cpu_s"] if stack.pg_data else None,
            "driver": round(usage.ru_utime + usage.ru_stime, 2), "machine": round(machine_cpu_s(), 2)}


def account_plan(seeded: dict, cfg: dict, rnd: int) -> list[tuple[dict, list[dict]]]:
    """Round `rnd`'s (from 1) open tables, each with the users its host invites: the round's
    TABLES tables of its own, table i inviting users i x WAITERS to (i + 1) x WAITERS - 1, so
    that every user gets exactly one invitation a round."""
    n, w = cfg["tables"], cfg["waiters"]
    tables, users = seeded["open"][(rnd - 1) * n:rnd * n], seeded["invitees"]
    if len(tables) < n or len(users) < n * w:
        raise SystemExit(f"bench: round {rnd} needs {n} open tables and {n * w} invitees seeded")
    return [(table, users[i * w:(i + 1) * w]) for i, table in enumerate(tables)]


async def account_round(cfg, port, seeded, server, stack, rnd, last_ids) -> dict:
    """KIND=account's round (the module's docstring); last_ids (username -> the newest event id
    read) is updated for the next round."""
    plan = account_plan(seeded, cfg, rnd)
    earlier = {t["table"] for t in seeded["open"][:(rnd - 1) * cfg["tables"]]}
    idle = proc_figures(server())
    t0 = time.perf_counter()
    recs, tasks = [], []
    for table, users in plan:
        for user in users:
            rec = account_record(user, last_ids.get(user["username"], 0), table["table"])
            recs.append(rec)
            tasks.append(asyncio.create_task(account_waiter(port, user["token"], table["table"], earlier, t0, rec)))
    while (not all(r["opened"] is not None or r["error"] for r in recs)
           and time.perf_counter() - t0 < cfg["wait"]):
        await asyncio.sleep(0.05)
    opened_s = time.perf_counter() - t0
    await asyncio.sleep(cfg["settle"])
    parked = proc_figures(server())
    backends = stack.pg_backends("longpoll") if stack.pg_data else None
    early = sum(task.done() for task in tasks)
    lags: list[float] = []
    watching = asyncio.create_task(loop_lag(lags))
    invites: dict[str, dict] = {}
    cpu_before = cpu_now(server, stack)
    times = invitation_times(cfg, time.perf_counter() - t0) or [None] * len(plan)
    await asyncio.gather(*(inviter(port, table, users, t0, invites, i * cfg["stagger"], cfg["invites"] == "burst",
                                   times[i])
                           for i, (table, users) in enumerate(plan)))
    at_moves = proc_figures(server())
    cpu_after = cpu_now(server, stack)
    _, pending = await asyncio.wait(tasks, timeout=cfg["wait"])
    watching.cancel()
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    wake, from_sent, errors = [], [], {}
    for rec in recs:
        last_ids[rec["user"]] = max(last_ids.get(rec["user"], 0), rec["last"])
        invite = invites.get(rec["user"])
        error = outcome(rec, invite, "invitation")
        if error:
            key = error.split(":")[0]
            errors[key] = errors.get(key, 0) + 1
        else:
            wake.append((rec["t"] - invite["done"]) * 1000)
            from_sent.append((rec["t"] - invite["sent"]) * 1000)
    if os.environ.get("DUMP"):
        with open(os.environ["DUMP"], "a") as f:
            f.write(json.dumps({"round": rnd, "answers": recs, "invitations": invites}) + "\n")
    n = len(recs)
    ok = [i for i in invites.values() if i["done"] is not None and not i["error"]]
    invite_ms = [(i["done"] - i["sent"]) * 1000 for i in ok]
    return {
        "waiters": n, "ok": len(wake), "failed": n - len(wake), "errors": errors, "answered_early": early,
        "wake_ms": {"p50": pct(wake, .5), "p95": pct(wake, .95), "max": pct(wake, 1)},
        "move_ms": {"p50": pct(invite_ms, .5), "p95": pct(invite_ms, .95), "max": pct(invite_ms, 1)},
        # from the invitation's sending instead of its answer: when the answers queue (a saturated
        # server), the event may come before the answer, and this bounds the delivery from above
        "wake_from_sent_ms": {"p50": pct(from_sent, .5), "p95": pct(from_sent, .95), "max": pct(from_sent, 1)},
        "driver_lag_ms": {"p95": pct(lags, .95), "max": pct(lags, 1)},
        "moves_ok": len(ok), "moves_of": n,
        "move_errors": sorted({i["error"] for i in invites.values() if i["error"]})[:5],
        # from the first invitation sent to the last answered: how long the burst of invitations took
        "invitations_s": round(max(i["done"] for i in ok) - min(i["sent"] for i in ok), 2) if ok else None,
        "opened_s": round(opened_s, 2), "skipped_backlog": sum(r["skipped"] for r in recs),
        "invite_rate": cfg["rate"],
        # CPU seconds spent while the invitations went out (postgres: its live processes only;
        # machine: everything, this run's processes and any other session's)
        "cpu_s_inviting": {k: None if v is None else round(cpu_after[k] - v, 2) for k, v in cpu_before.items()},
        "server_idle": idle, "server_parked": parked, "server_at_moves": at_moves,
        "server_fds_per_waiter": round((parked["fds"] - idle["fds"]) / n, 2),
        "server_threads_added": parked["threads"] - idle["threads"],
        "pg_client_backends_parked": backends,
    }


async def loop_lag(out: list[float], every: float = 0.001) -> None:
    """How late each 1 ms sleep of the driver's loop woke (ms), until cancelled."""
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(every)
        out.append((time.perf_counter() - asked - every) * 1000)


def server_pids(root: int, match: str | None) -> list[int]:
    """The web server's processes: root and its descendants (with `match`: only those whose
    command line has it, e.g. uvicorn under `manage.py serve`, not the Celery worker)."""
    pids = proc_tree(root)
    if match is None:
        return pids
    keep = []
    for pid in pids:
        try:
            if match in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode():
                keep.append(pid)
        except OSError:
            pass
    return keep


async def one_round(cfg, port, seeded, server, stack) -> dict:
    tables, spectators = seeded["play"][: cfg["tables"]], seeded["spectators"]
    conn = Connection(port, 30)
    etags = {}
    for t in tables:
        status, hdrs, state = await get(conn, f"/api/v1/tables/{t['table']}/state", spectators[0])
        if status != 200:
            raise SystemExit(f"bench: state of table {t['table']}: HTTP {status}")
        etags[t["table"]] = (hdrs["etag"], state["version"])
    conn.close()
    idle = proc_figures(server())
    answers, moves = [], {}
    t0 = time.perf_counter()
    wait_for = stream_waiter if cfg["kind"] == "sse" else waiter
    tasks = [asyncio.create_task(wait_for(port, t["table"], spectators[(j * len(tables) + i) % len(spectators)],
                                        *etags[t["table"]], cfg["wait"], t0, answers))
             for j in range(cfg["waiters"]) for i, t in enumerate(tables)]
    await asyncio.sleep(cfg["settle"])
    parked = proc_figures(server())
    backends = stack.pg_backends("longpoll") if stack.pg_data else None
    early = len(answers)
    lags: list[float] = []
    watching = asyncio.create_task(loop_lag(lags))
    await asyncio.gather(*(mover(port, t, t0, moves, i * cfg["stagger"]) for i, t in enumerate(tables)))
    at_moves = proc_figures(server())
    done, pending = await asyncio.wait(tasks, timeout=cfg["wait"] + 20)
    watching.cancel()
    for task in pending:
        task.cancel()
    wake, errors = [], {}
    for rec in answers:
        move = moves.get(rec["table"])
        error = outcome(rec, move, "move")
        if error:
            key = error.split(":")[0]
            errors[key] = errors.get(key, 0) + 1
        else:
            wake.append((rec["t"] - move["done"]) * 1000)
    if os.environ.get("DUMP"):
        with open(os.environ["DUMP"], "a") as f:
            f.write(json.dumps({"answers": answers, "moves": moves}) + "\n")
    n = cfg["tables"] * cfg["waiters"]
    if n - len(answers):
        errors["no answer"] = n - len(answers)
    move_ms = [(m["done"] - m["sent"]) * 1000 for m in moves.values() if m["done"] is not None and m["sent"]]
    return {
        "waiters": n, "ok": len(wake), "failed": n - len(wake), "errors": errors, "answered_early": early,
        "wake_ms": {"p50": pct(wake, .5), "p95": pct(wake, .95), "max": pct(wake, 1)},
        "move_ms": {"p50": pct(move_ms, .5), "p95": pct(move_ms, .95), "max": pct(move_ms, 1)},
        # How late the driver's own loop ran a 1 ms timer while the moves and answers came: a
        # wake-up is timed when the driver reads it, so this much of it may be the driver's.
        "driver_lag_ms": {"p95": pct(lags, .95), "max": pct(lags, 1)},
        "moves_ok": sum(1 for m in moves.values() if m["done"] is not None and not m["error"]),
        "move_errors": sorted({m["error"] for m in moves.values() if m["error"]})[:5],
        "server_idle": idle, "server_parked": parked, "server_at_moves": at_moves,
        "server_fds_per_waiter": round((parked["fds"] - idle["fds"]) / n, 2),
        "server_threads_added": parked["threads"] - idle["threads"],
        "pg_client_backends_parked": backends,
    }


def seed_args(cfg: dict) -> list[str]:
    """What bench/seed_project.py seeds for the kind: started tables and spectators for the
    table waiters; for KIND=account, open tables for every round and a user per stream."""
    if cfg["kind"] == "account":
        return ["--no-read", "--tables", "0", "--open", str(cfg["tables"] * cfg["rounds"]),
                "--invitees", str(cfg["tables"] * cfg["waiters"])]
    return ["--no-read", "--tables", str(cfg["tables"]), "--spectators", str(cfg["spectators"])]


def run_mode(mode: str, cfg: dict) -> dict:
    extra_env = dict(kv.split("=", 1) for kv in shlex.split(os.environ.get("PROJECT_ENV", "")))
    with Stack() as stack:
        if mode == "pgredis":
            stack.postgres("longpoll")
            env = project_env(stack.pg_url("longpoll"), stack.redis(), throttles=True,
                              extra={"DB_CONN_MAX_AGE": cfg["conn_max_age"], **extra_env})
        else:
            # what `make run` runs: base settings, SQLite and the embedded broker under VAR_DIR
            env = {"VAR_DIR": str(stack.dir / "var"), "DJANGO_SETTINGS_MODULE": "config.settings.base", **extra_env}
            for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
                os.environ.pop(name, None)
        stack.run([PYTHON, "manage.py", "migrate", "--noinput"], env=env)
        seeded_file = stack.dir / "seeded.json"
        stack.run([PYTHON, str(BENCH / "seed_project.py"), *seed_args(cfg), "--out", str(seeded_file)], env=env)
        seeded = json.loads(seeded_file.read_text())
        if mode == "pgredis":
            port, proc = stack.serve("web", "config.asgi:application", ROOT, env, cfg["server"], cfg["workers"])
            match = None
        else:
            port = free_port()
            proc = stack.start("serve", [PYTHON, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)], env=env)
            match = "uvicorn"
        wait_http(f"http://127.0.0.1:{port}/healthz", 90, proc, proc.logfile)
        time.sleep(2)  # let the workers finish starting

        def server():
            return server_pids(proc.pid, match)

        log(f"{mode}: {cfg['tables']} tables x {cfg['waiters']} waiters, server pids {server()}, "
            f"ulimit -n {nofile_of(server()[-1])}")
        rows, last_ids = [], {}
        for rnd in range(1, cfg["rounds"] + 1):
            if cfg["kind"] == "account":
                row = asyncio.run(account_round(cfg, port, seeded, server, stack, rnd, last_ids))
            else:
                row = asyncio.run(one_round(cfg, port, seeded, server, stack))  # on uvloop: main()
            row.update(mode=mode, round=rnd, tables=cfg["tables"], wait_s=cfg["wait"], stagger_s=cfg["stagger"],
                       kind=cfg["kind"], invites=cfg["invites"] if cfg["kind"] == "account" else None,
                       invite_rate=cfg["rate"] if cfg["kind"] == "account" else None,
                       server_nofile=nofile_of(server()[-1]),
                       server=cfg["server"] if mode == "pgredis" else "manage.py serve",
                       workers=cfg["workers"] if mode == "pgredis" else 1)
            log_text = proc.logfile.read_text()
            row["server_log_errors"] = sum(log_text.count(w) for w in ("Traceback", "Too many open files",
                                                                        "too many clients"))
            if row["server_log_errors"] or row["errors"]:
                stack.keep = True
                log(f"{mode} round {rnd}: errors; the server's log is kept in {stack.dir}")
            rows.append(row)
    return rows


def report(rows: list[dict]) -> str:
    lines = ["| setup | waiters | failed | wake-up p50 / p95 / max (ms) | moves (invitations) ok, p50 / max (ms) "
             "| server threads idle → parked | RSS MB idle → parked | fds idle → parked (per waiter) "
             "| PG backends parked |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        w, m = ({k: "–" if v is None else v for k, v in r[key].items()} for key in ("wake_ms", "move_ms"))
        i, p = r["server_idle"], r["server_parked"]
        setup = (f"production: {r['server']} × {r['workers']}, PostgreSQL + Redis" if r["mode"] == "pgredis"
                 else "`make run`: manage.py serve, SQLite")
        if r.get("kind") == "sse":
            setup = "event streams, " + setup
        elif r.get("kind") == "account":
            how = f"{r['invite_rate']:g} invitations/s" if r.get("invite_rate") else f"{r['invites']} invitations"
            setup = f"account streams ({how}), " + setup
        if len(rows) > len({x["mode"] for x in rows}) or r["stagger_s"]:
            setup += f", round {r['round']}" + (f", movers {r['stagger_s']} s apart" if r["stagger_s"] else "")
        errors = ", ".join(f"{k} {v}" for k, v in r["errors"].items())
        lines.append(f"| {setup} | {r['waiters']} | {r['failed']}{f' ({errors})' if errors else ''} "
                     f"| {w['p50']} / {w['p95']} / {w['max']} | {r['moves_ok']} of {r.get('moves_of', r['tables'])}, {m['p50']} / {m['max']} "
                     f"| {i['threads']} → {p['threads']} | {i['rss_mb']:.0f} → {p['rss_mb']:.0f} "
                     f"| {i['fds']} → {p['fds']} ({r['server_fds_per_waiter']}) "
                     f"| {r['pg_client_backends_parked'] if r['pg_client_backends_parked'] is not None else 'n/a'} |")
    return "\n".join(lines)


def config(env) -> dict:
    """The run's settings from the environment (the module's docstring); SystemExit on a bad one."""
    cfg = {
        "tables": int(env.get("TABLES", 50)), "waiters": int(env.get("WAITERS", 20)),
        "wait": int(env.get("WAIT", 30)), "spectators": int(env.get("SPECTATORS", 100)),
        "settle": float(env.get("SETTLE", 5)), "rounds": int(env.get("ROUNDS", 1)),
        "stagger": float(env.get("STAGGER", 0)), "modes": env.get("MODES", "pgredis makerun").split(),
        "server": env.get("SERVER", "uvicorn"), "workers": int(env.get("WORKERS", 2)),
        "conn_max_age": env.get("DB_CONN_MAX_AGE", "0"),
        "kind": env.get("KIND", "poll"), "invites": env.get("INVITES", "serial"),
        "rate": float(env.get("INVITE_RATE", 0)),
    }
    if cfg["kind"] not in ("poll", "sse", "account"):
        raise SystemExit("bench: KIND is poll (?wait= long-polls), sse (table event streams) or account "
                         "(account streams woken by invitations)")
    if cfg["invites"] not in ("serial", "burst"):
        raise SystemExit("bench: INVITES is serial (each host's invitations one after another) or burst (all at once)")
    if not 0 <= cfg["rate"] <= 10000:
        raise SystemExit("bench: INVITE_RATE 0 (as fast as answered) .. 10000 invitations a second")
    if (not 0 < cfg["wait"] <= 30 or not 0 < cfg["tables"] <= 500 or not 0 < cfg["waiters"] <= 100
            or not 0 < cfg["rounds"] <= 5 or not 0 <= cfg["stagger"] * cfg["tables"] <= 20):
        raise SystemExit("bench: WAIT 1..30, TABLES 1..500, WAITERS 1..100, ROUNDS 1..5, STAGGER x TABLES <= 20 s")
    return cfg


def main():
    cfg = config(os.environ)
    # a socket per waiter, and with INVITES=burst one more per invitation
    burst = cfg["kind"] == "account" and cfg["invites"] == "burst"
    soft, hard = raise_nofile(cfg["tables"] * cfg["waiters"] * (2 if burst else 1) + 200)
    # The driver's own loop is uvloop (as the server's): on the same two cores, the fewer
    # cycles it spends reading 1,000 answers, the less its own queue adds to each wake-up.
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    results = BENCH / "results"
    results.mkdir(exist_ok=True)
    out = Path(os.environ.get("OUT", results / f"longpoll-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"))
    commit, started = git_commit(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load0 = os.getloadavg()[0]
    log(f"long-poll bench at {commit}: {json.dumps(cfg)}; driver ulimit -n {soft} (hard {hard}) -> {out}")
    rows = []
    for mode in cfg["modes"]:
        for row in run_mode(mode, cfg):
            row.update(commit=commit, driver_nofile=soft, loadavg_1m=round(os.getloadavg()[0], 2))
            rows.append(row)
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            log(f"{mode} round {row['round']}: {row['ok']} of {row['waiters']} woke, wake-up p95 "
                f"{row['wake_ms']['p95']} ms (the driver's loop lag p95 {row['driver_lag_ms']['p95']}, max "
                f"{row['driver_lag_ms']['max']} ms), errors {row['errors']}, parked threads {row['server_parked']['threads']}")
    print(f"\n`make bench-longpoll` at {commit}, {started}, {os.cpu_count()} cores, load average "
          f"{load0:.1f} → {os.getloadavg()[0]:.1f}, "
          f"{cfg['tables']} tables × {cfg['waiters']} waiters, wait={cfg['wait']}; JSON lines: "
          f"{out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}\n")
    print(report(rows))
    if rows:
        print(f"\nThe driver holds 1 socket per waiter (its ulimit -n: {soft}); median server fds per waiter: "
              f"{statistics.median(r['server_fds_per_waiter'] for r in rows)}.")


if __name__ == "__main__":
    sys.exit(main())
