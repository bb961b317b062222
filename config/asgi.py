"""ASGI entry point. Three paths bypass Django's handler, which would park a thread (and its
database connection) per waiting request and costs a thread hop and the whole middleware and
DRF stack per request: the event streams (`GET /tables/{id}/events`, games/streams.py),
token-authenticated `GET /tables/{id}/state` polls (games/polling.py) and token-authenticated
`POST /tables/{id}/moves` (games/fast_moves.py). Everything else, and whatever those do not
answer themselves, goes to Django, whose long-poll view (games/longpoll.py) is async and whose
middleware is all async-capable."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
# Web processes use a pool of PostgreSQL connections (config/settings/base.py, DB_POOL); the
# Celery worker, which forks, and management commands do not.
os.environ.setdefault("DB_POOL", "1")

django_application = get_asgi_application()

from games.fast_moves import move_router  # noqa: E402 - needs the apps loaded above
from games.polling import state_router  # noqa: E402
from games.streams import asgi_router  # noqa: E402

application = asgi_router(state_router(move_router(django_application)))
