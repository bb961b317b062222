"""The client follows a table through the push stream (`GET /tables/{id}/events`, api.md
"Push"), and falls back to the `?wait=` long-poll when it may open no more streams (429)."""

from __future__ import annotations

import re

from tests.web.conftest import add_bots_and_start, create_table, register, unique_name
from tests.web.test_two_players import seat_two_humans


def follow(page):
    """Record the page's state requests: streams and long-polls."""
    seen = {"events": 0, "wait": 0}

    def on_request(request):
        if re.search(r"/tables/[^/]+/events$", request.url):
            seen["events"] += 1
        elif re.search(r"/tables/[^/]+/state\?wait=", request.url):
            seen["wait"] += 1

    page.on("request", on_request)
    return seen


def test_the_second_screen_updates_through_the_event_stream(new_page):
    alice, bob, alice_name, _ = seat_two_humans(new_page)
    seen = follow(bob)
    bob.reload()
    bob.wait_for_function("() => /phase swap/.test(document.getElementById('status-line').textContent)")
    alice.get_by_role("button", name="Keep (no swap)").click()
    bob.locator("#log li", has_text=re.compile(rf"{alice_name}\): Keep")).wait_for()
    assert seen["events"] >= 1 and seen["wait"] == 0


def test_with_no_stream_left_the_client_long_polls(new_page, settings):
    settings.SSE_MAX_STREAMS_PER_USER = 0
    page = new_page()
    seen = follow(page)
    register(page, unique_name())
    create_table(page, "president", 4, {"hands": 1, "bot_delay": 0})
    # Seats filling and the start reach the page through the long-poll.
    add_bots_and_start(page, 3)
    assert page.locator("#hand button.card").count() == 13
    assert seen["events"] >= 1 and seen["wait"] >= 1
