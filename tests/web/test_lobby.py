"""Logging in, registering and the lobby (docs/web-client.md)."""

from __future__ import annotations

from tests.web.conftest import PASSWORD, create_table, log_in, register, screenshot, unique_name


def test_register_then_log_out_and_log_in_again(page):
    name = unique_name()
    register(page, name)
    assert page.evaluate("localStorage.getItem('cardgames.token')")  # the API's token, kept

    page.get_by_role("button", name="Log out").click()
    page.get_by_role("heading", name="Log in or register").wait_for()
    assert page.evaluate("localStorage.getItem('cardgames.token')") is None

    log_in(page, name)
    page.get_by_role("heading", name="Your tables").wait_for()
    page.reload()  # the token survives a reload: no second log-in
    page.get_by_text(f"Signed in as {name}").wait_for()


def test_bad_password_shows_the_apis_message(page, staff_user):
    page.goto("/play/")
    page.get_by_label("Username").fill(staff_user.username)
    page.get_by_label("Password").fill(PASSWORD + "x")
    page.get_by_role("button", name="Log in").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert alert.inner_text().strip()
    assert "HTTP" not in alert.inner_text()  # the API's `message`, not a status line
    assert page.evaluate("localStorage.getItem('cardgames.token')") is None


def test_options_form_comes_from_the_catalogue_and_the_table_is_listed(page):
    register(page, unique_name())
    page.get_by_label("Game", exact=True).select_option("lopti")
    # An option of the catalogue, with its description as help text.
    assert page.locator("#opt-hand_size").input_value() == "3"
    assert "L-13" in page.locator("#opt-hand_size-help").inner_text()
    table_id = create_table(page, "pitch", 3, {"target_score": 11, "low_to": "dealt"})
    page.get_by_text("Waiting for players").wait_for()
    page.goto("/play/")
    link = page.locator(f'#my-tables a[href="/play/tables/{table_id}/"]')
    link.wait_for()
    assert "pitch" in link.inner_text()
    page.locator(f'#open-tables a[href="/play/tables/{table_id}/"]').wait_for()
    screenshot(page, "lobby")
