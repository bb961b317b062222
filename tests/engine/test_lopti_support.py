"""Helpers shared by the Lopti engine tests (no tests here): fixed decks that deal exactly the
cards a scenario needs, mid-round tables built directly, and checks used everywhere."""

from __future__ import annotations

import copy
import json
import re

import pytest

from games.engine import cards, lopti
from games.engine.base import IllegalMove

G = lopti.GAME
SEED = 424242
FULL = cards.standard_deck()


def deal_slots(players: int, dealer: int, rules: dict) -> list[tuple[str, int, int]]:
    """(kind, seat, position) of each dealt card in deal order (L-3.1), written independently
    of the engine: face-down rounds, face-up rounds, then hand rounds, from dealer + 1."""
    order = [(dealer + 1 + i) % players for i in range(players)]
    slots = []
    for kind, count in (
        ("face_down", rules["face_down_count"]),
        ("face_up", rules["face_up_count"]),
        ("hand", rules["hand_size"]),
    ):
        for pos in range(count):
            slots.extend((kind, seat, pos) for seat in order)
    return slots


def expected_deal(deck: list[str], players: int, dealer: int, rules: dict) -> dict:
    """What L-3.1 deals from `deck`: per-seat face_down/face_up by position, hands (sorted) and
    the draw pile in order."""
    out = {
        "face_down": [[None] * rules["face_down_count"] for _ in range(players)],
        "face_up": [[None] * rules["face_up_count"] for _ in range(players)],
        "hand": [[] for _ in range(players)],
    }
    slots = deal_slots(players, dealer, rules)
    for card, (kind, seat, pos) in zip(deck, slots, strict=False):
        if kind == "hand":
            out["hand"][seat].append(card)
        else:
            out[kind][seat][pos] = card
    out["hand"] = [sorted(h, key=lopti.card_key) for h in out["hand"]]
    out["draw_pile"] = deck[len(slots) :]
    return out


def deck_for(
    players: int,
    dealer: int,
    rules: dict,
    *,
    face_down: dict | None = None,
    face_up: dict | None = None,
    hands: dict | None = None,
    draw: list[str] = (),
) -> list[str]:
    """A fixed deck that deals the named cards (seat -> list by position; hands in any order)
    and starts the draw pile with `draw`; every other slot gets an unused card."""
    wanted = {"face_down": face_down or {}, "face_up": face_up or {}, "hand": hands or {}}
    named = [c for group in wanted.values() for cards_ in group.values() for c in cards_] + list(draw)
    assert len(set(named)) == len(named)
    spare = [c for c in FULL if c not in named]
    deck = []
    for kind, seat, pos in deal_slots(players, dealer, rules):
        given = wanted[kind].get(seat)
        deck.append(given[pos] if given is not None else spare.pop(0))
    return deck + list(draw) + spare


def new(players: int = 2, dealer: int = 0, options: dict | None = None, **named) -> dict:
    """A table through new_game with a fixed deck (see deck_for)."""
    opts = G.validate_options(options or {})
    deck = deck_for(players, dealer, opts, **named)
    return G.new_game(players=players, options=opts, seed=SEED, deck=deck, first_dealer=dealer)


