"""Lopti's typed contract (games.engine.types): what the engine shows in views, legal moves,
events and the move log, as JSON Schema. Rules: docs/rules/lopti.md (L-ids below).

The house rule's machine form (L-11.7) is built from the vocabulary itself (vocabulary.py),
the same tables validation.py checks a rule against, so the schema and the engine cannot
drift: a `when` is one of the events with exactly that event's filters, an effect one of the
effects with exactly its fields. The base rules (L-13) come from BASE_RULES the same way.

Two forms of a rule: `LoptiRuleInput` as a client sends it (and as the move log shows the
move: `timing`, `if` and `count` may be left out) and `LoptiRule` as the engine normalised it
(views and events: `timing`, `if` and `count` filled in, the description stripped)."""

from __future__ import annotations

from ..cards import RANKS
from ..types import BOOL, CARD, COUNT, RANK, STR, GameTypes, array, cards, enum, nullable, obj, ref
from . import vocabulary as vocab
from .duels import DUEL_WINS, KNOCKOUT_WINS
from .legality import BASE_RULES

T = "Lopti"
SEAT = {"type": "integer", "minimum": 0, "maximum": 4, "description": "a seat number, from 0 (2-5 players, L-1.1)"}
POSITIVE = {"type": "integer", "minimum": 1}
PLACE = {"type": "integer", "minimum": 1, "maximum": 5}
RULE_ID = {"type": "integer", "minimum": 1, "description": "a house rule's id (ids count per table, from 1)"}
VOTE_ID = {"type": "integer", "minimum": 1, "description": "a Rule Vote's id, from 1 (L-12)"}
DUEL_ID = {"type": "integer", "minimum": 1, "description": "a duel's id, from 1 (L-12.4)"}
POSITION = {"type": "integer", "minimum": 0, "maximum": 2, "description": "a face-down position as dealt, 0-2 (positions do not close up)"}
SESSION = {"type": "integer", "minimum": 1, "description": "the session's number, from 1 (L-2.1)"}
ROUND = {"type": "integer", "minimum": 1, "description": "the round's number in its session, from 1"}
THROW = enum("rock", "paper", "scissors", description="a Rock-Paper-Scissors throw (L-12.4)")
KINDS = ("remove", "modify", "restore", "base_rule")
APPLIES = enum("now", "next_round", description="when a passed change applies (L-12.2); deal-touching base rules always wait for the next deal (L-13)")
REASONS = (
    "majority",
    "no majority",
    "tie with nobody voting no",
    "tie, the proposer is the rule's author",
    "tie, no champion",
    "duel",
)
SEATS = array(SEAT)


# --- the machine form of a house rule (L-11.7) ------------------------------------------------
_FILTERS = {
    "ranks": array(enum(*RANKS, description="a card rank"), minItems=1, uniqueItems=True, description="play: ranks that trigger it (distinct)"),
    "min_cards": {"type": "integer", "minimum": 1, "maximum": vocab.MAX_CARDS_IN_PLAY, "description": "play: at least this many cards (default 1)"},
    "max_cards": {"type": "integer", "minimum": 1, "maximum": vocab.MAX_CARDS_IN_PLAY, "description": "play: at most this many cards (not below min_cards)"},
    "source": enum(*vocab.SOURCES, description="play: from the hand or a face-down card"),
    "causes": array(enum(*vocab.CAUSES), minItems=1, uniqueItems=True, description="clear: the causes that trigger it (distinct)"),
    "legal": {"type": "boolean", "description": "face_down_reveal: whether the revealed card was legal (only with timing `after`)"},
}


def _when(normal: bool) -> dict:
    forms = []
    for event, filters in vocab.EVENTS.items():
        props = {"event": enum(event), "timing": enum(*vocab.TIMINGS, description="before or after the event (default after)")}
        props.update({name: _FILTERS[name] for name in filters})
        optional = [name for name in filters] + ([] if normal else ["timing"])
        forms.append(obj(props, optional=optional, description=f"the base event `{event}`" + (f" with its filters {', '.join(filters)}" if filters else "")))
    return {"oneOf": forms, "description": "the trigger: a base event, before or after it, and that event's filters (L-11.7)"}


