"""Prometheus metrics for the web processes, the Celery worker and beat (docs/operations.md,
"Metrics"), on the maintained `prometheus-client`.

Several processes, one answer: uvicorn runs `--workers N`, the worker forks its pool, and
beat is a process of its own. A scrape reaches one of them, so each process writes its
values to memory-mapped files in `PROMETHEUS_MULTIPROC_DIR` (prometheus-client's
multiprocess mode) and whichever process answers a scrape sums the files of all of them.
Why this design and not a push gateway or a per-process port: nothing to run beside the
service, no port per uvicorn worker, and counters survive a process's restart (its files
stay). Its rules, kept by the code that starts processes:

- the variable must be set before `prometheus_client` is first imported (it picks its value
  class then): docker/entrypoint.sh and `manage.py serve` export it before starting anything;
  this module refuses to load when it was set too late;
- the directory is emptied when the process group starts (a leftover file of an earlier run
  would add its counts, and its pid may be reused), never while it runs;
- one directory per process group on one machine (one pid namespace): `make run` shares one
  between uvicorn, the worker and beat, so the API's `/metrics` shows all three; a container
  has its own, and the worker and beat containers answer scrapes on `METRICS_PORT`.

Without the variable (`runserver`, one-off commands) each process counts on its own, which is
right for one process.

Every metric has labels, and a child is made on first use: importing this module opens no
file, so a process opens its files only once it records something. That matters to the
worker: it imports this module with its tasks, then forks beat (`--beat`), and Celery's
embedded beat closes every descriptor it inherited, which prometheus-client, closing the
parent's files after a fork, cannot survive.

Labels are bounded sets, never a table, user, token or card: a route is the edge's template
(at most MAX_ROUTES distinct ones per process, then "other"), a method one of HTTP's, a status
code, a task's registered name, an outcome from a fixed list."""

from __future__ import annotations

import glob
import hmac
import json
import logging
import os
import threading
import time
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import prometheus_client
from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import values as prometheus_values
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from config.errors import error_body

log = logging.getLogger(__name__)

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROCESS_DIR:
    if not getattr(prometheus_values.ValueClass, "_multiprocess", False):
        raise RuntimeError(
            "PROMETHEUS_MULTIPROC_DIR was set after prometheus_client was imported: this process would "
            "count on its own and the other processes' scrapes would not see it; set it before start")
    # Where each process creates its files, on its first figure.
    os.makedirs(MULTIPROCESS_DIR, exist_ok=True)

# 5 ms to 30 s: the quick answers (a 304 takes well under 5 ms) and the long-polls, which hold
# up to 30 s (`?wait=30` that saw no change lands in the 35 s bucket). Event streams, held for
# up to an hour, land in +Inf: their count is in the open-waiters gauge instead.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 35.0)
# Tasks: a sweep or a deadline takes milliseconds, a hard bot's search up to seconds, a
# webhook try up to its 10 s total timeout.
TASK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
MAX_ROUTES = 200
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
WAITER_KINDS = ("longpoll", "stream")

REQUESTS = Counter(
    "cardgames_http_requests", "HTTP requests answered, by route template, method and status code.",
    ["route", "method", "status"])
REQUEST_SECONDS = Histogram(
    "cardgames_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template and method; "
    "long-polls have their own routes (`?wait`).",
    ["route", "method"], buckets=REQUEST_BUCKETS)
OPEN_WAITERS = Gauge(
    "cardgames_http_open_waiters", "Long-polls waiting and event streams open now, summed over the live processes.",
    ["kind"], multiprocess_mode="livesum")
TASKS = Counter(
    "cardgames_celery_tasks", "Celery tasks run, by task name and outcome (success, failure, retry, ignored, rejected).",
    ["task", "outcome"])
TASK_SECONDS = Histogram(
    "cardgames_celery_task_duration_seconds", "Run time of Celery tasks, by task name.", ["task"], buckets=TASK_BUCKETS)
TASKS_PUBLISHED = Counter(
    "cardgames_celery_tasks_published",
    "Celery tasks sent to the broker, by task name and by whoever sent them (web, worker, beat).", ["task"])
