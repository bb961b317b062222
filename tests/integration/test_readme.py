"""The README cannot rot: every ```sh block of README.md, in order, runs as one bash script
(`set -euo pipefail`) against a live `manage.py serve` (make run's process tree) on a free
port with its own temporary SQLite database and broker folder. The script runs twice on the
same server, as a newcomer re-running the walkthrough would: the second run of the
registration must log in instead of registering (no `TOKEN=null`). A block fenced as anything
but ```sh (```text, ```console) does not run. Needs curl and jq (.ci/run installs them).
About two minutes: `make test` leaves it out, `make test-readme` (and .ci/run) runs it."""

import re
import shutil
import subprocess

import pytest

from tests.integration.conftest import ROOT

pytestmark = [
    pytest.mark.integration,
    pytest.mark.readme,
    pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")), reason="the README's blocks need curl and jq"),
]

FENCE = re.compile(r"^```sh\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)


def readme_blocks() -> list[str]:
    blocks = FENCE.findall((ROOT / "README.md").read_text())
    assert blocks, "README.md has no ```sh block"
    return blocks


def responses(log: str) -> list[tuple[str, int]]:
    """(method and path, status) of every request in the server's access log (the project's own
    line per request, config/logs.py: `serve` turns uvicorn's off)."""
    return [(m.group(1), int(m.group(2)))
            for m in re.finditer(r"^\[[^\]]*\] ([A-Z]+ /\S*) (\d{3})$", log, re.MULTILINE)]


def run_script(served, tmp_path, name: str, blocks: list[str]) -> subprocess.CompletedProcess:
    home = tmp_path / name
    home.mkdir()
    return subprocess.run(["bash", "-c", "set -euo pipefail\n" + "\n".join(blocks)], cwd=home, capture_output=True, text=True, timeout=600,
                          env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "API": served.base})


def test_the_readme_walkthrough_runs_against_a_live_server(serve, tmp_path):
    # With the default rate limits, as a newcomer's `make run` has them.
    served = serve(env={"API_THROTTLE_RATES": ""})
    first = run_script(served, tmp_path, "first", readme_blocks())
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    first_log = served.log()
    # Every request of a first run on a fresh database succeeds (a 304 is the ETag's point).
    answered = responses(first_log)
    assert len(answered) > 100 and ("POST /api/v1/auth/register", 201) in answered, first_log[-3000:]
    failed = [(line, status) for line, status in answered if status >= 400]
    assert failed == [], failed
    for line in ("president: finished", "pitch: hand 1 played", "lopti: round 1 played"):
        assert line in first.stdout, first.stdout[-3000:]

    # Registration again, on the same database: every player logs in and has a working token.
    check = 'for name in ann bob cat dan; do curl -sf $API/me -H "$(auth $name)" | jq -r .username; done'
    second = run_script(served, tmp_path, "second", [readme_blocks()[0].split("# 2.")[0], check])
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert second.stdout.count("is already registered: logged in with /auth/token") == 4
    assert second.stdout.split()[-4:] == ["ann", "bob", "cat", "dan"]
    later = served.log()[len(first_log):]
    assert [(line, status) for line, status in responses(later) if status >= 500] == []
