"""President's typed contract (games.engine.types): what `president.view`, `legal_moves`,
`step`'s events (as `view_event` shows them) and `view_move` show clients, as JSON Schema.
Rule ids are docs/rules/president.md's. Pure data, no Django, like the engine."""

from __future__ import annotations

from .types import BOOL, COUNT, HEX64, INT, SEAT, GameTypes, array, cards, enum, nullable, obj, ref

# Kept in step with president.py by tests/engine/test_types.py (every value must validate).
ROLE_ENUM = enum(
    "president",
    "vice_president",
    "upper_neutral",
    "neutral",
    "lower_neutral",
    "vice_scum",
    "scum",
    "super_scum",
    description="a role by finishing place (P-6): neutrals with 5-7 players, `super_scum` last of 7",
)
RANK_ENUM = enum(
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "joker",
    description="the rank a play counts as, natural order low to high (P-1.2); both jokers are the rank `joker` (P-9.5)",
)
VARIATION_ENUM = enum(
    "larger_sets_beat_lower",
    "larger_sets_beat_any",
    "equal_rank_beats",
    "revolution",
    "jokers",
    "twos_high_and_low",
    "clear_threes",
    description="a variation rule of P-9 (a table option)",
)
# Named (components), so a generated client has one enum class for each, wherever it is used.
ROLE, PLAY_RANK, VARIATION = ref("PresidentRole"), ref("PresidentRank"), ref("PresidentVariation")
PLACE = {"type": "integer", "minimum": 1, "maximum": 7, "description": "a finishing place, 1 = first out (P-5)"}
POINTS = {"type": "integer", "minimum": -2, "maximum": 2, "description": "the points of a role (P-6)"}
EXCHANGE_COUNT = {"type": "integer", "minimum": 1, "maximum": 2, "description": "cards given (P-3.1, P-3.2)"}
PLAYER_NO = {"type": "integer", "minimum": 0, "maximum": 6,
             "description": "a player, numbered by the seat taken at the start (P-2.3)"}


def _counted(schema: dict, description: str) -> dict:
    return {**schema, "description": description}


PLAY = obj(
    {"seat": SEAT, "cards": cards("one card or a set of one rank (P-4.2)") | {"minItems": 1, "maxItems": 4}},
    description="one play of a trick: who played which cards",
)
STANDING = obj(
    {
        "seat": _counted(SEAT, "who made it"),
        "cards": cards("the cards played") | {"minItems": 1, "maxItems": 4},
        "count": {"type": "integer", "minimum": 1, "maximum": 4, "description": "how many cards (a beating play matches it, P-4.3)"},
        "rank": {**PLAY_RANK, "description": "the rank it counts as: 3s that beat a play take its rank (P-9.7)"},
    },
    description="the play to beat in the current trick (P-4.3)",
)
LAST_TRICK = obj(
    {"plays": array(ref("PresidentPlay"), minItems=1, description="its plays, in order"),
     "winner": _counted(SEAT, "who made the last play (P-4.5)")},
    description="the trick that ended last, this hand",
)
PREVIOUS_HAND = obj(
    {
        "places": array(PLACE, description="each seat's place, by current seat"),
        "roles": array(ROLE, description="each seat's role, by current seat"),
        "points": array(POINTS, description="each seat's points for it, by current seat"),
    },
    description="the previous hand's result (by current seat: `by_rank` reseating has moved it with the players, P-2.3)",
)
GIVE_DUE = obj(
    {"seat": _counted(SEAT, "the giver (President, or Vice President with `two`)"),
     "to": _counted(SEAT, "the receiver"),
     "count": EXCHANGE_COUNT},
    description="a give still due in the exchange (P-3.1, P-3.2); who must give is public, the cards are not",
)
GIVE_DONE = obj(
    {"from": _counted(SEAT, "the giver"), "to": _counted(SEAT, "the receiver"), "count": EXCHANGE_COUNT},
    description="a transfer of this hand's exchange, the automatic ones first; its cards are shown only to its two seats (`you.gave`, `you.received`, P-8)",
)
EXCHANGE = obj(
    {
        "mode": enum("none", "one", "two", description="the `exchange` option (P-3.2)"),
        "pending": array(ref("PresidentGiveDue"), maxItems=2, description="the gives still due; empty outside the exchange"),
        "done": array(ref("PresidentGiveDone"), maxItems=4, description="this hand's transfers so far"),
    },
    description="the card exchange of this hand (P-3); nothing due or done in the first hand or with `none`",
)

