"""Benchmark: N open event streams (`GET /tables/{id}/events`) on one ASGI process.

Starts uvicorn on a throwaway SQLite database (or the DATABASE_URL given), opens N streams as
spectators of one President table, and reports the server's RSS, threads and CPU while the
streams are idle, next to the same figures with no stream open (the baseline, measured in the
same run); then plays moves over HTTP and reports the delay from each move's response to its
event at every stream (p50, p95, max).

    .venv/bin/python bench/sse_streams.py --streams 500 --moves 20

Not a test: it prints figures and asserts nothing about time."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base, method, path, token=None, body=None):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def proc_stats(pid: int) -> dict:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines())
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {
        "rss_mb": int(fields["VmRSS"].split()[0]) / 1024,
        "threads": int(fields["Threads"]),
        "cpu_s": (int(stat[11]) + int(stat[12])) / ticks,
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
    }


def idle_cpu(pid: int, seconds: float) -> tuple[dict, float]:
    before = proc_stats(pid)
    time.sleep(seconds)
    after = proc_stats(pid)
    return after, 100 * (after["cpu_s"] - before["cpu_s"]) / seconds


async def open_stream(port: int, table_id: str, token: str, arrivals: dict, ready: asyncio.Event, count: list):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (f"GET /api/v1/tables/{table_id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Token {token}\r\n\r\n").encode()
    )
    await writer.drain()
    first = True
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            if line.startswith(b"id: "):
                version = int(line[4:])
                if first:
                    first = False
                    count[0] += 1
                    if count[0] == count[1]:
                        ready.set()
                else:
                    arrivals.setdefault(version, []).append(time.monotonic())
    finally:
        writer.close()


async def main_async(args, base, port, table_id, tokens, server_pid):
    arrivals: dict[int, list[float]] = {}
    ready = asyncio.Event()
    count = [0, args.streams]
    viewer = tokens["viewer"]
    tasks = [asyncio.create_task(open_stream(port, table_id, viewer, arrivals, ready, count)) for _ in range(args.streams)]
    await asyncio.wait_for(ready.wait(), timeout=120)
    await asyncio.sleep(1)
    loaded, loaded_cpu = await asyncio.to_thread(idle_cpu, server_pid, args.idle)
    delays = []
    for _ in range(args.moves):
        state = await asyncio.to_thread(call, base, "GET", f"/tables/{table_id}/state", viewer)
        seat = state["turn"]
        if state["status"] != "active" or seat is None:
            break
        token = tokens[seat]
        mine = await asyncio.to_thread(call, base, "GET", f"/tables/{table_id}/state", token)
        result = await asyncio.to_thread(call, base, "POST", f"/tables/{table_id}/moves", token, mine["legal_moves"][0])
        answered = time.monotonic()
        version = result["version"]
        end = answered + 10
        while len(arrivals.get(version, [])) < args.streams and time.monotonic() < end:
            await asyncio.sleep(0.005)
        got = arrivals.get(version, [])
        delays += [t - answered for t in got]
        delays += [float("inf")] * (args.streams - len(got))
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return loaded, loaded_cpu, delays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle measurement")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sse-bench-"))
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "VAR_DIR": str(work),
        "API_THROTTLE_RATES": "off",
        "SSE_MAX_STREAMS_PER_USER": str(args.streams + 10),
        "CELERY_TASK_ALWAYS_EAGER": "true",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--port", str(port), "--log-level", "warning",
         "--limit-concurrency", str(args.streams + 100), "--backlog", str(args.streams + 100)],
        cwd=ROOT, env=env,
    )
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        tokens = {}
        for i, name in enumerate(["ann", "bob", "cat", "dan", "viewer"]):
            tokens[i if name != "viewer" else "viewer"] = call(
                base, "POST", "/auth/register", body={"username": f"{name}{port}", "password": "a long passphrase"}
            )["token"]
        table = call(base, "POST", "/tables", tokens[0], {"game": "president", "seats": 4, "options": {"hands": 1}, "turn_timeout": 0})
        for i in (1, 2, 3):
            call(base, "POST", f"/tables/{table['id']}/join", tokens[i])
        call(base, "POST", f"/tables/{table['id']}/start", tokens[0])
        summary = call(base, "GET", f"/tables/{table['id']}", tokens[0])
        by_name = {v: k for k, v in tokens.items()}
        seat_tokens = {}
        for seat in summary["seats"]:
            user = seat["player"]["username"]
            seat_tokens[seat["seat"]] = tokens[next(i for i, n in enumerate(["ann", "bob", "cat", "dan"]) if user == f"{n}{port}")]
        seat_tokens["viewer"] = tokens["viewer"]
        del by_name
        time.sleep(1)
        baseline, baseline_cpu = idle_cpu(server.pid, args.idle)
        loaded, loaded_cpu, delays = asyncio.run(main_async(args, base, port, table["id"], seat_tokens, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=15)
    finite = sorted(d for d in delays if d != float("inf"))
    missed = len(delays) - len(finite)
    print(f"event streams on one uvicorn process, {args.streams} streams, {args.moves} moves, SQLite")
    print("| | RSS (MB) | threads | file descriptors | CPU while idle |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| baseline: no stream | {baseline['rss_mb']:.1f} | {baseline['threads']} | {baseline['fds']} | {baseline_cpu:.1f} % |")
    print(f"| {args.streams} idle streams | {loaded['rss_mb']:.1f} | {loaded['threads']} | {loaded['fds']} | {loaded_cpu:.1f} % |")
    if finite:
        p = lambda q: finite[min(len(finite) - 1, int(q * len(finite)))] * 1000  # noqa: E731
        print(f"delay from a move's response to its event at every stream: p50 {p(0.5):.0f} ms, "
              f"p95 {p(0.95):.0f} ms, max {finite[-1] * 1000:.0f} ms, mean {statistics.mean(finite) * 1000:.0f} ms "
              f"({len(finite)} events, {missed} missed)")


if __name__ == "__main__":
    main()
