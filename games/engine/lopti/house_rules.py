"""House rules (L-11): the machine form of L-11.7, its validation, and its enforcement.

A rule is data in a closed vocabulary (trigger, optional conditions, one to three effects, the
author's description). The vocabulary is the guarantee of L-11.2 to L-11.4: no effect cancels
an event, every target is a game role (never a person), and effects of house rules never
trigger house rules, so nothing loops. On top of that the engine bounds the rule work of a turn
(MAX_RULE_FIRINGS_PER_TURN), never lets a rule give a card to a player who is going out or out
(L-11.3: no rule prevents a win), and never lets a rule take a player's last card (a player
goes out only by playing it, L-10.1).

Split by job: vocabulary.py, validation.py, effects.py; the lookups and views stay
here, and the old names still resolve here for callers.
"""

from __future__ import annotations

from . import core  # noqa: F401 (tests reach the base rules through here)
from .validation import validate_rule  # noqa: F401 (the old name, for callers)
from .vocabulary import (  # noqa: F401 (the old names, for callers)
    ACTOR_PHASES,
    CAUSES,
    CONDITIONS,
    DESCRIPTION_MAX,
    EFFECTS,
    EVENTS,
    HIDDEN_DESCRIPTION,
    MAX_CARDS_IN_PLAY,
    MAX_RULE_FIRINGS_PER_TURN,
    SOURCES,
    TARGETS,
    TIMINGS,
    WHICH,
)

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