_CONDITIONS = obj(
    {
        "actor_phase": enum(*vocab.ACTOR_PHASES, description="the actor plays from the hand or the face-down cards"),
        "pile_at_least": {"type": "integer", "minimum": 0, "maximum": 52, "description": "the pile holds at least this many cards"},
        "draw_pile_empty": {"type": "boolean", "description": "the draw pile is (or is not) empty"},
        "actor_hand_at_most": {"type": "integer", "minimum": 0, "maximum": 52, "description": "the actor's hand holds at most this many cards"},
    },
    optional=vocab.CONDITIONS,
    description="conditions that must all hold (L-11.7); an empty object: none",
)

_EFFECT_FIELDS = {
    "target": enum(*vocab.TARGETS, description="a game role, never a person (L-11.4)"),
    "count": {"type": "integer", "minimum": 1, "maximum": 3, "description": "1-3 cards (default 1)"},
    "which": enum(*vocab.WHICH, description="give_card: the target's lowest or highest hand card"),
}


def _effect(normal: bool) -> dict:
    forms = []
    for name, (needs_target, extra) in vocab.EFFECTS.items():
        props = {"effect": enum(name)}
        if needs_target:
            props["target"] = _EFFECT_FIELDS["target"]
        props.update({key: _EFFECT_FIELDS[key] for key in extra})
        optional = [] if normal else [k for k in extra if k == "count"]
        forms.append(obj(props, optional=optional, description=f"the effect `{name}`"))
    return {"oneOf": forms, "description": "an effect (L-11.7): its target, when it has one, and its own fields"}


def _rule(normal: bool) -> dict:
    name = "" if normal else "Input"
    props = {
        "description": {"type": "string", "minLength": 1, "maxLength": vocab.DESCRIPTION_MAX, "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]+$",
                        "description": f"the author's words, 1-{vocab.DESCRIPTION_MAX} characters; "
                        f"stripped, no control characters; `{vocab.HIDDEN_DESCRIPTION}` once a moderator hid it (the effect stays)"}
        if normal
        else {"type": "string", "minLength": 1, "pattern": "\\S", "description": f"the author's words: 1-{vocab.DESCRIPTION_MAX} characters once "
              f"stripped; `{vocab.HIDDEN_DESCRIPTION}` in the log once a moderator hid the rule"},
        "when": ref(f"{T}RuleWhen{name}"),
        "if": ref(f"{T}RuleConditions"),
        "then": array(ref(f"{T}RuleEffect{name}"), minItems=1, maxItems=3, description="one to three effects, run in order"),
    }
    return obj(
        props,
        optional=() if normal else ("if",),
        description="A house rule in the machine form of L-11.7, "
        + ("as the table shows it (normalised: `timing`, `if` and `count` filled in)" if normal
           else "as the author sends it (`timing` defaults to after, `if` to none, `count` to 1)"),
    )


# --- base rules (L-13) ----------------------------------------------------------------------------
def _option(option) -> dict:
    if option.type == "bool":
        return {"type": "boolean", "description": option.description}
    if option.type == "choice":
        return enum(*option.choices, description=option.description)
    return {"type": "integer", "minimum": option.minimum, "maximum": option.maximum, "description": option.description}


RULES = obj({key: _option(option) for key, option in BASE_RULES.items()}, description="The base rules in force (L-13), every key")
NEXT_RULES = obj(
    {key: _option(option) for key, option in BASE_RULES.items()},
    optional=tuple(BASE_RULES),
    description="Base-rule changes waiting for the next deal (L-13): only the keys that change",
)
RULE_VALUE = {"anyOf": [{"type": "integer"}, {"type": "boolean"}, {"type": "string"}],
              "description": "a base rule's value: an integer, a boolean or a choice, as the key takes (L-13)"}
RULE_KEY = enum(*BASE_RULES, description="a base rule's key (L-13)")


