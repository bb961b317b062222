"""House rules (L-11): the machine form of L-11.7, its validation, and its enforcement.

A rule is data in a closed vocabulary (trigger, optional conditions, one to three effects, the
author's description). The vocabulary is the guarantee of L-11.2 to L-11.4: no effect cancels
an event, every target is a game role (never a person), and effects of house rules never
trigger house rules, so nothing loops. On top of that the engine bounds the rule work of a turn
(MAX_RULE_FIRINGS_PER_TURN), never lets a rule give a card to a player who is going out or out
(L-11.3: no rule prevents a win), and never lets a rule take a player's last card (a player
goes out only by playing it, L-10.1).
"""

from __future__ import annotations

import unicodedata

from ..base import InvalidMove
from ..cards import RANKS
from . import core
from .core import _Ctx

DESCRIPTION_MAX = 280
HIDDEN_DESCRIPTION = "[hidden by a moderator]"
# L-11.3 / L-11.7: the most house-rule firings in one turn (round_start counts with the first
# turn). It bounds the work of every turn, even when rules hand out extra plays or cards.
MAX_RULE_FIRINGS_PER_TURN = 20

# L-11.7: event -> its filters
EVENTS: dict[str, tuple[str, ...]] = {
    "round_start": (),
    "turn_start": (),
    "play": ("ranks", "min_cards", "max_cards", "source"),
    "clear": ("causes",),
    "take_pile": (),
    "draw": (),
    "face_up_pickup": (),
    "face_down_reveal": ("legal",),
    "go_out": (),
}
TIMINGS = ("before", "after")
SOURCES = ("hand", "face_down")
CAUSES = ("ten", "four_of_a_kind", "four_threes", "house_rule")
CONDITIONS = ("actor_phase", "pile_at_least", "draw_pile_empty", "actor_hand_at_most")
ACTOR_PHASES = ("hand", "face_down")
TARGETS = (
    "actor",
    "next_player",
    "previous_player",
    "all_other_players",
    "all_players",
    "most_cards",
    "fewest_cards",
    "last_round_winner",
)
# effect -> (target required, its other fields)
EFFECTS: dict[str, tuple[bool, tuple[str, ...]]] = {
    "draw": (True, ("count",)),
    "skip_next_turn": (True, ()),
    "reverse_direction": (False, ()),
    "clear_pile": (False, ()),
    "give_card": (True, ("which",)),
    "return_cleared": (True, ("count",)),
    "reveal_hand": (True, ()),
    "announce": (False, ()),
}
WHICH = ("lowest", "highest")
MAX_CARDS_IN_PLAY = 4  # a play holds at most the four cards of one rank


# --- validation (L-11.7) -----------------------------------------------------------------------


class _Errors:
    def __init__(self, prefix: str):
        self.prefix = prefix
        self.fields: dict[str, list[str]] = {}

    def add(self, path: str, message: str) -> None:
        self.fields.setdefault(f"{self.prefix}{path}", []).append(message)

    def unknown_keys(self, obj: dict, allowed, path: str) -> None:
        for key in sorted(set(obj) - set(allowed), key=str):
            self.add(f"{path}.{key}" if path else str(key), "unknown field: the vocabulary is closed")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_field(err: _Errors, obj: dict, key: str, path: str, low: int, high: int) -> None:
    if key in obj and (not _is_int(obj[key]) or not low <= obj[key] <= high):
        err.add(f"{path}.{key}", f"must be an integer from {low} to {high}")


def _choice_field(err: _Errors, obj: dict, key: str, path: str, choices) -> None:
    if key in obj and (not isinstance(obj[key], str) or obj[key] not in choices):
        err.add(f"{path}.{key}", f"must be one of {list(choices)}")


