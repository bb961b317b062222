"""Liveness and readiness probes for operators and orchestrators."""

from __future__ import annotations

from django.db import connection
from django.http import JsonResponse


def healthz(request):
    return JsonResponse({"status": "ok"})


def readyz(request):
    """Ready when the database answers and the Celery broker accepts a connection."""
    checks = {"database": _database(), "broker": _broker()}
    ready = all(v == "ok" for v in checks.values())
    return JsonResponse({"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503)


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        return f"error: {type(exc).__name__}"


def _broker() -> str:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        return f"error: {type(exc).__name__}"
