"""Two people at one table in two browser contexts (docs/web-client.md): each sees only their own
hand, and one's move reaches the other's screen through the long-poll, with no reload."""

from __future__ import annotations

import re

from tests.web.conftest import create_table, register, screenshot, unique_name, version, wait_for_decision


def hand_of(page) -> list[str]:
    return [b.get_attribute("data-card") for b in page.locator("#hand button.card").all()]


def seat_two_humans(new_page):
    """Alice (desktop) hosts a two-seat Lopti table that Bob (phone) finds in the lobby and
    joins; Alice's page sees him arrive by itself and she starts. Returns both pages and names."""
    alice, bob = new_page(), new_page(phone=True)
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    register(alice, alice_name)
    register(bob, bob_name)
    table_id = create_table(alice, "lopti", 2, {"bot_delay": 0})
    bob.goto("/play/")
    bob.locator(f'#open-tables a[href="/play/tables/{table_id}/"]').click()
    bob.get_by_text("Waiting for players").wait_for()
    assert bob.locator("#you-panel").is_hidden()  # a spectator has no cards and no moves
    bob.get_by_role("button", name="Join").click()
    alice.locator("#seats li", has_text=bob_name).wait_for()
    alice.get_by_role("button", name="Start").click()
    return alice, bob, alice_name, bob_name


def test_two_humans_see_their_own_hands_and_each_others_moves(new_page):
    alice, bob, alice_name, bob_name = seat_two_humans(new_page)
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
    usable = mover.locator("#hand button.card:not([disabled])")
    codes = [c.get_attribute("data-card") for c in usable.all()]
    # A card that stays on the pile: a 3 is discarded (L-6.2) and a 10 clears it (L-6.4).
    code = next((c for c in codes if c[:-1] not in ("3", "10")), codes[0])
    mover.locator(f'#hand button[data-card="{code}"]').click()
    mover.locator("#send-selected").click()
    if code[:-1] not in ("3", "10"):
        watcher.locator(f'#public [aria-label="play pile"] [data-card="{code}"]').wait_for()
    else:
        watcher.locator("#log li", has_text=f"Play {code[:-1]}").wait_for()
    screenshot(alice, "two-players-alice")
    screenshot(bob, "two-players-bob-phone")


def test_rule_vote_ballot_and_duel_throws(new_page):
    alice, bob, alice_name, bob_name = seat_two_humans(new_page)
    # L-12.1: Alice proposes a base-rule change (her proposal is her yes ballot).
    alice.locator("#propose-form summary").click()
    alice.get_by_label("kind").select_option("base_rule")
    alice.get_by_label("base rule (base_rule)").select_option("draw_rule")
    alice.get_by_label("new value").fill("refill")
    # An update while Alice is typing (Bob's swap decision) leaves her field, its value and
    # her focus alone.
    bob.get_by_role("button", name="Keep (no swap)").click()
    alice.locator("#log li", has_text=re.compile(rf"{bob_name}\): Keep")).wait_for()
    assert alice.get_by_label("new value").input_value() == "refill"
    assert alice.evaluate("document.activeElement.id") == "pv-value"
    alice.get_by_label("applies").select_option("next_round")
    alice.get_by_role("button", name="Propose").click()
    bob.locator("#vote", has_text="base_rule draw_rule").wait_for()
    assert alice.get_by_role("group", name="Your ballot").count() == 0

    # Bob votes no: one yes of two members is exactly half, a tie (L-12.2), settled by a
    # duel between the proposer and the first no (L-12.3).
    bob.get_by_role("group", name="Your ballot").get_by_role("button", name="Vote no").click()
    alice.locator("#duel").wait_for()
    for wins in range(1, 17):
        alice.get_by_role("button", name="Throw rock").click()
        alice.locator("#duel", has_text="You threw rock.").wait_for()
        # Once Bob's page has the version after Alice's throw, it shows the finished pairs
        # only, never her waiting throw (L-12.4: both throw at once).
        bob.wait_for_function(
            "v => Number(/version (\\d+)/.exec(document.getElementById('status-line').textContent)[1]) >= v",
            arg=version(alice),
        )
        assert bob.locator("#duel .throws li").count() == wins - 1
        assert bob.locator("#duel .throws").inner_text().count("rock") == wins - 1
        assert "You threw" not in bob.locator("#duel").inner_text()
        bob.get_by_role("button", name="Throw scissors").click()
        alice.locator("#duel", has_text=f"Score {wins}–0").wait_for()
    alice.locator("#vote", has_text=re.compile(r"Status (decided|passed)")).wait_for()
    alice_seat = alice.locator("#seats li", has_text=alice_name).get_attribute("data-seat")
    bob.locator("#duel", has_text=f"winner seat {alice_seat} ({alice_name}").wait_for()
    assert alice.get_by_role("alert").is_hidden() and bob.get_by_role("alert").is_hidden()
    screenshot(bob, "lopti-duel-phone")
