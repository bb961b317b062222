"""The load driver of `make bench`: a fixed number of concurrent keep-alive clients against one
server on 127.0.0.1 for a fixed time, after a warm-up; prints one JSON line of figures.

    python bench/load.py --base http://127.0.0.1:PORT --scenario read --targets FILE \
        -c 8 -d 10 --warmup 2 [--label k=v ...]

Scenarios (FILE is JSON written by bench/run.py):
  read     each client GETs its path again and again; every answer must be 200.
  read304  the same with If-None-Match = the ETag of the client's first answer; 304 expected.
  write    each client POSTs a move body to its path (the floor's write); 200 expected.
  play     the card-game loop: client group i plays table i (the project). Every client GETs
           its table's state (long-polling with `?wait=` and If-None-Match once it has an ETag,
           or polling every --poll-interval with --no-wait) and, when legal_moves is not
           empty, POSTs legal_moves[0] with expected_version. A finished table is replaced by
           a new one (created, joined, started over the API), outside the figures.

A request counts when it starts after the warm-up and ends before the deadline; at the deadline
every client is cancelled. `requests` counts every answer; `rps` and the latencies only the
expected ones (a 500 or a 429 is in `unexpected`). Latency is per request (for play: per POST
of a move that was answered 200 or 409). Standard
library only: asyncio streams and a small HTTP/1.1 client, so the driver costs little CPU on a
machine it shares with the servers (its CPU share is in the output as `driver_cpu`).
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import json
import math
import resource
import sys
import time
from collections import Counter
from urllib.parse import urlsplit

OK = {"read": (200,), "read304": (200, 304), "write": (200,), "play": (200, 304)}


class HttpError(Exception):
    """No (complete) HTTP answer: refused, reset, closed or timed out."""


class Connection:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1:port."""

    def __init__(self, port: int, timeout: float):
        self.port, self.timeout = port, timeout
        self.reader = self.writer = None

    async def request(self, method: str, path: str, headers: dict | None = None, body=None):
        """(status, headers with lower-case names, body bytes)."""
        try:
            async with asyncio.timeout(self.timeout):
                return await self._request(method, path, headers or {}, body)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            self.close()
            raise HttpError(type(exc).__name__) from exc

    async def _request(self, method, path, headers, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        hdrs = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                hdrs[k.strip().lower()] = v.strip()
        if "content-length" in hdrs:
            content = await self.reader.readexactly(int(hdrs["content-length"]))
        elif hdrs.get("transfer-encoding", "").lower() == "chunked":
            content = await self._chunked()
        elif status in (204, 304) or 100 <= status < 200:
            content = b""
        else:
            content = await self.reader.read()
            hdrs["connection"] = "close"
        if hdrs.get("connection", "").lower() == "close":
            self.close()
        return status, hdrs, content

    async def _chunked(self) -> bytes:
        parts = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Recorder:
    """The figures of one run: latencies and statuses of requests inside the window."""

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end
        self.latency: dict[str, list[float]] = {}
        self.status: Counter = Counter()
        self.unexpected: Counter = Counter()
        self.failures: Counter = Counter()
        self.counts: Counter = Counter()

    def inside(self, t0: float, t1: float) -> bool:
        return t0 >= self.start and t1 <= self.end

    async def call(self, conn, kind, method, path, headers=None, body=None, ok=(200,)):
        """The request, timed; (status, headers, body), or None when no answer came."""
        t0 = time.perf_counter()
        try:
            status, hdrs, content = await conn.request(method, path, headers, body)
        except HttpError as exc:
            if self.inside(t0, time.perf_counter()):
                self.failures[str(exc)] += 1
            return None
        t1 = time.perf_counter()
        if self.inside(t0, t1):
            self.status[str(status)] += 1
            if status in ok:  # a quick 500 must not make the rate or the latencies look better
                self.latency.setdefault(kind, []).append((t1 - t0) * 1000)
            else:
                self.unexpected[f"{kind} {status}"] += 1
        return status, hdrs, content

    def running(self) -> bool:
        """Clients stop at the deadline (they are also cancelled there)."""
        return time.perf_counter() < self.end

    def count(self, what: str):
        if self.start <= time.perf_counter() <= self.end:
            self.counts[what] += 1


def percentile(values: list[float], q: float):
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 2)


def figures(values: list[float]) -> dict:
    return {"p50_ms": percentile(values, 0.50), "p95_ms": percentile(values, 0.95),
            "p99_ms": percentile(values, 0.99), "max_ms": percentile(values, 1.0)}