def _check_when(err: _Errors, when) -> None:
    if not isinstance(when, dict):
        err.add("when", "must be an object with an event")
        return
    event = when.get("event")
    if "event" not in when:
        err.add("when.event", "required")
        filters: tuple[str, ...] = ()
    elif not isinstance(event, str) or event not in EVENTS:
        err.add("when.event", f"unknown event: must be one of {list(EVENTS)}")
        filters = tuple(k for k in when if k not in ("event", "timing"))  # judged with the event
    else:
        filters = EVENTS[event]
    err.unknown_keys(when, ("event", "timing", *filters), "when")
    _choice_field(err, when, "timing", "when", TIMINGS)
    if "ranks" in when and "ranks" in filters:
        ranks = when["ranks"]
        if (
            not isinstance(ranks, list)
            or not ranks
            or not all(isinstance(r, str) and r in RANKS for r in ranks)
            or len(set(ranks)) != len(ranks)
        ):
            err.add("when.ranks", f"must be a non-empty list of distinct ranks from {list(RANKS)}")
    for key in ("min_cards", "max_cards"):
        if key in filters:
            _int_field(err, when, key, "when", 1, MAX_CARDS_IN_PLAY)
    low, high = when.get("min_cards", 1), when.get("max_cards", MAX_CARDS_IN_PLAY)
    if _is_int(low) and _is_int(high) and low > high and "max_cards" in when:
        err.add("when.max_cards", "must not be below min_cards")
    if "source" in filters:
        _choice_field(err, when, "source", "when", SOURCES)
    if "causes" in when and "causes" in filters:
        causes = when["causes"]
        if (
            not isinstance(causes, list)
            or not causes
            or not all(isinstance(c, str) and c in CAUSES for c in causes)
            or len(set(causes)) != len(causes)
        ):
            err.add("when.causes", f"must be a non-empty list of distinct causes from {list(CAUSES)}")
    if "legal" in when and "legal" in filters:
        if not isinstance(when["legal"], bool):
            err.add("when.legal", "must be true or false")
        elif when.get("timing", "after") == "before":
            # Before the card is turned nobody knows whether it is legal, and a `before` effect
            # could change the answer: the filter only makes sense after the reveal.
            err.add("when.legal", "only with timing 'after': legality is known once the card is revealed")


def _check_if(err: _Errors, cond) -> None:
    if not isinstance(cond, dict):
        err.add("if", "must be an object of conditions")
        return
    err.unknown_keys(cond, CONDITIONS, "if")
    _choice_field(err, cond, "actor_phase", "if", ACTOR_PHASES)
    _int_field(err, cond, "pile_at_least", "if", 0, core.DECK_SIZE)
    _int_field(err, cond, "actor_hand_at_most", "if", 0, core.DECK_SIZE)
    if "draw_pile_empty" in cond and not isinstance(cond["draw_pile_empty"], bool):
        err.add("if.draw_pile_empty", "must be true or false")


def _check_effect(err: _Errors, effect, path: str) -> None:
    if not isinstance(effect, dict):
        err.add(path, "must be an object with an effect")
        return
    name = effect.get("effect")
    if "effect" not in effect:
        err.add(f"{path}.effect", "required")
        return
    if not isinstance(name, str) or name not in EFFECTS:
        err.add(f"{path}.effect", f"unknown effect: must be one of {list(EFFECTS)}")
        return
    needs_target, extra = EFFECTS[name]
    allowed = ("effect", *(("target",) if needs_target else ()), *extra)
    for key in sorted(set(effect) - set(allowed), key=str):
        if key in ("target", "count", "which"):
            err.add(f"{path}.{key}", f"not allowed with the effect {name}")
        else:
            err.add(f"{path}.{key}", "unknown field: the vocabulary is closed")
    if needs_target:
        if "target" not in effect:
            err.add(f"{path}.target", f"required by the effect {name}")
        elif not isinstance(effect["target"], str) or effect["target"] not in TARGETS:
            # L-11.4: only the game roles of the vocabulary, never a person
            err.add(f"{path}.target", f"must be a game role, one of {list(TARGETS)}")
    if "count" in extra:
        _int_field(err, effect, "count", path, 1, 3)
    if "which" in extra:
        if "which" not in effect:
            err.add(f"{path}.which", "required by give_card: 'lowest' or 'highest'")
        else:
            _choice_field(err, effect, "which", path, WHICH)


