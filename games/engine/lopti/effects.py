"""House rules' enforcement (L-11.2-L-11.7): `fire` runs the matching active rules at every base
event (trigger, filters, conditions; effects in order), within the turn's bound; effects never
trigger rules, never give a card to a player going out, never take a last card."""

from __future__ import annotations

from . import core, house_rules
from .core import _Ctx
from .vocabulary import MAX_CARDS_IN_PLAY, MAX_RULE_FIRINGS_PER_TURN

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
    ctx.log({"type": "announce", "rule_id": record["id"], "description": house_rules.shown_description(record)})


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
