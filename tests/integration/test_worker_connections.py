"""A Celery worker keeps its database connection between tasks (config/celery.py): each of its
many short tasks would otherwise open a connection of its own, on PostgreSQL a server process.
DB_CONN_MAX_AGE, when given, is the operator's word; the psycopg pool is left alone."""

import pytest
from django.db import connections

from config import celery


@pytest.fixture
def db_settings(monkeypatch):
    saved = {alias: dict(connections.settings[alias]) for alias in connections}
    yield connections.settings
    for alias, values in saved.items():
        connections.settings[alias].clear()
        connections.settings[alias].update(values)


def test_a_worker_keeps_its_connections_unless_told(db_settings, monkeypatch):
    monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    db_settings["default"]["CONN_MAX_AGE"] = 0
    celery._keep_database_connections()
    assert db_settings["default"]["CONN_MAX_AGE"] == celery.WORKER_CONN_MAX_AGE > 0


def test_celerys_fixup_no_longer_closes_them_after_every_task(db_settings, monkeypatch):
    fixups = [f for f in celery.app._fixups if hasattr(f, "worker_fixup")]
    assert fixups, "Celery's Django fixup"
    saved = [f.worker_fixup.db_reuse_max for f in fixups]
    try:
        for f in fixups:
            f.worker_fixup.db_reuse_max = None
        celery._keep_database_connections()
        assert [f.worker_fixup.db_reuse_max for f in fixups] == [celery.WORKER_DB_REUSE_MAX] * len(fixups)
    finally:
        for f, value in zip(fixups, saved, strict=True):
            f.worker_fixup.db_reuse_max = value


def test_the_operators_conn_max_age_stands(db_settings, monkeypatch):
    monkeypatch.setenv("DB_CONN_MAX_AGE", "0")
    db_settings["default"]["CONN_MAX_AGE"] = 0
    celery._keep_database_connections()
    assert db_settings["default"]["CONN_MAX_AGE"] == 0


def test_a_pooled_database_is_left_to_its_pool(db_settings, monkeypatch):
    monkeypatch.delenv("DB_CONN_MAX_AGE", raising=False)
    db_settings["default"]["CONN_MAX_AGE"] = 0
    db_settings["default"].setdefault("OPTIONS", {})
    db_settings["default"]["OPTIONS"] = {**db_settings["default"]["OPTIONS"], "pool": {"min_size": 1}}
    celery._keep_database_connections()
    assert db_settings["default"]["CONN_MAX_AGE"] == 0
