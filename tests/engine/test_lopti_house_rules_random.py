"""Property test for house rules (L-11) with votes, duels and sessions (L-12): random valid rules
generated from the vocabulary of L-11.7, written in random windows or preloaded, in random tables
with random votes, deletes, moderation and new sessions. At every step: card conservation, JSON
state, bounded work per call and per turn (L-11.3: nothing loops), every listed move applies,
the timeout move is legal, no rule stops a win, a 10's clear or the clearer's extra play
(L-11.2, L-11.3, L-7.4), and no view, viewed event or viewed move shows a hidden card (L-14)
other than a hand that a rule made public (reveal_hand), and a card moving into or out of such
an open hand is shown to all exactly while it is open (18.11)."""

from __future__ import annotations

import json
import random

import pytest

from games.engine import cards, lopti
from games.engine.base import GameConflict, IllegalMove, InvalidMove
from games.engine.lopti import house_rules as vocab

from .test_lopti_house_rules import with_rules
from .test_lopti_random import hidden_from, public_cards, random_move, random_options
from .test_lopti_support import G, check_conservation, strings

MAX_GAME_MOVES_PER_TURN = 150
MAX_EVENTS_PER_CALL = 500
MAX_STEPS_PER_TABLE = 2500


def random_rule(rng: random.Random) -> dict:
    """A valid rule drawn from the whole vocabulary of L-11.7."""
    event = rng.choice(list(vocab.EVENTS))
    when: dict = {"event": event}
    if rng.random() < 0.8:
        when["timing"] = rng.choice(vocab.TIMINGS)
    for name in vocab.EVENTS[event]:
        if rng.random() > 0.4:
            continue
        if name == "ranks":
            when["ranks"] = rng.sample(cards.RANKS, rng.randint(1, 5))
        elif name == "min_cards":
            when["min_cards"] = rng.randint(1, 2)
        elif name == "max_cards":
            when["max_cards"] = rng.randint(when.get("min_cards", 1), 4)
        elif name == "source":
            when["source"] = rng.choice(vocab.SOURCES)
        elif name == "causes":
            when["causes"] = rng.sample(vocab.CAUSES, rng.randint(1, 4))
        elif when.get("timing", "after") == "after":
            when["legal"] = rng.random() < 0.5
    cond: dict = {}
    for name in vocab.CONDITIONS:
        if rng.random() < 0.15:
            cond[name] = {
                "actor_phase": rng.choice(vocab.ACTOR_PHASES),
                "pile_at_least": rng.randint(0, 4),
                "draw_pile_empty": rng.random() < 0.5,
                "actor_hand_at_most": rng.randint(0, 5),
            }[name]
    effects = []
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(list(vocab.EFFECTS))
        if name == "clear_pile" and event == "take_pile" and when.get("timing") == "before":
            name = "announce"  # refused by validate_rule (L-11.2)
        needs_target, fields = vocab.EFFECTS[name]
        effect: dict = {"effect": name}
        if needs_target:
            effect["target"] = rng.choice(vocab.TARGETS)
        if "count" in fields and rng.random() < 0.8:
            effect["count"] = rng.randint(1, 3)
        if "which" in fields:
            effect["which"] = rng.choice(vocab.WHICH)
        effects.append(effect)
    out = {"description": f"random rule {rng.randrange(10**6)}", "when": when, "then": effects}
    if cond or rng.random() < 0.2:
        out["if"] = cond
    lopti.validate_rule(out)  # the generator only makes valid rules
    return out


def random_proposal(rng: random.Random, st: dict) -> dict:
    kind = rng.choice(["remove", "modify", "restore", "base_rule"])
    proposal = {"type": "propose_vote", "kind": kind, "applies": rng.choice(["now", "next_round"])}
    if kind == "base_rule":
        key = rng.choice(sorted(lopti.BASE_RULES))
        option = lopti.BASE_RULES[key]
        if option.type == "bool":
            value = rng.random() < 0.5
        elif option.type == "choice":
            value = rng.choice(option.choices)
        else:
            value = rng.randint(option.minimum, option.maximum)
        return {**proposal, "key": key, "value": value}
    ids = [r["id"] for r in st["house_rules"] + st["rule_history"]] or [1]
    proposal["rule_id"] = rng.choice(ids)
    if kind == "modify":
        proposal["rule"] = random_rule(rng)
    return proposal


def choose(rng: random.Random, st: dict, seat: int, moves: list[dict]) -> dict:
    if st["phase"] == "house_rule" and not st["open_vote"]:
        if rng.random() < 0.8:
            return {"type": "write_rule", "rule": random_rule(rng)}
        return moves[0]
    plays = [m for m in moves if m["type"] in ("play", "play_face_down")]
    if plays and rng.random() < 0.9:
        if plays[0]["type"] == "play" and rng.random() < 0.7:
            return min(
                plays, key=lambda m: (lopti.RANK_VALUE[cards.rank_of(m["cards"][0])], -len(m["cards"]))
            )
        return rng.choice(plays)
    return rng.choice(moves)


