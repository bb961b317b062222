"""The embedded soak (`make soak-embedded`, docs/operations.md): `make run`'s process tree
(serve: uvicorn, a Celery worker and its beat) on the embedded defaults (SQLite, the filesystem
broker), with tables of bots playing for SOAK_SECONDS (default 300) while long-polling readers
watch them. No worker may die, every table must finish, and `verify_tables` must replay every
table to its stored state. Deselected from `make test` (about six minutes); run it with `make soak-embedded`
(CI runs it in `.ci/run`)."""

import itertools
import os
import random
import subprocess
import sys
import threading
import time

import pytest

from tests.integration.conftest import ROOT, call, eventually

pytestmark = [pytest.mark.integration, pytest.mark.soak]

SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "300"))
# Tables in play at once, cycling over the three games; each finished one is replaced.
KINDS = [
    ("president", 4, {"hands": 1}),
    ("pitch", 3, {"target_score": 7}),
    ("lopti", 2, {"rounds": 1}),
    ("president", 5, {"hands": 1}),
    ("lopti", 3, {"rounds": 1}),
    ("pitch", 4, {"target_score": 7}),
]
_names = itertools.count()


def register(base: str) -> str:
    status, body = call(base, "POST", "/auth/register",
                        body={"username": f"soak{next(_names)}", "password": "a long passphrase"})
    assert status == 201, body
    return body["token"]


def bot_table(base: str, game: str, seats: int, options: dict, rng: random.Random) -> tuple[str, str]:
    """A table of bots only, as (id, host token): the host creates it, fills it with bots,
    starts it and leaves (api.md: after the start a bot plays a leaving player's seat)."""
    token = register(base)
    status, table = call(base, "POST", "/tables", token, {
        "game": game, "seats": seats, "turn_timeout": 30, "options": {**options, "bot_delay": 0}})
    assert status == 201, table
    for _ in range(seats - 1):
        status, body = call(base, "POST", f"/tables/{table['id']}/bots", token, {"level": rng.choice(["random", "easy"])})
        assert status in (200, 201), body
    for path in ("start", "leave"):
        status, body = call(base, "POST", f"/tables/{table['id']}/{path}", token, {})
        assert status == 200, (path, body)
    return table["id"], token


def test_bot_tables_play_for_minutes_on_make_runs_process_tree(serve):
    # SOAK_BROKER_URL=filesystem:// runs it on kombu's stock transport, to see #1551.
    broker = os.environ.get("SOAK_BROKER_URL")
    served = serve(env={"CELERY_BROKER_URL": broker} if broker else None)
    rng = random.Random(18)
    watcher = register(served.base)
    tables: dict[str, str] = {}
    errors: list = []
    done = threading.Event()

    playing: list[str] = []

    def long_poll():
        # Readers on the API while the worker plays: ETag and ?wait= as a client would.
        etags: dict[str, str] = {}
        try:
            while not done.is_set():
                for table_id in list(playing):
                    if done.is_set():
                        break
                    headers = {"If-None-Match": etags[table_id]} if table_id in etags else {}
                    replied: dict = {}
                    status, body = call(served.base, "GET", f"/tables/{table_id}/state?wait=2", watcher,
                                        headers=headers, replied=replied)
                    if status == 200:
                        etags[table_id] = replied["etag"]
                    elif status != 304:
                        errors.append((status, body))
                time.sleep(0.1)
        except Exception as exc:  # noqa: BLE001 - reported by the test
            errors.append(repr(exc))

    reader = threading.Thread(target=long_poll, daemon=True)
    reader.start()
    kinds = itertools.cycle(KINDS)
    end = time.monotonic() + SOAK_SECONDS
    try:
        while time.monotonic() < end:
            for table_id in list(playing):
                status, body = call(served.base, "GET", f"/tables/{table_id}", tables[table_id])
                assert status == 200, body
                if body["status"] == "finished":
                    playing.remove(table_id)
            while len(playing) < len(KINDS):
                table_id, token = bot_table(served.base, *next(kinds), rng)
                tables[table_id] = token
                playing.append(table_id)
            assert served.proc.poll() is None, served.log()[-5000:]
            time.sleep(1)

        def all_finished():
            return all(call(served.base, "GET", f"/tables/{t}", tables[t])[1]["status"] == "finished" for t in playing)

        eventually(all_finished, timeout=300, interval=2)
    finally:
        done.set()
        reader.join(timeout=60)
    assert not reader.is_alive()
    log = served.log()
    # No worker died (serve would have logged a restart) and none hit kombu #1551.
    assert served.proc.poll() is None
    assert "exited with code" not in log and "Unrecoverable error" not in log, log[-5000:]
    assert errors == []
    served.proc.terminate()
    served.proc.wait(timeout=30)
    verify = subprocess.run([sys.executable, "manage.py", "verify_tables"], cwd=ROOT, env=served.env,
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert f"{len(tables)} table(s) checked, 0 differ(s)" in verify.stdout
    print(f"soak: {len(tables)} bot tables finished in {SOAK_SECONDS:.0f} s; verify_tables: {verify.stdout.strip()}")
