"""Card codes and deterministic shuffling shared by every game.

Card codes follow the API: rank `2`-`10`, `J`, `Q`, `K`, `A` then suit `C`, `D`, `H`, `S`
(`10H`, `QS`); jokers are `RJ` and `BJ`. Games define their own rank order.
"""

from __future__ import annotations

import hashlib
import random

SUITS = ("C", "D", "H", "S")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKERS = ("RJ", "BJ")


def standard_deck(jokers: bool = False) -> list[str]:
    """The 52 cards (54 with jokers) in a fixed, documented order: by suit, then rank."""
    deck = [rank + suit for suit in SUITS for rank in RANKS]
    if jokers:
        deck.extend(JOKERS)
    return deck


def rank_of(card: str) -> str:
    """`10H` -> `10`; jokers are their own rank."""
    if card in JOKERS:
        return card
    return card[:-1]


def suit_of(card: str) -> str | None:
    """`10H` -> `H`; jokers have no suit."""
    if card in JOKERS:
        return None
    return card[-1]


def is_card(code: object, jokers: bool = False) -> bool:
    if not isinstance(code, str):
        return False
    if jokers and code in JOKERS:
        return True
    return len(code) >= 2 and code[-1] in SUITS and code[:-1] in RANKS


def deal_rng(seed: int, deal_no: int) -> random.Random:
    """The random source for one deal of a table: the same seed and deal number always give
    the same shuffle, and different deals of one table are independent."""
    digest = hashlib.sha256(f"cardgames:{seed}:{deal_no}".encode()).digest()
    return random.Random(digest)


def shuffled(deck: list[str], seed: int, deal_no: int) -> list[str]:
    cards = list(deck)
    deal_rng(seed, deal_no).shuffle(cards)
    return cards


def first_dealer(fixed: object, players: int, seed: int) -> int:
    """The first deal's dealer: the staff-fixed seat, checked, or drawn from the seed (the
    draw every game makes the same way, `deal_rng(seed, -1)`)."""
    from .base import InvalidMove

    if fixed is None:
        return deal_rng(seed, -1).randrange(players)
    if isinstance(fixed, bool) or not isinstance(fixed, int) or not 0 <= fixed < players:
        raise InvalidMove("first_dealer must be a seat", fields={"first_dealer": ["must be a seat number"]})
    return fixed


def check_fixed_deck(deck: object, expected: list[str]) -> list[str]:
    """Validate a staff-supplied deck: exactly the game's cards, each once. Returns a copy.

    Raises InvalidMove naming the problem (the deck is the staff member's own input, so
    echoing its cards reveals nothing)."""
    from .base import InvalidMove

    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        raise InvalidMove("deck must be a list of card codes", fields={"deck": ["must be a list of card codes"]})
    if sorted(deck) != sorted(expected):
        missing = sorted(set(expected) - set(deck))
        extra = sorted(set(deck) - set(expected))
        dupes = sorted({c for c in deck if deck.count(c) > 1})
        raise InvalidMove(
            "deck must hold every card of the game exactly once",
            fields={"deck": [f"missing {missing}, unknown {extra}, repeated {dupes}"]},
        )
    return list(deck)
