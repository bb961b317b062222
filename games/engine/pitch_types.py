"""What Auction Pitch shows clients (games.engine.types): the view, the moves, the events and the
move log of `games/engine/pitch.py`, as JSON Schema, with the rule ids of `docs/rules/pitch.md`.

Checked against the engine by tests/engine/test_types.py (every view, legal move, event and log
entry of random tables, with every object closed). Pure data, no Django, like the engine."""

from __future__ import annotations

from .types import BOOL, CARD, COUNT, HEX64, SEAT, GameTypes, array, cards, enum, nullable, obj, ref

MAX_SEATS = 7
HAND_SIZE = 6

SUIT = enum("C", "D", "H", "S", description="a suit letter: clubs, diamonds, hearts, spades")
BID_VALUE = {"type": "integer", "minimum": 0, "maximum": 4, "description": "0 is a pass; 1 to 4 a bid (A-3.1)"}
CONTRACT = {"type": "integer", "minimum": 1, "maximum": 4, "description": "the winning bid, the points the pitcher must make (A-3.4)"}
HAND_NO = {"type": "integer", "minimum": 1, "description": "the hand's number, from 1"}
SCORE = {"type": "integer", "description": "a score; may be negative after a set-back (A-6.1)"}
PER_SEAT_SCORES = array(SCORE, minItems=3, maxItems=MAX_SEATS, description="per seat (with partnerships, the side's total, A-9.5)")
SIDE = {"type": "integer", "minimum": 0, "maximum": 1, "description": "a side with partnerships (A-9.1): 0 is seats 0 and 2, 1 is seats 1 and 3"}
TRICKS_WON = {"type": "integer", "minimum": 0, "maximum": HAND_SIZE}
TRICK_NO = {"type": "integer", "minimum": 1, "maximum": HAND_SIZE, "description": "the trick's number in the hand, from 1"}

# --- named shapes ----------------------------------------------------------------------------
BID = obj(
    {
        "seat": SEAT,
        "value": BID_VALUE,
        "kind": enum(
            "pass", "bid", "take", "pitch",
            description="`pass` (value 0); `bid` over the high; `take`: the dealer at the current high (A-3.3); "
            "`pitch`: a card led during the auction, a bid of 4 (A-3.2)",
        ),
    },
    description="A seat's word in the auction (A-3)",
)
PLAY = obj({"seat": SEAT, "card": CARD}, description="A card played to a trick, and by whom")
TRICK = obj(
    {"cards": array(ref("PitchPlay"), minItems=3, maxItems=MAX_SEATS, description="in the order played, the lead first"),
     "winner": {**SEAT, "description": "the seat that won the trick (A-4.4) and leads the next"}},
    description="A finished trick",
)
CARD_AWARD = obj(
    {
        "seat": {**SEAT, "description": "the seat that won the card (Low with `low_to: dealt`: was dealt it, A-5.2)"},
        "card": CARD,
        "side": {**SIDE, "description": "that seat's side, which scores the point (A-9.3); only with partnerships"},
    },
    optional=("side",),
    description="A point for a card (High, Low or Jack, A-5.1-A-5.3): who scores it, and the card",
)
COUNTS = array(COUNT, minItems=3, maxItems=MAX_SEATS, description="each seat's count for Game (10=10, A=4, K=3, Q=2, J=1; A-5.4)")
GAME_AWARD = {
    "oneOf": [
        obj(
            {"seat": nullable({**SEAT, "description": "the seat with the highest count; null on a tie (A-5.4)"}), "counts": COUNTS},
            description="Game when everyone plays alone",
        ),
        obj(
            {
                "side": nullable({**SIDE, "description": "the side with the highest count; null on a tie (A-9.3)"}),
                "counts": COUNTS,
                "side_counts": array(COUNT, minItems=2, maxItems=2, description="each side's count"),
            },
            description="Game with partnerships: by side",
        ),
    ],
    "description": "The Game point (A-5.4): who scores it (nobody on a tie) and the counts",
}
SUMMARY = {
    "hand": HAND_NO,
    "dealer": SEAT,
    "pitcher": {**SEAT, "description": "the winner of the auction (A-3.4)"},
    "contract": CONTRACT,
    "trump": SUIT,
    "high": ref("PitchCardAward"),
    "low": ref("PitchCardAward"),
    "jack": nullable(ref("PitchCardAward")) | {"description": "null when the jack of trump was not dealt (A-5.3)"},
    "game": ref("PitchGameAward"),
    "points": array({"type": "integer", "minimum": 0, "maximum": 4}, minItems=3, maxItems=MAX_SEATS,
                    description="the points each seat (with partnerships, its side) won this hand"),
    "made": {**BOOL, "description": "the pitcher (side) won at least the contract's points (A-6.1)"},
    "set_back": {**BOOL, "description": "not `made`: the pitcher (side) loses the contract (A-6.1)"},
    "deltas": array({"type": "integer", "minimum": -4, "maximum": 4}, minItems=3, maxItems=MAX_SEATS,
                    description="each seat's score change this hand (the side's, A-9.4)"),
    "scores": PER_SEAT_SCORES,
    "side_points": array({"type": "integer", "minimum": 0, "maximum": 4}, minItems=2, maxItems=2,
                         description="each side's points; only with partnerships"),
    "side_deltas": array({"type": "integer", "minimum": -4, "maximum": 4}, minItems=2, maxItems=2,
                         description="each side's score change; only with partnerships"),
    "side_scores": array(SCORE, minItems=2, maxItems=2, description="each side's score after the hand; only with partnerships"),
}
SIDE_ONLY = ("side_points", "side_deltas", "side_scores")
LAST_HAND = obj(
    {**SUMMARY, "tricks": array(ref("PitchTrick"), minItems=HAND_SIZE, maxItems=HAND_SIZE, description="the hand's six tricks")},
    optional=SIDE_ONLY,
    description="The previous hand's result (its `hand_scored` event) and its tricks",
)

