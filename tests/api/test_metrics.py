"""GET /metrics and config/metrics.py (docs/operations.md, "Metrics"): who may scrape, what the
edge's calls record, how several processes add up, and that no label names a table, a player
or a token.

The test processes run in prometheus-client's multiprocess mode, as production does
(config/settings/test.py): figures are compared before and after, since other tests and the
processes they start add to the same directory."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from config import metrics
from config.celery import app
from games import tasks
from tests.scrape import samples, value

ROOT = Path(__file__).resolve().parents[2]
REQUESTS = "cardgames_http_requests_total"
DURATIONS = "cardgames_http_request_duration_seconds_count"
WAITERS = "cardgames_http_open_waiters"


def scrape(client, **headers) -> str:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


# --- who may scrape ----------------------------------------------------------------------------
def test_the_embedded_setup_serves_metrics_to_anyone(client):
    metrics.observe_request("GET /api/v1/games", "GET", 200, 0.003)
    assert value(REQUESTS, scrape(client), route="GET /api/v1/games", method="GET", status="200") >= 1


@override_settings(METRICS_ENABLED=False)
def test_with_metrics_off_the_path_is_not_found_in_the_error_shape(client):
    response = client.get("/metrics")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "no such path", "detail": {}}


@override_settings(METRICS_ENABLED=True, METRICS_TOKEN="a-long-scrape-token")
def test_with_a_token_only_a_bearer_of_it_may_scrape(client):
    for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer wrong-token"}, {"HTTP_AUTHORIZATION": "Token a-long-scrape-token"},
                    {"HTTP_AUTHORIZATION": "Bearer"}, {"HTTP_AUTHORIZATION": "Bearer a-long-scrape-token-and-more"}):
        response = client.get("/metrics", **headers)
        assert response.status_code == 401, headers
        assert response.json()["code"] == "not_authenticated" and set(response.json()) == {"code", "message", "detail"}
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert "cardgames_" in scrape(client, HTTP_AUTHORIZATION="Bearer a-long-scrape-token")


def test_another_method_is_405_in_the_error_shape(client):
    response = client.post("/metrics", {})
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert response.json()["code"] == "method_not_allowed"


PRODUCTION_SCRAPE = """
import django
django.setup()
from django.test import Client
for header in ("", "Bearer wrong", "Bearer s3cret-token"):
    response = Client().get("/metrics", HTTP_AUTHORIZATION=header)
    print(response.status_code, response.content[:40])
