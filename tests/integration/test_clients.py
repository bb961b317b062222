"""The two clients of clients/ (README there), generated from a live server's schema, play a
table of each game against it: clients/python (openapi-python-client) and clients/typescript
(openapi-typescript types, openapi-fetch, `tsc --strict`). The test does what their READMEs
say, in temporary folders: fetch the schema, generate (a generator's warning fails the run),
type-check play.py (mypy --strict), build (npm ci, tsc --strict), then run both play programs
at once against `manage.py serve` (make run's process tree) and require each to finish its
three tables. Beside them, the example bot (clients/python/bot.py) runs as its own process on
a bot account and its account stream, and play.py plays a table of each game against it
(`--against`): the bot accepts the three invitations and plays them to the end.

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

from tests.integration.conftest import ROOT, eventually

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
    for program in ("play.py", "bot.py"):
        shutil.copy(CLIENTS / "python" / program, python_dir / program)
    # The programs use the generated models' fields only as typed: mypy --strict, as tsc below.
    run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy-cache"), "play.py", "bot.py"],
        cwd=python_dir)

    # TypeScript: the committed sources with their lock file, as a fresh clone has them.
    typescript_dir = tmp_path / "typescript"
    for name in TYPESCRIPT_SOURCES:
        (typescript_dir / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CLIENTS / "typescript" / name, typescript_dir / name)
    run(["npm", "ci", "--no-audit", "--no-fund"], cwd=typescript_dir)
    run(["npm", "run", "generate", "--", str(schema)], cwd=typescript_dir)  # fails on any warning
    run(["npm", "run", "build"], cwd=typescript_dir)

    # The example bot (docs/bots-accounts.md) as its own process: it registers a bot account and
    # follows its account stream; play.py --against it invites it to a table of each game.
    bot_name = f"bot{os.getpid()}"
    bot_log = tmp_path / "bot.log"
    with bot_log.open("w") as log:
        bot = subprocess.Popen([sys.executable, "bot.py", "--base-url", root, "--register", bot_name, "--tables", "3"],
                               cwd=python_dir, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        eventually(lambda: "ready: following the account stream" in bot_log.read_text() or bot.poll() is not None)
        assert bot.poll() is None, bot_log.read_text()
        outputs = play_all(root, python_dir, typescript_dir, bot_name)
        bot.wait(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    print(f"--- the example bot:\n{bot_log.read_text()}")
    for name, (returncode, output) in outputs.items():
        assert returncode == 0, f"{name}:\n{output}"
        finished = [line.split(":")[0] for line in output.splitlines() if ": finished, table " in line]
        assert finished == list(GAMES), f"{name}:\n{output}"
    # The bot accepted the three invitations and saw each of its tables to the end, as its
    # opponent did: the same tables.
    said = bot_log.read_text()
    assert bot.returncode == 0, said
    assert said.count(": accepted") == 3, said
    def finished_tables(output: str) -> list[str]:
        return sorted(re.findall(r": finished, table ([0-9a-f-]{36})", output))

    assert len(finished_tables(said)) == 3
    assert finished_tables(said) == finished_tables(outputs["python --against the bot"][1]), said


def play_all(root: str, python_dir, typescript_dir, bot_name: str) -> dict[str, tuple[int, str]]:
    """The play programs at once, each with its own user and tables: (exit status, output) by name."""
    players = {
        "python": subprocess.Popen([sys.executable, "play.py", "--base-url", root, "--timeout", "240"], cwd=python_dir,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
        "typescript": subprocess.Popen(["node", "dist/play.js", "--base-url", root, "--timeout", "240"], cwd=typescript_dir,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
        "python --against the bot": subprocess.Popen(
            [sys.executable, "play.py", "--base-url", root, "--timeout", "240", "--against", bot_name], cwd=python_dir,
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
    return {name: (player.returncode, outputs[name]) for name, player in players.items()}
