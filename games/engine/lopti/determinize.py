"""Lopti's `determinize`: a full state consistent with one seat's view, for the
hard bot's search.

The cards the seat cannot see (other hands not laid open, every face-down card including its
own, the draw pile, and which cards the cleared piles and discarded 3-chains held) are dealt at
random, consistently with the public counts; discarded cards are 3s (L-6.2). Everything the
view shows is copied: the table, the round's public state, house rules (a moderated rule keeps
its effect: the view shows the machine form), skips, a reversed direction, open hands.

`prior` (optional): `{rank: weight}`, how much likelier than a uniformly random unseen card a
card of that rank is to be in another player's hand (ranks left out weigh 1). The hard bot
passes what easy-like players keep. None: uniform.

Limits (documented rulings): a Rule Vote's records are not rebuilt (the view shows only the
current vote, not the table's earlier ones): the sample has no votes, so search runs only while
no vote is open. The other players' swaps left in the swap phase are not shown: the sample gives
each undecided player the full `swaps_allowed`. The view does not show whether the current
turn's first play was made; a turn with extra plays pending has made it.
"""

from __future__ import annotations

from .. import fairness
from ..cards import rank_of, standard_deck
from .core import _clone, card_key

_DECK = standard_deck()
_RANK = {c: rank_of(c) for c in _DECK}
_TEMPLATES: dict[int, dict] = {}


def _template(engine, n: int) -> dict:
    if n not in _TEMPLATES:
        _TEMPLATES[n] = engine.new_game(players=n, options={}, seed=0, first_dealer=0)
    return _clone(_TEMPLATES[n])


def _rule_record(rule: dict, round_no: int) -> dict:
    """A house rule's record from its view (the description may be a placeholder: it changes
    nothing the rule does)."""
    record = {k: v for k, v in rule.items() if k != "editable"}
    record["rule"] = _clone(rule.get("rule") or {})
    record["edit_round"] = round_no if rule.get("editable") else -1
    return record


def determinize(engine, view: dict, rng, prior: dict | None = None) -> dict:
    you = view["you"]
    me = you["seat"]
    public = view["public"]
    seats = view["seats"]
    n = len(seats)
    known = {s: list(info["revealed_hand"]) for s, info in enumerate(seats) if info.get("revealed_hand") is not None}
    known[me] = list(you["hand"])
    seen = set(public["pile"]) | set(public["three_chain"])
    for s, info in enumerate(seats):
        seen.update(c for c in info["face_up"] if c)
        seen.update(known.get(s, ()))
    pool = [c for c in _DECK if c not in seen]
    discarded = []
    if public["discarded_count"]:  # 3s of earlier chains (L-6.2)
        threes = [c for c in pool if _RANK[c] == "3"]
        rng.shuffle(threes)
        discarded = threes[: public["discarded_count"]]
        gone = set(discarded)
        pool = [c for c in pool if c not in gone]
    # Other hands first, weighted by the prior (Efraimidis-Spirakis weighted sampling without
    # replacement), then the rest uniformly.
    in_hands = sum(info["hand_count"] for s, info in enumerate(seats) if s not in known)
    if prior:
        pool.sort(key=lambda c: rng.random() ** (1.0 / prior.get(_RANK[c], 1.0)), reverse=True)
    else:
        rng.shuffle(pool)
    held, rest = pool[:in_hands], pool[in_hands:]
    rng.shuffle(held)
    rng.shuffle(rest)
    it = iter(held + rest)
    hands = []
    for s in range(n):
        if s in known:
            hands.append(sorted(known[s], key=card_key))
        else:
            hands.append(sorted((next(it) for _ in range(seats[s]["hand_count"])), key=card_key))
    rules = dict(public["rules"])
    face_down = []
    for s in range(n):
        positions = seats[s]["face_down_positions"]
        row = [None] * max([rules["face_down_count"], *(p + 1 for p in positions)])
        for p in positions:
            row[p] = next(it)
        face_down.append(row)
    draw_pile = [next(it) for _ in range(public["draw_pile_count"])]
    cleared = list(it)
    st = _template(engine, n)
    pile = list(public["pile"])
    extra = public["extra_plays"]
    phase = view["phase"]
    finished = "winners" in public
    st.update(
        status="finished" if finished else "active",
        phase=phase,
        rules=rules,
        next_rules=dict(public["next_rules"]),
        session=public["session"],
        round=view["round"],
        dealer=view["dealer"],
        first_player=public["first_player"],
        round_wins=list(public["round_wins"]),
        last_round_winner=public["last_round_winner"],
        winners=list(public.get("winners", [])),
        window=dict(public["window"]) if public["window"] else None,
        face_down=face_down,
        face_up=[list(s["face_up"]) for s in seats],
        hands=hands,
        draw_pile=draw_pile,
        pile=pile,
        top_count=public["top_count"] if pile else 0,
        three_chain=list(public["three_chain"]),
        discarded=discarded,
        cleared=cleared,
        low_lock=bool(public["low_lock"]),
        obligation=public["obligation"],
        turn=view["turn"] if phase == "play" else None,
        played=extra > 0,
        extra_plays=extra,
        out=[bool(s["out"]) for s in seats],
        places=list(public["places"]),
        swap_done=[bool(s.get("swap_done", True)) for s in seats],
        swaps_left=[
            you.get("swaps_left", 0) if s == me else (0 if info.get("swap_done", True) else rules["swaps_allowed"])
            for s, info in enumerate(seats)
        ],
        reversed=bool(public["direction_reversed"]),
        skips=[{"seat": s, "rule_id": None} for s, i in enumerate(seats) for _ in range(i["skips"])],
        revealed=[{"seat": s, "rule_id": None} for s in sorted(known) if s != me],
        vote_used=bool(public["vote_used"]),
        votes=[],
        duels=[],
        open_vote=None,
        pending_changes=[],
    )
    fair = fairness.from_view(public)
    if fair is None:
        st.pop("fairness", None)
    else:
        st["fairness"] = fair
    st["options"] = {**st["options"], **{k: rules[k] for k in rules if k in st["options"]}, "rounds": public["rounds"]}
    house = [r for r in public["house_rules"] if isinstance(r, dict)]
    history = list(public["rule_history"])
    st["round_started"] = not any(r.get("editable") for r in house) and bool(
        pile or public["three_chain"] or public["discarded_count"] or public["cleared_count"] or public["places"]
    )
    st["house_rules"] = [_rule_record(r, view["round"]) for r in house]
    st["rule_history"] = [_rule_record(r, view["round"]) for r in history]
    ids = [r["id"] for r in house + history if isinstance(r.get("id"), int)]
    st["next_rule_id"] = max(ids, default=0) + 1
    return st
