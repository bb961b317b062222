"""Browser tests of the web client at /play/ (docs/web-client.md): Playwright for Python driving
Debian's Chromium against the project's ASGI app under uvicorn (PlayServer). Celery runs
eagerly in tests, so a bot seat moves inside the request that made it due (bot_delay 0) and
the page sees it at once. (Checked by hand too: `manage.py serve` with its real worker and
the default bot_delay plays a President hand to its end through the page.)

Skipped with a clear message when Chromium (or Playwright) is missing; `.ci/run` installs
Chromium first. Screenshots go to $PLAY_SCREENSHOT_DIR (default var/screenshots) for CI to
keep as artifacts."""

from __future__ import annotations

import itertools
import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(os.environ.get("PLAY_SCREENSHOT_DIR", ROOT / "var" / "screenshots"))
PASSWORD = "correct horse battery"
TIMEOUT_MS = 20_000

_names = itertools.count()


def _skip_reason() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "browser tests need Playwright: pip install -e '.[dev]'"
    if not os.access(CHROMIUM, os.X_OK):
        return f"browser tests need Chromium at {CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _skip_reason()
    if reason is None:
        return
    marker = pytest.mark.skip(reason=reason)
    for item in items:
        if "tests/web/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(marker)


class PlayServer:
    """The project's ASGI app under uvicorn in a thread of the test process, on a free port:
    the same server as `make run`, so long-polls are coroutines that end when the browser
    goes away (Django cancels a view on disconnect; a WSGI live server would hold a thread
    per poll past the test). It shares the test database and the eager Celery of the test
    settings: a bot seat moves inside the request that made it due."""

    def __init__(self):
        import socket
        import threading

        import uvicorn

        from config.asgi import application

        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        config = uvicorn.Config(application, log_level="warning", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            self.thread.join(0.05)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)
        self.socket.close()


@pytest.fixture(scope="session")
def play_server(django_db_setup, django_db_blocker):
    server = PlayServer()
    yield server
    server.stop()
    _close_server_connections(django_db_blocker)


def _close_server_connections(django_db_blocker):
    """The server ran requests in per-request threads (asgiref's ThreadSensitiveContext);
    some leave a database connection open after their thread is gone, and PostgreSQL will
    not drop the test database while one is. They belong to this process's stopped server,
    on this process's own test database, so end them."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return  # SQLite's test database is a file: open handles do not stop its removal
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    connection.close()


@pytest.fixture
def server(play_server, transactional_db):
    """The running server for this test, with a database the server's threads can reach
    (pytest-django's blocker is lifted for the test) and that is emptied after it."""
    return play_server


@pytest.fixture
def browser(server, monkeypatch):
    """One Chromium per test. Playwright's sync API keeps an asyncio loop in the test's
    thread, which Django takes for an async context and refuses ORM calls in (set-up,
    teardown's flush). The loop serves only Playwright, so the check is lifted for the
    test's duration only (monkeypatch restores it), never for the rest of the suite."""
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser, server, request):
    """new_page(phone=False) -> a page in its own browser context (its own localStorage, so
    one context is one person); `phone` gives a phone-sized viewport."""
    contexts = []
    script_errors = []

    def make(phone: bool = False):
        viewport = {"width": 390, "height": 844} if phone else {"width": 1200, "height": 900}
        context = browser.new_context(base_url=server.url, viewport=viewport)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        # An uncaught exception in the client's JavaScript fails the test, even when the
        # page happened to look right.
        page.on("pageerror", lambda error: script_errors.append(str(error)))
        return page

    yield make
    for n, context in enumerate(contexts):
        if getattr(request.node, "failed", False):
            for m, open_page in enumerate(context.pages):
                screenshot(open_page, f"failed-{request.node.name}-{n}-{m}")
        context.close()
    assert script_errors == []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call" and report.failed:
        item.failed = True  # read by new_page's teardown: a screenshot of every open page
    return report


@pytest.fixture
def page(new_page):
    return new_page()


@pytest.fixture
def staff_user(transactional_db):
    """A staff user with a token (staff may fix a table's seed through the API)."""
    from accounts.models import User
    from tests.tokens import first_party_token

    user = User.objects.create_user(username=f"staff{next(_names)}", password=PASSWORD, is_staff=True)
    user.token = first_party_token(user)
    return user


def unique_name(prefix: str = "player") -> str:
    return f"{prefix}{os.getpid()}x{next(_names)}"


def _authenticate(page, button: str, username: str, password: str):
    page.goto("/play/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name=button).click()
    page.get_by_text(f"Signed in as {username}").wait_for()  # the lobby shows once the token is kept


def register(page, username: str, password: str = PASSWORD):
    _authenticate(page, "Register", username, password)


def log_in(page, username: str, password: str = PASSWORD):
    _authenticate(page, "Log in", username, password)


def api_call(server, token: str, method: str, path: str, body: dict | None = None) -> dict:
    """A set-up call to the live server's API (the test's own HTTP client, not the page's)."""
    import json
    import urllib.request

    request = urllib.request.Request(
        f"{server.url}/api/v1{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")


def create_table(page, game: str, seats: int, options: dict[str, object], seed: int | None = None):
    """Fill the lobby's new-table form (options rendered from the catalogue) and submit it;
    returns the new table's id from the page's URL. `seed` needs a staff user."""
    page.get_by_label("Game", exact=True).select_option(game)
    page.get_by_label("Seats").fill(str(seats))
    if seed is not None:
        page.get_by_label("Seed").fill(str(seed))
    for name, value in options.items():
        field = page.locator(f"#opt-{name}")
        if isinstance(value, bool):
            field.set_checked(value)
        elif field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value=str(value) if not isinstance(value, str) else f'"{value}"')
        else:
            field.fill(str(value))
    page.get_by_role("button", name="Create table").click()
    page.wait_for_url(re.compile(r"/play/tables/[0-9a-f-]+/$"))
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def add_bots_and_start(page, count: int, level: str = "easy"):
    for n in range(count):
        page.get_by_label("Bot level").select_option(level)
        page.get_by_role("button", name="Add bot").click()
        # Wait for the seat to fill before the next click (the button is re-rendered).
        page.locator("#seats li", has_text="bot:").nth(n).wait_for()
    page.get_by_role("button", name="Start").click()
    page.locator("#status-line", has_text="Status active").wait_for()


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_for_decision(page):
    """Until it is the viewer's move or the table finished; returns the turn line's text."""
    page.wait_for_function(
        "() => /^(Your move|Finished)/.test(document.getElementById('turn-line').textContent)"
    )
    return page.locator("#turn-line").inner_text()


def version(page) -> int:
    return int(re.search(r"version (\d+)", page.locator("#status-line").inner_text()).group(1))