def cards_moved_in_the_open(before: dict, events: list[dict]) -> set[str]:
    """18.11 ruling (L-11.7 reveal_hand): a draw or a given card is public exactly when a hand
    it moves into or out of is open at that moment. Follows the open hands through the events
    (reveal_hand opens, reveal_end / a stopped rule / a new round closes) and checks each such
    event against that; returns the cards they showed to everyone."""
    open_by = {r["seat"]: r["rule_id"] for r in before["revealed"]}
    public = set()
    for e in events:
        kind = e["type"]
        if kind == "reveal_hand":
            open_by[e["seat"]] = e["rule_id"]
        elif kind == "reveal_end":
            open_by.pop(e["seat"], None)
        elif kind == "rule_actions_stopped":
            open_by = {s: r for s, r in open_by.items() if r != e["rule_id"]}
        elif kind in ("round_end", "deal", "session_new"):
            open_by = {}
        elif kind in ("draw", "give_card"):
            seats = {e["seat"], e.get("to", e["seat"])}
            in_the_open = bool(seats & set(open_by))
            assert ("secret" not in e) == in_the_open, (e, open_by)
            if in_the_open:
                public |= set(e["cards"]) if kind == "draw" else {e["card"]}
    return public


def check_hidden(before: dict, after: dict, mover, mv: dict, events: list[dict]) -> None:
    n = after["players"]
    shown = set()  # hands a rule made public, at any point of the call
    for st in (before, after):
        for r in st["revealed"]:
            shown |= set(st["hands"][r["seat"]])
    for e in events:
        if e["type"] == "reveal_hand":
            shown |= set(e["cards"])
    shown |= cards_moved_in_the_open(before, events)
    revealed = {e["card"] for e in events if e["type"] == "face_down_reveal"}
    for e in events:  # face-up cards are public (L-14), also on their way to a hand
        if e["type"] == "deal":
            revealed |= {c for row in e["face_up"] for c in row if c}
        if e["type"] == "face_up_pickup":
            revealed |= set(e["cards"])
    moved = set(mv.get("cards", [])) | {mv[k] for k in ("hand_card", "face_up_card") if k in mv}
    shared = public_cards(before) | public_cards(after) | revealed | moved | shown
    for seat in [None, *range(n)]:
        view = G.view(after, seat)
        leak = strings(view) & (hidden_from(after, seat) - shown)
        assert not leak, (seat, leak)
        assert str(after["seed"]) not in json.dumps(view)
        own = set()
        if seat is not None:  # the seat's hand before and after, and what passed through it
            own = set(before["hands"][seat]) | set(after["hands"][seat])
            for e in events:
                if e["type"] == "draw" and e["seat"] == seat and "secret" in e:
                    own |= set(e["secret"]["cards"])
                if e["type"] == "give_card" and seat in (e["seat"], e["to"]) and "secret" in e:
                    own.add(e["secret"]["card"])
        seen = strings([G.view_event(e, seat) for e in events]) | strings(
            G.view_move(mv, mover, events, seat)
        )
        leak = {c for c in seen if cards.is_card(c)} - shared - own
        assert not leak, (seat, leak, events)
        if mv["type"] == "throw" and seat != mover:
            assert "throw" not in G.view_move(mv, mover, events, seat)
            assert "throw" not in (view["you"] or {})


def check_guarantees(before: dict, after: dict, mover, mv: dict, events: list[dict]) -> None:
    names = [e["type"] for e in events]
    if mover is not None and mv["type"] in ("play", "play_face_down"):
        # L-11.3: a legal play of the last card goes out, whatever rules add
        last = vocab.core.held(before, mover) == (len(mv["cards"]) if mv["type"] == "play" else 1)
        legal = mv["type"] == "play" or any(e["type"] == "face_down_reveal" and e["legal"] for e in events)
        if last and legal:
            assert after["out"][mover] or "game_end" in names, events
            assert any(e["type"] == "go_out" and e["seat"] == mover for e in events)
        # L-7.4: no rule prevents a 10's clear
        card = mv["cards"][0] if mv["type"] == "play" else before["face_down"][mover][mv["index"]]
        if cards.rank_of(card) == "10" and before["rules"]["ten_clears"] and legal:
            assert any(e["type"] == "clear" and e["cause"] == "ten" for e in events)
    clears = [e for e in events if e["type"] == "clear"]
    if clears and "round_end" not in names and after["status"] == "active":
        # L-7.2 / L-7.4: the last clearer still in play has its extra play next
        seat = clears[-1]["seat"]
        if not after["out"][seat] and after["rules"]["extra_play_on_clear"]:
            assert after["extra_plays"] >= 1, events
            if after["phase"] == "swap":
                assert after["first_player"] == seat
            else:
                assert after["turn"] == seat