def table(
    *,
    players: int = 2,
    turn: int = 0,
    hands: dict | None = None,
    face_up: dict | None = None,
    face_down: dict | None = None,
    pile: list[str] = (),
    top_count: int | None = None,
    draw: list[str] = (),
    chain: list[str] = (),
    obligation: int | None = None,
    low_lock: bool | None = None,
    extra_plays: int = 0,
    played: bool = False,
    out: list[int] = (),
    options: dict | None = None,
) -> dict:
    """A mid-round table in the play phase, built directly. Unnamed seats hold no hand and no
    face-up cards; every seat not out and not named keeps three face-down spare cards, so
    nobody goes out by accident. Cards named nowhere are in the cleared pile (conservation)."""
    st = G.new_game(players=players, options=G.validate_options(options or {}), seed=SEED, first_dealer=0)
    hands, face_up, face_down = hands or {}, face_up or {}, face_down or {}
    named = [c for g in (hands, face_up, face_down) for cs in g.values() for c in cs if c]
    named += list(pile) + list(draw) + list(chain)
    assert len(set(named)) == len(named), "a card is named twice"
    spare = [c for c in FULL if c not in named]
    rules = st["rules"]
    for s in range(players):
        st["hands"][s] = sorted(hands.get(s, []), key=lopti.card_key)
        st["face_up"][s] = list(face_up.get(s, [None] * rules["face_up_count"]))
        if s in face_down:
            st["face_down"][s] = list(face_down[s])
        elif s in out:
            st["face_down"][s] = [None] * rules["face_down_count"]
        else:
            st["face_down"][s] = [spare.pop() for _ in range(rules["face_down_count"])]
    st["pile"] = list(pile)
    if top_count is None:
        top_count = 0
        for c in reversed(pile):
            if cards.rank_of(c) != cards.rank_of(pile[-1]):
                break
            top_count += 1
    st["top_count"] = top_count
    if low_lock is None:
        low_lock = bool(pile) and cards.rank_of(pile[-1]) == "7" and rules["seven_plays_low"]
    st.update(
        phase="play",
        draw_pile=list(draw),
        three_chain=list(chain),
        discarded=[],
        cleared=spare,
        obligation=obligation,
        low_lock=low_lock,
        turn=turn,
        played=played,
        extra_plays=extra_plays,
        out=[s in out for s in range(players)],
        places=list(out),
        swap_done=[True] * players,
        swaps_left=[0] * players,
    )
    check_conservation(st)
    return st


def all_cards(st: dict) -> list[str]:
    """Every card of the round, wherever it is (L-1.1: 52 of them)."""
    found = list(st["draw_pile"]) + st["pile"] + st["three_chain"] + st["discarded"] + st["cleared"]
    for s in range(st["players"]):
        found += st["hands"][s] + [c for c in st["face_up"][s] if c] + [c for c in st["face_down"][s] if c]
    return found


def check_conservation(st: dict) -> None:
    found = all_cards(st)
    assert sorted(found) == sorted(FULL), "cards were lost or duplicated"


def move(st: dict, seat: int, mv: dict) -> tuple[dict, list[dict]]:
    """apply, checking it leaves its input untouched, keeps JSON state and conserves cards."""
    before = copy.deepcopy(st)
    new_state, events = G.apply(st, seat, mv)
    assert st == before, "apply mutated its input"
    assert json.loads(json.dumps(new_state)) == new_state
    assert json.loads(json.dumps(events)) == events
    check_conservation(new_state)
    return new_state, events


def play(st: dict, seat: int, *cards_: str) -> tuple[dict, list[dict]]:
    return move(st, seat, {"type": "play", "cards": list(cards_)})


def take(st: dict, seat: int) -> tuple[dict, list[dict]]:
    return move(st, seat, {"type": "take_pile"})


def face_down(st: dict, seat: int, index: int) -> tuple[dict, list[dict]]:
    return move(st, seat, {"type": "play_face_down", "index": index})


def decline(st: dict) -> tuple[dict, list[dict]]:
    """L-11.1: the round's winner declines to write a house rule; the next round is dealt."""
    assert st["phase"] == "house_rule"
    return move(st, st["window"]["winner"], {"type": "decline_rule"})


def keep_all(st: dict) -> dict:
    for s in list(G.to_act(st)):
        st, _ = move(st, s, {"type": "keep"})
    return st


def illegal(st: dict, seat: int, mv: dict, rule: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as exc:
        G.apply(st, seat, mv)
    assert exc.value.rule == rule, exc.value.rule
    assert mv not in G.legal_moves(st, seat)
    return exc.value


def legal(st: dict, seat: int, mv: dict) -> None:
    assert mv in G.legal_moves(st, seat)


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def first(events: list[dict], kind: str) -> dict:
    return next(e for e in events if e["type"] == kind)


def strings(obj) -> set[str]:
    """Every string inside a JSON value (keys included); card codes hold no quote or escape."""
    return set(_STRING.findall(json.dumps(obj)))


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