WEBHOOK_TRIES = Counter(
    "cardgames_webhook_tries", "Webhook delivery tries, by outcome: delivered (a 2xx) or failed (will be retried).",
    ["outcome"])
WEBHOOK_DELIVERIES_FAILED = Counter(
    "cardgames_webhook_deliveries_failed",
    "Webhook deliveries given up, by reason: tries_exhausted (WEBHOOK_MAX_ATTEMPTS failed tries) or "
    "webhook_disabled (the webhook was disabled before the next try).", ["reason"])
WEBHOOKS_DISABLED = Counter(
    "cardgames_webhooks_disabled",
    "Webhooks disabled, by reason: failing (every try failed for WEBHOOK_DISABLE_AFTER_HOURS) or "
    "request (by their owner or an operator).", ["reason"])

# Label children by their label values: one dict lookup per call on the hot path instead of
# prometheus_client's validation and lock in `labels()`.
_request_counters: dict[tuple[str, str, int], Counter] = {}
_request_timers: dict[tuple[str, str], Histogram] = {}
_routes: set[str] = set()
_waiters: dict[str, Gauge] = {}
_children_lock = threading.Lock()


# --- the edge's calls (every request: a few microseconds) --------------------------------------
def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    """One answered request: counted by route, method and status, timed by route and method.
    `route` is the edge's template (e.g. "GET /api/v1/tables/{id}/state?wait"), never a path
    with an id in it."""
    counter = _request_counters.get((route, method, status))
    if counter is None:
        counter = _request_counter(route, method, status)
    counter.inc()
    timer = _request_timers.get((route, method))
    if timer is None:
        timer = _request_timer(route, method)
    timer.observe(seconds)


def waiter_opened(kind: str) -> None:
    """A long-poll started waiting ("longpoll") or an event stream opened ("stream")."""
    (_waiters.get(kind) or _waiter(kind)).inc()


def waiter_closed(kind: str) -> None:
    (_waiters.get(kind) or _waiter(kind)).dec()


def _waiter(kind: str) -> Gauge:
    if kind not in WAITER_KINDS:
        raise ValueError(f"a waiter is one of {WAITER_KINDS}, not {kind!r}")
    return _waiters.setdefault(kind, OPEN_WAITERS.labels(kind))


def _labels(route: str, method: str) -> tuple[str, str, bool]:
    """Bounded label values, and whether the caller may keep the child under its own key:
    past MAX_ROUTES distinct routes in this process (a caller passing paths with ids by
    mistake), further ones are "other", said so once, and not remembered one by one."""
    known = route in _routes
    if not known and len(_routes) < MAX_ROUTES:
        _routes.add(route)
        known = True
    elif not known:
        if "other" not in _routes:
            log.warning("metrics: more than %d routes; further ones are counted as route=other", MAX_ROUTES)
            _routes.add("other")
        route = "other"
    return route, method if method in METHODS else "other", known


def _request_counter(route: str, method: str, status: int) -> Counter:
    with _children_lock:
        label_route, label_method, keep = _labels(route, method)
        child = REQUESTS.labels(label_route, label_method, str(int(status)))
        if keep:
            _request_counters[(route, method, status)] = child
        return child


def _request_timer(route: str, method: str) -> Histogram:
    with _children_lock:
        label_route, label_method, keep = _labels(route, method)
        child = REQUEST_SECONDS.labels(label_route, label_method)
        if keep:
            _request_timers[(route, method)] = child
        return child


# --- Celery (config/celery.py connects these to its signals) -----------------------------------
_task_started: dict[str, float] = {}


def task_started(task_id: str) -> None:
    _task_started[task_id] = time.monotonic()


def task_finished(task_id: str, task_name: str, state: str | None) -> None:
    """`state` is Celery's: SUCCESS, FAILURE, RETRY, IGNORED or REJECTED."""
    started = _task_started.pop(task_id, None)
    TASKS.labels(task_name, (state or "unknown").lower()).inc()
    if started is not None:
        TASK_SECONDS.labels(task_name).observe(time.monotonic() - started)


def task_published(task_name: str) -> None:
    TASKS_PUBLISHED.labels(task_name).inc()


