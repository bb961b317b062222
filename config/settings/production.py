"""Production: everything from the environment, nothing embedded that must stay secret.
Used by the Docker image (DJANGO_SETTINGS_MODULE=config.settings.production)."""

import os

from django.core.checks.security.base import (
    SECRET_KEY_INSECURE_PREFIX,
    SECRET_KEY_MIN_LENGTH,
    SECRET_KEY_MIN_UNIQUE_CHARACTERS,
)
from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import _EMBEDDED_SECRET_KEY, env_bool

# docker/env.example's placeholder: a stack started from the unedited example must not run.
_EXAMPLE_SECRET_KEY = "change-me-to-a-long-random-string"


def secret_key_problem(key: str) -> str | None:
    """Why `key` must not sign production's sessions and password resets, or None. The last
    three are what Django's deploy check (security.W009) only warns about."""
    if not key:
        return "is not set"
    if key == _EMBEDDED_SECRET_KEY:
        return "is the development key embedded in config/settings/base.py"
    if key == _EXAMPLE_SECRET_KEY:
        return "is the placeholder of docker/env.example"
    if key.startswith(SECRET_KEY_INSECURE_PREFIX):
        return f"starts with {SECRET_KEY_INSECURE_PREFIX!r}, the mark of a throwaway key"
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"is shorter than {SECRET_KEY_MIN_LENGTH} characters"
    if len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS:
        return f"has fewer than {SECRET_KEY_MIN_UNIQUE_CHARACTERS} different characters"
    return None


DEBUG = False
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if problem := secret_key_problem(SECRET_KEY):
    # Says what is wrong and what to do, never the key itself (logs are read by many).
    raise ImproperlyConfigured(
        f"SECRET_KEY {problem}. Production needs its own random key of at least {SECRET_KEY_MIN_LENGTH} "
        'characters: generate one with  python3 -c "import secrets; print(secrets.token_urlsafe(50))"  '
        "and set it as SECRET_KEY in the environment of every process (with Docker Compose: in "
        "docker/.env; docs/operations.md, Running with Docker Compose)."
    )

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
    "formatters": {"json": {"()": "config.logs.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id", "task"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, **QUIET_LOGGERS},  # noqa: F405
}
