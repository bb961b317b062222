"""A concurrency stress for the embedded broker: producer and consumer processes on one
broker folder, counting every message. Used by tests/integration/test_broker.py and, for the
measurements in docs/operations.md, from the command line:

    .venv/bin/python -m tests.integration.broker_stress --transport filesystem-atomic
    .venv/bin/python -m tests.integration.broker_stress --transport filesystem   # kombu's own

Each process has its own connection, as the web processes, the worker and beat do."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import tempfile
import time
from pathlib import Path

STOP = "stop"


def folders(root: str) -> dict:
    """The transport options of config/settings/base.py, under `root`."""
    from config.broker import transport_options

    return transport_options(Path(root), polling_interval=0.01)


def connect(transport: str, root: str):
    from kombu import Connection

    import config.broker  # noqa: F401 - registers the filesystem-atomic:// scheme

    if transport.startswith("sqla+"):
        return Connection(transport)
    return Connection(f"{transport}://", transport_options=folders(root))


def produce(transport: str, root: str, producer: int, count: int, start, results) -> None:
    try:
        with connect(transport, root) as conn:
            queue = conn.SimpleQueue("stress")
            start.wait()
            for n in range(count):
                # A payload of the size of a Celery task message (about 1 KB).
                queue.put({"id": f"{producer}-{n}", "pad": "x" * 900})
            queue.close()
        results.put(("produced", ("p", producer), None))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        results.put(("error", ("p", producer), ("p", f"{type(exc).__name__}: {exc}")))


def consume(transport: str, root: str, consumer: int, start, results) -> None:
    seen: list[str] = []
    try:
        with connect(transport, root) as conn:
            queue = conn.SimpleQueue("stress")
            start.wait()
            while True:
                try:
                    message = queue.get(timeout=30)
                except queue.Empty:
                    raise AssertionError("no message in 30 s") from None
                message.ack()
                if message.payload == STOP:
                    break
                seen.append(message.payload["id"])
            queue.close()
        results.put(("consumed", ("c", consumer), seen))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        results.put(("error", ("c", consumer), ("c", f"{type(exc).__name__}: {exc}")))


def run(transport: str, *, producers: int = 4, consumers: int = 3, messages: int = 500, root: str | None = None) -> dict:
    """Every producer puts `messages` messages while the consumers take them. Returns counts,
    the consumers' and producers' errors, duplicates, losses and messages per second."""
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as tmp:
        root = root or tmp
        results = context.Queue()
        start = context.Event()
        procs = [context.Process(target=produce, args=(transport, root, p, messages, start, results))
                 for p in range(producers)]
        procs += [context.Process(target=consume, args=(transport, root, c, start, results))
                  for c in range(consumers)]
        for proc in procs:
            proc.start()
        time.sleep(0.5)  # let every process connect; the clock starts at the signal
        began = time.monotonic()
        start.set()
        errors, seen, reported = [], [], set()

        def collect(until) -> None:
            while not until():
                try:
                    kind, who, value = results.get(timeout=120)
                except Exception:  # noqa: BLE001 - a process died without reporting
                    errors.append("a process stopped reporting")
                    return
                reported.add(who)
                if kind == "error":
                    errors.append(value[1])
                elif kind == "consumed":
                    seen.extend(value)

        collect(lambda: sum(1 for role, _ in reported if role == "p") == producers)
        with connect(transport, root) as conn:
            queue = conn.SimpleQueue("stress")
            for _ in range(consumers):
                queue.put(STOP)
            queue.close()
        collect(lambda: len(reported) == producers + consumers)
        elapsed = time.monotonic() - began
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
        sent = producers * messages
        return {
            "transport": transport,
            "sent": sent,
            "received": len(seen),
            "duplicates": len(seen) - len(set(seen)),
            "lost": sent - len(set(seen)),
            "errors": errors,
            "seconds": round(elapsed, 2),
            "messages_per_second": round(len(seen) / elapsed),
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transport", default="filesystem-atomic",
                        help="a kombu URL scheme (filesystem-atomic, filesystem) or an sqla+sqlite:///... URL")
    parser.add_argument("--producers", type=int, default=4)
    parser.add_argument("--consumers", type=int, default=3)
    parser.add_argument("--messages", type=int, default=500, help="per producer")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    for _ in range(args.runs):
        outcome = run(args.transport, producers=args.producers, consumers=args.consumers, messages=args.messages)
        outcome["errors"] = outcome["errors"][:3]
        print(json.dumps(outcome))
