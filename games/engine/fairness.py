"""Fair deals (api.md, "Fair deals, export and replay"; docs/fair-deals.md): each deal's secret,
its commitment, and the shuffle computed from it. Pure Python, standard library only, so the
standalone verifier (tools/verify_export.py) runs the very same code as the service.

- deal secret  = HMAC-SHA256(key = the table seed in decimal ASCII, message = the deal number
  in decimal ASCII): 32 bytes;
- commitment   = SHA-256 of the secret, in lower-case hex;
- the stream   = SHA-256(secret || label || counter as 8 bytes big-endian), counter 0, 1, ...,
  read as 32-bit big-endian words; `below(n)` rejects words >= the largest multiple of n;
- the shuffle  = Fisher-Yates from the last position down, on the game's deck in its canonical
  order, with the stream labelled b"shuffle"; card 0 of the result is dealt first;
- a dealer draw (the first dealer, a Lopti session's) = `below(players)` on the stream of the
  deal's secret labelled b"dealer".

A state made by this algorithm holds a `fairness` dict (version `shuffle: 1`); states stored
before it have none and keep the old generator (cards.shuffled), so they replay as they did.
The table seed stays in the state's `seed` and never reaches a view; a replay from an export
has no seed: its `fairness.replay` lists the revealed secrets instead.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from . import cards
from .base import EngineError

VERSION = 1
SHUFFLE_LABEL = b"shuffle"
DEALER_LABEL = b"dealer"


class SecretMissing(EngineError):
    """A replay reached a deal whose secret the document does not reveal."""

    code = "invalid"

    def __init__(self, deal: int):
        super().__init__(f"deal {deal} has no secret")
        self.deal = deal


# --- the algorithm --------------------------------------------------------------------------
def deal_secret(seed: int, deal_no: int) -> bytes:
    return hmac.new(str(seed).encode("ascii"), str(deal_no).encode("ascii"), hashlib.sha256).digest()


def commitment(secret: bytes) -> str:
    return hashlib.sha256(secret).hexdigest()


class Stream:
    """SHA-256 in counter mode over `secret || label`: unbiased integers by rejection."""

    def __init__(self, secret: bytes, label: bytes):
        self._prefix = secret + label
        self._counter = 0
        self._words: list[int] = []

    def word(self) -> int:
        if not self._words:
            block = hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            # Read in order: the block's first four bytes are the first word.
            self._words = [int.from_bytes(block[i : i + 4], "big") for i in range(28, -1, -4)]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            w = self.word()
            if w < limit:
                return w % n


def shuffle(deck: list[str], secret: bytes) -> list[str]:
    """Fisher-Yates: for i from len-1 down to 1, swap positions i and below(i + 1)."""
    out = list(deck)
    stream = Stream(secret, SHUFFLE_LABEL)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def draw_dealer(secret: bytes, players: int) -> int:
    return Stream(secret, DEALER_LABEL).below(players)


# --- the engines' side -------------------------------------------------------------------------
def setup(seed: int | None, shuffle_version: int, replay: list[str] | None) -> dict | None:
    """The `fairness` dict of a new game, or None for the old generator (shuffle 0). `replay`:
    the revealed secrets (hex, by deal number) when replaying an export without its seed."""
    if shuffle_version == 0:
        if replay is not None or seed is None:
            raise EngineError("shuffle 0 needs the table seed")
        return None
    if shuffle_version != VERSION:
        raise EngineError(f"unknown shuffle version {shuffle_version}")
    fair: dict = {"shuffle": VERSION, "deal": 0, "commitment": None, "fixed_deck": False, "revealed": False,
                  "drawn": 0, "hands": None}
    if replay is not None:
        fair["replay"] = list(replay)
    elif seed is None:
        raise EngineError("a game needs a seed or revealed secrets")
    return fair


def _secret(state: dict, deal_no: int) -> bytes:
    fair = state["fairness"]
    if "replay" in fair:
        known = fair["replay"]
        if not 0 <= deal_no < len(known) or not isinstance(known[deal_no], str):
            raise SecretMissing(deal_no)
        try:
            return bytes.fromhex(known[deal_no])
        except ValueError as exc:
            raise SecretMissing(deal_no) from exc
    return deal_secret(state["seed"], deal_no)


def first_dealer(state: dict, fixed: object, players: int) -> int:
    """The first deal's dealer: staff-fixed (checked), else drawn from deal 0's secret (shuffle 1)
    or from the seed (shuffle 0)."""
    if fixed is not None or state.get("fairness") is None:
        return cards.first_dealer(fixed, players, state["seed"])
    return draw_dealer(_secret(state, 0), players)


def session_dealer(state: dict, players: int) -> int:
    """Lopti L-2.3: a new session's first dealer, drawn from the secret of the session's first
    deal (the next deal number); shuffle 0 drew it from (seed, -session)."""
    if state.get("fairness") is None:
        return cards.deal_rng(state["seed"], -state["session"]).randrange(players)
    deal_no = state["deal_number"] + 1
    state["fairness"] = {**state["fairness"], "drawn": max(state["fairness"]["drawn"], deal_no)}
    return draw_dealer(_secret(state, deal_no), players)


def deal_deck(state: dict, deck: list[str], deal_no: int, fixed: list[str] | None = None) -> tuple[list[str], dict]:
    """The cards of deal `deal_no` in dealing order (card 0 first) and the fields its `deal`
    event carries (`deal_commitment`, or `fixed_deck: true`). Records the deal in the state's
    `fairness` (replaced, never edited: engines share nested dicts with the state they copy)."""
    fair = state.get("fairness")
    if fair is None:
        return (list(fixed) if fixed is not None else cards.shuffled(deck, state["seed"], deal_no)), {}
    drawn = max(fair["drawn"], deal_no)
    if fixed is not None:
        state["fairness"] = {**fair, "deal": deal_no, "commitment": None, "fixed_deck": True, "revealed": False,
                             "drawn": drawn, "hands": None}
        return list(fixed), {"deal": deal_no, "fixed_deck": True}
    secret = _secret(state, deal_no)
    committed = commitment(secret)
    state["fairness"] = {**fair, "deal": deal_no, "commitment": committed, "fixed_deck": False, "revealed": False,
                         "drawn": drawn, "hands": None}
    return shuffle(deck, secret), {"deal": deal_no, "deal_commitment": committed}


def record_hands(state: dict, layout: dict) -> None:
    """Keep the deal's starting layout (hands as dealt, by seat) for the export; never shown.
    Kept as one JSON string: the bots' search clones the state at every step, and Lopti's step
    took 15% longer cloning the layout's nested lists (bench/fair_deals.py)."""
    if state.get("fairness") is not None:
        state["fairness"] = {**state["fairness"], "hands": json.dumps(layout, separators=(",", ":"))}