"""


def production(**env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("METRICS_")}
    environment.update(DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY=secrets.token_urlsafe(50), **env)
    return subprocess.run([sys.executable, "-c", PRODUCTION_SCRAPE], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_production_serves_no_metrics_unless_enabled_and_then_only_with_its_token():
    off = production()
    assert off.returncode == 0, off.stderr
    # Not a redirect to HTTPS either: Prometheus scrapes over plain HTTP inside the network.
    assert [line.split()[0] for line in off.stdout.splitlines()] == ["404", "404", "404"]
    refused = production(METRICS_ENABLED="true")
    assert refused.returncode != 0 and "METRICS_ENABLED needs METRICS_TOKEN" in refused.stderr
    on = production(METRICS_ENABLED="true", METRICS_TOKEN="s3cret-token")
    assert on.returncode == 0, on.stderr
    statuses = [line.split()[0] for line in on.stdout.splitlines()]
    assert statuses == ["401", "401", "200"] and "cardgames_" in on.stdout.splitlines()[2]


# --- the edge's calls --------------------------------------------------------------------------
def test_a_request_is_counted_by_route_method_and_status_and_timed_by_route_and_method():
    route = "GET /api/v1/tables/{id}/state?wait"
    before = samples(metrics.exposition()[0].decode())
    metrics.observe_request(route, "GET", 304, 0.004)
    metrics.observe_request(route, "GET", 200, 12.0)
    metrics.observe_request(route, "GET", 200, 31.0)
    after = samples(metrics.exposition()[0].decode())

    def grew(name, **labels):
        key = (name, frozenset(labels.items()))
        return after.get(key, 0) - before.get(key, 0)

    assert grew(REQUESTS, route=route, method="GET", status="304") == 1
    assert grew(REQUESTS, route=route, method="GET", status="200") == 2
    assert grew(DURATIONS, route=route, method="GET") == 3
    bucket = "cardgames_http_request_duration_seconds_bucket"
    # A long-poll that timed out after 30 s is told apart from one answered in 12 s.
    assert [grew(bucket, route=route, method="GET", le=le) for le in ("0.005", "10.0", "20.0", "35.0")] == [1, 1, 2, 3]


def test_labels_stay_bounded_whatever_the_caller_passes(monkeypatch, caplog):
    monkeypatch.setattr(metrics, "_routes", set(f"GET /route/{n}" for n in range(metrics.MAX_ROUTES)))
    before = value(REQUESTS, route="other", method="other", status="200")
    for n in range(5):
        metrics.observe_request(f"GET /api/v1/tables/{n}-an-id-by-mistake", "BREW", 200, 0.01)
    assert value(REQUESTS, route="other", method="other", status="200") - before == 5
    assert "counted as route=other" in caplog.text
    text = metrics.exposition()[0].decode()
    assert "an-id-by-mistake" not in text and "BREW" not in text


def test_open_waiters_go_up_and_down_by_kind():
    before = {kind: value(WAITERS, kind=kind) for kind in ("longpoll", "stream")}
    metrics.waiter_opened("longpoll")
    metrics.waiter_opened("longpoll")
    metrics.waiter_opened("stream")
    metrics.waiter_closed("longpoll")
    assert value(WAITERS, kind="longpoll") - before["longpoll"] == 1
    assert value(WAITERS, kind="stream") - before["stream"] == 1
    metrics.waiter_closed("longpoll")
    metrics.waiter_closed("stream")
    assert {kind: value(WAITERS, kind=kind) for kind in ("longpoll", "stream")} == before
    with pytest.raises(ValueError):
        metrics.waiter_opened("table-42")


# --- several processes -------------------------------------------------------------------------
CHILD = """
import sys
from config import metrics
for _ in range(int(sys.argv[1])):
    metrics.observe_request("GET /aggregated", "GET", 200, 0.002)
metrics.waiter_opened("stream")
if sys.argv[2] == "stay":
    print("ready", flush=True)
    sys.stdin.read()
"""


def child(requests: int, how: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(requests), how], cwd=ROOT, env=os.environ.copy(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_figures_of_other_processes_add_up_and_a_dead_ones_open_waiters_drop_out(client):
    """Two processes besides this one, as uvicorn's workers are: their requests add up on the
    /metrics of this one; a process that died holding a stream open (a worker killed) no
    longer counts it, the one still alive does."""
    assert metrics.MULTIPROCESS_DIR == os.environ["PROMETHEUS_MULTIPROC_DIR"]
    labels = {"route": "GET /aggregated", "method": "GET"}
    before = scrape(client)
    exited = child(3, "exit")
    assert exited.wait(timeout=60) == 0
    staying = child(5, "stay")
    try:
        assert staying.stdout.readline().strip() == "ready"
        metrics.observe_request("GET /aggregated", "GET", 200, 0.002)
        during = scrape(client)
        assert value(REQUESTS, during, status="200", **labels) - value(REQUESTS, before, status="200", **labels) == 9
        assert value(DURATIONS, during, **labels) - value(DURATIONS, before, **labels) == 9
        assert value(WAITERS, during, kind="stream") - value(WAITERS, before, kind="stream") == 1
    finally:
        staying.stdin.close()
        staying.wait(timeout=60)
    after = scrape(client)
    assert value(WAITERS, after, kind="stream") == value(WAITERS, before, kind="stream")
    # A process's counts outlive it.
    assert value(REQUESTS, after, status="200", **labels) - value(REQUESTS, before, status="200", **labels) == 9


def test_importing_the_module_opens_no_file(tmp_path):
    """Celery's embedded beat closes the descriptors it inherits from the worker, which has
    imported config.metrics with its tasks: a file open at import would break beat's figures."""
    probe = ("import os, sys; from config import metrics; print(os.listdir(metrics.MULTIPROCESS_DIR)); "
             "metrics.task_published('games.tasks.sweep'); print(os.listdir(metrics.MULTIPROCESS_DIR))")
    environment = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=environment, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    at_import, after_a_figure = result.stdout.splitlines()
    assert at_import == "[]" and after_a_figure.startswith("['counter_")