def validate_rule(rule, field: str = "rule") -> dict:
    """L-11.7: the normalised machine form of a house rule, or InvalidMove whose `fields` name
    every violation (`rule.when.event`, `rule.then[0].target`, ...). Normalised: description
    stripped, `timing` and `if` filled in, `count` 1 where an effect takes one."""
    err = _Errors(f"{field}." if field else "")
    if not isinstance(rule, dict):
        raise InvalidMove(
            "a house rule must be an object (L-11.7)", fields={field or "rule": ["must be an object"]}
        )
    err.unknown_keys(rule, ("description", "when", "if", "then"), "")
    description = rule.get("description")
    if "description" not in rule:
        err.add("description", "required")
    elif not isinstance(description, str):
        err.add("description", f"must be text of 1 to {DESCRIPTION_MAX} characters")
    else:
        description = description.strip()
        if not 1 <= len(description) <= DESCRIPTION_MAX:
            err.add("description", f"must be 1 to {DESCRIPTION_MAX} characters")
        elif any(unicodedata.category(ch) == "Cc" for ch in description):
            err.add("description", "must not hold control characters")
    if "when" not in rule:
        err.add("when", "required")
    else:
        _check_when(err, rule["when"])
    if "if" in rule:
        _check_if(err, rule["if"])
    then = rule.get("then")
    if "then" not in rule:
        err.add("then", "required")
    elif not isinstance(then, list) or not 1 <= len(then) <= 3:
        err.add("then", "must be a list of 1 to 3 effects")
    else:
        for i, effect in enumerate(then):
            _check_effect(err, effect, f"then[{i}]")
            when = rule.get("when")
            if (
                isinstance(effect, dict)
                and effect.get("effect") == "clear_pile"
                and isinstance(when, dict)
                and when.get("event") == "take_pile"
                and when.get("timing") == "before"
            ):
                # L-11.2: it would clear away the very pile the player takes (an illegal face-down
                # card included), cancelling the take instead of adding to it
                err.add(
                    f"then[{i}].effect",
                    "clear_pile cannot run before take_pile: a rule may not cancel its event",
                )
    if err.fields:
        first_field, messages = next(iter(err.fields.items()))
        raise InvalidMove(f"invalid house rule: {first_field}: {messages[0]} (L-11.7)", fields=err.fields)
    when = dict(rule["when"])
    when.setdefault("timing", "after")
    effects = []
    for effect in then:
        effect = dict(effect)
        if "count" in EFFECTS[effect["effect"]][1]:
            effect.setdefault("count", 1)
        effects.append(effect)
    return {"description": description, "when": when, "if": dict(rule.get("if", {})), "then": effects}


# --- enforcement (L-11.7) ----------------------------------------------------------------------


def _matches(when: dict, facts: dict) -> bool:
    """Omitted filters match everything."""
    if "ranks" in when and facts["rank"] not in when["ranks"]:
        return False
    if ("min_cards" in when or "max_cards" in when) and not (
        when.get("min_cards", 1) <= facts["count"] <= when.get("max_cards", MAX_CARDS_IN_PLAY)
    ):
        return False
    if "source" in when and facts["source"] != when["source"]:
        return False
    if "causes" in when and facts["cause"] not in when["causes"]:
        return False
    return "legal" not in when or facts["legal"] == when["legal"]


def _holds(st: dict, cond: dict, actor: int) -> bool:
    if "actor_phase" in cond:
        phase = "face_down" if core._face_down_phase(st, actor) else "hand"
        if phase != cond["actor_phase"]:
            return False
    if len(st["pile"]) < cond.get("pile_at_least", 0):
        return False
    if "draw_pile_empty" in cond and (not st["draw_pile"]) != cond["draw_pile_empty"]:
        return False
    return len(st["hands"][actor]) <= cond.get("actor_hand_at_most", core.DECK_SIZE)


def fire(ctx: _Ctx, event: str, timing: str, facts: dict) -> None:
    """The hook of core._fire: run, in the order they were written, the active rules of the
    session that this base event triggers. Their effects run with `ctx.in_effect` set, so the
    base events they cause (a clear, a face-up pickup) trigger no rule (L-11.7)."""
    st = ctx.state
    if not st["house_rules"]:
        return
    actor = facts["seat"]
    for record in st["house_rules"]:
        if record["status"] != "active":
            continue
        rule = record["rule"]
        when = rule["when"]
        if when["event"] != event or when["timing"] != timing or not _matches(when, facts):
            continue
        if not _holds(st, rule["if"], actor):
            continue
        if st["rule_firings"] >= MAX_RULE_FIRINGS_PER_TURN:
            if st["rule_firings"] == MAX_RULE_FIRINGS_PER_TURN:
                st["rule_firings"] += 1
                ctx.log({"type": "rule_limit", "seat": actor, "limit": MAX_RULE_FIRINGS_PER_TURN})
            return
        st["rule_firings"] += 1
        ctx.log(
            {"type": "rule_fired", "rule_id": record["id"], "event": event, "timing": timing, "seat": actor}
        )
        ctx.in_effect = True
        try:
            for effect in rule["then"]:
                _EFFECTS[effect["effect"]](ctx, record, effect, actor)
        finally:
            ctx.in_effect = False


