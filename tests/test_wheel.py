"""The Docker image serves everything, checked without a Docker engine: docker/Dockerfile's
build and runtime stages are replayed under a temporary folder standing for the image's
filesystem (`/src`, `/venv`, `/app`, `/usr/local/bin`), from the same files (its COPY
instructions, minus what .dockerignore leaves out of the context) with the same commands (its
RUN lines: a fresh virtualenv, `pip install .` with the dependencies from the package index,
`collectstatic` with the image's environment). Then, from that install and nothing else (no
checkout, no editable install on the path), `entrypoint.sh migrate` and `entrypoint.sh web`
run with production settings, and the web client (/play/), the API docs (/api/docs/,
/api/redoc/) and every same-origin asset they reference answer 200; the image's health check
passes. Half a minute on an idle machine, most of it pip installing from its cache; offline,
deselect it with `-m "not wheel"`."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from games.management.commands.serve import stop
from tests import dockerfile
from tests.integration.conftest import ROOT, eventually, free_port, skip_in_the_second_pass

pytestmark = pytest.mark.wheel

# Requests name this host (not 127.0.0.1): the production settings allow only it, as an
# operator's ALLOWED_HOSTS names only the public one, and the image's health check must pass.
HOST = "cards.example.test"
HTML_REF = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)""")
# The user and ownership steps of the runtime stage: they need root and change the machine.
SKIPPED = ("groupadd ", "useradd ", "chown ")
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class Image:
    """The image's filesystem under `root`; `run` replays a RUN command there."""

    def __init__(self, root: Path):
        self.root = root
        self.workdir = root
        self.env: dict[str, str] = {}
        # The base image's `python`: this interpreter's own (not the project's .venv).
        shim = root / "base-python"
        shim.mkdir(parents=True)
        (shim / "python").symlink_to(sys._base_executable)
        self.path = f"{shim}:{root}/usr/local/bin:{BASE_PATH}"

    def inside(self, text: str) -> str:
        """Absolute paths of the image (`/venv/bin`, `/app/var`) under the root."""
        return re.sub(r"""(?:^|(?<=[\s=:"']))/(?=[A-Za-z])""", f"{self.root}/", text)

    def expand(self, value: str) -> str:
        known = {"PATH": self.path, **self.env}
        return re.sub(r"\$\{?(\w+)\}?", lambda m: known.get(m.group(1), ""), self.inside(value))

    def environment(self, **extra: str) -> dict[str, str]:
        """The image's environment and nothing of the test run's (no PYTHONPATH, no DATABASE_URL);
        the pip configuration of this machine (its index, its cache) is kept for pip."""
        environment = {"HOME": os.environ.get("HOME", str(self.root)), "PATH": self.path}
        environment.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
        environment.update(self.env, **extra)
        # The one difference from the image's build: pip keeps its cache (the build stage turns
        # it off to keep the image small), so that the dependencies install in seconds.
        environment.pop("PIP_NO_CACHE_DIR", None)
        return environment

    def run(self, command: str, **extra: str) -> subprocess.CompletedProcess:
        done = subprocess.run(["sh", "-c", self.inside(command)], cwd=self.workdir, env=self.environment(**extra),
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    def replay(self, stage: list[dockerfile.Instruction]) -> None:
        for instruction in stage:
            if instruction.name == "WORKDIR":
                self.workdir = Path(self.inside(instruction.args))
                self.workdir.mkdir(parents=True, exist_ok=True)
            elif instruction.name == "ENV":
                for key, value in dockerfile.env([instruction]).items():
                    self.env[key] = self.expand(value)
                self.path = self.env.pop("PATH", self.path)
            elif instruction.name == "COPY" and instruction.args.startswith("--from"):
                source, destination = instruction.args.split()[1:]
                assert source == destination, "one filesystem for every stage: the copy is the same folder"
            elif instruction.name == "COPY":
                for sources, destination in dockerfile.copies([instruction]):
                    if destination.startswith("/"):
                        dockerfile.copy_like_docker(sources, destination.lstrip("/"), self.root)
                    else:
                        dockerfile.copy_like_docker(sources, destination, self.workdir)
            elif instruction.name == "RUN":
                for command in dockerfile.runs([instruction]):
                    if not command.startswith(SKIPPED):
                        self.run(command)
            else:
                assert instruction.name in ("USER", "EXPOSE", "HEALTHCHECK", "ENTRYPOINT", "CMD"), instruction


# No proxy from the environment for the server on 127.0.0.1.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get(base: str, path: str) -> tuple[int, str, bytes]:
    """(status, content type, body) of a GET, with the allowed Host."""
    request = urllib.request.Request(urljoin(base, path), headers={"Host": HOST})
    try:
        with OPENER.open(request, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def assets_of(base: str, page: str) -> dict[str, bytes]:
    """Fetch `page` and every asset its HTML (and that HTML's CSS) references; all same-origin."""
    status, _, body = get(base, page)
    assert status == 200, (page, status, body[:500])
    html = body.decode()
    origin = urlsplit(base).netloc
    found: dict[str, bytes] = {}
    queue = [urljoin(base + page, ref) for ref in HTML_REF.findall(html) if not ref.startswith(("#", "data:"))]
    while queue:
        url = queue.pop()
        parts = urlsplit(url)
        assert parts.netloc == origin, f"{page} references another host: {url}"
        if not parts.path.startswith("/static/") or parts.path in found:
            continue
        status, kind, content = get(base, parts.path)
        assert status == 200 and content, (page, parts.path, status)
        found[parts.path] = content
        if "css" in kind:
            queue += [urljoin(url, ref) for ref in CSS_URL.findall(content.decode()) if not ref.startswith("data:")]
    assert any(path.endswith(".js") for path in found), (page, sorted(found))
    return found


@pytest.fixture
def image(tmp_path):
    """The image built: both stages of docker/Dockerfile replayed under tmp_path/image (removed
    afterwards: the virtualenv alone is about 170 MB)."""
    skip_in_the_second_pass("the image's own environment")
    built = Image(tmp_path / "image")
    stages = dockerfile.stages()
    built.replay(stages["build"])
    built.workdir, built.env, built.path = built.root, {}, f"{built.root}/usr/local/bin:{BASE_PATH}"
    built.replay(stages["runtime"])
    yield built
    shutil.rmtree(built.root, ignore_errors=True)


@pytest.fixture
def web(image):
    """`entrypoint.sh migrate`, then `entrypoint.sh web` on a free port; yields its base URL."""
    # As in the image: production settings, static files only from what collectstatic gathered.
    assert image.env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    assert image.env["SERVESTATIC_USE_FINDERS"] == "false"
    settings = {"SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": HOST, "SECURE_SSL_REDIRECT": "false",
                "PORT": str(free_port())}
    image.run("entrypoint.sh migrate", **settings)
    log_path = image.root / "web.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(["entrypoint.sh", "web"], cwd=image.workdir, env=image.environment(**settings),
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{settings['PORT']}"

    def up() -> bool:
        try:
            return get(base, "/healthz")[0] == 200 or proc.poll() is not None
        except OSError:
            return proc.poll() is not None

    try:
        eventually(up, timeout=90)
        assert proc.poll() is None, log_path.read_text()
        yield image, base, settings
    finally:
        stop([proc])
        print("--- web.log:", *log_path.read_text(errors="replace").splitlines()[-60:], sep="\n")


def test_the_image_serves_the_web_client_and_the_api_docs_from_its_own_install(web):
    image, base, settings = web
    site_packages = image.root / "venv" / "lib"
    # The service runs from the wheel: no module of the checkout is importable.
    where = image.run("python -c 'import accounts, config, games; print(accounts.__file__, config.__file__, games.__file__)'")
    for module in where.stdout.split():
        assert Path(module).is_relative_to(site_packages), module

    assets = assets_of(base, "/play/")
    assets.update(assets_of(base, f"/play/tables/{uuid.uuid4()}/"))
    for path, content in assets.items():
        if path.startswith("/static/play/"):
            assert content == (ROOT / "games" / path.removeprefix("/")).read_bytes(), path
    assert {"/static/play/play.css", "/static/play/api.js", "/static/play/lobby.js", "/static/play/table.js"} <= set(assets)
    for page in ("/api/docs/", "/api/redoc/"):
        assets_of(base, page)
    assert get(base, "/api/schema/")[0] == 200

    # The image's HEALTHCHECK, against a server that allows only the public host name.
    healthcheck = subprocess.run(["entrypoint.sh", "healthcheck"], cwd=image.workdir, env=image.environment(**settings),
                                 capture_output=True, text=True, timeout=60)
    assert healthcheck.returncode == 0, healthcheck.stderr[-2000:]

    # Whatever else the packages hold besides Python (templates, static files) is in the install.
    installed = next(site_packages.glob("python3*/site-packages"))
    source = image.root / "src"
    missing = [str(file.relative_to(source)) for package in ("config", "accounts", "games")
               for file in (source / package).rglob("*")
               if file.is_file() and file.suffix != ".py" and not (installed / file.relative_to(source)).exists()]
    assert missing == []
