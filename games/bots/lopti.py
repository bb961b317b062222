"""Bot policies for Lopti (rules: `docs/rules/lopti.md`).

Both policies see only `view = engine.view(state, seat)` and return one of
`view["legal_moves"]` verbatim (the same dict object). Neither keeps any memory between calls.

- `easy`: rule-based.
  - Swap phase: swaps its weakest hand card (never a 2, 3, 7, 10 or ace) for its strongest
    face-up card when that is a J or higher or a special; keeps otherwise.
  - Play: goes out when it can; under a 3-obligation plays one 3 (or the 3s that complete the
    chain of four), else takes; completes four of the top rank to clear; when the next player
    is about to go out, blocks with a 3 (they must take), a 7 or its highest card; otherwise
    plays its lowest legal non-special rank, all copies together. Specials (2, 3, 7, 10 while
    their power is on) are kept for when they matter: with no other play it uses a 2 or a 7
    on a small pile and a 3 or a 10 first on a big one (BIG_PILE), and takes a small pile
    rather than spend a 3 or a 10. Face-down phase: a random position (never a voluntary take).
    A small random deviation (EXPLORE, LEAD_EXPLORE) keeps bot-only tables from cycling
    forever (two deterministic players can pass the same pile back and forth).
  - Other decisions: `decline_rule` in the winner's window, a ballot against unless it proposed
    the change, `no_champion`, a random throw in a duel, else a random legal move. It looks
    only at the move types it is offered, so an unknown phase never makes it fail.
- `hard`: determinized Monte Carlo (games/bots/search.py on the engine's `determinize` and
  `step`) in the play phase once the draw pile is empty (elsewhere
  `easy`: see below). Each determinization deals the cards this seat cannot see (other hands,
  every face-down card including its own, the draw pile, which cards were cleared) at random
  consistently with the public counts, other hands weighted by rank towards what players keep
  (_HAND_WEIGHT, the engine's `prior`), into a full engine state (house rules, skips, a
  reversed direction and revealed hands included). Each candidate move is then played out with `easy` for every seat
  until someone goes out (1 win, 0 loss) or for MAX_PLAYOUT_STEPS moves (then scored by card
  counts), on the same deals for every candidate. Candidates differing only in suits are
  merged; all face-down positions are one candidate. easy's move stands unless another beats it
  by MARGIN on average and by CONFIDENCE standard errors of the paired differences.

Why the search waits for the empty draw pile: measured against the true hidden cards, moves the
search preferred over easy's gained nothing while the draw pile lasted (the view has no
history, so what a player took from the pile and which cards were cleared are unknown, and
early decisions are dominated by that), but gained clearly in the endgame, where most of what
matters is known.
"""

from __future__ import annotations

import itertools
import random

from games.bots import search
from games.engine import cards as _cards
from games.engine.lopti import GAME as ENGINE

GAME_MOVES = ("swap", "keep", "play", "play_face_down", "take_pile")

# --- the hard bot's budget -------------------------------------------------------------------
SAMPLES = 30  # determinizations per decision; every candidate is played out on each of them...
MAX_PLAYOUTS = 120  # ... unless that makes more playouts than this in all...
MIN_SAMPLES = 12  # ... but never fewer determinizations than this
SEARCH_DRAW_PILE = 0  # search only from this draw pile size down (earlier, easy's move stands)
MAX_CANDIDATES = 6  # candidate moves searched (easy's choice always among them)
MAX_PLAYOUT_STEPS = 30  # moves per playout before the card counts score it
MARGIN = 0.05  # another move replaces easy's only if it scores this much better on average...
CONFIDENCE = 1.0  # ... and by this many standard errors of the paired differences
CUTOFF_SLOPE = 0.04  # a stopped playout's score per card fewer than the best-placed opponent
STRICT = False  # tests set this: a failing search raises instead of falling back to `easy`

# --- the easy bot's thresholds -----------------------------------------------------------------
BIG_PILE = 4  # from this many cards, taking the pile is bad enough to spend a 3 or a 10
THREAT_CARDS = 2  # a next player with only this many hand cards left (or a last face-down) may go out
BLOCK_WITH_HIGH = True  # block with the highest ordinary card when no 3 or 7 can
LEAD_EXPLORE = 0.1  # chance of leading a random ordinary rank on an empty pile
EXPLORE = 0.03  # chance of any random play (not a take): deterministic play can cycle forever

