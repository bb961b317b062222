"""ASGI entry point: the edge (games.edge.app) in front of Django's handler. Every request enters
through the edge, which gives it its request id, its access-log line and its metrics, answers the
hot endpoints (state polls and long-polls, moves, event streams) itself and hands everything else
to Django (docs/architecture.md, "The edge")."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
# Web processes use a pool of PostgreSQL connections (config/settings/base.py, DB_POOL); the
# Celery worker, which forks, and management commands do not.
os.environ.setdefault("DB_POOL", "1")

django_application = get_asgi_application()

from games.edge.app import application as edge  # noqa: E402 - needs the apps loaded above

application = edge(django_application)

# Garbage collection in a web process (docs/performance.md, "Bursts"). A burst of answers
# allocates fast, and CPython's full collection, scanning every object the process holds (Django's
# and the project's modules, the URLconf, the schema's serializers), then froze the event loop
# for 100-175 ms at a time, once a burst: every waiter due in that pause answered late. So what
# exists once the app is loaded is moved out of the collector's sight for good (gc.freeze), and
# collections run less often (WEB_GC_THRESHOLD, CPython's three thresholds; its own default is
# 700,10,10), so a burst's short-lived objects are freed by reference counting before one runs.
gc.collect()
gc.freeze()
gc.set_threshold(*(int(x) for x in os.environ.get("WEB_GC_THRESHOLD", "20000,20,100").split(",")))
