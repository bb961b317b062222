"""Two people at one table in two browser contexts (issue 16): each sees only their own
hand, and one's move reaches the other's screen through the long-poll, with no reload."""

from __future__ import annotations

import re

from tests.web.conftest import create_table, register, screenshot, unique_name, wait_for_decision


def hand_of(page) -> list[str]:
    return [b.get_attribute("data-card") for b in page.locator("#hand button.card").all()]


def test_two_humans_see_their_own_hands_and_each_others_moves(new_page):
    alice, bob = new_page(), new_page(phone=True)
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    register(alice, alice_name)
    register(bob, bob_name)
    table_id = create_table(alice, "lopti", 2, {"bot_delay": 0})

    # Bob finds the table in the lobby's open tables and joins it.
    bob.goto("/play/")
    bob.locator(f'#open-tables a[href="/play/tables/{table_id}/"]').click()
    bob.get_by_role("button", name="Join").click()
    # Alice's page learns of it by itself, and offers the host's Start.
    alice.locator("#seats li", has_text=bob_name).wait_for()
    alice.get_by_role("button", name="Start").click()

    wait_for_decision(alice)
    wait_for_decision(bob)
    alice_hand, bob_hand = hand_of(alice), hand_of(bob)
    assert len(alice_hand) == len(bob_hand) == 3
    # Neither page holds the other's hand anywhere (face-up cards are public; hands are not).
    for card in alice_hand:
        assert bob.locator(f'[data-card="{card}"]').count() == 0
    for card in bob_hand:
        assert alice.locator(f'[data-card="{card}"]').count() == 0
    assert alice_name in alice.locator("#seats li").nth(0).inner_text()

    # Alice keeps her cards (L-3.3); Bob's screen shows it without him doing anything.
    alice.get_by_role("button", name="Keep (no swap)").click()
    bob.locator("#log li", has_text=re.compile(rf"{alice_name}\): Keep")).wait_for()
    bob.locator("#seats li", has_text=alice_name).filter(has_text="swap done").wait_for()
    bob.get_by_role("button", name="Keep (no swap)").click()
    alice.locator("#log li", has_text=re.compile(rf"{bob_name}\): Keep")).wait_for()

    # The first player plays a card; it appears on the other's pile.
    alice.wait_for_function("() => /phase play/.test(document.getElementById('status-line').textContent)")
    bob.wait_for_function("() => /phase play/.test(document.getElementById('status-line').textContent)")
    # L-2.4: the dealer, drawn from the table's seed, plays first.
    mover, watcher = (alice, bob) if alice.locator("#turn-line").inner_text() == "Your move" else (bob, alice)
    assert mover.locator("#turn-line").inner_text() == "Your move"
    card = mover.locator("#hand button.card:not([disabled])").first
    code = card.get_attribute("data-card")
    card.click()
    mover.locator("#send-selected").click()
    watcher.locator(f'#public [aria-label="play pile"] [data-card="{code}"]').wait_for()
    screenshot(alice, "two-players-alice")
    screenshot(bob, "two-players-bob-phone")