# --- the view --------------------------------------------------------------------------------
YOU = obj(
    {"seat": SEAT, "hand": cards("your cards, ordered by rank then suit (C, D, H, S)") | {"maxItems": HAND_SIZE}},
    description="You: your seat and your hand (A-8: private to you).",
)
SEAT_FACTS = obj(
    {
        "card_count": {"type": "integer", "minimum": 0, "maximum": HAND_SIZE, "description": "cards in the seat's hand"},
        "bid": nullable({**BID_VALUE, "description": "the seat's word in this hand's auction (0: passed); null until it spoke"}),
        "tricks_won": {**TRICKS_WON, "description": "tricks the seat won this hand"},
        "side": nullable({**SIDE, "description": "the seat's side (A-9.1); null when playing alone"}),
    },
    description="A seat's public facts",
)
PUBLIC = obj(
    {
        "hand": HAND_NO,
        "target_score": {"type": "integer", "minimum": 1, "maximum": 100, "description": "the score that wins (A-7.1)"},
        "low_to": enum("winner", "dealt", description="who scores Low (A-5.2): the trick's winner or the seat dealt it"),
        "partnerships": {**BOOL, "description": "two sides of two partners (A-9)"},
        "sides": nullable(array(array(SEAT, minItems=2, maxItems=2), minItems=2, maxItems=2))
        | {"description": "the sides' seats, [[0, 2], [1, 3]] (A-9.1); null when playing alone"},
        "side_scores": nullable(array(SCORE, minItems=2, maxItems=2)) | {"description": "each side's score; null when playing alone"},
        "bids": array(ref("PitchBid"), maxItems=MAX_SEATS, description="this hand's auction so far, in order"),
        "high_bid": {**BID_VALUE, "description": "the highest bid so far; 0 while nobody bid"},
        "high_bidder": nullable({**SEAT, "description": "who made it; null while nobody bid"}),
        "pitcher": nullable({**SEAT, "description": "the auction's winner; null during the auction (A-3.4)"}),
        "contract": nullable(CONTRACT) | {"description": "the winning bid; null during the auction (A-3.4)"},
        "trump": nullable(SUIT) | {"description": "trump, the suit of the first card led (A-4.1); null before it"},
        "trick": array(ref("PitchPlay"), maxItems=MAX_SEATS - 1, description="the trick on the table, in the order played"),
        "tricks": array(ref("PitchTrick"), maxItems=HAND_SIZE, description="this hand's finished tricks (all six once over)"),
        "tricks_won": array(TRICKS_WON, minItems=3, maxItems=MAX_SEATS, description="per seat, this hand"),
        "last_hand": nullable(ref("PitchLastHand")) | {"description": "the previous hand's result; null during the first hand"},
        "winners": array(SEAT, maxItems=2, description="the winning seat (with partnerships, the side's two seats) once over, else []"),
        "deal": {"type": "integer", "minimum": 0, "description": "the deal's number, from 0 (docs/fair-deals.md); absent on tables dealt before fair deals"},
        "deal_commitment": nullable(HEX64) | {
            "description": "sha256 of the deal's secret, hex (docs/fair-deals.md); null with a fixed deck or before fair deals"},
        "fixed_deck": {**BOOL, "description": "a staff fixed deck (no commitment); absent on tables dealt before fair deals"},
    },
    optional=("deal", "fixed_deck"),
    description="The table's public state (A-8): the options, the auction, trump, the tricks, the last hand's result",
)

