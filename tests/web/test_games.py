"""Each game played in the browser by clicking, against bots (docs/web-client.md). Every move is made
through the page: cards are selected by clicking them and the move is one the server listed."""

from __future__ import annotations

import re

from tests.web.conftest import (
    add_bots_and_start,
    api_call,
    create_table,
    log_in,
    register,
    screenshot,
    unique_name,
    wait_for_decision,
)


def click_some_move(page):
    """A player's choice by clicking: the first usable card, then the move that uses exactly
    the selected cards, else the first listed move that uses it, else a move without cards
    (pass, bid ...)."""
    cards = page.locator("#you-panel button.card:not([disabled])")
    if cards.count():
        cards.first.click()
        send = page.locator("#send-selected")
        if send.is_enabled():
            send.click()
        else:
            page.locator("#moves .shortlist button").first.click()
    else:
        page.locator("#moves button:not(#send-selected)").first.click()


def test_president_hand_played_to_its_end_by_clicking(page):
    register(page, unique_name())
    create_table(page, "president", 4, {"hands": 1, "bot_delay": 0})
    add_bots_and_start(page, 3)
    assert page.locator("#hand button.card").count() == 13  # 52 cards, four hands
    screenshotted = False
    moves = 0
    while wait_for_decision(page).startswith("Your move"):
        if not screenshotted and page.locator("#public", has_text="Standing play: seat").count():
            screenshot(page, "president")  # a standing play on the table, your hand below
            screenshotted = True
        before = page.locator("#status-line").inner_text()
        click_some_move(page)
        page.wait_for_function(
            "before => document.getElementById('status-line').textContent !== before", arg=before
        )
        moves += 1
        assert moves < 200
    assert page.get_by_role("alert").is_hidden()  # no move was refused
    assert "Status finished" in page.locator("#status-line").inner_text()
    assert re.search(r"Finished\. Winners?: seat", page.locator("#turn-line").inner_text())
    # Every player's finish is in the public table and the log.
    assert page.locator("#public", has_text="Finished: seat").count() == 1
    assert page.locator("#log li").count() > moves
    if not screenshotted:
        screenshot(page, "president")


def test_pitch_hand_with_a_bid(page, staff_user):
    # A staff seed fixes the deal and the first dealer (bots still choose at random).
    log_in(page, staff_user.username)
    create_table(page, "pitch", 3, {"bot_delay": 0}, seed=7)
    add_bots_and_start(page, 2)
    assert page.locator("#hand button.card").count() == 6  # six cards each
    # The auction comes round to us: bid the highest value the server lists.
    wait_for_decision(page)
    bids = page.locator("#moves button", has_text=re.compile(r"^Bid \d$"))
    if bids.count():
        bids.last.click()
    else:  # the dealer facing a bid of 4 may only pass or pitch
        page.locator("#moves button", has_text="Pass").click()
    page.locator("#log li", has_text=re.compile(r"seat 0 \(.*you\): (Bid \d|Pass)")).wait_for()
    page.locator("#public", has_text="Trump: ").wait_for()
    # Play cards by clicking until the hand is scored and the next is dealt (or the game ends).
    shot = False
    while wait_for_decision(page).startswith("Your move"):
        if "round 1" not in page.locator("#status-line").inner_text():
            break
        if not shot and page.locator("#public", has_text=re.compile(r"Trump: [♣♦♥♠]")).count():
            screenshot(page, "pitch")
            shot = True
        before = page.locator("#status-line").inner_text()
        click_some_move(page)
        page.wait_for_function("before => document.getElementById('status-line').textContent !== before", arg=before)
    assert page.get_by_role("alert").is_hidden()
    # The hand was played out and scored: the next hand is dealt, or the game is over.
    assert re.search(r"round 2|Status finished", page.locator("#status-line").inner_text())
    page.locator("#public", has_text=re.compile(r"Trump: (not yet|[♣♦♥♠])")).wait_for()


