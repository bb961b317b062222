"""docker/ checked without a Docker engine (none runs on the development machines): the
compose file parses, has the services and health checks an operator expects, and every
service's command is one the image's entrypoint knows; the image is multi-stage and runs as
a non-root user; production settings refuse to start without a secret."""

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"


def entrypoint_commands() -> set[str]:
    text = (DOCKER / "entrypoint.sh").read_text()
    return set(re.findall(r"^\s+([a-z]+)\)$", text, flags=re.M))


def test_compose_services_commands_and_health_checks():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "migrate", "web", "worker", "beat"}
    known = entrypoint_commands()
    assert {"web", "worker", "beat", "migrate", "healthcheck"} <= known
    for name in ("migrate", "web", "worker", "beat"):
        service = services[name]
        assert service["build"]["dockerfile"] == "docker/Dockerfile"
        assert service["command"][0] in known, name
        assert (DOCKER / service["env_file"]).exists()
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert "test" in services[name]["healthcheck"], name
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert set(compose["volumes"]) >= {"postgres-data", "redis-data"}


def test_env_example_points_at_the_compose_services():
    env = dict(
        line.split("=", 1) for line in (DOCKER / "env.example").read_text().splitlines() if line and not line.startswith("#")
    )
    assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
    assert env["REDIS_URL"].startswith("redis://redis:6379")
    documented = (ROOT / "docs" / "operations.md").read_text()
    for name in env:
        assert f"`{name}`" in documented, f"{name} is not documented in docs/operations.md"


def test_dockerfile_is_multi_stage_non_root_and_runs_the_entrypoint():
    text = (DOCKER / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, flags=re.M)) >= 2
    assert re.search(r"^COPY --from=build ", text, flags=re.M)
    user = re.findall(r"^USER (\S+)", text, flags=re.M)
    assert user and user[-1] not in ("root", "0")
    assert 'ENTRYPOINT ["entrypoint.sh"]' in text
    for path in re.findall(r"^COPY (?:--\S+ )*(\S+) ", text, flags=re.M):
        if not path.startswith("/"):
            assert (ROOT / path).exists(), path
    assert os.access(DOCKER / "entrypoint.sh", os.X_OK)


def test_entrypoint_script_is_valid_sh():
    subprocess.run(["sh", "-n", str(DOCKER / "entrypoint.sh")], check=True)


def test_production_settings_need_a_secret_and_turn_debug_off():
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG, settings.SECURE_SSL_REDIRECT)"
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    failed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert failed.returncode != 0 and "SECRET_KEY must be set" in failed.stderr
    env["SECRET_KEY"] = "x" * 50
    ok = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.split() == ["False", "True"]
