"""Today's tokens to hashed form, without logging anyone out: every key of DRF's authtoken table
becomes a first-party ApiToken holding only the key's SHA-256 digest (and its first 8
characters), with every first-party scope, and the plaintext table is dropped. A database made
after this change never had the table: nothing to do."""

import hashlib
from datetime import UTC, datetime

from django.db import migrations
from django.utils.dateparse import parse_datetime

FIRST_PARTY = ["read", "play", "host", "webhooks"]
TABLE = "authtoken_token"


def hash_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {TABLE}")  # noqa: S608 - a fixed name
        rows = cursor.fetchall()
    ApiToken.objects.bulk_create(
        ApiToken(user_id=user_id, kind="first_party", name="", prefix=key[:8],
                 digest=hashlib.sha256(key.encode()).hexdigest(), scopes=FIRST_PARTY, created_at=_aware(created))
        for key, user_id, created in rows
    )
    schema_editor.execute(f"DROP TABLE {TABLE}")


def _aware(value) -> datetime:
    """A raw row's timestamp (SQLite may give text or a naive datetime; both are UTC)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_apitoken")]
    # Irreversible by design: the plaintext keys are gone.
    operations = [migrations.RunPython(hash_tokens, migrations.RunPython.noop)]
