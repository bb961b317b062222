import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "floor_api.settings")
# Pooled PostgreSQL connections, as the project's web processes (config/asgi.py).
os.environ.setdefault("DB_POOL", "1")
application = get_asgi_application()
