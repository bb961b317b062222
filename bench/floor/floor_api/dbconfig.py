"""The floor's database settings, read from the same variables and in the same way as the
project's (`config.settings.base.database_from_env`): `DATABASE_URL` and `DB_CONN_MAX_AGE`
(default 0: a connection per request, as the project ships). A floor that pooled or kept
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
    return dj_database_url.parse(url, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")))
