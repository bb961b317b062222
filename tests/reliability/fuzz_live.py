"""`make fuzz`, second half: the schemathesis CLI against a live uvicorn (the ASGI app as
production runs it: the async long-poll and the event stream), on a throwaway SQLite database
in a temporary VAR_DIR, on a free port. Registers a user, then runs every check on every
operation with `--max-examples` (FUZZ_EXAMPLES, default 50), configured as the in-process run
is (tests/api/test_schemathesis.py's CONFIG_TEXT: which operations may refuse schema-valid data
with 400, no NUL characters). Exit status: schemathesis's.

    .venv/bin/python tests/reliability/fuzz_live.py
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def validation_mismatches(output: str, schema: dict) -> list[str]:
    """The operations the CLI's "Schema validation mismatch" warning lists, but for those that
    may refuse valid data (ACCEPTS_400): schemathesis 4 can fail a run on the warning only for
    every operation at once (its `fail-on` is read at the project level)."""
    from tests.api.test_schemathesis import ACCEPTS_400

    ids = {f"{method.upper()} {path}": op.get("operationId") for path, methods in schema["paths"].items()
           for method, op in methods.items() if isinstance(op, dict)}
    listed, found = False, []
    for line in output.splitlines():
        if line.startswith("Schema validation mismatch:"):
            listed = True
        elif listed and line.strip().startswith("- "):
            found.append(line.strip()[2:])
        elif listed and line.strip():
            listed = False
    return [label for label in found if ids.get(label) not in ACCEPTS_400]


def main() -> int:
    examples = os.environ.get("FUZZ_EXAMPLES", "50")
    with tempfile.TemporaryDirectory(prefix="fuzz-") as var:
        sys.path.insert(0, str(ROOT))
        os.environ.update(VAR_DIR=var, DJANGO_SETTINGS_MODULE="config.settings.test")
        from tests.api.test_schemathesis import CONFIG_TEXT

        config = Path(var) / "schemathesis.toml"
        config.write_text(CONFIG_TEXT)
        env = {**os.environ, "VAR_DIR": var, "API_THROTTLE_RATES": "off", "DJANGO_SETTINGS_MODULE": "config.settings.base"}
        env.pop("DATABASE_URL", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        port = free_port()
        server = subprocess.Popen(
            [str(BIN / "uvicorn"), "config.asgi:application", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
            cwd=ROOT, env=env,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{base}/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            token = post(f"{base}/api/v1/auth/register", {"username": "fuzzer", "password": "a long fuzzing passphrase 7"})["token"]
            run = subprocess.Popen(
                [str(BIN / "schemathesis"), "--config-file", str(config), "run", f"{base}/api/schema/?format=json",
                 # Every check through the config ([checks] enabled), not `--checks all`, which would
                 # override the config's per-operation settings (ACCEPTS_400's expected statuses).
                 "--header", f"Authorization: Token {token}",
                 "--max-examples", examples, "--seed", "17", "--request-timeout", "40"],
                cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
            )
            output = []
            for line in run.stdout:
                sys.stdout.write(line)
                output.append(line)
            code = run.wait()
            with urllib.request.urlopen(f"{base}/api/schema/?format=json", timeout=10) as response:
                mismatched = validation_mismatches("".join(output), json.load(response))
            if mismatched:
                print(f"Schema validation mismatch outside ACCEPTS_400 (tests/api/test_schemathesis.py): {mismatched}")
            return code or (1 if mismatched else 0)
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
