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


FAKE = """#!/bin/sh
echo "ran: $(basename "$0") $*"
echo "metrics: $PROMETHEUS_MULTIPROC_DIR has $(ls -A "$PROMETHEUS_MULTIPROC_DIR" | wc -l) files"
echo "port: ${METRICS_PORT:-none}"
echo "hosts: ${ALLOWED_HOSTS:-unset}"
"""


def entrypoint(tmp_path: Path, command: str, **env: str) -> list[str]:
    """docker/entrypoint.sh `command`, with stand-ins for uvicorn and celery that print what
    they were started with."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("uvicorn", "celery"):
        (bin_dir / name).write_text(FAKE)
        (bin_dir / name).chmod(0o755)
    environment = {"PATH": f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin", **env}
    done = subprocess.run(["sh", str(DOCKER / "entrypoint.sh"), command], env=environment, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_entrypoint_empties_the_metrics_directory_and_gives_worker_and_beat_their_port(tmp_path):
    import socket

    folder = tmp_path / "prometheus"
    for command in ("web", "worker", "beat"):
        folder.mkdir(exist_ok=True)
        (folder / "counter_7.db").write_bytes(b"left by the previous run")
        ran, metrics, port, hosts = entrypoint(tmp_path, command, PROMETHEUS_MULTIPROC_DIR=str(folder),
                                               METRICS_ENABLED="true", ALLOWED_HOSTS="cards.example.com")
        assert metrics == f"metrics: {folder} has 0 files", command
        if command == "web":
            assert ran.startswith("ran: uvicorn config.asgi:application") and port == "port: none"
            # Prometheus may scrape the container by its address.
            assert hosts == f"hosts: cards.example.com,{socket.gethostbyname(socket.gethostname())}"
        else:
            assert ran.startswith(f"ran: celery -A config --quiet {command} ") and port == "port: 9808"
    assert entrypoint(tmp_path, "web", PROMETHEUS_MULTIPROC_DIR=str(folder), ALLOWED_HOSTS="a.example")[3] == "hosts: a.example"
    assert entrypoint(tmp_path, "beat", PROMETHEUS_MULTIPROC_DIR=str(folder), METRICS_PORT="9100")[2] == "port: 9100"
