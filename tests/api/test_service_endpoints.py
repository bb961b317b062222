"""api.md, Service endpoints: schema, docs with self-hosted assets, probes."""

import pytest
import yaml
from django.test import Client

CONTRACT_PATHS = [
    "/api/v1/auth/register", "/api/v1/auth/token", "/api/v1/me", "/api/v1/me/tables", "/api/v1/games",
    "/api/v1/tables", "/api/v1/tables/{table_id}", "/api/v1/tables/{table_id}/join", "/api/v1/tables/{table_id}/leave",
    "/api/v1/tables/{table_id}/bots", "/api/v1/tables/{table_id}/start", "/api/v1/tables/{table_id}/state",
    "/api/v1/tables/{table_id}/moves", "/api/v1/tables/{table_id}/back", "/api/v1/tables/{table_id}/sessions",
    "/api/v1/tables/{table_id}/house-rules", "/api/v1/tables/{table_id}/house-rules/{rule_id}",
    "/api/v1/tables/{table_id}/rule-votes", "/api/v1/tables/{table_id}/rule-votes/{vote_id}",
    "/api/v1/tables/{table_id}/rule-votes/{vote_id}/ballots", "/api/v1/tables/{table_id}/rule-votes/{vote_id}/champions",
    "/api/v1/tables/{table_id}/duels/{duel_id}", "/api/v1/tables/{table_id}/duels/{duel_id}/throws",
]


@pytest.mark.django_db
def test_openapi_schema_documents_every_contract_path_with_the_error_shape():
    r = Client().get("/api/schema/")
    assert r.status_code == 200
    schema = yaml.safe_load(r.content)
    assert set(CONTRACT_PATHS) <= set(schema["paths"])
    assert {"code", "message", "detail"} <= set(schema["components"]["schemas"]["Error"]["properties"])
    moves = schema["paths"]["/api/v1/tables/{table_id}/moves"]["post"]
    assert {"200", "400", "401", "403", "404", "409", "429"} <= set(moves["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in moves["parameters"])
    state = schema["paths"]["/api/v1/tables/{table_id}/state"]["get"]
    assert "304" in state["responses"] and any(p["name"] == "wait" for p in state["parameters"])


@pytest.mark.django_db
def test_docs_pages_load_their_assets_from_this_server():
    client = Client()
    for page in ("/api/docs/", "/api/redoc/"):
        r = client.get(page)
        assert r.status_code == 200
        html = r.content.decode()
        assert "cdn." not in html and "unpkg" not in html and "jsdelivr" not in html
    asset = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert asset.status_code == 200


@pytest.mark.django_db
def test_health_and_readiness_probes():
    client = Client()
    assert client.get("/healthz").json() == {"status": "ok"}
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json()["checks"] == {"database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_readiness_is_503_when_the_broker_is_unreachable(settings):
    from config.celery import app

    old = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        r = Client().get("/readyz")
    finally:
        app.conf.broker_url = old
    assert r.status_code == 503 and r.json()["checks"]["broker"].startswith("error")


@pytest.mark.django_db
def test_unknown_paths_answer_in_the_error_shape():
    r = Client().get("/api/v1/no-such-thing")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


def test_schema_generates_without_warnings_or_errors():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null"],
        cwd=root, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
