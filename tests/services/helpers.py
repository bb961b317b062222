"""Helpers shared by the service tests."""

import random


def pick(legal: list[dict], rng: random.Random) -> dict:
    """A random legal move, but a cautious bidder in Pitch and a reluctant taker in Lopti: with uniformly random bids and
    pitches the pitcher is set back so often that scores drift below zero and a game can run
    for hundreds of hands. Here a Pitch player passes or bids low, then plays at random."""
    bids = sorted((m for m in legal if m.get("type") == "bid"), key=lambda m: m["value"])
    if bids:
        if bids[0]["value"] == 0 and rng.random() < 0.8:
            return bids[0]
        return rng.choice([m for m in bids if m["value"] > 0][:2] or bids)
    # Likewise a random Lopti player who takes the pile whenever it may keeps the round going
    # for thousands of moves: take it only now and then unless there is nothing else.
    others = [m for m in legal if m.get("type") != "take_pile"]
    if others and len(others) < len(legal) and rng.random() < 0.9:
        return rng.choice(others)
    return rng.choice(legal)
