"""Lopti in the browser (docs/web-client.md): the swap phase, a play, taking the pile, and the round
winner's house-rule form (L-11.7)."""

from __future__ import annotations

import re

from tests.web.conftest import (
    add_bots_and_start,
    api_call,
    create_table,
    log_in,
    screenshot,
    wait_for_decision,
)


def test_lopti_round_with_a_swap_a_play_and_taking_the_pile(page, staff_user):
    log_in(page, staff_user.username)
    create_table(page, "lopti", 2, {"bot_delay": 0}, seed=11)
    add_bots_and_start(page, 1)

    # L-3.3 swap: one hand card and one of our face-up cards, picked by clicking both.
    wait_for_decision(page)
    hand_card = page.locator("#hand button.card:not([disabled])").first
    face_up = page.locator('[aria-label="Your face-up cards"] button.card:not([disabled])').first
    hand_code, face_code = hand_card.get_attribute("data-card"), face_up.get_attribute("data-card")
    hand_card.click()
    face_up.click()
    send = page.locator("#send-selected")
    assert send.inner_text().startswith("Swap ")
    send.click()
    # The two cards changed places: the face-up card is in the hand now, and the other way round.
    page.locator(f'#hand button[data-card="{face_code}"]').wait_for()
    page.locator(f'[aria-label="Your face-up cards"] button[data-card="{hand_code}"]').wait_for()
    page.locator("#log li", has_text=re.compile(r"you\): Swap")).wait_for()

    played = taken = False
    for _ in range(60):
        if (played and taken) or not wait_for_decision(page).startswith("Your move"):
            break
        take = page.get_by_role("button", name="Take the pile")
        cards = page.locator("#you-panel button.card:not([disabled])")
        if take.count() and (played or cards.count() == 0):
            # Voluntary once we have played (L-4.5 ruling), forced when nothing is playable.
            pile = page.locator('#public [aria-label="play pile"] .card').count()
            hand = page.locator("#hand button.card").count()
            take.click()
            page.wait_for_function(
                "n => document.querySelectorAll('#hand button.card').length === n", arg=hand + pile
            )
            taken = True
            continue
        before = page.locator("#status-line").inner_text()
        cards.first.click()
        if page.locator("#send-selected").is_enabled():
            page.locator("#send-selected").click()
        else:
            page.locator("#moves .shortlist button").first.click()
        page.wait_for_function("b => document.getElementById('status-line').textContent !== b", arg=before)
        played = True
    page.locator("#log li", has_text=re.compile(r"you\): Play")).first.wait_for()
    page.locator("#log li", has_text=re.compile(r"you\): Take the pile")).first.wait_for()
    assert played and taken
    assert page.get_by_role("alert").is_hidden()
    screenshot(page, "lopti")


def deck_for_a_quick_win() -> list[str]:
    """With first_dealer 0 and two seats, L-3.1 deals face-down cards from seat 1, then the
    hands; L-2.4 makes the dealer (seat 0) play first. Seat 0 holds a 10 and a face-down 5:
    the 10 clears (L-6.4), the extra play (L-7.2) turns the 5 onto the empty pile and seat 0
    is out, the round's winner."""
    from games.engine.cards import standard_deck

    top = ["6S", "5C", "4D", "10H"]  # face-down seat 1, seat 0; hand seat 1, seat 0
    return top + [c for c in standard_deck() if c not in top]


def test_lopti_winner_writes_a_house_rule_with_the_form(page, server, staff_user):
    options = {
        "bot_delay": 0, "rounds": 2, "hand_size": 1, "face_up_count": 0, "face_down_count": 1,
        "draw_rule": "none", "swaps_allowed": 0,
    }
    table = api_call(server, staff_user.token, "POST", "/tables", {
        "game": "lopti", "seats": 2, "options": options, "deck": deck_for_a_quick_win(), "first_dealer": 0,
    })
    api_call(server, staff_user.token, "POST", f"/tables/{table['id']}/bots", {"level": "easy"})
    api_call(server, staff_user.token, "POST", f"/tables/{table['id']}/start", {})
    log_in(page, staff_user.username)
    page.goto(f"/play/tables/{table['id']}/")

    wait_for_decision(page)
    page.locator('#hand button[data-card="10H"]').click()
    page.locator("#send-selected", has_text="Play 10").click()
    page.get_by_role("button", name="face-down card 1").click()
    page.locator("#send-selected", has_text="Play face-down card 1").click()

    # The server lists the winner's decision; the page answers it with the L-11.7 form.
    form = page.locator("#house-rule-form")
    form.wait_for()
    form.get_by_label("Description").fill("After an ace, the next player draws a card.")
    form.get_by_label("event").select_option("play")
    form.get_by_label("ranks").fill("A")
    form.locator("#hr-effect-0").select_option("draw")
    # `draw` needs a target (L-11.7): the server's refusal is shown as its message, and the
    # form keeps what was typed.
    form.get_by_role("button", name="Write the rule").click()
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "target" in alert.inner_text()
    assert form.get_by_label("Description").input_value() == "After an ace, the next player draws a card."
    form.locator("#hr-target-0").select_option("next_player")
    form.locator("#hr-count-0").fill("1")
    form.get_by_role("button", name="Write the rule").click()
    rule = page.locator("#house-rules li", has_text="After an ace, the next player draws a card.")
    rule.wait_for()
    assert "(active)" in rule.inner_text()
    page.locator("#status-line", has_text="round 2").wait_for()  # L-11.1: then the next deal
    assert form.count() == 0
    rules = api_call(server, staff_user.token, "GET", f"/tables/{table['id']}/house-rules")
    stored = rules[0]["rule"] if isinstance(rules, list) else rules["active"][0]["rule"]
    assert stored["when"] == {"event": "play", "timing": "after", "ranks": ["A"]}
    assert stored["then"] == [{"effect": "draw", "target": "next_player", "count": 1}]
    screenshot(page, "lopti-house-rule")
