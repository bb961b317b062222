"""docs/apps.md cannot rot: its ```sh blocks, in order, run as one bash script (`set -euo
pipefail`) against a live `manage.py serve`, as README.md's do (tests/integration/test_readme.py):
an app registered with `manage.py oauth_app` on the server's own database, the login and consent
forms posted with curl, the exchange, the API with the token, refresh with rotation and reuse
detection, revocation, a personal access token, CORS and the rate-limit fields. Needs curl, jq and
openssl; `make test-readme` (and .ci/run) runs it."""

import re
import shutil
import subprocess
import sys

import pytest

from tests.integration.conftest import ROOT
from tests.integration.test_readme import FENCE, responses

pytestmark = [
    pytest.mark.integration,
    pytest.mark.readme,
    pytest.mark.skipif(not all(shutil.which(tool) for tool in ("curl", "jq", "openssl")),
                       reason="docs/apps.md's blocks need curl, jq and openssl"),
]
ORIGIN = "http://localhost:5173"


def test_the_apps_walkthrough_runs_against_a_live_server(serve, tmp_path):
    blocks = FENCE.findall((ROOT / "docs" / "apps.md").read_text())
    assert len(blocks) >= 8, "docs/apps.md lost its sh blocks"
    # The default rate limits (their fields are shown) and one allowed origin (its CORS answer is).
    served = serve(env={"API_THROTTLE_RATES": "", "CORS_ALLOWED_ORIGINS": ORIGIN})
    home = tmp_path / "home"
    home.mkdir()
    # `manage.py oauth_app` on the server's database: the server's environment, as an operator's
    # shell beside `make run` has it.
    env = {**served.env, "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "API": served.base,
           "MANAGE": f"{sys.executable} {ROOT / 'manage.py'}"}
    # After the walkthrough, the test notes what it handled that must stay secret.
    note = 'printf "%s\\n" "$VERIFIER" "$CODE" "$ACCESS" "$REFRESH" "$NEW_ACCESS" "$PAT" > secrets.txt'
    run = subprocess.run(["bash", "-c", "set -euo pipefail\n" + "\n".join([*blocks, note])], cwd=home,
                         capture_output=True, text=True, timeout=300, env=env)
    out = run.stdout
    assert run.returncode == 0, out[-3000:] + run.stderr[-3000:]
    assert re.search(r"^client_id: \w{20,}$", out, re.MULTILINE)
    # The consent page named each scope asked, in words (twice: two approvals).
    assert run.stderr.count("consent page: See your profile") == 2
    assert run.stderr.count("consent page: Play for you") == 2 and "Host tables" not in run.stderr
    assert "redirected with a code" in out
    assert '"token_type": "Bearer"' in out and '"expires_in": 3600' in out and '"scope": "read play"' in out
    assert "the same code again: invalid_grant" in out
    assert '"username": "erin"' in out
    assert '"code": "insufficient_scope"' in out and '"required": "host"' in out
    assert "old access token: not_authenticated" in out and "new access token: erin" in out
    assert "old refresh token again: invalid_grant" in out and "new access token now: not_authenticated" in out
    assert "revoke: 200" in out and "after revocation: not_authenticated" in out
    assert '"code_challenge_methods_supported": [\n    "S256"\n  ]' in out
    assert '{"name":"my script","prefix":"cgp_' in out
    assert f"access-control-allow-origin: {ORIGIN}" in out.lower()
    assert "ratelimit-limit:" in out.lower() and "ratelimit-remaining:" in out.lower()
    # The server's output (its access log, every logger) has none of the secrets handled.
    log = served.log()
    answered = responses(log)
    assert ("POST /oauth/token", 200) in answered and ("POST /oauth/token", 400) in answered, log[-3000:]
    secrets = (home / "secrets.txt").read_text().split()
    assert len(secrets) == 6 and all(len(value) >= 20 for value in secrets)
    assert [value for value in secrets if value in log] == []
