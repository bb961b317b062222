"""A card-table state of about 2 KB of JSON, like a seated player's view of a President table:
the player's hand, the other seats' public facts, the pile, the last moves and the legal moves."""

from __future__ import annotations

import random

SUITS = "CDHS"
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
DECK = [rank + suit for rank in RANKS for suit in SUITS]
RECENT = 12  # moves kept in the state


def initial_state(game_id: int) -> dict:
    deck = DECK[:]
    random.Random(game_id).shuffle(deck)
    hand = sorted(deck[:13], key=DECK.index)
    return {
        "table": game_id,
        "game": "president",
        "version": 0,
        "status": "active",
        "phase": "play",
        "turn": 0,
        "round": 1,
        "you": {"seat": 0, "hand": hand, "role": None},
        "seats": [
            {"seat": s, "player": {"id": game_id * 4 + s, "username": f"floor-player-{game_id}-{s}"},
             "cards": 13, "finished": None, "away": False}
            for s in range(4)
        ],
        "public": {"pile": [[card] for card in deck[13:17]], "passes": 0, "revolution": False},
        "recent": [{"seq": -i, "seat": i % 4, "type": "play", "cards": [deck[20 + i]]} for i in range(RECENT)],
        "legal_moves": [{"type": "play", "cards": [card]} for card in hand] + [{"type": "pass"}],
        "scores": [0, 0, 0, 0],
    }


def after_move(state: dict, move: dict) -> dict:
    """The state one move later, the same size: version + 1, the next seat's turn, the move
    logged in `recent` (the oldest entry dropped)."""
    state["version"] += 1
    state["turn"] = (state["turn"] + 1) % 4
    entry = {"seq": state["version"], "seat": state["turn"], "type": move["type"], "cards": move.get("cards", [])}
    state["recent"] = [entry, *state["recent"][: RECENT - 1]]
    return state