# --------------------------------------------------------------------------- scenarios


async def reader(args, rec, target):
    conn = Connection(args.port, args.timeout)
    auth = {"Authorization": f"Token {target['token']}"}
    etag = None
    while rec.running():
        headers = dict(auth, **({"If-None-Match": etag} if etag and args.scenario == "read304" else {}))
        got = await rec.call(conn, "read", "GET", target["path"], headers, ok=OK[args.scenario])
        if got is None:
            await asyncio.sleep(0.05)
        elif got[0] in (200, 304):
            etag = got[1].get("etag", etag)


async def writer(args, rec, target):
    conn = Connection(args.port, args.timeout)
    auth = {"Authorization": f"Token {target['token']}"}
    while rec.running():
        got = await rec.call(conn, "write", "POST", target["path"], auth, {"type": "play", "cards": ["7H"]})
        if got is None:
            await asyncio.sleep(0.05)


class Table:
    """A group of clients at one table: seat tokens (the first is the host) and bot seats.
    Replaces the table with a new one when it finishes."""

    def __init__(self, target, options):
        self.id = target["table"]
        self.tokens = target["tokens"]
        self.bots = target.get("bots", 0)
        self.options = options
        self.lock = asyncio.Lock()

    async def replace(self, args, rec, finished_id):
        async with self.lock:
            if self.id != finished_id:
                return  # another client of the group replaced it already
            conn = Connection(args.port, max(args.timeout, 30))
            host = {"Authorization": f"Token {self.tokens[0]}"}
            try:
                _, _, body = await conn.request("POST", "/api/v1/tables", host, {
                    "game": "president", "seats": len(self.tokens) + self.bots,
                    "options": self.options, "turn_timeout": 0})
                new_id = json.loads(body)["id"]
                for token in self.tokens[1:]:
                    await conn.request("POST", f"/api/v1/tables/{new_id}/join",
                                       {"Authorization": f"Token {token}"}, {})
                for _ in range(self.bots):
                    await conn.request("POST", f"/api/v1/tables/{new_id}/bots", host, {"level": "random"})
                status, _, body = await conn.request("POST", f"/api/v1/tables/{new_id}/start", host, {})
                if status != 200:
                    raise HttpError(f"start answered {status}: {body[:200]!r}")
            except (HttpError, ValueError, KeyError) as exc:
                print(f"load.py: could not replace table {finished_id}: {exc}", file=sys.stderr)
                rec.count("replace_failed")
                return
            finally:
                conn.close()
            self.id = str(new_id)
            rec.count("tables_replaced")


async def player(args, rec, table: Table, token: str):
    conn = Connection(args.port, args.timeout + (args.wait or 0))
    auth = {"Authorization": f"Token {token}"}
    etag, table_id, state = None, None, None
    while rec.running():
        if table_id != table.id:
            table_id, etag, state = table.id, None, None
        if state is None:
            state, etag = await poll_state(args, rec, conn, auth, table_id, etag)
            if state is None:
                continue
        if state.get("status") == "finished":
            await table.replace(args, rec, table_id)
            state = None
            continue
        legal, version, state = state.get("legal_moves") or [], state["version"], None
        if not legal:
            if not args.wait:
                await asyncio.sleep(args.poll_interval)
            continue
        move = dict(legal[0], expected_version=version)
        got = await rec.call(conn, "move", "POST", f"/api/v1/tables/{table_id}/moves", auth, move,
                             ok=(200, 409))
        if got and got[0] == 200:
            rec.count("moves")
            # The answer carries the mover's new state; with an ETag a client needs no GET
            # (else the next GET, with the old ETag, answers 200 at once: the version moved on).
            if got[1].get("etag"):
                etag, state = got[1]["etag"], json.loads(got[2])["state"]
        elif got and got[0] == 409:
            rec.count("conflicts")


async def poll_state(args, rec, conn, auth, table_id, etag):
    """One GET of the state (a long-poll once there is an ETag): (state, etag), or (None, etag)
    on a 304 or a failure."""
    path = f"/api/v1/tables/{table_id}/state"
    headers = dict(auth)
    if etag:
        headers["If-None-Match"] = etag
        if args.wait:
            path += f"?wait={args.wait}"
    got = await rec.call(conn, "state", "GET", path, headers, ok=(200, 304))
    if got is None or got[0] not in (200, 304):
        await asyncio.sleep(0.05)
        return None, etag
    if got[0] == 304:
        if not args.wait:
            await asyncio.sleep(args.poll_interval)
        return None, etag
    return json.loads(got[2]), got[1].get("etag")


