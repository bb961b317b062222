"""docker/ checked without a Docker engine (none runs on the development machines): the
compose file parses, has the services and health checks an operator expects, reads the
operator's docker/.env (never the example), and every service's command is one the image's
entrypoint knows; the image is multi-stage, runs as a non-root user and its build context
holds no secret; production settings refuse to start without a strong secret key.
tests/test_wheel.py builds and runs what the image holds."""

import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests import dockerfile

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
# The password Compose requires for the stack's PostgreSQL, with a message naming the file.
REQUIRED_PASSWORD = re.compile(r"\$\{POSTGRES_PASSWORD:\?[^}]*docker/\.env[^}]*\}")


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
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert "test" in services[name]["healthcheck"], name
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert set(compose["volumes"]) >= {"postgres-data", "redis-data"}


def env_example() -> dict[str, str]:
    lines = (DOCKER / "env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_the_stack_reads_the_operators_env_file_never_the_example():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    for name in ("migrate", "web", "worker", "beat"):
        # docker/.env, beside the compose file; Compose refuses to start without it.
        assert services[name]["env_file"] == ".env", name
        url = services[name]["environment"]["DATABASE_URL"]
        assert url.startswith("postgres://cardgames:") and url.endswith("@postgres:5432/cardgames"), url
        assert REQUIRED_PASSWORD.search(url), url
    assert REQUIRED_PASSWORD.fullmatch(services["postgres"]["environment"]["POSTGRES_PASSWORD"])
    assert {service.get("env_file", ".env") for service in services.values()} == {".env"}
    # The operator's file stays out of git and out of the image's build context.
    assert ".env" in (ROOT / ".gitignore").read_text().splitlines()
    for secret in ("docker/.env", ".env", ".venv/bin/python", "var/db.sqlite3", ".git/config"):
        assert dockerfile.ignored(secret), secret
    for sources, _ in dockerfile.copies([i for stage in dockerfile.stages().values() for i in stage]):
        for source in sources:
            assert not dockerfile.ignored(source), source


def test_env_example_points_at_the_compose_services():
    env = env_example()
    assert env["REDIS_URL"].startswith("redis://redis:6379")
    # Set by compose.yaml from POSTGRES_PASSWORD; one here would be silently overridden.
    assert "DATABASE_URL" not in env
    # Empty: Compose stops until the operator sets it.
    assert env["POSTGRES_PASSWORD"] == ""
    assert 'secrets.token_urlsafe(50)' in (DOCKER / "env.example").read_text()
    documented = (ROOT / "docs" / "operations.md").read_text()
    # Each one is read by the settings, the entrypoint or the compose file: none is a dead knob.
    settings = "".join(path.read_text() for path in (ROOT / "config").rglob("*.py"))
    scripts = (DOCKER / "entrypoint.sh").read_text() + (DOCKER / "compose.yaml").read_text()
    for name in env:
        assert f"`{name}`" in documented, f"{name} is not documented in docs/operations.md"
        assert f'"{name}"' in settings or "${" + name in scripts, f"{name} is read by nothing"


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


def test_the_beat_health_check_wants_a_schedule_file_written_lately(tmp_path):
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    kind, check = compose["services"]["beat"]["healthcheck"]["test"]
    assert kind == "CMD-SHELL" and "/app/var" in check
    # The folder where the entrypoint's beat keeps its schedule.
    assert "--schedule /app/var/celerybeat-schedule" in (DOCKER / "entrypoint.sh").read_text()

    def healthy() -> bool:
        return subprocess.run(["sh", "-c", check.replace("/app/var", str(tmp_path))]).returncode == 0

    assert not healthy()
    dumb = tmp_path / "celerybeat-schedule.dat"  # the name under dbm.dumb; dbm.gnu adds no suffix
    dumb.write_bytes(b"schedule")
    assert healthy()
    eleven_minutes_ago = time.time() - 11 * 60
    os.utime(dumb, (eleven_minutes_ago, eleven_minutes_ago))
    assert not healthy()
    (tmp_path / "celerybeat-schedule").write_bytes(b"schedule")
    assert healthy()


def test_entrypoint_script_is_valid_sh():
    subprocess.run(["sh", "-n", str(DOCKER / "entrypoint.sh")], check=True)


SETTINGS_CODE = (
    "import django; django.setup(); from django.conf import settings; print(settings.DEBUG, settings.SECURE_SSL_REDIRECT)"
)


def production(secret_key: str | None) -> subprocess.CompletedProcess:
    """Django set up with the production settings in a fresh interpreter, with this SECRET_KEY."""
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    if secret_key is not None:
        env["SECRET_KEY"] = secret_key
    return subprocess.run([sys.executable, "-c", SETTINGS_CODE], cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (None, "is not set"),
        ("", "is not set"),
        ("embedded-default-not-for-production", "is the development key embedded in config/settings/base.py"),
        (env_example()["SECRET_KEY"], "is the placeholder of docker/env.example"),
        (secrets.token_urlsafe(36)[:49], "is shorter than 50 characters"),
        ("django-insecure-" + secrets.token_urlsafe(50), "starts with 'django-insecure-', the mark of a throwaway key"),
        ("abcd" * 20, "has fewer than 5 different characters"),
    ],
    ids=["unset", "empty", "embedded", "env.example", "49 characters", "django-insecure", "4 characters repeated"],
)
def test_production_refuses_a_weak_secret_key_and_says_what_to_do(key, reason):
    failed = production(key)
    assert failed.returncode != 0
    assert f"ImproperlyConfigured: SECRET_KEY {reason}." in failed.stderr, failed.stderr[-2000:]
    assert 'python3 -c "import secrets; print(secrets.token_urlsafe(50))"' in failed.stderr
    assert "docker/.env" in failed.stderr
    if key:
        assert key not in failed.stderr


def test_production_starts_with_a_generated_key_and_turns_debug_off():
    ok = production(secrets.token_urlsafe(50))
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