# --- records: house rules, votes, duels ---------------------------------------------------------
HOUSE_RULE = obj(
    {
        "id": RULE_ID,
        "author": {**SEAT, "description": "the author's seat"},
        "rule": ref(f"{T}Rule"),
        "status": enum("active", "removed", "deleted", description="removed by a vote (L-12.1; back by a restore vote) or deleted by its author (L-11.6)"),
        "session": {**SESSION, "description": "the session the rule belongs to (a restored rule: the session it came back in)"},
        "created_session": {**SESSION, "description": "the session it was written in"},
        "created_round": {"type": "integer", "minimum": 0, "description": "the round after which it was written (0: a rule set up before play)"},
        "hidden": {"type": "boolean", "description": "a moderator hid its description (the effect stays)"},
        "editable": {"type": "boolean", "description": "the author may still edit it (L-11.5: until the next round's first card play); "
                     "only in `public.house_rules`"},
    },
    optional=("editable",),
    description="A house rule of the table (L-11) and its record",
)
TALLY = obj(
    {
        "yes": COUNT,
        "no": COUNT,
        "abstain": COUNT,
        "members": {"type": "integer", "minimum": 2, "maximum": 5, "description": "every seat votes: the majority is of all members (L-12.2)"},
        "waiting": {**SEATS, "description": "seats still to vote (empty once the ballots are closed)"},
    },
    description="A Rule Vote's count (L-12.2)",
)
VOTE = obj(
    {
        "id": VOTE_ID,
        "session": SESSION,
        "round": ROUND,
        "setup": {"type": "boolean", "description": "a restore vote of a new session's setup (L-12.5)"},
        "kind": enum(*KINDS, description="remove, modify or restore a house rule, or change a base rule (L-12.1)"),
        "proposer": {**SEAT, "description": "the proposer's seat; the proposal is their yes"},
        "applies": APPLIES,
        "target": {"anyOf": [*(obj({"key": enum(key), "value": _option(option)}) for key, option in BASE_RULES.items()),
                             obj({"rule_id": RULE_ID})],
                   "description": "what the vote changes: `{key, value}` for a base rule (the value as the key takes it), else `{rule_id}`"},
        "rule_id": nullable(RULE_ID),
        "rule": {"anyOf": [ref(f"{T}Rule"), {"type": "null"}], "description": "modify: the rule's proposed new form; null otherwise"},
        "key": nullable(RULE_KEY),
        "value": {"anyOf": [RULE_VALUE, {"type": "null"}], "description": "base_rule: the new value; null otherwise"},
        "tally": ref(f"{T}Tally"),
        "ballots": array(nullable(enum("yes", "no", "abstain")), description="by seat; null: not voted yet (ballots are public, L-14)"),
        "status": enum("open", "passed", "failed", "tied", "decided", description="tied: settled by champions and a duel (L-12.3); decided: by a duel"),
        "stage": enum("ballots", "champions", "duel", "closed", description="what the vote waits for"),
        "opponent": nullable({**SEAT, "description": "the seat facing the proposer in the deciding duel"}),
        "champions": {**SEATS, "description": "seats that came forward for the rule, in order (L-12.3)"},
        "champion_waiting": {**SEATS, "description": "no-voters still to say whether they come forward"},
        "duel": nullable({**DUEL_ID, "description": "the vote's current (or last) duel"}),
        "duels": array(DUEL_ID, description="every duel of this vote, knockouts included"),
        "decided_for": nullable(enum("yes", "no", description="the side a duel decided for")),
        "result": nullable(enum("changed", "unchanged", description="once closed")),
        "reason": nullable(enum(*REASONS, description="why it closed as it did")),
    },
    description="A Rule Vote (L-12.1-12.3) as everyone sees it",
)
DUEL = obj(
    {
        "id": DUEL_ID,
        "vote_id": VOTE_ID,
        "kind": enum("duel", "knockout", description="duel: first to 16 decisive throws; knockout: champions, one decisive throw (L-12.3, L-12.4)"),
        "players": array(SEAT, minItems=2, maxItems=2, description="the two representatives; the first is the proposer's side"),
        "first_to": {"type": "integer", "enum": [DUEL_WINS, KNOCKOUT_WINS], "description": f"decisive throws to win: {DUEL_WINS} in a duel, {KNOCKOUT_WINS} in a knockout"},
        "score": array(COUNT, minItems=2, maxItems=2, description="decisive throws won, as `players`"),
        "throws": array(
            obj({"throws": array(THROW, minItems=2, maxItems=2, description="as `players`"),
                 "winner": nullable({**SEAT, "description": "null: a draw, which does not count"})},
                description="a completed pair of throws"),
            description="completed pairs only: a throw is shown once both threw (L-12.4, L-14)",
        ),
        "waiting": {**SEATS, "description": "representatives still to throw this pair"},
        "status": enum("open", "finished"),
        "winner": nullable(SEAT),
    },
    description="A Rock-Paper-Scissors duel settling a tied vote (L-12.4)",
)
WINDOW = obj(
    {
        "winner": {**SEAT, "description": "the round's winner, who writes or declines (L-11.1)"},
        "open": {"type": "boolean", "description": "false once the winner wrote or declined (or a new session began)"},
        "rule_id": nullable({**RULE_ID, "description": "the rule written in this window"}),
    },
    description="The house-rule window after the latest round (L-11.1)",
)
PENDING = obj(
    {"vote_id": VOTE_ID, "kind": enum("remove", "modify", "restore"), "rule_id": RULE_ID},
    description="A passed house-rule change waiting for the next deal (L-12.2)",
)