_DECK = _cards.standard_deck()
_RANK = {c: _cards.rank_of(c) for c in _DECK}
_VALUE = {r: i for i, r in enumerate(_cards.RANKS)}  # natural order (L-1.2): 2 -> 0 ... A -> 12
_CARD_KEY = {
    c: (_VALUE[_RANK[c]], _cards.SUITS.index(c[-1])) for c in _DECK
}.__getitem__  # engine's hand order
_SPECIAL_POWERS = (
    ("2", "two_resets"),
    ("3", "three_redirects"),
    ("7", "seven_plays_low"),
    ("10", "ten_clears"),
)
# How much a card is worth in hand (swap phase): specials and aces are kept, the rest by rank.
_SWAP_VALUE = {r: _VALUE[r] for r in _cards.RANKS}
_SWAP_VALUE.update({"7": 13, "2": 14, "3": 15, "10": 16})
# How much likelier than a uniformly random unseen card each rank is to be in another player's
# hand (measured over rounds of easy bots: players keep 7s and 2s, spend 10s and 3s).
_HAND_WEIGHT = {"2": 1.2, "3": 0.7, "4": 0.8, "5": 0.9, "6": 1.0, "7": 1.5, "8": 1.05, "9": 1.1, "10": 0.5}
_HAND_WEIGHT.update({"J": 1.1, "Q": 1.05, "K": 1.05, "A": 1.0})
_KEEP_IN_HAND = ("2", "3", "7", "10", "A")
SWAP_FOR = _SWAP_VALUE["J"]  # a face-up card worth taking into the hand: J or higher, or a special


def _specials(rules: dict) -> frozenset:
    return _SPECIALS[tuple(bool(rules.get(power, True)) for _, power in _SPECIAL_POWERS)]


# The special ranks for each setting of the four powers (on unless a rule turns one off).
_SPECIALS = {
    powers: frozenset(r for (r, _), on in zip(_SPECIAL_POWERS, powers, strict=True) if on)
    for powers in itertools.product((True, False), repeat=len(_SPECIAL_POWERS))
}


def _by_type(legal: list[dict], kind: str) -> list[dict]:
    return [m for m in legal if m.get("type") == kind]


# --- easy ------------------------------------------------------------------------------------
def easy(view: dict, rng: random.Random) -> dict:
    legal = view["legal_moves"]
    if len(legal) == 1:
        return legal[0]
    game = [m for m in legal if m.get("type") in GAME_MOVES]
    if not game:
        return _generic(view, legal, rng)
    if any(m["type"] in ("swap", "keep") for m in game):
        return _easy_swap(view, game)
    return _easy_play(view, game, rng)


def _generic(view: dict, legal: list[dict], rng: random.Random) -> dict:
    """Decisions outside the card play: house rules, votes, duels, the winner's window."""
    for kind in ("decline_rule", "no_champion"):
        moves = _by_type(legal, kind)
        if moves:
            return moves[0]
    ballots = _by_type(legal, "ballot")
    if ballots:
        me = (view.get("you") or {}).get("seat")
        want = me is not None and _proposer(view) == me
        for m in ballots:
            if m.get("yes") is want:
                return m
        return ballots[0]
    throws = _by_type(legal, "throw")
    if throws:
        return rng.choice(throws)
    abstain = _by_type(legal, "abstain")
    if abstain:
        return abstain[0]
    return rng.choice(legal)


def _proposer(view: dict) -> int | None:
    """The seat that proposed the vote on the table (`public.vote`), if any."""
    vote = (view.get("public") or {}).get("vote")
    return vote.get("proposer") if isinstance(vote, dict) else None


def _easy_swap(view: dict, legal: list[dict]) -> dict:
    """Swap the weakest hand card (never a special or an ace) for the strongest face-up card,
    when that card is stronger in hand; else keep."""
    best = None
    best_gain = 0
    for m in _by_type(legal, "swap"):
        low, high = _RANK[m["hand_card"]], _RANK[m["face_up_card"]]
        if low in _KEEP_IN_HAND or _SWAP_VALUE[high] < SWAP_FOR:
            continue
        gain = _SWAP_VALUE[high] - _SWAP_VALUE[low]
        if gain > best_gain:
            best, best_gain = m, gain
    if best is not None:
        return best
    keep = _by_type(legal, "keep")
    return keep[0] if keep else legal[0]


def _about_to_go_out(seat_info: dict) -> bool:
    """The seat could play its last card(s) on its next turn: at most THREAT_CARDS hand cards
    and nothing else, or a last face-down card."""
    if any(seat_info["face_up"]):
        return False
    down = len(seat_info["face_down_positions"])
    hand = seat_info["hand_count"]
    return (down == 0 and hand <= THREAT_CARDS) or (hand == 0 and down == 1)


