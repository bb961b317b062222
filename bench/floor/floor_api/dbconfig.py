"""The floor's database settings, read from the same variables and in the same way as the
project's (`config.settings.base.database_from_env`): `DATABASE_URL` and `DB_CONN_MAX_AGE`
(default 0), and the same psycopg pool under ASGI (`DB_POOL`, which both apps' asgi.py turn
on, with the same size variables). A floor that pooled or kept
connections while the project did not (or the other way round) would measure the connection
setting, not the framework. tests/test_bench.py checks that both give the same settings; when
the project's connection handling changes (a pool, another default), change this with it."""

from __future__ import annotations

import os

import dj_database_url


def database_from_env() -> dict:
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise RuntimeError("the floor needs DATABASE_URL (bench/run.py sets it)")
    db = dj_database_url.parse(url, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")))
    if db["ENGINE"] == "django.db.backends.postgresql" and os.environ.get("DB_POOL", "0").lower() in ("1", "true", "yes", "on"):
        db["CONN_MAX_AGE"] = 0
        # Django then has the pool check a connection as it hands it out: one whose server
        # side was ended (a restart, pg_terminate_backend) is replaced, not used for a request.
        db["CONN_HEALTH_CHECKS"] = True
        db.setdefault("OPTIONS", {})["pool"] = {
            "min_size": int(os.environ.get("DB_POOL_MIN_SIZE", "8")),
            "max_size": int(os.environ.get("DB_POOL_MAX_SIZE", "20")),
            "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "10")),
        }
    return db
