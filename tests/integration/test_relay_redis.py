"""Redis delivers a message again when a worker has held it unacknowledged past the visibility
timeout, and a worker holds a task with an eta until it runs: a wait longer than the timeout
runs twice or more. games/scheduling.py relays such waits in hops under half the timeout.

A real worker on Redis (database 12 of REDIS_URL's server, whatever database REDIS_URL names)
with a visibility timeout of 6 s, checked every second: a quick-play fill scheduled through
games/scheduling.py 20 s ahead is relayed and runs once; beside it, the control, a webhook
delivery sent straight with the same eta, runs more than once, which shows the setup would
catch a duplicate."""

from __future__ import annotations

import os
import re
import time
import uuid
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.utils import timezone

from games import scheduling
from tests.integration.conftest import eventually

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL; CI's second pass)"),
]

VISIBILITY_TIMEOUT = 6
WAIT = 20
KOMBU_KEYS = ("celery", "unacked", "unacked_index", "unacked_mutex")


def redis_db_12() -> str:
    parts = urlsplit(os.environ["REDIS_URL"])
    return urlunsplit(parts._replace(path="/12"))


def runs(log: str, task: str) -> int:
    return len(re.findall(rf"games\.tasks\.{task}\[[^]]+\] succeeded", log))


def test_a_wait_longer_than_the_visibility_timeout_is_relayed_and_runs_once(worker, settings, monkeypatch):
    import redis
    from celery import Celery

    url = redis_db_12()
    client = redis.Redis.from_url(url)
    client.delete(*KOMBU_KEYS)
    probe = Celery("probe", broker=url, set_as_current=False)
    try:
        env = {"REDIS_URL": url, "CELERY_BROKER_URL": url, "CELERY_RESULT_BACKEND": url,
               "BROKER_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT)}
        child = worker(env=env)
        eventually(lambda: " ready." in child.log_path.read_text(errors="replace"), timeout=60)
        # This process sends as the web would, to the worker's broker, with the worker's timeout.
        settings.BROKER_VISIBILITY_TIMEOUT = VISIBILITY_TIMEOUT
        monkeypatch.setattr(scheduling, "_send", lambda name, args, **options: probe.send_task(
            f"games.tasks.{name}", args=args, **options))
        due = timezone.now() + timedelta(seconds=WAIT)
        scheduling.queue_quick_play_fill(str(uuid.uuid4()), due)
        scheduling._send("deliver_webhook", (str(uuid.uuid4()),), eta=due)  # the control: not relayed

        log = lambda: child.log_path.read_text(errors="replace")  # noqa: E731
        eventually(lambda: runs(log(), "quick_play_fill") >= 1, timeout=WAIT + 30)
        # Past the due time by more than a visibility timeout and its check: any copy Redis
        # handed out again has run by now.
        time.sleep(VISIBILITY_TIMEOUT + 4)
        assert runs(log(), "quick_play_fill") == 1, log()
        assert runs(log(), "relay") >= WAIT // VISIBILITY_TIMEOUT, log()
        assert runs(log(), "deliver_webhook") >= 2, "the control ran once: this setup would not see a duplicate"
        assert child.poll() is None
    finally:
        probe.close()
        client.delete(*KOMBU_KEYS)
        client.close()