def dealt_hands(state: dict) -> dict | None:
    """The current deal's starting layout (`record_hands`)."""
    hands = state["fairness"]["hands"]
    return None if hands is None else json.loads(hands)


def reveal(state: dict) -> list[dict]:
    """The `deal_revealed` event when the current deal's hand or round is over ([] for a fixed
    deck, an old table, or a deal already revealed)."""
    fair = state.get("fairness")
    if fair is None or fair["fixed_deck"] or fair["revealed"]:
        return []
    state["fairness"] = {**fair, "revealed": True}
    secret = _secret(state, fair["deal"])
    return [{"type": "deal_revealed", "deal": fair["deal"], "deal_secret": secret.hex(),
             "deal_commitment": fair["commitment"]}]


def public(state: dict) -> dict:
    """What every view shows of the current deal: its number and commitment, or
    `fixed_deck: true`. Tables dealt before fair deals show a null commitment."""
    fair = state.get("fairness")
    if fair is None:
        return {"deal_commitment": None}
    return {"deal": fair["deal"], "deal_commitment": fair["commitment"], "fixed_deck": fair["fixed_deck"]}


def from_view(public_view: dict) -> dict | None:
    """`fairness` for a determinized state, from the view's public facts (the sampled state's
    later deals come from its sampled seed)."""
    if "deal" not in public_view:
        return None
    deal = public_view["deal"]
    return {"shuffle": VERSION, "deal": deal, "commitment": public_view["deal_commitment"],
            "fixed_deck": public_view["fixed_deck"], "revealed": False, "drawn": deal, "hands": None}