# --- webhooks (games/services/webhooks.py) -----------------------------------------------------
def webhook_tried(*, delivered: bool) -> None:
    WEBHOOK_TRIES.labels("delivered" if delivered else "failed").inc()


def webhook_delivery_failed(*, reason: str) -> None:
    """`reason`: "tries_exhausted" or "webhook_disabled"."""
    WEBHOOK_DELIVERIES_FAILED.labels(reason).inc()


def webhook_disabled(*, reason: str) -> None:
    """`reason`: "failing" or "request"."""
    WEBHOOKS_DISABLED.labels(reason).inc()


# --- exposition --------------------------------------------------------------------------------
def _registry() -> CollectorRegistry:
    if not MULTIPROCESS_DIR:
        return prometheus_client.REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=MULTIPROCESS_DIR)
    return registry


_scraped = _registry()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def forget_dead_processes(path: str = "") -> None:
    """A process that died (a uvicorn worker restarted, a pool process replaced) keeps its
    counters, but its open waiters are gone: drop its files of "live" gauges, which nothing
    else would (uvicorn has no hook for a dead worker). Sound only because a directory serves
    one pid namespace (one machine or container)."""
    path = path or MULTIPROCESS_DIR
    for name in glob.glob(os.path.join(path, "gauge_live*_*.db")):
        pid = os.path.basename(name)[:-3].rsplit("_", 1)[1]
        if pid.isdigit() and not _alive(int(pid)):
            mark_process_dead(int(pid), path)


def exposition() -> tuple[bytes, str]:
    """The Prometheus text format of every process writing to this directory (or of this one)."""
    if MULTIPROCESS_DIR:
        forget_dead_processes()
    return generate_latest(_scraped), CONTENT_TYPE_LATEST


def refusal(authorization: str) -> tuple[int, dict, dict] | None:
    """None when a scrape may see the metrics, else (status, error body, headers): 404 when
    METRICS_ENABLED is off (as if there were no such path), 401 when METRICS_TOKEN is set and
    the `Authorization: Bearer <token>` header does not carry it."""
    if not settings.METRICS_ENABLED:
        return 404, error_body("not_found", "no such path"), {}
    token = settings.METRICS_TOKEN
    if token:
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            return 401, error_body("not_authenticated", "the metrics need Authorization: Bearer <METRICS_TOKEN>"), {
                "WWW-Authenticate": 'Bearer realm="metrics"'}
    return None


@csrf_exempt  # so that another method gets its 405 in the error shape, not CSRF's 403
def metrics_view(request):
    """GET /metrics on the web processes: every process of this directory (with `make run`,
    the worker and beat too). Errors in the API's one shape."""
    if request.method not in ("GET", "HEAD"):
        response = JsonResponse(error_body("method_not_allowed", f'Method "{request.method}" not allowed.'), status=405)
        response["Allow"] = "GET, HEAD"
        return response
    refused = refusal(request.headers.get("Authorization", ""))
    if refused is not None:
        status, body, headers = refused
        return JsonResponse(body, status=status, headers=headers)
    output, content_type = exposition()
    return HttpResponse(output, content_type=content_type)


# --- the worker's and beat's own port ----------------------------------------------------------
class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        """A scrape every few seconds is not worth a log line."""


def _wsgi_app(environ, start_response):
    if environ.get("PATH_INFO") != "/metrics":
        status, body, headers = 404, error_body("not_found", "no such path"), {}
    else:
        status, body, headers = refusal(environ.get("HTTP_AUTHORIZATION", "")) or (200, None, {})
    if status == 200:
        output, content_type = exposition()
    else:
        output, content_type = json.dumps(body).encode(), "application/json"
    reason = {200: "OK", 401: "Unauthorized", 404: "Not Found"}[status]
    start_response(f"{status} {reason}", [("Content-Type", content_type), *headers.items()])
    return [output]


def serve_in_background(port: int, address: str = "0.0.0.0") -> WSGIServer:
    """The worker and beat: `/metrics` on their own port, in a daemon thread, with the web's
    rules (METRICS_ENABLED, METRICS_TOKEN). Their containers share no directory with the web's."""
    server = make_server(address, port, _wsgi_app, server_class=_Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    log.info("metrics served on port %d at /metrics", port)
    return server
