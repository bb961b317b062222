"""The contract's revocation bound across processes (docs/api.md, personal access tokens): a
revoked token, a deactivated user's tokens and an expired token are refused by every web
process within one second, caches included, on Django's paths and on the edge's alike.

Two uvicorn processes (config.asgi) on the test's PostgreSQL database and the same Redis; each
keeps tokens in its own cache (accounts.tokens) for AUTH_CACHE_SECONDS, set here to a minute, so
only the forget message on Redis (heard by each process's waiting room, games.edge.waiting) or
the expiry check on every cache hit can make a process refuse a token it has cached in time."""

from __future__ import annotations

import http.cookiejar
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import ApiToken, User
from tests.integration.conftest import ROOT, call, eventually, free_port

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL", "").startswith("postgres")),
        reason="revocation across processes runs on PostgreSQL and Redis (CI's second pass)",
    ),
]

BOUND = 1.0  # seconds: the contract's, a correctness bound
POLL = 0.02
# Far above BOUND: a process that missed the forget message keeps accepting the token.
CACHE_SECONDS = "60"
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def processes(django_db_setup, tmp_path_factory):
    """Two uvicorn processes on the test database and REDIS_URL: their API roots (A, B)."""
    tmp = tmp_path_factory.mktemp("revocation")
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.base",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}",
        "API_THROTTLE_RATES": "off",
        "AUTH_CACHE_SECONDS": CACHE_SECONDS,
        "VAR_DIR": str(tmp),
    }
    webs, logs = [], []
    for name in ("a", "b"):
        port = free_port()
        log_path = tmp / f"web-{name}.log"
        with open(log_path, "wb") as log:
            webs.append(subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            ))
        logs.append(log_path)
    bases = [f"http://127.0.0.1:{web.args[-1]}" for web in webs]

    def up(base):
        try:
            return urllib.request.urlopen(base + "/healthz", timeout=2).status == 200
        except OSError:
            return False

    try:
        for base, web in zip(bases, webs, strict=True):
            eventually(lambda base=base, web=web: up(base) or web.poll() is not None, timeout=60)
            assert web.poll() is None, "a web process ended at start-up"
        yield bases
    finally:
        for web in webs:
            web.terminate()
        for web in webs:
            try:
                web.wait(timeout=15)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait()
        for log_path in logs:
            text = log_path.read_text(errors="replace")
            print(f"--- last lines of {log_path.name}:", *text.splitlines()[-40:], sep="\n")
            # The edge's paths must have been the edge's, not Django's fallback.
            assert "the edge answers nothing itself" not in text


def api(base: str) -> str:
    return base + "/api/v1"


def register(base: str, username: str) -> str:
    status, body = call(api(base), "POST", "/auth/register", body={"username": username, "password": PASSWORD})
    assert status == 201, body
    return body["token"]


def personal(base: str, first_party: str, expires_in: int | None = None) -> dict:
    """A personal access token with `read` (id, token, ...)."""
    asked = {"name": "script", "scopes": ["read"], **({"expires_in": expires_in} if expires_in else {})}
    status, body = call(api(base), "POST", "/me/tokens", first_party, asked)
    assert status == 201, body
    return body


def table_of(base: str, first_party: str) -> str:
    """A table the user hosts (and so sits at)."""
    status, body = call(api(base), "POST", "/tables", first_party, {"game": "president", "seats": 4})
    assert status == 201, body
    return body["id"]


def paths(table_id: str) -> list[str]:
    # Django/DRF's, and the edge's own (answered before Django's handler).
    return ["/me", f"/tables/{table_id}/state"]


def everywhere(bases, table_id, tokens):
    return [(base, path, token) for base in bases for path in paths(table_id) for token in tokens]


def accepted_everywhere(targets) -> None:
    """Each (process, path, token) answers 200: after this, each process has the tokens cached."""
    for base, path, token in targets:
        status, body = call(api(base), "GET", path, token)
        assert status == 200, (base, path, body)


