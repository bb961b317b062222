"""Production: everything from the environment, nothing embedded that must stay secret.
Used by the Docker image (DJANGO_SETTINGS_MODULE=config.settings.production)."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env_bool

DEBUG = False
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY or SECRET_KEY == "embedded-default-not-for-production":
    raise ImproperlyConfigured("SECRET_KEY must be set in production")

# Behind a TLS-terminating proxy that sets X-Forwarded-Proto.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
# Probes and Prometheus scrape over plain HTTP inside the deployment's network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# Metrics are off unless enabled, and then only for a scrape that brings the token: the API's
# port is public, and the figures describe the whole service's traffic.
METRICS_ENABLED = env_bool("METRICS_ENABLED", False)
if METRICS_ENABLED and not METRICS_TOKEN:  # noqa: F405
    raise ImproperlyConfigured("METRICS_ENABLED needs METRICS_TOKEN in production")

# JSON lines for the web, the worker and beat alike (config/task_logs.py): the request id, and
# the task's name and id in a worker's lines.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "config.logs.RequestIdFilter"}, "task": {"()": "config.task_logs.TaskFilter"}},
    "formatters": {"json": {"()": "config.task_logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id", "task"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
