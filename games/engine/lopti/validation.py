"""House rules' validation (L-11.7): `validate_rule` normalises a rule in the machine form or
names every bad field at once."""

from __future__ import annotations

import unicodedata

from ..base import InvalidMove
from ..cards import RANKS
from . import core
from . import vocabulary as vocab

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


def _distinct_list(err: _Errors, when: dict, key: str, allowed) -> None:
    """A filter listing distinct values of `allowed` (the play's ranks, the clear's causes)."""
    values = when[key]
    if (
        not isinstance(values, list)
        or not values
        or not all(isinstance(v, str) and v in allowed for v in values)
        or len(set(values)) != len(values)
    ):
        err.add(f"when.{key}", f"must be a non-empty list of distinct {key} from {list(allowed)}")


def _check_when(err: _Errors, when) -> None:
    if not isinstance(when, dict):
        err.add("when", "must be an object with an event")
        return
    event = when.get("event")
    if "event" not in when:
        err.add("when.event", "required")
        filters: tuple[str, ...] = ()
    elif not isinstance(event, str) or event not in vocab.EVENTS:
        err.add("when.event", f"unknown event: must be one of {list(vocab.EVENTS)}")
        filters = tuple(k for k in when if k not in ("event", "timing"))  # judged with the event
    else:
        filters = vocab.EVENTS[event]
    err.unknown_keys(when, ("event", "timing", *filters), "when")
    _choice_field(err, when, "timing", "when", vocab.TIMINGS)
    if "ranks" in when and "ranks" in filters:
        _distinct_list(err, when, "ranks", RANKS)
    for key in ("min_cards", "max_cards"):
        if key in filters:
            _int_field(err, when, key, "when", 1, vocab.MAX_CARDS_IN_PLAY)
    low, high = when.get("min_cards", 1), when.get("max_cards", vocab.MAX_CARDS_IN_PLAY)
    if _is_int(low) and _is_int(high) and low > high and "max_cards" in when:
        err.add("when.max_cards", "must not be below min_cards")
    if "source" in filters:
        _choice_field(err, when, "source", "when", vocab.SOURCES)
    if "causes" in when and "causes" in filters:
        _distinct_list(err, when, "causes", vocab.CAUSES)
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
    err.unknown_keys(cond, vocab.CONDITIONS, "if")
    _choice_field(err, cond, "actor_phase", "if", vocab.ACTOR_PHASES)
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
    if not isinstance(name, str) or name not in vocab.EFFECTS:
        err.add(f"{path}.effect", f"unknown effect: must be one of {list(vocab.EFFECTS)}")
        return
    needs_target, extra = vocab.EFFECTS[name]
    allowed = ("effect", *(("target",) if needs_target else ()), *extra)
    for key in sorted(set(effect) - set(allowed), key=str):
        if key in ("target", "count", "which"):
            err.add(f"{path}.{key}", f"not allowed with the effect {name}")
        else:
            err.add(f"{path}.{key}", "unknown field: the vocabulary is closed")
    if needs_target:
        if "target" not in effect:
            err.add(f"{path}.target", f"required by the effect {name}")
        elif not isinstance(effect["target"], str) or effect["target"] not in vocab.TARGETS:
            # L-11.4: only the game roles of the vocabulary, never a person
            err.add(f"{path}.target", f"must be a game role, one of {list(vocab.TARGETS)}")
    if "count" in extra:
        _int_field(err, effect, "count", path, 1, 3)
    if "which" in extra:
        if "which" not in effect:
            err.add(f"{path}.which", "required by give_card: 'lowest' or 'highest'")
        else:
            _choice_field(err, effect, "which", path, vocab.WHICH)


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
        err.add("description", f"must be text of 1 to {vocab.DESCRIPTION_MAX} characters")
    else:
        description = description.strip()
        if not 1 <= len(description) <= vocab.DESCRIPTION_MAX:
            err.add("description", f"must be 1 to {vocab.DESCRIPTION_MAX} characters")
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
        if "count" in vocab.EFFECTS[effect["effect"]][1]:
            effect.setdefault("count", 1)
        effects.append(effect)
    return {"description": description, "when": when, "if": dict(rule.get("if", {})), "then": effects}
