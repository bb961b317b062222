"""The Celery app: `celery -A config worker --beat` from the project root, with the web
server's environment. Broker and results come from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("cardgames")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

app.conf.beat_schedule = {
    "sweep-deadlines-and-bots": {"task": "games.tasks.sweep", "schedule": 5.0},
    "purge-idempotency-keys": {"task": "games.tasks.purge_idempotency_keys", "schedule": 3600.0},
}
