"""Test settings: the same environment-driven base (so `DATABASE_URL` selects PostgreSQL in
CI's second pass), with fast hashing, no throttling unless a test turns it on, and Celery
tasks run eagerly unless an integration test talks to a real worker."""

import os

os.environ.setdefault("API_THROTTLE_RATES", "off")

from .base import *  # noqa: E402,F403
from .base import REST_FRAMEWORK  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
LONGPOLL_RECHECK_SECONDS = 0.2
REST_FRAMEWORK = {**REST_FRAMEWORK}

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not :memory:, so that threads in the concurrency tests share one database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}  # noqa: F405