def _next_seat(view: dict, me: int) -> int:
    seats = view["seats"]
    n = len(seats)
    public = view["public"]
    step = -1 if public["rules"].get("direction") == "counterclockwise" else 1
    if public.get("direction_reversed"):  # a house rule's reverse_direction
        step = -step
    s = me
    for _ in range(n):
        s = (s + step) % n
        if not seats[s]["out"]:
            return s
    return me


def _easy_play(view: dict, legal: list[dict], rng: random.Random) -> dict:
    take = _by_type(legal, "take_pile")
    face_down = _by_type(legal, "play_face_down")
    # rank -> {count: first listed move}
    plays: dict[str, dict[int, dict]] = {}
    for m in legal:
        if m["type"] == "play":
            plays.setdefault(_RANK[m["cards"][0]], {}).setdefault(len(m["cards"]), m)
    return _easy_choose(view, plays, take, face_down, lambda: legal, rng)


def _easy_choose(view: dict, plays: dict[str, dict[int, dict]], take: list[dict], face_down: list[dict],
                 every, rng: random.Random) -> dict:
    """easy's play from the legal moves in parts: `plays` (rank -> {count: first listed move},
    in the listed order), `take` and `face_down` (the take_pile and play_face_down moves), and
    `every()`, the whole list, for the rare random choices among them."""
    you = view["you"]
    me = you["seat"]
    hand = you["hand"]
    public = view["public"]
    pile = public["pile"]
    specials = _specials(public["rules"])
    if not plays:
        if face_down:
            return rng.choice(face_down)
        return take[0] if take else rng.choice(every())

    if rng.random() < EXPLORE:
        return rng.choice([m for m in every() if m["type"] == "play"])

    mine = view["seats"][me]
    nothing_else = not any(mine["face_up"]) and not mine["face_down_positions"]
    if nothing_else:  # going out wins the round
        for counts in plays.values():
            if len(hand) in counts:
                return counts[len(hand)]

    if public["obligation"] == me:  # L-5.1: only 3s are legal
        threes = plays.get("3")
        if not threes:
            return take[0] if take else rng.choice(every())
        need = 4 - len(public["three_chain"])
        return threes[need] if need in threes else threes[min(threes)]

    top = public["top_rank"]
    if pile and top in plays and top != "3":  # complete four: clear with an extra play
        need = 4 - public["run"]
        if need in plays[top]:
            return plays[top][need]

    normal = sorted((r for r in plays if r not in specials), key=_VALUE.__getitem__)

    nxt = _next_seat(view, me)
    if nxt != me and _about_to_go_out(view["seats"][nxt]):
        block = _block(plays, normal, specials, bool(pile))
        if block is not None:
            return block

    if normal:
        rank = normal[0]
        if not pile and len(normal) > 1 and rng.random() < LEAD_EXPLORE:
            rank = rng.choice(normal)  # breaks the cycles that deterministic play can enter
        counts = plays[rank]
        return counts[max(counts)]

    # Only specials are legal (or nothing but taking).
    all_special = all(_RANK[c] in specials for c in hand)
    if not pile:
        order = ("7", "2", "3", "10")
    elif len(pile) >= BIG_PILE or all_special or not take:
        order = ("3", "10", "7", "2")
    else:
        order = ("2", "7")
    for r in order:
        if r in plays:
            counts = plays[r]
            if r == "3":
                need = 4 - len(public["three_chain"])
                if need in counts:
                    return counts[need]
            return counts[min(counts)]
    if take:
        return take[0]
    # Not reached with the base rules (an empty pile always has a play); be safe anyway.
    counts = plays[min(plays, key=_VALUE.__getitem__)]
    return counts[min(counts)]


def _block(plays: dict, normal: list[str], specials: frozenset, pile: bool) -> dict | None:
    """A play that makes it hard for the next player to go out: a 3 on a pile (they must take
    it or hold a 3), a 7 (they must play low), else the highest ordinary card."""
    if pile and "3" in plays and "3" in specials:
        return plays["3"][min(plays["3"])]
    if "7" in plays and "7" in specials:
        return plays["7"][min(plays["7"])]
    if normal and BLOCK_WITH_HIGH:
        counts = plays[normal[-1]]
        return counts[max(counts)]
    return None


# --- hard --------------------------------------------------------------------------------------
def hard(view: dict, rng: random.Random) -> dict:
    legal = view["legal_moves"]
    if len(legal) == 1:
        return legal[0]
    game = [m for m in legal if m.get("type") in GAME_MOVES]
    if view.get("phase") != "play" or not game or any(m["type"] in ("swap", "keep") for m in game):
        return easy(view, rng)
    default = easy(view, random.Random(rng.random()))
    if default not in game or view["public"]["draw_pile_count"] > SEARCH_DRAW_PILE:
        return default
    candidates = _candidates(game, default)
    if len(candidates) == 1:
        return default
    try:
        return _search(view, candidates, rng)
    except Exception:
        if STRICT:
            raise
        return default