PUBLIC = obj(
    {
        "hand": {"type": "integer", "minimum": 1, "description": "the hand's number, from 1 (also the view's `round`)"},
        "trick": nullable(ref("PresidentStanding")) | {"description": "the play to beat; null when the trick is to be led"},
        "trick_plays": array(ref("PresidentPlay"), description="the current trick's plays, in order"),
        "passed": array(SEAT, description="the seats that passed since the last play (P-4.4), a skipped seat too (P-9.3)"),
        "last_trick": nullable(ref("PresidentLastTrick")) | {"description": "the previous trick of this hand; null before one ended"},
        "finish_order": array(SEAT, description="the seats in the order they went out this hand (P-5)"),
        "previous_hand": nullable(ref("PresidentPreviousHand")) | {"description": "null in the first hand"},
        "revolution": {**BOOL, "description": "a revolution is on: the rank order and the direction are reversed (P-9.4)"},
        "direction": enum("clockwise", "counterclockwise", description="the direction of play (P-9.4)"),
        "variations": array(VARIATION, uniqueItems=True, description="the variation rules on at this table (P-9)"),
        "exchange": ref("PresidentExchange"),
        "seating": enum("fixed", "by_rank", description="the `seating` option (P-2.3)"),
        "target_score": {"type": "integer", "minimum": 1, "maximum": 100, "description": "the `target_score` option (P-7.1)"},
        "hands": nullable({"type": "integer", "minimum": 1, "maximum": 100,
                           "description": "the `hands` option (P-7.2); null: the game ends by `target_score`"}),
        "winners": array(SEAT, maxItems=1, description="the winning seat once the game is over (P-7), else empty"),
        "deal": _counted(COUNT, "the current deal's number, from 0 (docs/fair-deals.md); absent at tables dealt before fair deals"),
        "deal_commitment": nullable(HEX64) | {"description": "sha256 of the current deal's secret, hex; null with a fixed deck or at tables dealt before fair deals"},
        "fixed_deck": {**BOOL, "description": "a staff fixed deck: no commitment; absent at tables dealt before fair deals"},
    },
    optional=("deal", "fixed_deck"),
    description="President's public table state (P-8): the trick, the exchange, the options, the revolution",
)

YOU = obj(
    {
        "seat": SEAT,
        "hand": cards("your cards, sorted low to high in the natural order (P-1.2), then suit C D H S"),
        "received": cards("the cards given to you in this hand's exchange (P-3)") | {"maxItems": 2},
        "gave": cards("the cards you gave in this hand's exchange, automatic ones included (P-3)") | {"maxItems": 2},
        "must_give": {"type": "integer", "minimum": 0, "maximum": 2,
                      "description": "how many cards you must still give in the exchange (P-3.1, P-3.2); 0 when none"},
    },
    description="Your seat and hand, and your part of the exchange (P-8: only you see these).",
)

SEAT_FACTS = obj(
    {
        "card_count": _counted(COUNT, "how many cards the seat holds"),
        "out": {**BOOL, "description": "went out by playing its last card this hand (P-5.1); false for the last-placed holder (P-5.2)"},
        "place": nullable(PLACE) | {"description": "its finishing place this hand (P-5); null while it plays on"},
        "role": nullable(ROLE) | {"description": "its role from the previous hand (P-6), the one the exchange follows; null in the first hand"},
        "passed": {**BOOL, "description": "passed since the last play of the trick (P-4.4), or was skipped (P-9.3)"},
    },
    description="A seat's public facts at a President table",
)

# Moves: as `legal_moves` lists them and the move endpoint takes them.
MOVES = {
    "play": obj(
        {"cards": cards("one card or a set of one rank (P-4.2) that beats the standing play (P-4.3, P-9)") | {"minItems": 1, "maxItems": 4}},
        description="President: play one card or a set of one rank, leading or beating the standing play (P-4.2, P-4.3)",
    ),
    "pass": obj({}, description="President: pass (P-4.4); never when leading (P-4.2)"),
    "give": obj(
        {"cards": cards("`you.must_give` cards of your hand (P-3.1, P-3.2)") | {"minItems": 1, "maxItems": 2}},
        description="President: give cards back in the exchange, as the President or Vice President (P-3.1, P-3.2)",
    ),
}

# The move log's view of a move (president.President.view_move): a give's cards only for the
# giver and the receiver (P-8), a count for everybody else.
# One schema for both types' `cards`, so the log entry's `cards` is one array, not a union of two.
LOG_CARDS = cards("the cards played, or given (a give's only to the giver and the receiver, P-8)") | {"minItems": 1, "maxItems": 4}
LOG = {
    "play": obj({"cards": LOG_CARDS}, description="a play as the log shows it: as sent"),
    "give": obj(
        {
            "cards": LOG_CARDS,
            "cards_count": {"type": "integer", "minimum": 1, "maximum": 2,
                            "description": "how many cards were given; instead of `cards` for the other viewers (P-8)"},
        },
        optional=("cards", "cards_count"),
        description="a give as the log shows it: `cards` to its two seats, `cards_count` to the others",
    ),
}

