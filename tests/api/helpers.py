"""Small helpers shared by the API tests."""

from __future__ import annotations

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]


def president_hands_deck() -> tuple[list[list[str]], list[str]]:
    """Four hands of 13 (seat 0 lowest, seat 3 highest) and the deck that deals them with
    `first_dealer=3` (card 0 goes to seat 0, card 1 to seat 1, ...)."""
    ordered = [r + s for r in RANKS for s in "CDHS"]
    hands = [ordered[i * 13:(i + 1) * 13] for i in range(4)]
    deck = [hands[i % 4][i // 4] for i in range(52)]
    return hands, deck


def seat_users(client, table_id, users) -> dict[int, object]:
    """Current seat -> user, from the table summary."""
    by_id = {u.pk: u for u in users}
    summary = client.get(f"/api/v1/tables/{table_id}").json()
    return {s["seat"]: by_id[s["player"]["id"]] for s in summary["seats"] if s["player"]}


def move(user, table_id, body, **headers):
    return user.api.post(f"/api/v1/tables/{table_id}/moves", body, format="json", **headers)