DEFS = {
    f"{T}RuleWhen": _when(True),
    f"{T}RuleWhenInput": _when(False),
    f"{T}RuleConditions": _CONDITIONS,
    f"{T}RuleEffect": _effect(True),
    f"{T}RuleEffectInput": _effect(False),
    f"{T}Rule": _rule(True),
    f"{T}RuleInput": _rule(False),
    f"{T}Rules": RULES,
    f"{T}NextRules": NEXT_RULES,
    f"{T}HouseRule": HOUSE_RULE,
    f"{T}Tally": TALLY,
    f"{T}Vote": VOTE,
    f"{T}Duel": DUEL,
    f"{T}Window": WINDOW,
    f"{T}PendingChange": PENDING,
}


# --- the view -----------------------------------------------------------------------------------
YOU = obj(
    {
        "seat": SEAT,
        "hand": cards("your hand, in card order"),
        "face_down_positions": array(POSITION, description="positions of your face-down cards still there (never their cards, L-3.2)"),
        "swaps_left": {"type": "integer", "minimum": 0, "maximum": 3, "description": "swap phase only (L-3.3)"},
        "throw": obj({"duel_id": DUEL_ID, "throw": THROW},
                     description="your own throw waiting for your opponent's (L-12.4); only while it waits"),
    },
    optional=("swaps_left", "throw"),
    description="What only you see: your hand, your face-down positions; in the swap phase your swaps left, in a duel your waiting throw.",
)
SEAT_FACTS = obj(
    {
        "hand_count": COUNT,
        "face_up": array(nullable(CARD), description="face-up cards by position (face-up i lies on face-down i); null: gone"),
        "face_down_positions": array(POSITION, description="positions of face-down cards still there"),
        "out": {"type": "boolean", "description": "out of the round (L-10)"},
        "place": nullable({**PLACE, "description": "the place the seat went out in, from 1"}),
        "round_wins": COUNT,
        "revealed_hand": {"anyOf": [cards(), {"type": "null"}],
                          "description": "the hand a house rule's reveal_hand laid open until its owner's next turn (L-11.7); null otherwise"},
        "skips": {**COUNT, "description": "turns a house rule's skip_next_turn will skip (L-11.7)"},
        "swap_done": {"type": "boolean", "description": "swap phase only: the seat has kept or used its swaps (L-3.3)"},
    },
    optional=("swap_done",),
)
PUBLIC = obj(
    {
        "deal": {"type": "integer", "minimum": 0, "description": "the deal's number in the table (absent on tables dealt before fair deals)"},
        "deal_commitment": nullable({"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "sha256 of the deal's secret (docs/fair-deals.md); null for a fixed deck"}),
        "fixed_deck": {"type": "boolean", "description": "a staff fixed deck: no commitment (absent on tables dealt before fair deals)"},
        "pile": cards("the pile, bottom first"),
        "top_rank": nullable(RANK),
        "top_count": {**COUNT, "description": "cards of the top play"},
        "run": {**COUNT, "description": "cards of the top rank in a row at the top (four clear, L-7.1)"},
        "three_chain": cards("the visible 3-chain (L-6.2)"),
        "low_lock": {"type": "boolean", "description": "after a 7 the next play must be lower (L-6.3)"},
        "obligation": nullable({**SEAT, "description": "the seat that must play a 3 or take (L-6.2)"}),
        "extra_plays": {**COUNT, "description": "extra plays due to the player in turn (L-7.2)"},
        "draw_pile_count": COUNT,
        "cleared_count": COUNT,
        "discarded_count": {**COUNT, "description": "3s of emptied chains, out of the round (L-6.2)"},
        "rules": ref(f"{T}Rules"),
        "next_rules": ref(f"{T}NextRules"),
        "rounds": {"type": "integer", "minimum": 0, "maximum": 100, "description": "rounds per session; 0: no limit"},
        "round": ROUND,
        "dealer": SEAT,
        "first_player": {**SEAT, "description": "the round's first player (L-2.4)"},
        "last_round_winner": nullable(SEAT),
        "round_wins": array(COUNT, description="by seat, over the table (L-2.2)"),
        "out": {**SEATS, "description": "seats out of the round"},
        "places": {**SEATS, "description": "seats in the order they went out"},
        "direction_reversed": {"type": "boolean", "description": "a house rule reversed the direction for the round (L-11.7)"},
        "session": SESSION,
        "window": {"anyOf": [ref(f"{T}Window"), {"type": "null"}], "description": "the latest round's house-rule window; null before any round ended in the session"},
        "house_rules": array(ref(f"{T}HouseRule"), description="this session's house rules (active, removed, deleted), oldest first, with `editable`"),
        "rule_history": array(ref(f"{T}HouseRule"), description="earlier sessions' rules (latest copy of each), for restore votes (L-12.5)"),
        "pending_changes": array(ref(f"{T}PendingChange"), description="passed changes waiting for the next deal"),
        "vote_used": {"type": "boolean", "description": "this round's one Rule Vote is used (L-12.1)"},
        "vote": {"anyOf": [ref(f"{T}Vote"), {"type": "null"}], "description": "the open vote, else the round's (setup's) last vote; null when none"},
        "duel": {"anyOf": [ref(f"{T}Duel"), {"type": "null"}], "description": "`vote`'s current or last duel; null when none"},
        "pause": nullable(enum("vote", "champion", "duel", description="play pauses for an open vote's ballots, champions or duel (L-12.2); null otherwise")),
        "winners": {**SEATS, "description": "once the table is over: the seats with most round wins (L-2.2)"},
    },
    optional=("deal", "fixed_deck", "winners"),
    description="What everybody sees of a Lopti table (L-14)",
)


# --- moves and decisions --------------------------------------------------------------------------
MOVES = {
    "swap": obj({"hand_card": CARD, "face_up_card": CARD}, description="Swap phase (L-3.3): a hand card for a face-up card"),
    "keep": obj({}, description="Swap phase (L-3.3): no (more) swaps"),
    "play": obj({"cards": array(CARD, minItems=1, maxItems=4, description="cards of one rank from the hand")}, description="Play (L-4, L-5)"),
    "play_face_down": obj({"index": POSITION}, description="Play a face-down card blind by position (L-9)"),
    "take_pile": obj({}, description="Take the pile (L-4.5)"),
    "abstain": obj({"vote_id": VOTE_ID}, description="Abstain in an open Rule Vote (L-12.2; not a yes); only the move endpoint takes it"),
    "no_champion": obj({"vote_id": VOTE_ID}, description="Decline to champion the rule (L-12.3); only the move endpoint takes it"),
}
DECISIONS = {
    "decline_rule": obj({}, description="The round's winner writes no rule (L-11.1): `POST /tables/{id}/house-rules` "
                        "`{\"decline\": true}`, or `{rule}` to write one"),
    "ballot": obj({"vote_id": VOTE_ID, "yes": BOOL}, description="A ballot (L-12.2): `POST /tables/{id}/rule-votes/{vote_id}/ballots` `{yes}`"),
    "champion": obj({"vote_id": VOTE_ID}, description="Come forward for the rule (L-12.3): `POST /tables/{id}/rule-votes/{vote_id}/champions`"),
    "throw": obj({"duel_id": DUEL_ID, "throw": THROW}, description="A throw (L-12.4): `POST /tables/{id}/duels/{duel_id}/throws` `{throw}`"),
}


# --- events -------------------------------------------------------------------------------------
def _e(props: dict, description: str, optional=()) -> dict:
    return obj(props, optional=optional, description=description)


BY_RULE = {**RULE_ID, "description": "the house rule whose effect this is"}
EVENTS = {
    "deal": _e(
        {
            "deal": {"type": "integer", "minimum": 0, "description": "the deal's number in the table"},
            "round": ROUND,
            "dealer": SEAT,
            "first_player": SEAT,
            "face_up": array(array(CARD), description="face-up cards by seat and position (L-3.1)"),
            "hand_counts": array(COUNT),
            "face_down_counts": array(COUNT),
            "draw_pile_count": COUNT,
            "rules": ref(f"{T}Rules"),
        },
        "A round dealt (L-3.1) with the rules in force",
    ),
    "deal_revealed": _e(
        {
            "deal": {"type": "integer", "minimum": 0},
            "deal_secret": {"type": "string", "pattern": "^[0-9a-f]{64}$", "description": "the deal's secret (docs/fair-deals.md)"},
            "deal_commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        },
        "The round's deal secret, revealed at its end",
    ),
    "play_start": _e({"first_player": SEAT}, "The swap phase is over: play begins (L-3.3)"),
    "swap": _e({"seat": SEAT, "hand_card": CARD, "face_up_card": CARD, "position": POSITION}, "A swap (L-3.3)"),
    "keep": _e({"seat": SEAT}, "A seat keeps its cards (L-3.3)"),
    "play": _e(
        {"seat": SEAT, "rank": RANK, "count": {"type": "integer", "minimum": 1, "maximum": 4}, "source": enum("hand", "face_down"), "cards": cards()},
        "A play (L-4)",
    ),
    "three_chain": _e({"cards": cards("the chain now; empty: emptied")}, "The 3-chain changed (L-6.2)"),
    "obligation": _e({"seat": nullable(SEAT)}, "The 3-obligation moved or ended (null) (L-6.2)"),
    "low_lock": _e({"on": BOOL}, "The low lock of a 7 set or lifted (L-6.3)"),
    "clear": _e(
        {"seat": SEAT, "cause": enum(*vocab.CAUSES), "cards": cards("the pile cleared"), "cleared_count": COUNT},
        "The pile cleared (L-7; house_rule: a rule's clear_pile)",
    ),
    "take_pile": _e({"seat": SEAT, "cards": cards()}, "A seat takes the pile (L-4.5, L-9.4)"),
    "go_out": _e({"seat": SEAT, "place": PLACE}, "A seat goes out (L-10)"),
    "draw": _e(
        {"seat": SEAT, "count": {"type": "integer", "minimum": 1, "maximum": 5}, "draw_pile_count": COUNT, "rule_id": BY_RULE,
         "cards": cards("the cards drawn: only the drawer sees them, or everybody while the hand lies open (reveal_hand)")},
        "A draw (L-4.4), or a house rule's draw (with `rule_id`)",
        optional=("rule_id", "cards"),
    ),
    "face_up_pickup": _e({"seat": SEAT, "cards": cards()}, "The face-up cards become the hand (L-8)"),
    "face_down_reveal": _e({"seat": SEAT, "index": POSITION, "card": CARD, "legal": BOOL}, "A face-down card turned (L-9)"),
    "round_end": _e(
        {"round": ROUND, "winner": SEAT, "places": SEATS, "round_wins": array(COUNT)},
        "The round is over (L-10, L-2.2)",
    ),
    "game_end": _e({"winners": SEATS, "round_wins": array(COUNT)}, "The table is over (L-2.2)"),
    "house_rule_window": _e({"winner": SEAT}, "The winner's window opens (L-11.1)"),
    "rule_declined": _e({"seat": SEAT}, "The winner writes no rule (L-11.1)"),
    "rule_written": _e({"rule": ref(f"{T}HouseRule")}, "A house rule written (L-11.1)"),
    "rule_edited": _e({"rule": ref(f"{T}HouseRule")}, "A house rule edited by its author (L-11.5)"),
    "rule_deleted": _e({"rule_id": RULE_ID, "seat": SEAT}, "A house rule deleted by its author (L-11.6)"),
    "rule_moderated": _e({"rule_id": RULE_ID, "hidden": BOOL}, "A moderator hid (or showed again) a rule's description"),
    "rule_fired": _e(
        {"rule_id": RULE_ID, "event": enum(*vocab.EVENTS), "timing": enum(*vocab.TIMINGS), "seat": {**SEAT, "description": "the event's actor"}},
        "A house rule triggered (L-11.7)",
    ),
    "rule_limit": _e({"seat": SEAT, "limit": POSITIVE}, "No more house rules fire this turn (L-11.3)"),
    "skip_next_turn": _e({"seat": SEAT, "rule_id": BY_RULE}, "A rule will skip a seat's next turn"),
    "turn_skipped": _e({"seat": SEAT, "rule_id": BY_RULE}, "A seat's turn skipped by a rule"),
    "skip_void": _e({"seat": SEAT, "rule_id": BY_RULE}, "A skip that would cost a second turn in a row is void (L-11.3)"),
    "reverse_direction": _e({"direction": enum("clockwise", "counterclockwise", description="the direction now"), "rule_id": BY_RULE}, "A rule reversed the direction"),
    "give_card": _e(
        {"seat": {**SEAT, "description": "the giver"}, "to": {**SEAT, "description": "the receiver (the rule's actor)"}, "rule_id": BY_RULE,
         "card": {**CARD, "description": "only the two seats see it, or everybody while a hand lies open"}},
        "A rule's give_card: a card from a hand to the actor",
        optional=("card",),
    ),
    "return_cleared": _e({"seat": SEAT, "cards": cards(), "cleared_count": COUNT, "rule_id": BY_RULE}, "Cleared cards returned to a hand by a rule"),
    "reveal_hand": _e({"seat": SEAT, "cards": cards(), "rule_id": BY_RULE}, "A hand laid open until its owner's next turn (L-11.7)"),
    "reveal_end": _e({"seat": SEAT}, "An open hand closes at its owner's turn"),
    "announce": _e({"rule_id": BY_RULE, "description": {"type": "string", "description": "the rule's description (or the moderator's placeholder)"}}, "A rule's announce effect"),
    "rule_actions_stopped": _e({"rule_id": RULE_ID}, "A deleted or changed rule's pending skips and open hands end (L-12.2)"),
    "vote_proposed": _e({"vote": ref(f"{T}Vote")}, "A Rule Vote proposed (L-12.1); the proposal is the proposer's yes"),
    "ballot": _e({"vote_id": VOTE_ID, "seat": SEAT, "ballot": enum("yes", "no", "abstain")}, "A ballot (L-12.2)"),
    "vote_tied": _e({"vote_id": VOTE_ID, "tally": ref(f"{T}Tally")}, "A tie (L-12.3)"),
    "vote_closed": _e(
        {"vote_id": VOTE_ID, "status": enum("passed", "failed", "decided"), "result": enum("changed", "unchanged"),
         "reason": enum(*REASONS), "tally": ref(f"{T}Tally")},
        "A Rule Vote closed (L-12.2)",
    ),
    "champion_call": _e({"vote_id": VOTE_ID, "seats": {**SEATS, "description": "the no-voters who may come forward"}}, "The rule's author is gone: champions are called (L-12.3)"),
    "champion": _e({"vote_id": VOTE_ID, "seat": SEAT, "forward": BOOL}, "A no-voter comes forward or not (L-12.3)"),
    "duel_start": _e(
        {"duel_id": DUEL_ID, "vote_id": VOTE_ID, "kind": enum("duel", "knockout"), "players": array(SEAT, minItems=2, maxItems=2),
         "first_to": {"type": "integer", "enum": [DUEL_WINS, KNOCKOUT_WINS]}},
        "A duel begins (L-12.4)",
    ),
    "throw": _e({"duel_id": DUEL_ID, "seat": SEAT, "throw": THROW}, "A seat threw; the throw itself only to the thrower (L-12.4)", optional=("throw",)),
    "throws_revealed": _e(
        {"duel_id": DUEL_ID, "players": array(SEAT, minItems=2, maxItems=2), "throws": array(THROW, minItems=2, maxItems=2),
         "winner": nullable(SEAT), "score": array(COUNT, minItems=2, maxItems=2)},
        "Both threw: the pair shown (null winner: a draw)",
    ),
    "duel_end": _e({"duel_id": DUEL_ID, "winner": SEAT, "score": array(COUNT, minItems=2, maxItems=2)}, "A duel won (L-12.4)"),
    "change_void": _e({"vote_id": VOTE_ID, "reason": STR}, "A passed change that no longer applies (the rule changed meanwhile, or the deal would not fit)"),
    "base_rule_changed": _e({"key": RULE_KEY, "value": RULE_VALUE, "applies": APPLIES}, "A base rule changed by a vote (L-12.2, L-13)"),
    "rule_change_pending": _e(
        {"vote_id": VOTE_ID, "kind": enum("remove", "modify", "restore"), "rule_id": RULE_ID,
         "rule": {"anyOf": [ref(f"{T}Rule"), {"type": "null"}], "description": "modify: the new form"}},
        "A passed change waits for the next deal (L-12.2)",
    ),
    "rule_changed": _e(
        {"rule_id": RULE_ID, "kind": enum("remove", "modify", "restore"), "status": enum("active", "removed")},
        "A house rule changed by a vote (L-12.2, L-12.5)",
    ),
    "session_new": _e({"session": SESSION, "dealer": SEAT}, "A new session: rules reset, phase setup (L-2.1, L-12.5)"),
    "session_start": _e({"session": SESSION}, "The session's first round is dealt"),
}


# --- the move log -----------------------------------------------------------------------------------
PROPOSAL = obj(
    {
        "kind": enum(*KINDS),
        "applies": APPLIES,
        "rule_id": RULE_ID,
        "rule": ref(f"{T}RuleInput"),
        "key": RULE_KEY,
        "value": RULE_VALUE,
    },
    optional=("rule_id", "rule", "key", "value"),
    description="A Rule Vote's proposal (L-12.1, `POST /tables/{id}/rule-votes`): `rule_id` to remove, modify (with `rule`) or restore a house rule; `key` and `value` for a base rule",
)
LOG = {
    **MOVES,
    **DECISIONS,
    "throw": obj({"duel_id": DUEL_ID, "throw": THROW}, optional=("throw",), description="A throw: the throw itself only to the thrower (L-12.4)"),
    "write_rule": obj({"rule": ref(f"{T}RuleInput")}, description="The winner writes a house rule (L-11.1)"),
    "edit_rule": obj({"rule_id": RULE_ID, "rule": ref(f"{T}RuleInput")}, description="The author edits a rule (L-11.5)"),
    "delete_rule": obj({"rule_id": RULE_ID}, description="The author deletes a rule (L-11.6)"),
    "propose_vote": PROPOSAL,
    "moderate_rule": obj({"rule_id": RULE_ID, "hidden": BOOL}, description="The server hides (or shows) a rule's description"),
    "new_session": obj({}, description="The host starts a new session (L-2.1)"),
    "start_session": obj({}, description="The host deals the new session's first round (L-12.5)"),
}

TYPES = GameTypes(
    game="lopti",
    title=T,
    phases=("swap", "play", "house_rule", "setup", "finished"),
    you=YOU,
    seat=SEAT_FACTS,
    public=PUBLIC,
    moves=MOVES,
    decisions=DECISIONS,
    events=EVENTS,
    log=LOG,
    defs=DEFS,
    scores="round wins per seat (L-2.2)",
)