# --- the moves and events ----------------------------------------------------------------------
MOVES = {
    "bid": obj({"value": BID_VALUE}, description="Pitch: a word in the auction, one per seat and hand (A-3): 0 passes"),
    "play": obj(
        {"card": CARD},
        description="Pitch: play a card of your hand (A-4); during the auction, pitching: a bid of 4 and the first lead (A-3.2)",
    ),
}
EVENTS = {
    "bid": obj(BID["properties"], description="A word in the auction (A-3); a pitched card is a bid of 4 of kind `pitch`"),
    "contract": obj({"pitcher": SEAT, "contract": CONTRACT}, description="The auction closed: the pitcher and the contract (A-3.4)"),
    "play": obj({"seat": SEAT, "card": CARD}, description="A card played"),
    "trump": obj({"suit": SUIT}, description="Trump is fixed by the first card led (A-4.1)"),
    "trick": obj({"number": TRICK_NO, **TRICK["properties"]}, description="A trick is complete"),
    "hand_scored": obj(SUMMARY, optional=SIDE_ONLY, description="A hand is over: the points awarded and the scores (A-5, A-6)"),
    "deal_revealed": obj(
        {"deal": {"type": "integer", "minimum": 0, "description": "the deal's number, from 0"},
         "deal_secret": HEX64 | {"description": "the deal's secret, hex"},
         "deal_commitment": HEX64 | {"description": "sha256 of the secret, as committed"}},
        description="A deal is over: its secret, which checks its commitment and shuffle (docs/fair-deals.md)",
    ),
    "game_over": obj(
        {"winners": array(SEAT, minItems=1, maxItems=2, description="the winning seat, or side's seats (A-7, A-9.5)"),
         "scores": PER_SEAT_SCORES},
        description="The game is over",
    ),
    "deal": obj(
        {"hand": HAND_NO, "dealer": SEAT,
         "deal": {"type": "integer", "minimum": 0, "description": "the deal's number, from 0"},
         "deal_commitment": HEX64, "fixed_deck": BOOL},
        optional=("deal_commitment", "fixed_deck"),
        description="A new hand is dealt (A-2)",
    ),
    "hand": obj(
        {"seat": SEAT, "cards": cards("the seat's six cards; only to that seat") | {"minItems": HAND_SIZE, "maxItems": HAND_SIZE}},
        optional=("cards",),
        description="A seat's new hand: the cards only to that seat (A-8)",
    ),
}

TYPES = GameTypes(
    game="pitch",
    title="Pitch",
    phases=("auction", "play", "finished"),
    you=YOU,
    seat=SEAT_FACTS,
    public=PUBLIC,
    moves=MOVES,
    events=EVENTS,
    defs={
        "PitchBid": BID,
        "PitchPlay": PLAY,
        "PitchTrick": TRICK,
        "PitchCardAward": CARD_AWARD,
        "PitchGameAward": GAME_AWARD,
        "PitchLastHand": LAST_HAND,
    },
    scores="one score per seat (with partnerships, both partners show the side's total, A-9.5)",
)
