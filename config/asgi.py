"""ASGI entry point: the edge (games.edge.app) in front of Django's handler. Every request enters
through the edge, which gives it its request id, its access-log line and its metrics, answers the
hot endpoints (state polls and long-polls, moves, event streams) itself and hands everything else
to Django (docs/architecture.md, "The edge")."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
# Web processes use a pool of PostgreSQL connections (config/settings/base.py, DB_POOL); the
# Celery worker, which forks, and management commands do not.
os.environ.setdefault("DB_POOL", "1")

django_application = get_asgi_application()

from games.edge.app import application as edge  # noqa: E402 - needs the apps loaded above

application = edge(django_application)
