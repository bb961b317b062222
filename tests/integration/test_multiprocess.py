"""Scale-out on the engines users run: two web processes and two Celery workers on
PostgreSQL and Redis. Bot tables play through the workers while human clients spread their
requests over both web processes (retrying some through the other one with the same
Idempotency-Key); afterwards every table replays to its stored state and no decision was
applied twice."""

import io
import os
import random
import subprocess
import sys
import threading
import urllib.request
import uuid

import pytest
from django.core.management import call_command
from django.db import connection

from games.models import Move, Table
from games.services import automation, tables
from tests.integration.conftest import ROOT, call, eventually, free_port

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="the multi-process test runs on PostgreSQL and Redis (CI's second pass)",
    ),
]


@pytest.fixture
def cluster(worker, tmp_path):
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "API_THROTTLE_RATES": "off",
        "VAR_DIR": str(tmp_path),
    }
    ports = [free_port(), free_port()]
    webs = []
    for port in ports:
        log = open(tmp_path / f"web-{port}.log", "wb")  # noqa: SIM115 - closed with the process
        webs.append(subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))
    worker()
    worker()
    bases = [f"http://127.0.0.1:{port}/api/v1" for port in ports]

    def up(base):
        try:
            return urllib.request.urlopen(base.replace("/api/v1", "/healthz"), timeout=2).status == 200
        except OSError:
            return False

    for base in bases:
        eventually(lambda base=base: up(base), timeout=60)
    yield bases
    for web in webs:
        web.terminate()
        web.wait(timeout=15)


def human_table(make_user, seats=4):
    users = [make_user(staff=True)] + [make_user() for _ in range(seats - 1)]
    table = tables.table_create(user=users[0], game="president", seats=seats, options={"hands": 1}, turn_timeout=0)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    tables.table_start(table_id=table.pk, user=users[0])
    return table, users


def bot_table(make_user, game, seats, options):
    host = make_user()
    table = tables.table_create(user=host, game=game, seats=seats, options={**options, "bot_delay": 0}, turn_timeout=0)
    for level in ("random", "easy", "hard")[: seats - 1] + ("easy",) * max(0, seats - 4):
        automation.table_add_bot(table_id=table.pk, user=host, level=level)
    tables.table_start(table_id=table.pk, user=host)
    tables.table_leave(table_id=table.pk, user=host)
    return table


def play_humans(bases, table, users, seed, errors):
    rng = random.Random(seed)
    by_id = {u.pk: u for u in users}
    try:
        for _ in range(2000):
            base = rng.choice(bases)
            status, summary = call(base, "GET", f"/tables/{table.pk}", users[0].token)
            if summary["status"] == "finished":
                return
            for seat in summary["seats"]:
                user = by_id[seat["player"]["id"]]
                _, state = call(rng.choice(bases), "GET", f"/tables/{table.pk}/state", user.token)
                if not state["legal_moves"]:
                    continue
                body = {**rng.choice(state["legal_moves"]), "expected_version": state["version"]}
                key = {"Idempotency-Key": uuid.uuid4().hex}
                first = call(bases[0], "POST", f"/tables/{table.pk}/moves", user.token, body, key)
                # A client retrying through the other process gets the same answer.
                again = call(bases[1], "POST", f"/tables/{table.pk}/moves", user.token, body, key)
                if first != again or first[0] != 200:
                    errors.append((first, again))
                break
        errors.append(f"table {table.pk} did not finish")
    except Exception as exc:  # noqa: BLE001 - reported by the test thread
        errors.append(repr(exc))


def test_two_web_processes_and_two_workers_keep_every_table_consistent(cluster, make_user):
    bot_tables = [bot_table(make_user, "president", 4, {"hands": 1}) for _ in range(4)]
    bot_tables += [bot_table(make_user, "pitch", 3, {}) for _ in range(2)]
    bot_tables += [bot_table(make_user, "lopti", 3, {"rounds": 1}) for _ in range(2)]
    humans = [human_table(make_user) for _ in range(2)]
    errors: list = []
    threads = [threading.Thread(target=play_humans, args=(cluster, t, u, i, errors)) for i, (t, u) in enumerate(humans)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert errors == []
    every = [t.pk for t in bot_tables] + [t.pk for t, _ in humans]
    eventually(lambda: Table.objects.filter(pk__in=every, status=Table.Status.FINISHED).count() == len(every), timeout=300)
    out = io.StringIO()
    call_command("verify_tables", stdout=out)
    assert f"{len(every)} table(s) checked, 0 differ(s)" in out.getvalue()
    for table_id in every:
        versions = list(Move.objects.filter(table_id=table_id).order_by("seq").values_list("version", flat=True))
        # One move per table version: no decision was applied twice.
        assert versions == sorted(set(versions))
    assert Move.objects.filter(table_id__in=[t.pk for t in bot_tables], by=Move.By.PLAYER).count() == 0
