"""ASGI entry point. The long-poll of `GET /tables/{id}/state?wait=` is an async view and
every middleware is async-capable, so a waiting client holds no thread."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

application = get_asgi_application()
