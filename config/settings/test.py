"""Test settings: the same environment-driven base (so `DATABASE_URL` selects PostgreSQL in
CI's second pass), with fast hashing, no throttling unless a test turns it on, and Celery
tasks run eagerly unless an integration test talks to a real worker."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("API_THROTTLE_RATES", "off")
# Every test run gets its own folder for the SQLite test database, the broker and the beat
# schedule, removed when the run ends: a test never reads or leaves messages in the
# developer's var/ (a `make run` going at the same time shares nothing with it). The
# developer's own VAR_DIR or CELERY_BROKER_DIR, if exported, is ignored for the same reason.
_run_dir = tempfile.mkdtemp(prefix="cardgames-test-")
atexit.register(shutil.rmtree, _run_dir, ignore_errors=True)
os.environ["VAR_DIR"] = _run_dir
os.environ["CELERY_BROKER_DIR"] = os.path.join(_run_dir, "celery-broker")
# Metrics in prometheus-client's multiprocess mode, as in production (config/metrics.py), in the
# run's folder: the workers and servers a test starts inherit it, so the test's own /metrics
# sums theirs as `make run`'s does. Set before anything imports prometheus_client.
os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.path.join(_run_dir, "prometheus")
# Likewise with Redis: each pytest-xdist worker (`make test` runs two) uses its own Redis
# database, so the Celery workers that two test processes start never take each other's tasks
# from one shared broker. Set in the environment, so the child processes a test starts agree.
_xdist = os.environ.get("PYTEST_XDIST_WORKER", "")
if os.environ.get("REDIS_URL") and _xdist.startswith("gw") and _xdist[2:].isdigit():
    _base, _, _db = os.environ["REDIS_URL"].rpartition("/")
    if _db.isdigit() and not os.environ.get("CARDGAMES_TEST_REDIS_SPLIT"):
        os.environ["REDIS_URL"] = f"{_base}/{(int(_db) - int(_xdist[2:])) % 16}"
        os.environ["CARDGAMES_TEST_REDIS_SPLIT"] = "1"

from .base import *  # noqa: E402,F403
from .base import REST_FRAMEWORK  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
LONGPOLL_RECHECK_SECONDS = 0.2
# The version cache is written on commit, which a test in a rolled-back transaction never
# reaches: off, except in the tests of it (tests/edge/test_state.py, transactional).
VERSION_CACHE = False
REST_FRAMEWORK = {**REST_FRAMEWORK}

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not :memory:, so that threads in the concurrency tests share one database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # noqa: F405
    # A test whose threads wait for each other's write lock fails in a minute, not five.
    DATABASES["default"]["OPTIONS"]["write_wait"] = 60.0  # noqa: F405