EVENTS = {
    "deal": obj(
        {
            "deal": _counted(COUNT, "the deal's number, from 0"),
            "hand": {"type": "integer", "minimum": 1, "description": "the hand dealt, from 1"},
            "dealer": _counted(SEAT, "the dealer: the previous President (P-2.1), seat 0 after `by_rank` reseating (P-2.3)"),
            "card_counts": array(COUNT, description="each seat's cards as dealt (P-2.2)"),
        },
        description="a new hand dealt (P-2)",
    ),
    "give": obj(
        {
            "from": _counted(SEAT, "the giver"),
            "to": _counted(SEAT, "the receiver"),
            "count": EXCHANGE_COUNT,
            "auto": {**BOOL, "description": "true: the server gave the Scum's (Vice-scum's) highest card(s) (P-3.1); false: a `give` move"},
            "cards": cards("the cards given; only the giver and the receiver see them (P-8)") | {"minItems": 1, "maxItems": 2},
        },
        optional=("cards",),
        description="cards given in the exchange (P-3)",
    ),
    "lead": obj({"seat": _counted(SEAT, "who leads the hand's first trick (P-4.1)")},
                description="the exchange is over (or there was none) and play begins"),
    "play": obj(
        {
            "seat": SEAT,
            "cards": cards("the cards played") | {"minItems": 1, "maxItems": 4},
            "rank": {**PLAY_RANK, "description": "the rank the play counts as: 3s that beat a play take its rank (P-9.7)"},
        },
        description="a play (P-4.2, P-4.3)",
    ),
    "pass": obj({"seat": SEAT}, description="a pass (P-4.4)"),
    "skip": obj({"seat": _counted(SEAT, "the seat skipped, counted as having passed")},
                description="an equal-rank play skipped the next player holding cards (P-9.3)"),
    "revolution": obj({"active": {**BOOL, "description": "the revolution is now on (false: it was undone)"}},
                      description="four of a kind reversed the rank order and the direction of play (P-9.4)"),
    "out": obj({"seat": SEAT, "place": PLACE}, description="a seat went out, or took last place at the hand's end (P-5)"),
    "trick_end": obj(
        {"winner": _counted(SEAT, "who made the last play (P-4.5)"),
         "leader": _counted(SEAT, "who leads the next trick: the winner, or the next holder if they went out (P-4.6)")},
        description="every other holder passed: the trick is over (P-4.5)",
    ),
    "hand_end": obj(
        {
            "hand": {"type": "integer", "minimum": 1},
            "places": array(PLACE, description="each seat's place"),
            "roles": array(ROLE, description="each seat's role (P-6)"),
            "points": array(POINTS, description="each seat's points for the hand"),
            "scores": array(INT, description="each seat's total after the hand"),
        },
        description="the hand is over (P-5.2): places, roles and points, by seat before any reseating",
    ),
    "deal_revealed": obj(
        {
            "deal": _counted(COUNT, "the deal's number, from 0"),
            "deal_secret": {**HEX64, "description": "the deal's secret, hex: its sha256 is the commitment (docs/fair-deals.md)"},
            "deal_commitment": {**HEX64, "description": "the commitment the deal was announced with"},
        },
        description="the hand's deal is over: its secret, to check the shuffle (docs/fair-deals.md)",
    ),
    "reseat": obj(
        {
            "from_seats": array(SEAT, description="new seat i is taken by whoever sat in `from_seats[i]`: the finishing order"),
            "seat_players": array(PLAYER_NO, description="by new seat, the player sitting there"),
        },
        description="`by_rank` seating moved the players into finishing order, President in seat 0 (P-2.3)",
    ),
    "game_end": obj(
        {"winners": array(SEAT, minItems=1, maxItems=1, description="the one seat leading alone (P-7)"),
         "scores": array(INT, description="the final totals, by seat")},
        description="the game is over (P-7)",
    ),
}

TYPES = GameTypes(
    game="president",
    title="President",
    phases=("exchange", "play", "finished"),
    you=YOU,
    seat=SEAT_FACTS,
    public=PUBLIC,
    moves=MOVES,
    events=EVENTS,
    log=LOG,
    defs={
        "PresidentRole": ROLE_ENUM,
        "PresidentRank": RANK_ENUM,
        "PresidentVariation": VARIATION_ENUM,
        "PresidentPlay": PLAY,
        "PresidentStanding": STANDING,
        "PresidentLastTrick": LAST_TRICK,
        "PresidentPreviousHand": PREVIOUS_HAND,
        "PresidentGiveDue": GIVE_DUE,
        "PresidentGiveDone": GIVE_DONE,
        "PresidentExchange": EXCHANGE,
    },
    scores="each seat's total of points (P-6), by current seat",
)
