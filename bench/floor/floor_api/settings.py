"""The framework floor: the least a Django + DRF game API runs per request, served beside the
project by bench/run.py to give its figures a baseline from the same run.

One app; DEBUG off; Security + Common middleware only (no sessions, CSRF, messages or admin);
DRF token authentication and IsAuthenticated; JSON in and out; no throttling. The database
connection settings are the project's (floor_api/dbconfig.py)."""

import os

from floor_api.dbconfig import database_from_env

SECRET_KEY = os.environ.get("FLOOR_SECRET_KEY", "floor-bench-only-not-a-secret")
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
USE_TZ = True
TIME_ZONE = "UTC"
ROOT_URLCONF = "floor_api.urls"
ASGI_APPLICATION = "floor_api.asgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "rest_framework",
    "rest_framework.authtoken",
    "floor_api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]

DATABASES = {"default": database_from_env()}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_THROTTLE_CLASSES": [],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
