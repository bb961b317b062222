"""Invitations and rematch in the web client (docs/web-client.md, "Invitations and rematch"): the
host invites by name from the table page, the invitee finds the invitation in the lobby (live,
through the account stream) and accepts or declines it; a player of a finished table opens its
rematch, and the others are offered the way there."""

from __future__ import annotations

import re

from tests.web.conftest import api_call, create_table, register, screenshot, unique_name
from tests.web.test_accessibility import assert_accessible

TABLE_URL = re.compile(r"/play/tables/([0-9a-f-]+)/$")


def token_of(page) -> str:
    return page.evaluate("localStorage.getItem('cardgames.token')")


def invite(page, username: str):
    page.get_by_label("Player's username").fill(username)
    page.get_by_role("button", name="Send invitation").click()


def invitation_items(page):
    return page.locator("#invitations li[data-invitation]")


def test_the_host_invites_and_the_invitee_accepts_from_the_lobby(new_page, server):
    alice, bob = new_page(), new_page(phone=True)
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    register(alice, alice_name)
    register(bob, bob_name)
    bob.locator("#invitations li", has_text="No invitations.").wait_for()  # the empty state

    # An invite-only table: not listed, joinable by the host's invitees only.
    alice.get_by_label("Invite only").check()
    table_id = create_table(alice, "lopti", 2, {"bot_delay": 0})
    alice.get_by_text("Invite only: the players the host invites may join.").wait_for()
    panel = alice.get_by_role("region", name="Invite a player")
    panel.wait_for()

    # The API's field error is shown at the field, not as a status line.
    invite(alice, unique_name("nobody"))
    field_error = alice.locator("#invite-username-error")
    field_error.filter(has_text="no such user").wait_for()
    assert alice.get_by_label("Player's username").get_attribute("aria-invalid") == "true"
    assert alice.locator("#error").is_hidden()
    invite(alice, alice_name)
    field_error.filter(has_text="you cannot invite yourself").wait_for()
    assert_accessible(alice)  # the form with its error

    invite(alice, bob_name.upper())  # usernames in any case
    alice.locator("#invite-result", has_text=f"Invited {bob_name}").wait_for()
    assert field_error.inner_text() == ""
    assert alice.get_by_label("Player's username").get_attribute("aria-invalid") is None
    # A second invitation while the first is pending: the API's 409 message, readably.
    invite(alice, bob_name)
    alice.get_by_role("alert").filter(has_text="already has a pending invitation").wait_for()

    # Bob's lobby shows it without a reload: game, who invited, the table.
    item = invitation_items(bob)
    item.wait_for()
    assert item.count() == 1
    text = item.inner_text()
    assert f"lopti from {alice_name}" in text and table_id[:8] in text
    assert bob.locator("#invitations-note").inner_text() == "1 pending invitation"
    assert item.locator(f'a[href="/play/tables/{table_id}/"]').count() == 1
    assert bob.locator(f'#open-tables a[href="/play/tables/{table_id}/"]').count() == 0  # invite-only
    assert_accessible(bob)
    screenshot(bob, "lobby-invitation-phone")

    item.get_by_role("button", name="Accept").click()
    bob.wait_for_url(f"**/play/tables/{table_id}/")
    bob.locator("#seats li", has_text=f"{bob_name}, you").wait_for()
    assert bob.get_by_role("region", name="Invite a player").is_hidden()  # not the host
    # Alice's page sees him seated and may start.
    alice.locator("#seats li", has_text=bob_name).wait_for()
    alice.get_by_role("button", name="Start").wait_for()
    [accepted] = api_call(server, token_of(bob), "GET", "/me/invitations")
    assert (accepted["table"], accepted["status"]) == (table_id, "accepted")

    # Once the table has started there is nothing to invite to.
    alice.get_by_role("button", name="Start").click()
    alice.locator("#status-line", has_text="Status active").wait_for()
    assert panel.is_hidden()
    bob.goto("/play/")
    bob.locator("#invitations li", has_text="No invitations.").wait_for()