def refused_within(targets, since: float, bound: float = BOUND) -> dict:
    """Poll every (process, path, token) every POLL seconds until each answers 401; fail when one
    still accepts `bound` seconds after `since` (time.monotonic), or answers anything but 200 or
    401. Then they stay refused. Returns each one's seconds to its first 401."""
    pending, refused = list(targets), {}
    give_up = since + bound + 1.0  # a little past the bound, to report how late a late one was
    while pending and time.monotonic() < give_up:
        for target in list(pending):
            base, path, token = target
            status, body = call(api(base), "GET", path, token, timeout=5)
            assert status in (200, 401), (target, status, body)
            if status == 401:
                refused[target] = time.monotonic() - since
                pending.remove(target)
        time.sleep(POLL)
    late = {target: seconds for target, seconds in refused.items() if seconds > bound}
    assert not pending and not late, (
        f"still accepted {bound} s after: {[(b, p) for b, p, _ in pending]}, "
        f"refused late: {[(b, p, round(s, 3)) for (b, p, _), s in late.items()]}"
    )
    for _ in range(5):  # and it stays so: no process takes it back into its cache
        for target in targets:
            base, path, token = target
            assert call(api(base), "GET", path, token)[0] == 401, target
        time.sleep(0.05)
    return refused


def test_a_revoked_token_is_refused_by_every_process_within_a_second(processes):
    a, b = processes
    first_party = register(a, "revoker")
    table_id = table_of(a, first_party)
    token = personal(a, first_party)
    targets = everywhere(processes, table_id, [token["token"]])
    accepted_everywhere(targets)
    accepted_everywhere(targets)  # from each process's cache now

    status, body = call(api(a), "DELETE", f"/me/tokens/{token['id']}", first_party)
    assert status == 204, body
    refused_within(targets, since=time.monotonic())
    # Only that token: the user's login still works on both processes.
    accepted_everywhere(everywhere(processes, table_id, [first_party]))


def admin_deactivate(base: str, user_id: int) -> None:
    """What an operator does: log in to the admin and run its `deactivate` action on the user."""
    # Registered through the server, so that its password hasher (not the test settings') made the hash.
    register(base, "operator")
    User.objects.filter(username="operator").update(is_staff=True, is_superuser=True)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def csrf_of(url: str) -> str:
        with opener.open(url, timeout=10) as response:
            page = response.read().decode()
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    def post(url: str, fields: dict) -> str:
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf_of(url), **fields}).encode()
        with opener.open(urllib.request.Request(url, data=data, method="POST"), timeout=10) as response:
            assert response.status == 200
            return response.geturl()

    landed = post(base + "/admin/login/", {"username": "operator", "password": PASSWORD, "next": "/admin/"})
    assert not landed.rstrip("/").endswith("/login"), "the operator could not log in"
    post(base + "/admin/accounts/user/", {"action": "deactivate", "_selected_action": str(user_id), "index": "0"})


def shell_deactivate(user_id: int) -> None:
    """What `manage.py shell` does: a save in another process (this one), on the same database
    and Redis; its post_save handler (accounts.tokens.connect) announces the change."""
    user = User.objects.get(pk=user_id)
    user.is_active = False
    user.save()


@pytest.mark.parametrize("how", ["admin action", "shell save"])
def test_a_deactivated_users_tokens_are_refused_by_every_process_within_a_second(processes, how):
    a, b = processes
    first_party = register(b, f"leaver{how.split()[0]}")
    table_id = table_of(b, first_party)
    token = personal(b, first_party)
    targets = everywhere(processes, table_id, [first_party, token["token"]])
    accepted_everywhere(targets)
    accepted_everywhere(targets)
    user_id = ApiToken.objects.get(pk=token["id"]).user_id

    if how == "admin action":
        admin_deactivate(a, user_id)
    else:
        shell_deactivate(user_id)
    since = time.monotonic()
    assert not User.objects.get(pk=user_id).is_active
    refused_within(targets, since=since)


def test_an_expired_token_is_refused_by_every_process_once_expired_though_cached(processes):
    a, b = processes
    first_party = register(a, "expirer")
    table_id = table_of(a, first_party)
    # The API's shortest lifetime is a minute: brought forward in the database, with no save
    # (so no forget message): only the expiry check of each cache hit can refuse it.
    token = personal(a, first_party, expires_in=60)
    expires_at = timezone.now() + timedelta(seconds=2)
    ApiToken.objects.filter(pk=token["id"]).update(expires_at=expires_at)
    targets = everywhere(processes, table_id, [token["token"]])
    accepted_everywhere(targets)  # cached by each process with the new expiry
    accepted_everywhere(targets)
    assert timezone.now() < expires_at, "too slow to warm the caches before the expiry"

    time.sleep(max(0.0, (expires_at - timezone.now()).total_seconds()))
    refused_within(targets, since=time.monotonic())
