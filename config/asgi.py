"""ASGI entry point. The long-poll of `GET /tables/{id}/state?wait=` is an async view and
every middleware is async-capable. The event streams (`GET /tables/{id}/events`) bypass Django's
handler, which would park a thread per open stream (games/streams.py)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

django_application = get_asgi_application()

from games.streams import asgi_router  # noqa: E402 - needs the apps loaded above

application = asgi_router(django_application)