def test_setting_the_directory_after_prometheus_client_was_imported_is_refused():
    late = "import os, prometheus_client; os.environ['PROMETHEUS_MULTIPROC_DIR'] = '/tmp'; import config.metrics"
    environment = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    result = subprocess.run([sys.executable, "-c", late], cwd=ROOT, env=environment, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode != 0 and "set after prometheus_client was imported" in result.stderr


# --- Celery tasks (run eagerly here; tests/integration/test_metrics_and_logs.py: a real worker) --
TASKS = "cardgames_celery_tasks_total"


@pytest.mark.django_db
def test_tasks_are_counted_by_name_and_outcome_and_timed(monkeypatch):
    assert app.conf.task_always_eager
    purge = tasks.purge_idempotency_keys.name
    before = samples(metrics.exposition()[0].decode())
    tasks.purge_idempotency_keys.delay()
    tasks.purge_idempotency_keys.delay()
    monkeypatch.setattr(tasks.idempotency, "idempotency_purge", lambda: 1 / 0)
    assert tasks.purge_idempotency_keys.delay().failed()
    after = samples(metrics.exposition()[0].decode())

    def grew(name, **labels):
        key = (name, frozenset(labels.items()))
        return after.get(key, 0) - before.get(key, 0)

    assert grew(TASKS, task=purge, outcome="success") == 2
    assert grew(TASKS, task=purge, outcome="failure") == 1
    assert grew("cardgames_celery_task_duration_seconds_count", task=purge) == 3


# --- nothing hidden in a label -----------------------------------------------------------------
@pytest.mark.django_db(transaction=True)  # the bots' tasks are queued on commit
def test_no_figure_names_a_table_a_player_or_a_token(make_user, client):
    """A table played with bots (their moves are tasks) and polled: the figures name no table,
    player, token or card."""
    host = make_user()
    table = host.api.post("/api/v1/tables", {"game": "president", "seats": 4, "options": {"hands": 1, "bot_delay": 0}},
                          format="json").json()["id"]
    for _ in range(3):
        assert host.api.post(f"/api/v1/tables/{table}/bots", {"level": "easy"}, format="json").status_code in (200, 201)
    assert host.api.post(f"/api/v1/tables/{table}/start", {}, format="json").status_code == 200
    state = host.api.get(f"/api/v1/tables/{table}/state").json()
    # A bot move as a task with the table's id, whether or not the start's own were queued (a
    # test before may have left the broker's breaker open, games/scheduling.py).
    tasks.bot_move.delay(table, state["version"])
    text = scrape(client)
    for secret in (table, host.token, host.username):
        assert secret not in text
    found = samples(text)
    label_values = {v for (_, labels) in found for _, v in labels}
    assert state["you"]["hand"] and not set(state["you"]["hand"]) & label_values
    assert {k for (_, labels) in found for k, _ in labels} <= {"route", "method", "status", "kind", "task", "outcome",
                                                               "reason", "le"}
    task_names = {v for (name, labels) in found if name.startswith("cardgames_celery") for k, v in labels if k == "task"}
    assert tasks.bot_move.name in task_names and task_names <= set(app.tasks)
