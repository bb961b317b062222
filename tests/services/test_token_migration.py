"""The migration that moves the tokens of DRF's authtoken table (plaintext keys) to hashed
first-party tokens logs nobody out: the same key still authenticates, with every first-party
scope, and no table holds the key any more."""

from __future__ import annotations

import hashlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "0123456789abcdef0123456789abcdef01234567"  # a DRF key: 40 hex characters


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def test_an_old_plaintext_key_still_works_and_is_stored_only_hashed(make_user, anon):
    user = make_user()
    migrate([("accounts", "0005_apitoken")])
    with connection.cursor() as cursor:
        # The table as DRF's authtoken app made it (that app is no longer installed).
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamp with time zone "
                       "NOT NULL, user_id bigint NOT NULL UNIQUE)" if connection.vendor == "postgresql" else
                       "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created datetime NOT NULL, "
                       "user_id bigint NOT NULL UNIQUE)")
        cursor.execute("INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
                       [KEY, timezone.now(), user.pk])
    migrate([("accounts", "0006_hash_drf_tokens")])
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert "authtoken_token" not in connection.introspection.table_names()
    from accounts.models import ApiToken

    row = ApiToken.objects.get(digest=hashlib.sha256(KEY.encode()).hexdigest())
    assert row.user_id == user.pk and row.kind == "first_party" and row.prefix == KEY[:8]
    assert row.scopes == ["read", "play", "host", "webhooks"]
    assert KEY not in str(list(ApiToken.objects.values()))
    anon.credentials(HTTP_AUTHORIZATION=f"Token {KEY}")
    assert anon.get("/api/v1/me").json()["id"] == user.pk