def _order_from(st: dict, actor: int) -> list[int]:
    """Seats in play order starting with the actor (the order effects reach several targets)."""
    n = st["players"]
    step = core._step(st)
    return [(actor + step * i) % n for i in range(n)]


def targets(st: dict, target: str, actor: int) -> list[int]:
    """L-11.4: the seats a game role names now; players who are out are never targets."""
    active = [s for s in _order_from(st, actor) if not st["out"][s]]
    if target == "actor":
        return [actor] if actor in active else []
    if target in ("next_player", "previous_player"):
        seat = core._next_active(st, actor) if target == "next_player" else core._prev_active(st, actor)
        return [seat] if seat != actor and seat in active else []
    if target == "all_other_players":
        return [s for s in active if s != actor]
    if target == "all_players":
        return active
    if target in ("most_cards", "fewest_cards"):
        if not active:
            return []
        counts = {s: core.held(st, s) for s in active}
        best = max(counts.values()) if target == "most_cards" else min(counts.values())
        return [s for s in active if counts[s] == best]  # ties: every tied player
    winner = st["last_round_winner"]
    return [winner] if winner in active else []


def _receives(ctx: _Ctx, seat: int) -> bool:
    """L-11.3: a player who is out or going out gets no card from a rule (no rule stops a win)."""
    return not ctx.state["out"][seat] and seat not in ctx.protected


