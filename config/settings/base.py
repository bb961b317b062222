"""Settings read from the environment, with embedded defaults that need no server:
SQLite under var/, an in-process cache and a filesystem Celery broker. `DATABASE_URL` and
`REDIS_URL` switch to PostgreSQL and Redis (docs/architecture.md, convention 9). Every variable
read here is listed in docs/operations.md, "Environment variables"."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# For development and tests only: production refuses it (config/settings/production.py).
_EMBEDDED_SECRET_KEY = "embedded-default-not-for-production"
SECRET_KEY = os.environ.get("SECRET_KEY", _EMBEDDED_SECRET_KEY)
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "corsheaders",
    "oauth2_provider",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "config.logs.RequestIdMiddleware",
    # The RateLimit fields of a throttled answer (the edge adds the same to its own).
    "config.throttling.RateLimitHeadersMiddleware",
    # CORS answers for CORS_ALLOWED_ORIGINS on /api/ and /oauth/ (the edge runs the same code).
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # servestatic is WhiteNoise's async-capable fork: WhiteNoise's middleware is sync-only,
    # and one sync middleware would pin every waiting long-poll to a thread.
    "servestatic.middleware.ServeStaticMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_from_env() -> dict:
    url = os.environ.get("DATABASE_URL")
    if url:
        db = dj_database_url.parse(url, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")))
        if db["ENGINE"] == "django.db.backends.sqlite3":
            return sqlite_database(db["NAME"])
        if db["ENGINE"] == "django.db.backends.postgresql" and env_bool("DB_POOL", False):
            # Web processes (config/asgi.py turns DB_POOL on): psycopg's pool, so no request
            # opens a connection (a new one cost ~16 ms, longer than a whole 304) and none
            # leaks from the threads of Django's ASGI handler, which is what persistent
            # connections (DB_CONN_MAX_AGE) did under uvicorn. Django returns a connection to
            # the pool where it would close it. Not in the Celery worker: it forks, and a
            # pool's threads do not survive a fork.
            db["CONN_MAX_AGE"] = 0
            # Django then has the pool check a connection as it hands it out: one whose server
            # side was ended (a restart, pg_terminate_backend) is replaced, not used for a request.
            db["CONN_HEALTH_CHECKS"] = True
            db.setdefault("OPTIONS", {})["pool"] = {
                "min_size": int(os.environ.get("DB_POOL_MIN_SIZE", "8")),
                "max_size": int(os.environ.get("DB_POOL_MAX_SIZE", "20")),
                "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "10")),
            }
        return db
    return sqlite_database(os.environ.get("SQLITE_PATH", str(VAR_DIR / "db.sqlite3")))


def sqlite_database(name: str) -> dict:
    """The embedded database (or `DATABASE_URL=sqlite:///...`), on config/sqlite3: WAL, and every
    transaction takes the write lock at BEGIN (SQLite's equivalent of locking the table row,
    select_for_update being a no-op there, so two moves never race), its writers in turn. A
    writer waits for the lock up to SQLITE_WRITE_WAIT seconds (default 300) before its request
    fails; `timeout` is SQLite's own wait, which only a connection outside the backend (the
    sqlite3 shell) makes it use."""
    return {
        "ENGINE": "config.sqlite3",
        "NAME": name,
        "OPTIONS": {"timeout": 30, "write_wait": float(os.environ.get("SQLITE_WRITE_WAIT", "300"))},
    }


DATABASES = {"default": database_from_env()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# Embedded default: serve straight from the apps, no collectstatic needed. The Docker image
# runs collectstatic and turns this off.
SERVESTATIC_USE_FINDERS = env_bool("SERVESTATIC_USE_FINDERS", True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

REDIS_URL = os.environ.get("REDIS_URL", "")

if REDIS_URL:
    # Short socket timeouts: a Redis that hangs (stopped, not gone) costs a request half a
    # second once, then config/outage.py leaves it alone for a while.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


# The web processes' Redis clients (config/redis_clients.py): at most this many connections per
# client and process; past it a command waits up to REDIS_POOL_WAIT_SECONDS for a free one.
REDIS_MAX_CONNECTIONS = int(os.environ.get("REDIS_MAX_CONNECTIONS", "50"))
REDIS_POOL_WAIT_SECONDS = float(os.environ.get("REDIS_POOL_WAIT_SECONDS", "2"))


def throttle_rates() -> dict:
    """API_THROTTLE_RATES: `off`, or `scope=rate,...` (e.g. `user=1200/min,anon=60/min,moves=300/min`)."""
    raw = os.environ.get("API_THROTTLE_RATES", "")
    # polls: per user and web process (counted in memory, config/throttling.py), generous enough
    # for a client long-polling many tables; a `?wait=` poll counts once however long it waits.
    rates = {"anon": "120/min", "user": "3000/min", "moves": "600/min", "polls": "1200/min"}
    if raw.strip().lower() == "off":
        return {}
    for item in raw.split(","):
        if "=" in item:
            scope, rate = item.split("=", 1)
            rates[scope.strip()] = rate.strip() or None
    return rates


THROTTLE_RATES = throttle_rates()

# The largest request body accepted (bytes). Django refuses bigger ones with RequestDataTooBig;
# the API answers it as 413 in the one error shape (config/errors.py). The largest legitimate
# body (a Rule Vote carrying a house rule) is under 2 KB.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(256 * 1024)))
# The largest document `POST /api/v1/replays/verify` reads (bytes): exports are bigger than
# any other body, so the endpoint reads its own limit instead of DATA_UPLOAD_MAX_MEMORY_SIZE.
REPLAY_MAX_BYTES = int(os.environ.get("REPLAY_MAX_BYTES", str(5 * 1024 * 1024)))
# Django's own error pages under /api/ are JSON too (config/errors.py).
CSRF_FAILURE_VIEW = "config.errors.csrf_failure"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The API's one authentication (a token, else the session, with DRF's CSRF check for a
        # session's unsafe request), the same function the edge's routes call.
        "games.edge.auth.EdgeAuthentication",
    ],
    # Every operation names the scope it needs (`scopes` on its view, accounts.scopes).
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated", "accounts.scopes.ScopeRequired"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.errors.exception_handler",
    # JSON only (with a nesting limit, config/parsers.py): the API has no form or multipart
    # operation, and the schema advertises only what the server accepts.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": (
        [
            "config.throttling.AnonRateThrottle",
            "config.throttling.UserRateThrottle",
            "config.throttling.MoveRateThrottle",
        ]
        if THROTTLE_RATES
        else []
    ),
    "DEFAULT_THROTTLE_RATES": THROTTLE_RATES,
    # The client's address for the throttles: REMOTE_ADDR, or the entry of X-Forwarded-For this
    # many proxies from the end (TRUSTED_PROXIES: how many proxies in front of the service add
    # to it). 0: the header is not trusted at all, so a forged one buys no fresh quota.
    "NUM_PROXIES": int(os.environ.get("TRUSTED_PROXIES", "0")),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# ReDoc's theme fonts: the system's, since the page may load nothing from another host (config/docs.py).
_SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
_MONOSPACE_FONTS = 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace'

SPECTACULAR_SETTINGS = {
    "TITLE": "Card games as a service",
    "DESCRIPTION": (
        "REST API hosting President, Auction Pitch and Lopti. Authenticate with "
        "`Authorization: Token <key>` (or `Bearer`); third-party apps get a token with OAuth2 "
        "(the `oauth2` scheme: authorization code with PKCE, scopes per operation). Every error "
        "has the shape `{code, message, detail}`. "
        "State-changing POSTs accept an `Idempotency-Key` header and `expected_version`."
    ),
    "VERSION": "1.0.0",
    # OpenAPI 3.1: its schemas are JSON Schema 2020-12 (the games' types, games.engine.types,
    # validate views with a stock validator) and it has `webhooks` for the deliveries.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Offline documentation pages (config/docs.py): system fonts, no validator badge.
    "REDOC_UI_SETTINGS": {"theme": {"typography": {
        "fontFamily": _SYSTEM_FONTS, "headings": {"fontFamily": _SYSTEM_FONTS}, "code": {"fontFamily": _MONOSPACE_FONTS}
    }}},
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
    # PATCH bodies are not partial here: the one PATCH (a house-rule edit) needs its `rule`.
    "COMPONENT_SPLIT_PATCH": False,
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.schema.postprocess_links",
                             "config.schema.postprocess_oauth", "config.contract.postprocess_tags",
                             "config.contract.postprocess_errors", "config.contract.postprocess_webhooks",
                             "config.contract.postprocess_examples", "config.contract.postprocess_stream",
                             "config.schema.postprocess_game_types"],
    "ENUM_NAME_OVERRIDES": {
        "FaceUpSourceEnum": ["hand", "face_down"],
        "TableStatusEnum": "games.models.Table.Status",
        "InvitationStatusEnum": "games.models.Invitation.Status",
        "VoteStatusEnum": ["open", "passed", "failed", "tied", "decided"],
        "WebhookEventEnum": "games.services.webhooks.EVENTS",
        "ApiTokenKindEnum": "accounts.models.ApiToken.Kind",
        "KindEnum": ["remove", "modify", "restore", "base_rule"],  # a Rule Vote's (its name before tokens had kinds)
    },
}

# Celery: the embedded default is kombu's filesystem transport under var/, which needs no
# server, in the subclass of config/broker.py (scheme filesystem-atomic://) that writes and
# claims messages atomically (the stock filesystem:// crashes the worker under load,
# docs/operations.md); REDIS_URL switches broker and results to Redis.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL or "filesystem-atomic://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL or None)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BROKER_DIR = Path(os.environ.get("CELERY_BROKER_DIR", VAR_DIR / "celery-broker"))
if CELERY_BROKER_URL.startswith(("filesystem-atomic://", "filesystem://")):
    # Also registers the filesystem-atomic:// scheme with kombu, in every process.
    from config.broker import transport_options

    CELERY_BROKER_TRANSPORT_OPTIONS = transport_options(
        CELERY_BROKER_DIR, polling_interval=float(os.environ.get("CELERY_BROKER_POLL_SECONDS", "0.1")))
# Redis hands a message that its worker has held unacknowledged this long to another worker
# (kombu's default: an hour). A worker holds a task with a countdown or eta, unacknowledged,
# until it runs, so a longer wait would be delivered again every hour: games/scheduling.py
# sends no wait longer than half of this, relaying longer ones (docs/operations.md).
BROKER_VISIBILITY_TIMEOUT = int(os.environ.get("BROKER_VISIBILITY_TIMEOUT", "3600"))
if CELERY_BROKER_URL.startswith("redis://"):
    # Registers the transport that keeps a worker alive through a Redis outage.
    import config.redis_broker  # noqa: F401

    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": BROKER_VISIBILITY_TIMEOUT}
    if BROKER_VISIBILITY_TIMEOUT < 600:
        # kombu looks for messages held past the timeout every 100 s; a short timeout (tests)
        # is looked at every second.
        CELERY_BROKER_TRANSPORT_OPTIONS.update(unacked_restore_interval=1, unacked_restore_throttle=1)
CELERY_TASK_IGNORE_RESULT = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# Long-poll: how often a waiting request re-reads the version when no in-process wake-up came.
LONGPOLL_RECHECK_SECONDS = float(os.environ.get("LONGPOLL_RECHECK_SECONDS", "1.0"))
LONGPOLL_MAX_SECONDS = 30
# Threads (per web process) that read a table for the waiters a change woke (games.edge.waiting):
# apart from the requests' pool, so that a burst of moves does not delay them.
WOKEN_READ_THREADS = int(os.environ.get("WOKEN_READ_THREADS", "4"))
# How many pieces of a web process's blocking request work (games.edge.threads: the hot
# endpoints' reads, moves and throttle checks, and the requests Django answers) run on threads
# at once, so the event loop keeps its share of the GIL to answer woken waiters (0: no limit);
# and how long one may hold its turn before the next starts anyway (a piece waiting on a lock
# holds no one up for longer).
EDGE_WORK_THREADS = int(os.environ.get("EDGE_WORK_THREADS", "2"))
EDGE_WORK_LEASE_SECONDS = float(os.environ.get("EDGE_WORK_LEASE_SECONDS", "0.05"))
# The hot paths (games.edge): a token's user is cached this long in each web
# process (a deactivation or new token reaches other processes at once through Redis, else
# within this time); a table's version is cached in Redis for this long after its last write;
# after a Redis failure, readers skip Redis for this long.
VERSION_CACHE = env_bool("VERSION_CACHE", True)
AUTH_CACHE_SECONDS = float(os.environ.get("AUTH_CACHE_SECONDS", "5"))
VERSION_CACHE_SECONDS = int(os.environ.get("VERSION_CACHE_SECONDS", "30"))
VERSION_CACHE_BACKOFF_SECONDS = float(os.environ.get("VERSION_CACHE_BACKOFF_SECONDS", "5"))
# The Redis change listener pings Redis this often and reconnects when no answer came in
# three times as long (a stopped Redis does not close its sockets).
NOTIFY_HEALTH_SECONDS = float(os.environ.get("NOTIFY_HEALTH_SECONDS", "5"))
# Event streams (GET /tables/{id}/events): a `: ping` comment every SSE_PING_SECONDS, at most
# SSE_MAX_STREAMS_PER_USER open streams per user (429 past it), and a stream closes after
# SSE_MAX_SECONDS (the client reconnects with Last-Event-ID after SSE_RETRY_MS).
SSE_PING_SECONDS = float(os.environ.get("SSE_PING_SECONDS", "15"))
SSE_MAX_STREAMS_PER_USER = int(os.environ.get("SSE_MAX_STREAMS_PER_USER", "20"))
SSE_MAX_SECONDS = float(os.environ.get("SSE_MAX_SECONDS", "3600"))
SSE_RETRY_MS = int(os.environ.get("SSE_RETRY_MS", "2000"))
# Webhooks: tries per delivery (with exponential backoff they span about a day), how long a
# webhook may fail before it is disabled, and whether private/loopback targets are allowed
# (off in production: a webhook must not reach the service's own network).
WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("WEBHOOK_MAX_ATTEMPTS", "10"))
WEBHOOK_DISABLE_AFTER_HOURS = float(os.environ.get("WEBHOOK_DISABLE_AFTER_HOURS", "24"))
WEBHOOKS_ALLOW_PRIVATE = env_bool("WEBHOOKS_ALLOW_PRIVATE", False)
# Leaderboards list players with at least this many rated tables of the game.
LEADERBOARD_MIN_GAMES = int(os.environ.get("LEADERBOARD_MIN_GAMES", "5"))
# Quick play seats a player only at a waiting table whose average rating is this close.
QUICK_PLAY_MAX_RATING_GAP = int(os.environ.get("QUICK_PLAY_MAX_RATING_GAP", "400"))
IDEMPOTENCY_TTL_HOURS = 24

# CORS (django-cors-headers): browser apps on these origins (scheme://host[:port], comma-separated)
# may call the API and the OAuth endpoints; every other origin gets no CORS answer. What a browser
# app needs to read of an answer is exposed (ETag for polling, the rate-limit fields, the ids).
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS")
CORS_URLS_REGEX = r"^/(api/|oauth/|\.well-known/oauth-authorization-server$)"
CORS_EXPOSE_HEADERS = ["ETag", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After",
                       "X-Request-ID", "Idempotent-Replayed"]
CORS_ALLOW_HEADERS = ["accept", "authorization", "content-type", "idempotency-key", "if-none-match", "last-event-id",
                      "x-request-id"]

# Third-party apps (docs/api.md, "Third-party apps: OAuth2, scoped tokens, CORS"): django-oauth-toolkit's authorization code grant with PKCE
# (S256 only), access tokens for an hour, refresh tokens rotated on use (a reused one revokes its
# family), every token stored hashed (RFC 9700's token storage), no implicit or password grant.
OAUTH2_PROVIDER = {
    "SCOPES_BACKEND_CLASS": "accounts.oauth.ScopesBackend",  # accounts.scopes, in words
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600,
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],
    # Only the authorization code grant and its refresh (accounts.oauth.Server), as the
    # discovery document says; a public client (a browser or mobile app) sends no secret.
    "OAUTH2_SERVER_CLASS": "accounts.oauth.Server",
    "OAUTH2_VALIDATOR_CLASS": "accounts.oauth.Validator",
    "APPLICATION_ADMIN_CLASS": "accounts.admin.OAuthApplicationAdmin",
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token"],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["client_secret_basic", "client_secret_post", "none"],
}

# Metrics (config/metrics.py, docs/operations.md "Metrics"): GET /metrics on the web processes,
# and with METRICS_PORT the worker's and beat's own port. METRICS_TOKEN, when set, is required as
# `Authorization: Bearer <token>`; production has them off unless enabled, and never without it.
METRICS_ENABLED = env_bool("METRICS_ENABLED", True)
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_PORT = int(os.environ.get("METRICS_PORT", "0") or 0)

# Never below INFO, whatever LOG_LEVEL says: the OAuth libraries' debug lines carry authorization
# codes, tokens and request bodies.
QUIET_LOGGERS = {"oauthlib": {"level": "INFO"}, "oauth2_provider": {"level": "INFO"}}

# The web, the worker and beat log through this (config/task_logs.py: Celery does not take the
# root logger over); the same layout as Celery's own, naming the task a line belongs to.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"task": {"()": "config.task_logs.TaskFilter"}},
    "formatters": {"text": {"format": "[%(asctime)s: %(levelname)s/%(processName)s] %(task)s%(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "text", "filters": ["task"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, **QUIET_LOGGERS},
}
