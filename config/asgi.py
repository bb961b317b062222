"""ASGI entry point. The long-poll of `GET /tables/{id}/state?wait=` is an async view, so a
waiting client holds no thread. Static files (admin, Swagger UI and ReDoc assets) are served
by Django's ASGI static handler, which needs no collectstatic and no internet."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

django_application = get_asgi_application()

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

application = ASGIStaticFilesHandler(django_application)
