"""The two clients of clients/ (README there), generated from a live server's schema, play a
table of each game against it: clients/python (openapi-python-client) and clients/typescript
(openapi-typescript types, openapi-fetch, `tsc --strict`). The test does what their READMEs
say, in temporary folders: fetch the schema, generate (a generator's warning fails the run),
type-check play.py (mypy --strict), build (npm ci, tsc --strict), then run both play programs
at once against `manage.py serve` (make run's process tree) and require each to finish its
three tables.

Needs npm and the npm registry (or npm's cache): `make test` leaves it out, `make
test-clients` (and .ci/run) runs it. A minute or two."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.integration.conftest import ROOT

pytestmark = [
    pytest.mark.integration,
    pytest.mark.clients,
    pytest.mark.skipif(not (shutil.which("npm") and shutil.which("node")), reason="the TypeScript client needs Node.js and npm"),
]

CLIENTS = ROOT / "clients"
GAMES = ("president", "pitch", "lopti")
# What the TypeScript client's folder holds besides what it generates or installs.
TYPESCRIPT_SOURCES = ("package.json", "package-lock.json", "tsconfig.json", "generate.mjs", "src/play.ts")


def run(args: list[str], cwd, timeout: float = 300, env: dict | None = None) -> str:
    started = time.monotonic()
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(args)}:\n{output[-5000:]}"
    print(f"{' '.join(args[:3])}: {time.monotonic() - started:.1f} s")
    return output


def test_play_ts_has_no_any_and_no_cast():
    """tsc --strict checks what the types say; `any` or a cast (`as T`, `<T>x`) would say less."""
    code = re.sub(r"/\*[\s\S]*?\*/|//[^\n]*", "", (CLIENTS / "typescript" / "src" / "play.ts").read_text())
    assert re.findall(r"\bany\b|\bas\s+[A-Za-z{\[(]|<[A-Z]\w*>\s*\w", code) == []


def test_the_generated_clients_play_every_game(serve, tmp_path):
    # A wake-up of a long-poll by a bot's move (in the worker, another process) is seen
    # within this recheck on the embedded broker: 50 ms keeps the three tables short.
    served = serve(env={"LONGPOLL_RECHECK_SECONDS": "0.05"})
    root = f"http://127.0.0.1:{served.port}"
    schema = tmp_path / "schema.json"
    with urllib.request.urlopen(f"{root}/api/schema/?format=json", timeout=30) as response:
        schema.write_bytes(response.read())
    assert json.loads(schema.read_text())["openapi"].startswith("3.")

    # Python: generate.sh fails on any warning of openapi-python-client.
    python_dir = tmp_path / "python"
    run(["bash", str(CLIENTS / "python" / "generate.sh"), str(schema), str(python_dir / "cardgames_client")], cwd=tmp_path,
        env={**os.environ, "VENV_BIN": str(os.path.dirname(sys.executable))})
    shutil.copy(CLIENTS / "python" / "play.py", python_dir / "play.py")
    # The program uses the generated models' fields only as typed: mypy --strict, as tsc below.
    run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy-cache"), "play.py"], cwd=python_dir)

    # TypeScript: the committed sources with their lock file, as a fresh clone has them.
    typescript_dir = tmp_path / "typescript"
    for name in TYPESCRIPT_SOURCES:
        (typescript_dir / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CLIENTS / "typescript" / name, typescript_dir / name)
    run(["npm", "ci", "--no-audit", "--no-fund"], cwd=typescript_dir)
    run(["npm", "run", "generate", "--", str(schema)], cwd=typescript_dir)  # fails on any warning
    run(["npm", "run", "build"], cwd=typescript_dir)

    # Both at once, each with its own user and tables.
    players = {
        "python": subprocess.Popen([sys.executable, "play.py", "--base-url", root, "--timeout", "240"], cwd=python_dir,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
        "typescript": subprocess.Popen(["node", "dist/play.js", "--base-url", root, "--timeout", "240"], cwd=typescript_dir,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
    }
    outputs = {}
    for name, player in players.items():
        try:
            outputs[name], _ = player.communicate(timeout=900)
        finally:
            if player.poll() is None:
                player.kill()
                player.wait()
        print(f"--- {name}:\n{outputs[name]}")
    for name, player in players.items():
        assert player.returncode == 0, f"{name}:\n{outputs[name]}"
        finished = [line.split(":")[0] for line in outputs[name].splitlines() if ": finished, table " in line]
        assert finished == list(GAMES), f"{name}:\n{outputs[name]}"