async def run(args) -> dict:
    with open(args.targets) as f:
        targets = json.load(f)
    if not targets:
        raise SystemExit(f"load.py: no targets in {args.targets}")
    loop_start = time.perf_counter()
    rec = Recorder(loop_start + args.warmup, loop_start + args.warmup + args.duration)
    picked = [targets[i % len(targets)] for i in range(args.concurrency)]
    if args.scenario == "play":
        options = json.loads(args.table_options)
        tables = [Table(t, options) for t in picked]
        coros = [player(args, rec, table, token) for table in tables for token in table.tokens]
    else:
        work = writer if args.scenario == "write" else reader
        coros = [work(args, rec, t) for t in picked]
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    tasks = [asyncio.create_task(c) for c in coros]
    await asyncio.sleep(max(0.0, rec.end - time.perf_counter()))
    for task in tasks:
        task.cancel()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    crashed = [d for d in done if isinstance(d, Exception) and not isinstance(d, asyncio.CancelledError)]
    if crashed:
        raise crashed[0]
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    kind = {"read": "read", "read304": "read", "write": "write", "play": "move"}[args.scenario]
    lat = rec.latency.get(kind, [])
    out = {
        "scenario": args.scenario, "concurrency": args.concurrency, "clients": len(coros),
        "duration_s": args.duration, "requests": sum(rec.status.values()),
        "rps": round(sum(len(v) for v in rec.latency.values()) / args.duration, 1),
        **figures(lat), "status": dict(rec.status), "unexpected": dict(rec.unexpected),
        "failures": dict(rec.failures),
        "driver_cpu": round((cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime)
                            / (time.perf_counter() - loop_start), 2),
    }
    if args.scenario == "play":
        state = rec.latency.get("state", [])
        out.update({
            "moves": rec.counts["moves"], "moves_per_s": round(rec.counts["moves"] / args.duration, 1),
            "conflicts": rec.counts["conflicts"], "tables_replaced": rec.counts["tables_replaced"],
            "replace_failed": rec.counts["replace_failed"], "state_requests": len(state),
            "state_requests_per_move": round(len(state) / rec.counts["moves"], 2) if rec.counts["moves"] else None,
            "state_p50_ms": percentile(state, 0.5), "state_p95_ms": percentile(state, 0.95),
            "wait": args.wait,
        })
    else:
        out["per_s"] = out["rps"]
    return out


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="http://127.0.0.1:PORT (nothing else is allowed)")
    ap.add_argument("--scenario", required=True, choices=sorted(OK))
    ap.add_argument("--targets", required=True, help="JSON file of targets (bench/run.py writes it)")
    ap.add_argument("-c", "--concurrency", type=int, default=8, help="clients (play: tables)")
    ap.add_argument("-d", "--duration", type=float, default=10, help="measured seconds")
    ap.add_argument("--warmup", type=float, default=2, help="seconds of load before measuring")
    ap.add_argument("--timeout", type=float, default=10, help="seconds per request")
    ap.add_argument("--wait", type=int, default=30, help="play: ?wait= of the state polls (0: no long-poll)")
    ap.add_argument("--poll-interval", type=float, default=0.05, help="play with --wait 0: pause between polls")
    ap.add_argument("--table-options", default="{}", help="play: options of replacement tables (JSON)")
    ap.add_argument("--label", action="append", default=[], help="k=v added to the JSON line")
    args = ap.parse_args(argv)
    base = urlsplit(args.base)
    if base.scheme != "http" or base.hostname not in ("127.0.0.1", "localhost") or not base.port:
        ap.error("--base must be http://127.0.0.1:PORT")
    if not 1 <= args.concurrency <= 512 or not 0 < args.duration <= 600 or not 0 <= args.warmup <= 60:
        ap.error("-c 1..512, -d (0, 600], --warmup 0..60")
    if not 0 <= args.wait <= 30:
        ap.error("--wait 0..30")
    args.port = base.port
    return args


def main(argv=None):
    args = parse_args(argv)
    # a run ends at its deadline; if the loop itself is stuck, say where and stop
    faulthandler.dump_traceback_later(args.warmup + args.duration + 60, exit=True)
    out = asyncio.run(run(args))
    faulthandler.cancel_dump_traceback_later()
    for label in args.label:
        key, _, value = label.partition("=")
        out[key] = value
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