def _move_key(m: dict) -> tuple:
    if m["type"] == "play":
        return ("play", _RANK[m["cards"][0]], len(m["cards"]))
    if m["type"] == "play_face_down":
        return ("play_face_down",)
    return (m["type"],)


def _candidates(legal: list[dict], default: dict) -> list[dict]:
    """One move per distinct (type, rank, count), `default` first; face-down positions are one
    candidate (nobody knows the cards there). At most MAX_CANDIDATES: the default, then low ranks
    first (more cards first), and always take_pile."""
    seen = {_move_key(default)}
    out = [default]
    rest = []
    for m in legal:
        k = _move_key(m)
        if k not in seen:
            seen.add(k)
            rest.append(m)
    take = [m for m in rest if m["type"] == "take_pile"]
    others = [m for m in rest if m["type"] != "take_pile"]
    others.sort(
        key=lambda m: (_VALUE[_RANK[m["cards"][0]]], -len(m["cards"])) if m["type"] == "play" else (99, 0)
    )
    out.extend(others[: max(0, MAX_CANDIDATES - 1 - len(take))])
    out.extend(take)
    return out


def _search(view: dict, candidates: list[dict], rng: random.Random) -> dict:
    """The shared search (games/bots/search.py) on the engine's `determinize` (other hands
    weighted by _HAND_WEIGHT) and `step`: every candidate played out with `easy` for every seat
    until the round is decided or MAX_PLAYOUT_STEPS moves, on the same deals."""
    samples = max(MIN_SAMPLES, min(SAMPLES, MAX_PLAYOUTS // len(candidates)))
    return search.best_move(
        ENGINE,
        view,
        candidates,
        policy=_policy,
        score=_score,
        budget=search.Budget(samples, MAX_PLAYOUT_STEPS),
        rng=rng,
        prior=_HAND_WEIGHT,
        stop=_round_decided,
        select=_select,
    )


# `candidates[0]` (easy's choice) unless another beats it clearly (search.keep_default_unless).
_select = search.keep_default_unless(MARGIN, CONFIDENCE)


def determinize(view: dict, rng: random.Random) -> dict:
    """The engine's determinization with this bot's prior on other hands."""
    return ENGINE.determinize(view, rng, _HAND_WEIGHT)


def _round_decided(st: dict) -> bool:
    return ENGINE.round_winner(st) is not None or ENGINE.phase(st) != "play"


def _policy(st: dict, seat: int, rng: random.Random) -> dict:
    """`easy` for every seat of a playout: the move (and the draws from `rng`) of
    `easy(ENGINE.policy_view(st, seat), rng)` (tests/engine/test_bots_lopti.py holds them
    equal), from the legal moves in parts (`play_options`) rather than every move built."""
    if st["status"] == "finished" or st["open_vote"] or st["phase"] != "play" or seat != st["turn"]:
        return easy(ENGINE.policy_view(st, seat), rng)
    options, down, can_take = ENGINE.play_options(st, seat)
    # Fewer than two moves (a play of k of a group's g cards lists comb(g, k) moves): easy's
    # first rule (the only move), on the view.
    if len(options) + len(down) + can_take < 2 and not any(k < len(group) for group, k in options):
        return easy(ENGINE.policy_view(st, seat), rng)
    plays: dict[str, dict[int, dict]] = {}
    for group, k in options:
        counts = plays.setdefault(_RANK[group[0]], {})
        if k not in counts:
            counts[k] = {"type": "play", "cards": group[:k]}
    take = [{"type": "take_pile"}] if can_take else []
    face_down = [{"type": "play_face_down", "index": i} for i in down]
    return _easy_choose(ENGINE.policy_view(st, seat, moves=False), plays, take, face_down,
                        lambda: ENGINE.legal_moves(st, seat), rng)


def _score(st: dict, me: int) -> float:
    """1 for winning the round, 0 for losing it; a playout stopped by the cap scores by card
    counts: 1/n plus CUTOFF_SLOPE per card fewer than the best-placed opponent, within (0, 1)."""
    winner = ENGINE.round_winner(st)
    if winner is not None:
        return 1.0 if winner == me else 0.0
    n = len(ENGINE.seat_players(st))
    others = [ENGINE.cards_held(st, s) for s in range(n) if s != me]
    if not others:
        return 1.0
    value = 1 / (len(others) + 1) + CUTOFF_SLOPE * (min(others) - ENGINE.cards_held(st, me))
    return min(0.95, max(0.05, value))


_playout_view = ENGINE.policy_view  # the tests compare it with the full view