def test_the_invitee_declines(new_page, server):
    alice, bob = new_page(), new_page()
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    register(alice, alice_name)
    register(bob, bob_name)
    table_id = create_table(alice, "president", 4, {"hands": 1, "bot_delay": 0})
    invite(alice, bob_name)
    alice.locator("#invite-result", has_text=f"Invited {bob_name}").wait_for()

    item = invitation_items(bob)
    item.filter(has_text=f"president from {alice_name}").wait_for()
    item.get_by_role("button", name="Decline").click()
    bob.locator("#invitations-note", has_text=f"Declined the invitation to president from {alice_name}").wait_for()
    bob.locator("#invitations li", has_text="No invitations.").wait_for()
    assert item.count() == 0
    assert bob.get_by_role("alert").is_hidden()
    [declined] = api_call(server, token_of(bob), "GET", "/me/invitations")
    assert (declined["table"], declined["status"]) == (table_id, "declined")
    # Bob was not seated; after a decline the host may invite again.
    alice.reload()
    assert alice.locator("#seats li", has_text=bob_name).count() == 0
    invite(alice, bob_name)
    alice.locator("#invite-result", has_text=f"Invited {bob_name}").wait_for()
    bob.reload()
    invitation_items(bob).wait_for()


def finished_table(server, host_token: str, player_token: str) -> str:
    """A President table (one hand) of two humans and two bots, started; both humans leave, the
    bots play their seats out (bot_delay 0, eager tasks) and it finishes. Returns its id."""
    table = api_call(server, host_token, "POST", "/tables", {
        "game": "president", "seats": 4, "options": {"hands": 1, "bot_delay": 0},
    })
    api_call(server, player_token, "POST", f"/tables/{table['id']}/join", {})
    for _ in range(2):
        api_call(server, host_token, "POST", f"/tables/{table['id']}/bots", {"level": "easy"})
    api_call(server, host_token, "POST", f"/tables/{table['id']}/start", {})
    api_call(server, host_token, "POST", f"/tables/{table['id']}/leave", {})
    api_call(server, player_token, "POST", f"/tables/{table['id']}/leave", {})
    summary = api_call(server, host_token, "GET", f"/tables/{table['id']}")
    assert summary["status"] == "finished", summary["status"]
    return table["id"]


def test_a_player_opens_the_rematch_and_the_other_is_shown_the_way(new_page, server):
    alice, bob, carol = new_page(), new_page(phone=True), new_page()
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    register(alice, alice_name)
    register(bob, bob_name)
    register(carol, unique_name("carol"))
    old_id = finished_table(server, token_of(alice), token_of(bob))

    for page in (alice, bob, carol):
        # The buttons come from the summary (GET /tables/{id}): its answer, then the state.
        with page.expect_response(lambda r: r.url.endswith(f"/api/v1/tables/{old_id}")):
            page.goto(f"/play/tables/{old_id}/")
        page.locator("#turn-line", has_text="Finished").wait_for()
    alice.get_by_role("button", name="Rematch").wait_for()
    bob.get_by_role("button", name="Rematch").wait_for()
    assert carol.get_by_role("button", name="Rematch").count() == 0  # a spectator did not play
    assert_accessible(alice)

    alice.get_by_role("button", name="Rematch").click()
    alice.wait_for_url(lambda url: TABLE_URL.search(url) and old_id not in url)
    new_id = TABLE_URL.search(alice.url).group(1)
    alice.get_by_text("Waiting for players").wait_for()
    assert alice_name in alice.locator("#seats li").nth(0).inner_text()  # the host in seat 0
    assert alice.locator("#seats li", has_text="bot:").count() == 2  # the bots seated again
    alice.get_by_role("region", name="Invite a player").wait_for()

    # The old table now names its rematch: the others' pages offer the way there, no reload.
    for page in (bob, carol):
        link = page.get_by_role("link", name="Go to the rematch")
        link.wait_for()
        assert link.get_attribute("href") == f"/play/tables/{new_id}/"
        assert page.get_by_role("button", name="Rematch").count() == 0
    screenshot(bob, "rematch-offered-phone")

    # Bob was invited by the rematch: his lobby says so, and accepting seats him.
    bob.goto("/play/")
    item = invitation_items(bob)
    item.filter(has_text=f"president rematch from {alice_name}").wait_for()
    item.get_by_role("button", name="Accept").click()
    bob.wait_for_url(f"**/play/tables/{new_id}/")
    bob.locator("#seats li", has_text=f"{bob_name}, you").wait_for()
    alice.get_by_role("button", name="Start").wait_for()  # every seat filled

    # The old table's page, reloaded, still leads to the same rematch.
    alice.goto(f"/play/tables/{old_id}/")
    link = alice.get_by_role("link", name="Go to the rematch")
    link.wait_for()
    assert link.get_attribute("href") == f"/play/tables/{new_id}/"
    for page in (alice, bob, carol):
        assert page.get_by_role("alert").is_hidden()