def tab_to(page, selector: str, limit: int = 60):
    """Press Tab until the focused element matches `selector`; return it."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return page.locator(":focus")
    raise AssertionError(f"Tab never reached {selector}")


def test_a_move_by_keyboard_alone_with_visible_focus(page):
    register(page, unique_name())
    create_table(page, "president", 4, {"hands": 1, "bot_delay": 0})
    add_bots_and_start(page, 3)
    # The deal is random: when a bot's lead leaves only a pass, pass (by keyboard too) until a
    # card of ours is playable. (This test failed once in a loop of runs when it tabbed for a
    # card while only a pass was legal.)
    for _ in range(20):
        assert wait_for_decision(page).startswith("Your move"), "the hand ended before a card was playable"
        if page.locator("#hand button.card:not([disabled])").count():
            break
        before = page.locator("#status-line").inner_text()
        tab_to(page, "#moves button:not(#send-selected)")
        page.keyboard.press("Enter")
        page.wait_for_function("before => document.getElementById('status-line').textContent !== before", arg=before)
    card = tab_to(page, "#hand button.card:not([disabled])")
    # The focused control is outlined (:focus-visible), not only recoloured.
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    code = card.get_attribute("data-card")
    page.keyboard.press("Space")
    # The page re-rendered for the selection; focus stayed on the same card.
    selected = page.locator(f'#hand button[data-card="{code}"]')
    assert selected.get_attribute("aria-pressed") == "true"
    assert page.evaluate("document.activeElement.dataset.card") == code
    if page.locator("#send-selected").is_enabled():
        tab_to(page, "#send-selected")
    else:  # this card is only legal with others: a shortlisted move that uses it
        tab_to(page, "#moves .shortlist button")
    page.keyboard.press("Enter")
    page.locator("#log li", has_text=re.compile(rf"you\): Play .*{re.escape(code[:-1])}")).wait_for()
    assert page.get_by_role("alert").is_hidden()


def test_president_exchange_the_president_gives_a_card_back(page, server, staff_user):
    """Seat 0 is dealt the 13 highest cards, so it wins every trick of hand 1 and is
    President; in hand 2 the Scum's highest card comes to it (P-3.1) and it gives one back
    by clicking."""
    from tests.api.helpers import president_hands_deck

    hands, _ = president_hands_deck()
    top = [hands[3 - i % 4][i // 4] for i in range(52)]  # seat 0 gets the highest hand
    table = api_call(server, staff_user.token, "POST", "/tables", {
        "game": "president", "seats": 4, "options": {"hands": 2, "exchange": "one", "bot_delay": 0},
        "deck": top, "first_dealer": 3, "seed": 5,
    })
    for _ in range(3):
        api_call(server, staff_user.token, "POST", f"/tables/{table['id']}/bots", {"level": "easy"})
    api_call(server, staff_user.token, "POST", f"/tables/{table['id']}/start", {})
    log_in(page, staff_user.username)
    page.goto(f"/play/tables/{table['id']}/")
    wait_for_decision(page)  # the first state is rendered
    assert sorted(hand_codes(page)) == sorted(hands[3])

    for _ in range(40):  # hand 1: play until the exchange of hand 2 asks us to give
        wait_for_decision(page)
        if page.locator("#you-panel", has_text="Card exchange").count():
            break
        before = page.locator("#status-line").inner_text()
        click_some_move(page)
        page.wait_for_function("b => document.getElementById('status-line').textContent !== b", arg=before)
    assert "round 2" in page.locator("#status-line").inner_text()
    assert "· president ·" in page.locator("#seats li").nth(0).inner_text()  # P-2 roles
    received = page.locator('[aria-label="cards received"] .card')
    assert received.count() == 1
    card = page.locator("#hand button.card:not([disabled])").first
    code = card.get_attribute("data-card")
    card.click()
    assert page.locator("#send-selected").inner_text().startswith("Give ")
    page.locator("#send-selected").click()
    page.locator('[aria-label="cards given"] .card').wait_for()
    assert page.locator('[aria-label="cards given"] .card').get_attribute("data-card") == code
    assert code not in hand_codes(page)
    page.locator("#log li", has_text=re.compile(r"you\)(?: \(\w+\))?: Give")).wait_for()
    assert page.get_by_role("alert").is_hidden()
    screenshot(page, "president-exchange")


def hand_codes(page) -> list[str]:
    return [b.get_attribute("data-card") for b in page.locator("#hand button.card").all()]