def run_tables(seed: int, tables: int, heavy_every: int) -> dict:
    rng = random.Random(seed)
    throw_rng = random.Random(seed + 1)
    stats = {"rounds": 0, "fired": 0, "votes": 0, "duels": 0, "sessions": 0, "written": 0, "capped": 0}
    for t in range(tables):
        players = rng.randint(2, 5)
        options = random_options(rng)
        st = G.new_game(players=players, options=options, seed=rng.randrange(2**62))
        st = with_rules(
            st, *(random_rule(rng) for _ in range(rng.randint(0, 4))), author=rng.randrange(players)
        )
        heavy = t % heavy_every == 0
        turn_moves = 0  # moves since the last turn began
        for step in range(MAX_STEPS_PER_TABLE):
            if G.is_finished(st):
                break
            seat, mv = None, None
            r = rng.random()
            if st["phase"] == "setup" and not st["open_vote"]:
                earlier = [h["id"] for h in st["rule_history"] if h["id"] not in st["setup_votes"]]
                if earlier and rng.random() < 0.5:
                    seat = rng.randrange(players)
                    mv = {
                        "type": "propose_vote",
                        "kind": "restore",
                        "rule_id": rng.choice(earlier),
                        "applies": "now",
                    }
                else:
                    mv = {"type": "start_session"}
            elif r < 0.012 and not st["open_vote"]:
                seat, mv = rng.randrange(players), random_proposal(rng, st)
            elif r < 0.016 and st["house_rules"]:
                record = rng.choice(st["house_rules"])
                seat, mv = record["author"], {"type": "delete_rule", "rule_id": record["id"]}
            elif r < 0.018 and st["house_rules"]:
                mv = {
                    "type": "moderate_rule",
                    "rule_id": st["house_rules"][0]["id"],
                    "hidden": rng.random() < 0.7,
                }
            elif st["phase"] == "house_rule" and r < 0.15 and not st["open_vote"]:
                mv = {"type": "new_session"}
            if mv is not None:
                try:
                    before = st
                    st, events = G.apply(st, seat, mv)
                except (GameConflict, IllegalMove, InvalidMove):
                    continue
            else:
                to_act = G.to_act(st)
                assert to_act, "an active table outside setup always has someone to act"
                seat = rng.choice(to_act)
                moves = G.legal_moves(st, seat)
                assert moves
                assert G.timeout_move(st, seat, throw_rng) in moves
                if step % 3 == 0:
                    G.apply(st, seat, rng.choice(moves))
                bad = random_move(rng, st, seat)
                if bad not in moves:
                    with pytest.raises((IllegalMove, InvalidMove, GameConflict)):
                        G.apply(st, seat, bad)
                mv = (
                    choose(rng, st, seat, moves)
                    if rng.random() > 0.05
                    else G.timeout_move(st, seat, throw_rng)
                )
                before = st
                ctx = G.apply_in_context(st, seat, mv)
                st, events = ctx.state, ctx.events
                turn_moves += mv["type"] in lopti.MOVE_FIELDS  # card moves, not ballots or throws
                assert turn_moves <= MAX_GAME_MOVES_PER_TURN, "a turn did not end"
                if ("turn_start", "before") in [(f["event"], f["timing"]) for f in ctx.fired]:
                    turn_moves = 0
            check_conservation(st)
            assert len(events) <= MAX_EVENTS_PER_CALL
            if step % 5 == 0 or heavy:
                assert json.loads(json.dumps(st)) == st
            check_guarantees(before, st, seat, mv, events)
            if heavy:
                check_hidden(before, st, seat, mv, events)
            for e in events:
                kind = e["type"]
                stats["rounds"] += kind == "round_end"
                stats["fired"] += kind == "rule_fired"
                stats["votes"] += kind == "vote_closed"
                stats["duels"] += kind == "duel_end"
                stats["sessions"] += kind == "session_new"
                stats["written"] += kind == "rule_written"
        else:
            stats["capped"] += 1
    return stats


@pytest.mark.parametrize("seed", [101, 202, 303])
def test_random_house_rules_votes_and_sessions(seed):
    stats = run_tables(seed, tables=14, heavy_every=3)
    assert stats["rounds"] >= 20 and stats["fired"] >= 300 and stats["written"] >= 10
    assert stats["votes"] >= 3 and stats["sessions"] >= 1
    assert stats["capped"] <= 14 // 2  # most tables play to their end
