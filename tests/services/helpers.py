"""Helpers shared by the service tests."""

import random


def pick(legal: list[dict], rng: random.Random) -> dict:
    """A random legal move, but a cautious bidder in Pitch: with uniformly random bids the
    pitcher is set back so often that a game can run for hundreds of hands."""
    passes = [m for m in legal if m.get("type") == "bid" and m["value"] == 0]
    if passes and rng.random() < 0.7:
        return passes[0]
    return rng.choice(legal)