def _effect_draw(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    st = ctx.state
    for seat in targets(st, effect["target"], actor):
        if not st["draw_pile"] or not _receives(ctx, seat):
            continue
        drawn = st["draw_pile"][: effect["count"]]  # while the draw pile lasts
        del st["draw_pile"][: effect["count"]]
        st["hands"][seat] = sorted(st["hands"][seat] + drawn, key=core.card_key)
        ctx.log_cards_moved(
            {
                "type": "draw",
                "seat": seat,
                "count": len(drawn),
                "draw_pile_count": len(st["draw_pile"]),
                "rule_id": record["id"],
                "secret": {"cards": drawn},
                "secret_to": [seat],
            }
        )


def _effect_skip(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    st = ctx.state
    for seat in targets(st, effect["target"], actor):
        # Ruling: skips do not stack; a seat loses at most its next turn (see core._start_turn)
        if any(k["seat"] == seat for k in st["skips"]):
            continue
        st["skips"].append({"seat": seat, "rule_id": record["id"]})
        ctx.log({"type": "skip_next_turn", "seat": seat, "rule_id": record["id"]})


def _effect_reverse(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    # Ruling: the reversal lasts until the round's end (or the next reversal); every deal starts
    # in the base rule's direction, the reading that changes base Lopti the least.
    st = ctx.state
    st["reversed"] = not st["reversed"]
    direction = "clockwise" if core._step(st) == 1 else "counterclockwise"
    ctx.log({"type": "reverse_direction", "direction": direction, "rule_id": record["id"]})


def _effect_clear(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    # L-7.1 / L-7.2: a custom clear is a clear in full, the actor's extra play included
    core._clear(ctx, actor, "house_rule")


def _effect_give(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    st = ctx.state
    if not _receives(ctx, actor):
        return
    for seat in targets(st, effect["target"], actor):
        hand = st["hands"][seat]
        # Ruling: a rule never takes a player's last card: going out is only by playing it
        # (L-10.1), and a player left with no card could never move again.
        if seat == actor or not hand or core.held(st, seat) <= 1:
            continue
        card = hand[0] if effect["which"] == "lowest" else hand[-1]
        st["hands"][seat] = hand[1:] if effect["which"] == "lowest" else hand[:-1]
        st["hands"][actor] = sorted(st["hands"][actor] + [card], key=core.card_key)
        ctx.log_cards_moved(
            {
                "type": "give_card",
                "seat": seat,
                "to": actor,
                "rule_id": record["id"],
                "secret": {"card": card},
                "secret_to": [seat, actor],
            }
        )
        # L-8.1: the moment a hand is empty its face-up cards become the hand (this player is
        # not in turn, so its draw opportunity has passed)
        core._face_up_pickup(ctx, seat)


def _effect_return(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    st = ctx.state
    for seat in targets(st, effect["target"], actor):
        if not st["cleared"] or not _receives(ctx, seat):
            continue
        cards = st["cleared"][-effect["count"] :]  # the most recently cleared first in line
        del st["cleared"][-len(cards) :]
        st["hands"][seat] = sorted(st["hands"][seat] + cards, key=core.card_key)
        ctx.log(
            {
                "type": "return_cleared",
                "seat": seat,
                "cards": cards,
                "cleared_count": len(st["cleared"]),
                "rule_id": record["id"],
            }
        )


def _effect_reveal(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    st = ctx.state
    for seat in targets(st, effect["target"], actor):
        st["revealed"] = [r for r in st["revealed"] if r["seat"] != seat]
        st["revealed"].append({"seat": seat, "rule_id": record["id"]})
        ctx.log(
            {
                "type": "reveal_hand",
                "seat": seat,
                "cards": sorted(st["hands"][seat], key=core.card_key),
                "rule_id": record["id"],
            }
        )


def _effect_announce(ctx: _Ctx, record: dict, effect: dict, actor: int) -> None:
    ctx.log({"type": "announce", "rule_id": record["id"], "description": shown_description(record)})


_EFFECTS = {
    "draw": _effect_draw,
    "skip_next_turn": _effect_skip,
    "reverse_direction": _effect_reverse,
    "clear_pile": _effect_clear,
    "give_card": _effect_give,
    "return_cleared": _effect_return,
    "reveal_hand": _effect_reveal,
    "announce": _effect_announce,
}


def stop_pending(ctx: _Ctx, rule_id: int) -> None:
    """L-12.2: an immediate change (or the author's delete) stops the rule's unfinished special
    actions, its pending skips and shown hands; completed actions stay done."""
    st = ctx.state
    skips = [k for k in st["skips"] if k["rule_id"] != rule_id]
    revealed = [r for r in st["revealed"] if r["rule_id"] != rule_id]
    if len(skips) != len(st["skips"]) or len(revealed) != len(st["revealed"]):
        st["skips"], st["revealed"] = skips, revealed
        ctx.log({"type": "rule_actions_stopped", "rule_id": rule_id})


# --- rule records and their views ---------------------------------------------------------------


def shown_description(record: dict) -> str:
    return HIDDEN_DESCRIPTION if record["hidden"] else record["rule"]["description"]


def find(st: dict, rule_id: int) -> dict | None:
    """A rule of the current session."""
    return next((r for r in st["house_rules"] if r["id"] == rule_id), None)


def find_earlier(st: dict, rule_id: int) -> dict | None:
    """The latest copy of a rule in an earlier session's history."""
    found = [r for r in st["rule_history"] if r["id"] == rule_id]
    return found[-1] if found else None


def editable(st: dict, record: dict) -> bool:
    """L-11.5 ruling: the author may edit a new rule until the next round begins, that is until
    that round's first card play."""
    return record["status"] != "deleted" and record["edit_round"] == st["round"] and not st["round_started"]


def rule_view(st: dict, record: dict, *, current: bool = True) -> dict:
    rule = dict(record["rule"], description=shown_description(record))
    out = {
        "id": record["id"],
        "author": record["author"],
        "rule": rule,
        "status": record["status"],
        "session": record["session"],
        "created_session": record["created_session"],
        "created_round": record["created_round"],
        "hidden": record["hidden"],
    }
    if current:
        out["editable"] = editable(st, record)
    return out


def house_rules_view(state: dict) -> list[dict]:
    """The current session's house rules (active, removed and deleted), oldest first, with a
    moderated description replaced by a placeholder."""
    return [rule_view(state, r) for r in state["house_rules"]]


def rule_history_view(state: dict) -> list[dict]:
    """Earlier sessions' rules (the latest copy of each id), for `restore` votes in setup."""
    latest = {r["id"]: r for r in state["rule_history"]}
    return [rule_view(state, r, current=False) for r in sorted(latest.values(), key=lambda r: r["id"])]


def redact_moderated(entry: dict, state: dict) -> dict:
    """A move-log entry with the descriptions of moderated rules hidden. The log keeps what
    was written (moves replay as they were made); what it shows follows the current
    moderation, so a hidden description leaves every place it was shown at once."""
    hidden = {r["id"] for r in state["house_rules"] + state["rule_history"] if r.get("hidden")}
    if not hidden or not _mentions(entry, hidden):
        return entry
    return _without_descriptions(entry)


def _mentions(value, ids: set[int]) -> bool:
    if isinstance(value, dict):
        if value.get("rule_id") in ids or ("author" in value and value.get("id") in ids):
            return True
        return any(_mentions(v, ids) for v in value.values())
    if isinstance(value, list):
        return any(_mentions(v, ids) for v in value)
    return False


def _without_descriptions(value):
    if isinstance(value, dict):
        return {k: HIDDEN_DESCRIPTION if k == "description" else _without_descriptions(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value
