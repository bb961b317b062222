"""Idempotency keys: the first response to a state-changing POST is stored with its key,
per user, for 24 hours; a repeat with the same body gets it back and changes nothing.

The record is written in the same transaction as the change it describes, so a change and
its record commit together: two concurrent requests with one key cannot both apply (the
second's insert violates the unique key, its transaction rolls back, and it answers with the
stored response)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.errors import IdempotencyKeyReused
from games.models import IdempotencyRecord


def request_hash(method: str, path: str, body: object) -> str:
    raw = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


def _cutoff():
    return timezone.now() - timedelta(hours=settings.IDEMPOTENCY_TTL_HOURS)


def _fresh(user, key: str) -> IdempotencyRecord | None:
    return IdempotencyRecord.objects.filter(user=user, key=key, created_at__gte=_cutoff()).first()


def _stored(user, key: str) -> IdempotencyRecord | None:
    """The key's record, fresh or expired (one query for both questions)."""
    return IdempotencyRecord.objects.filter(user=user, key=key).first()


def _replay(record: IdempotencyRecord, digest: str) -> tuple[int, object, bool]:
    if record.request_hash != digest:
        raise IdempotencyKeyReused(detail={"key": record.key})
    return record.status_code, record.body, True


def idempotent_call(
    *, user, key: str | None, digest: str, run: Callable[[], tuple[int, object]]
) -> tuple[int, object, bool]:
    """Run `run()` (which returns (status, body) and may write) at most once per (user, key).
    Returns (status, body, replayed). Responses of 5xx are not stored."""
    if not key:
        status, body = run()
        return status, body, False
    existing = _stored(user, key)
    if existing is not None and existing.created_at >= _cutoff():
        return _replay(existing, digest)
    try:
        with transaction.atomic():
            # An expired record for the key is replaced; a fresh one (a concurrent request
            # that committed first) makes the insert below fail instead.
            if existing is not None:
                IdempotencyRecord.objects.filter(pk=existing.pk, created_at__lt=_cutoff()).delete()
            status, body = run()
            if status < 500:
                IdempotencyRecord.objects.create(
                    user=user, key=key, request_hash=digest, status_code=status, body=body
                )
    except IntegrityError:
        existing = _fresh(user, key)
        if existing is None:
            raise
        return _replay(existing, digest)
    return status, body, False


def idempotency_purge() -> int:
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=_cutoff()).delete()
    return deleted
