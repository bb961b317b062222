"""Who gets SQLite's write lock: one process with many writer threads (as the web process under
load) beside a process with one writer (as a Celery worker's). For the measurements in
docs/reliability.md ("A busy embedded database"), from the command line:

    .venv/bin/python -m tests.integration.sqlite_turns --backend project   # config/sqlite3
    .venv/bin/python -m tests.integration.sqlite_turns --backend django    # Django's own

Each writer runs `atomic()` transactions of one UPDATE that last `--hold` seconds, the busy
process's threads back to back, the lone writer with a pause between them; printed per process:
transactions made, how long one waited for its BEGIN (longest, 99th percentile, mean) and the
errors (`database is locked`).

    .venv/bin/python -m tests.integration.sqlite_turns --cost

prints instead what one write costs on each backend with nobody else writing: a transaction (a
read and an UPDATE) and an autocommit UPDATE, in one process, the backends taking turns."""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sqlite3
import statistics
import tempfile
import threading
import time

OPTIONS = {
    # Django's backend with the options the project had before config/sqlite3.
    "django": ("django.db.backends.sqlite3", {
        "transaction_mode": "IMMEDIATE", "timeout": 30, "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}),
    "project": ("config.sqlite3", {"timeout": 30, "write_wait": 300}),
}


def writers(backend: str, path: str, threads: int, pause: float, hold: float, seconds: float, results) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    import django

    django.setup()
    from django.db import connection, connections, transaction

    engine, options = OPTIONS[backend]
    connections.settings["default"].update({"ENGINE": engine, "NAME": path, "OPTIONS": options})
    for opened in connections.all():
        opened.close()
    waits: list[float] = []
    errors: list[str] = []
    end = time.monotonic() + seconds

    def write() -> None:
        while time.monotonic() < end:
            asked = time.monotonic()
            try:
                with transaction.atomic():
                    waits.append(time.monotonic() - asked)
                    with connection.cursor() as cursor:
                        cursor.execute("UPDATE counter SET value = value + 1")
                    time.sleep(hold)
            except Exception as exc:  # noqa: BLE001 - counted and shown
                errors.append(str(exc))
            time.sleep(pause)
        connection.close()

    running = [threading.Thread(target=write) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    waits.sort()
    results.put({
        "threads": threads, "transactions": len(waits), "longest": waits[-1] if waits else None,
        "p99": waits[int(len(waits) * 0.99)] if waits else None, "mean": statistics.mean(waits) if waits else None,
        "errors": len(errors), "first error": errors[0] if errors else None,
    })


def cost(path: str, rounds: int = 7, writes: int = 2000) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
    import django

    django.setup()
    from django.db import connections, transaction

    backends = {name: {"ENGINE": engine, "NAME": path, "OPTIONS": options} for name, (engine, options) in OPTIONS.items()}
    connections.settings.update(connections.configure_settings({"default": connections.settings["default"], **backends}))
    spent: dict[str, list[float]] = {name: [] for name in OPTIONS}
    for round_ in range(rounds + 1):  # the first round warms up
        for name in sorted(OPTIONS, reverse=bool(round_ % 2)):
            db = connections[name]
            started = time.perf_counter()
            for _ in range(writes):
                with transaction.atomic(using=name), db.cursor() as cursor:
                    cursor.execute("SELECT value FROM counter")
                    cursor.execute("UPDATE counter SET value = value + 1")
                with db.cursor() as cursor:
                    cursor.execute("UPDATE counter SET value = value + 1")
            if round_:
                spent[name].append((time.perf_counter() - started) / writes * 1e6)
    for name, times in spent.items():
        print(f"{name}: a transaction and an autocommit write, {statistics.median(times):.0f} µs (median of {rounds})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=sorted(OPTIONS), default="project")
    parser.add_argument("--threads", type=int, default=12, help="writer threads of the busy process")
    parser.add_argument("--hold", type=float, default=0.005, help="seconds each transaction lasts")
    parser.add_argument("--pause", type=float, default=0.05, help="seconds the lone writer waits between two")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--cost", action="store_true", help="the cost of a write, nobody else writing")
    args = parser.parse_args()
    path = os.path.join(tempfile.mkdtemp(prefix="sqlite-turns-"), "db.sqlite3")
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE counter (value INTEGER)")
    setup.execute("INSERT INTO counter VALUES (0)")
    setup.close()
    if args.cost:
        cost(path)
        return
    results = multiprocessing.Queue()
    processes = [
        multiprocessing.Process(target=writers, args=(args.backend, path, args.threads, 0.0, args.hold, args.seconds, results)),
        multiprocessing.Process(target=writers, args=(args.backend, path, 1, args.pause, args.hold, args.seconds, results)),
    ]
    for process in processes:
        process.start()
    done = sorted((results.get() for _ in processes), key=lambda r: r["threads"], reverse=True)
    for process in processes:
        process.join()
    for result in done:
        shown = {k: round(v, 3) if isinstance(v, float) else v for k, v in result.items()}
        print(f"{args.backend}: " + ", ".join(f"{k} {v}" for k, v in shown.items()))


if __name__ == "__main__":
    main()
