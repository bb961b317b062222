"""Bot policies for President (rules: `docs/rules/president.md`).

Both policies see only `view = engine.view(state, seat)` and return one of
`view["legal_moves"]` verbatim.

- `easy`: rule-based. Sheds low cards first, leads whole low sets, beats with the cheapest play
  that beats without breaking a set or spending a control card (A, 2, joker in the order in
  force; 3s with `clear_threes`; 2s with `twos_high_and_low`), and spends control only when it
  helps to go out (few cards or few sets left, or control to spare). Leads unbeatable sets
  first when that clears the way to go out. In the exchange it gives the lowest card(s).
  Deterministic: `rng` is not used.
- `hard`: determinized (information-set) Monte Carlo through the shared search
  (`games.bots.search.best_move`). Each determinization is the engine's `determinize` of the
  view (the cards the seat cannot see dealt to the other seats with their public card counts),
  less the cards the bot saw played earlier in the hand: it reads the table's history (the
  move log's events as its seat sees them; every play is public, P-8), as a player remembers;
  the rest of the hand is played out with the engine's unchecked `step` and `easy` for every
  seat, once per candidate move (common random numbers: every candidate is scored on the same
  deals), and stops once this seat's place is known. The score is minus the place with
  FIRST_BONUS more for going out first (the table's winner is the one who leads on points, and
  first place is worth the most of them); in a hand that can end the game (P-7) it is instead
  whether the seat wins the table (WIN_SCALE, TIE_VALUE), and the playout stops as soon as this
  hand's points (P-6) settle that (a one-hand game: whoever goes out first); `easy`'s
  choice is kept unless another move beats it clearly (MARGIN, CONFIDENCE). The other seats'
  hands are dealt to agree with how they played the hand, if they decide like `easy` (the
  playouts' model of every seat): a pass, a lead and a follow each rule hands out. Budget: one
  candidate per (rank, size) (suits never matter), at most MAX_CANDIDATES; DETERMINIZATIONS
  playouts per candidate, cut so that a decision makes at most PLAYOUT_BUDGET playouts and
  CARD_BUDGET / (cards in hands) of them (early playouts are longer), but never fewer than
  MIN_DETERMINIZATIONS per candidate. A move that goes out is played at once; the exchange
  uses `easy` (the other hands before the trade are not worth sampling).

The view shows the current trick and the last trick only; the cards played in earlier tricks
of the hand come from the history. Without one (a caller that has none) `determinize` deals the
other seats their exact card counts out of every card the view has not shown, so a card
played earlier may be dealt to an opponent in a determinization. What the exchange
reveals is used: a card this seat gave is placed with its receiver (with the chance that the
receiver still holds it), and a seat that had to give its highest card(s) to this seat holds
nothing higher.
"""

from __future__ import annotations

import random

from games.bots.search import Budget, best_move, keep_default_unless
from games.engine import cards
from games.engine.president import GAME as ENGINE
from games.engine.president import (
    JOKER,
    ORDER,
    POINTS,
    VARIATIONS,
    beats,
    card_key,
    place_in_hand,
    playout_view,
    rank_of,
    rank_value,
    role_of,
    visible_played,
)

# --- the hard bot's budget -------------------------------------------------------------------
# The search's unchecked `step` made a playout about a quarter cheaper than the checked
# `apply` it used before; the budget grew by 4/3 to spend the same 0.1 s.
DETERMINIZATIONS = 53  # playouts per candidate move when the budget allows
MIN_DETERMINIZATIONS = 10  # never fewer per candidate
PLAYOUT_BUDGET = 212  # playouts per decision in all (candidates x determinizations)
CARD_BUDGET = 6400  # ... and at most this many divided by the cards still in hands (a playout's
#                    length), so that an early move of a long hand costs about a late one
MAX_CANDIDATES = 8  # candidate moves searched (easy's choice always among them)
# In a hand that can end the game (P-7) a playout scores the table: WIN_SCALE for a win, 0 for
# a loss, TIE_VALUE x WIN_SCALE when the lead ends tied and play goes on; the scale keeps
# MARGIN comparable with the place score of the other hands (first against second: 3).
WIN_SCALE = 3.0
TIE_VALUE = 0.4
FIRST_BONUS = 2.0  # added to a playout's score (minus the place) when this seat went out first
# Another move replaces easy's only when it scores better on average by MARGIN and by CONFIDENCE
# standard errors of the paired differences: with 10-50 playouts a candidate, noise alone
# would otherwise often pick a worse move (Lopti's hard bot does the same).
MARGIN = 0.05
CONFIDENCE = 1.0
_select = keep_default_unless(MARGIN, CONFIDENCE)

# --- the easy bot's thresholds (tuned against a play-the-lowest-beat bot) ---------------------
CONTROL = ORDER.index("A")  # strength from which a card is kept for control (A, 2, joker)
SPEND_CONTROL_AT = 6  # with this many cards or fewer, control cards are spent to win tricks
BREAK_SETS_AT = 8  # with this many cards or fewer, a set is broken rather than passing
LEAD_SET_WINDOW = 3  # lead a set before a lower single at most this many ranks below it
# Lookup tables (the playouts call `easy` thousands of times per decision).
_RANK = {c: rank_of(c) for c in cards.standard_deck(jokers=True)}
_STRENGTH = {rev: {r: rank_value(r, rev) for r in (*ORDER, JOKER)} for rev in (False, True)}
_DECK_COUNTS = {jokers: {r: sum(1 for c in cards.standard_deck(jokers=jokers) if _RANK[c] == r)
                         for r in (*ORDER, *([JOKER] if jokers else []))}
                for jokers in (False, True)}  # the cards of each rank in the deck


# --- reading the view ------------------------------------------------------------------------
class _Ctx:
    """What `easy` derives from a view, computed once per decision."""

    __slots__ = ("view", "hand", "rev", "var", "strength", "groups", "order", "_unseen")

    def __init__(self, view: dict, var: set[str] | None = None):
        """`var`: the set of `view["public"]["variations"]`, when the caller has it."""
        self.view = view
        self.hand = view["you"]["hand"]
        public = view["public"]
        self.rev = bool(public["revolution"])
        self.var = set(public["variations"]) if var is None else var
        self.strength = _STRENGTH[self.rev].__getitem__
        groups: dict[str, list[str]] = {}
        for c in self.hand:
            groups.setdefault(_RANK[c], []).append(c)
        self.groups = groups
        # ranks held, weakest first in the order in force
        self.order = sorted(groups, key=self.strength)
        self._unseen = None

    def control(self, rank: str) -> bool:
        """Cards worth keeping to win tricks later."""
        if self.strength(rank) >= CONTROL:
            return True
        if rank == "3" and "clear_threes" in self.var:
            return True
        return rank == "2" and "twos_high_and_low" in self.var

    def unseen_counts(self) -> dict[str, int]:
        """Per rank, how many cards this seat has not seen (others' hands and earlier tricks);
        a rank it has seen every card of counts 0."""
        if self._unseen is None:
            counts = dict(_DECK_COUNTS["jokers" in self.var])
            for c in set(self.hand) | visible_played(self.view["public"]):
                counts[_RANK[c]] -= 1
            self._unseen = counts
        return self._unseen

    def unbeatable(self, rank: str, size: int) -> bool:
        """No set the other seats could hold beats `size` cards of `rank` (ignoring a revolution
        started in the middle of the trick)."""
        if self.var <= {"revolution", "jokers"}:  # same size, strictly higher (P-4.3)
            mine = self.strength(rank)
            return not any(u >= size and self.strength(r) > mine for r, u in self.unseen_counts().items())
        options = {v: v in self.var for v in VARIATIONS}
        standing = {"rank": rank, "count": size}
        for r, u in self.unseen_counts().items():
            for k in range(1, u + 1):
                if beats(options, self.rev, r, k, standing) is not None:
                    return False
        return True


def _pass(legal: list[dict]) -> dict | None:
    return next((m for m in legal if m["type"] == "pass"), None)


# --- easy ------------------------------------------------------------------------------------
# easy decides between plays named by (rank, size): a play of `size` cards of `rank`, of which it
# makes the first listed one, i.e. the group's first `size` cards in hand order (suits never
# matter); None is a pass. The view's legal moves give those keys in `easy`; a playout reads
# them straight from the state (`_policy_for`), which lists no move.
Key = tuple[str, int]


def easy(view: dict, rng: random.Random) -> dict:
    legal = view["legal_moves"]
    if len(legal) == 1:
        return legal[0]
    if view["phase"] == "exchange":
        return _easy_give(view, legal)
    first: dict[Key, dict] = {}  # every (rank, size) played, in the listed order, with its first move
    for m in legal:
        if m["type"] == "play":
            first.setdefault((_RANK[m["cards"][0]], len(m["cards"])), m)
    key = _easy_play(_Ctx(view), list(first), view["public"]["trick"] is None)
    return _pass(legal) if key is None else first[key]


def _easy_play(ctx: _Ctx, keys: list[Key], leading: bool) -> Key | None:
    """easy's play among `keys` (the legal plays' (rank, size), in the listed order); None:
    pass."""
    hand_size = len(ctx.hand)
    for key in keys:
        if key[1] == hand_size:
            return key  # going out now is the best place there is
    if leading:
        return _easy_lead(ctx)
    return _easy_follow(ctx, keys)


def _easy_give(view: dict, legal: list[dict]) -> dict:
    """The lowest card(s); 3s with `clear_threes` (they beat anything) go last."""
    var = set(view["public"]["variations"])
    hand = view["you"]["hand"]

    def worth(c: str) -> tuple:
        r = rank_of(c)
        special = (r == "3" and "clear_threes" in var) or (r == "2" and "twos_high_and_low" in var)
        return (special, rank_value(r, False), card_key(c)[1])

    count = len(legal[0]["cards"])
    chosen = set(sorted(hand, key=worth)[:count])
    return next(m for m in legal if set(m["cards"]) == chosen)


def _easy_lead(ctx: _Ctx) -> Key:
    order, groups = ctx.order, ctx.groups
    # Clear the way out: when every set but one is unbeatable, lead those first.
    sure, unsure = [], 0
    for r in reversed(order):
        if ctx.unbeatable(r, len(groups[r])):
            sure.append(r)
        else:
            unsure += 1
            if unsure > 1:
                break
    if sure and unsure <= 1:
        return (sure[-1], len(groups[sure[-1]]))
    # Revolution (P-9.4): a four of a kind turns the order round; worth it with a weak hand.
    if "revolution" in ctx.var:
        quads = [r for r in order if len(groups[r]) == 4]
        rest = [ctx.strength(_RANK[c]) for c in ctx.hand if len(groups[_RANK[c]]) < 4]
        if quads and rest:
            weak = sum(rest) / len(rest) < 5.5
            if weak:
                return (quads[0], 4)
            if quads[0] == order[0] and not ctx.control(order[0]):
                return (order[0], 3)  # shed them without turning the order
    # The lowest set that is not kept for control, whole; a pair or more goes first when it is
    # nearly as low as the lowest single (sets are the awkward cards to get rid of later).
    low = [r for r in order if not ctx.control(r)]
    if not low:
        return (order[0], len(groups[order[0]]))
    rank = low[0]
    sets = [r for r in low if len(groups[r]) > 1]
    if sets and ctx.strength(sets[0]) <= ctx.strength(rank) + LEAD_SET_WINDOW:
        rank = sets[0]
    return (rank, len(groups[rank]))


def _easy_follow(ctx: _Ctx, options: list[Key]) -> Key | None:
    groups = ctx.groups
    if not options:
        return None

    def cost(opt):
        rank, size = opt
        return (ctx.control(rank), size < len(groups[rank]), ctx.strength(rank), size)

    best = min(options, key=cost)
    rank, size = best
    ctrl, breaks = ctx.control(rank), size < len(groups[rank])
    if not ctrl and not breaks:
        return (rank, size)
    # Spending control or breaking a set: only when it helps to go out, not early.
    left = len(ctx.hand) - size
    sets_left = len(groups) - (0 if breaks else 1)
    urgent = left <= 3 or sets_left <= 2
    if ctrl:
        ctrl_sets = sum(1 for r in groups if ctx.control(r))
        spare = ctrl_sets > len(groups) - ctrl_sets
        urgent = urgent or len(ctx.hand) <= SPEND_CONTROL_AT or (spare and not breaks)
    else:
        urgent = urgent or len(ctx.hand) <= BREAK_SETS_AT
    if urgent:
        return (rank, size)
    return None


# --- hard ------------------------------------------------------------------------------------
def played_this_hand(history: list[dict] | None) -> set[str]:
    """The cards played since the hand's deal, from the table's events (as this seat sees
    them: plays are public). The first hand's deal is not an event: then every play counts."""
    played: set[str] = set()
    for event in reversed(history or ()):
        if event.get("type") == "deal":
            break
        if event.get("type") == "play":
            played.update(event["cards"])
    return played


# One piece of evidence: (seat, what it did: "pass" | "lead" | "follow", the standing play's
# strength and size (None for a lead), the rank and size it played (None for a pass), the cards
# the seat played from then on (its hand then is its hand now plus those)).
Evidence = tuple[int, str, tuple[int, int] | None, tuple[str, int] | None, list[str]]


def _evidence(history: list[dict] | None) -> list[Evidence]:
    """What the other seats' decisions in this hand say about their hands, for players that
    decide like `easy` (the search's model of every seat) without variations. [] when a
    revolution makes the order move."""
    events = []
    for event in reversed(history or ()):
        if event.get("type") == "deal":
            break
        events.append(event)
    events.reverse()
    standing = None
    acts: list[tuple[int, int, str, tuple | None, tuple | None]] = []
    plays: list[tuple[int, int, list[str]]] = []
    for i, event in enumerate(events):
        kind = event.get("type")
        if kind == "revolution":
            return []
        if kind == "play":
            rank = _RANK[event["cards"][0]]
            acts.append((i, event["seat"], "follow" if standing else "lead", standing, (rank, len(event["cards"]))))
            standing = (_STRENGTH[False][rank], len(event["cards"]))
            plays.append((i, event["seat"], event["cards"]))
        elif kind == "trick_end":
            standing = None
        elif kind == "pass" and standing is not None:
            acts.append((i, event["seat"], "pass", standing, None))
    return [(seat, kind, standing, played, [c for j, s, cs in plays if s == seat and j >= i for c in cs])
            for i, seat, kind, standing, played in acts]


def _pass_evidence(history: list[dict] | None) -> list[Evidence]:
    return [e for e in _evidence(history) if e[1] == "pass"]


def _consistent(counts: dict[str, int], kind: str, standing, played) -> bool:
    """Whether `easy` holding `counts` (per rank) could have made that decision (standard order,
    no variations): the constraints its rules imply, and only those that always hold."""
    strength = _STRENGTH[False]
    ordinary = [(strength[r], n) for r, n in counts.items() if strength[r] < CONTROL]
    if sum(counts.values()) == (played[1] if played else -1):
        return True  # went out: easy always does
    if kind == "lead":
        rank, size = played
        if strength[rank] >= CONTROL or sum(counts.values()) < 6:
            return True  # the late leads (unbeatable sets first) are not modelled
        if counts.get(rank, 0) != size:
            return False  # a lead is a whole set
        lowest = min(v for v, _ in ordinary)
        lowest_set = min((v for v, n in ordinary if n > 1), default=None)
        if size == 1:
            # The lowest ordinary rank, unless a set came within LEAD_SET_WINDOW of it.
            return strength[rank] == lowest and (lowest_set is None or lowest_set > lowest + LEAD_SET_WINDOW)
        return strength[rank] == lowest_set and strength[rank] <= lowest + LEAD_SET_WINDOW
    above, size = standing
    exact = [v for v, n in ordinary if v > above and n == size]
    if kind == "pass":
        return not exact  # easy beats with a whole ordinary set whenever it holds one
    rank, played_size = played
    if strength[rank] >= CONTROL:
        # Spending control: no ordinary set could beat, whole or broken.
        return not any(v > above and n >= size for v, n in ordinary)
    if counts.get(rank, 0) == played_size:
        return not [v for v in exact if v < strength[rank]]  # the cheapest whole set
    return not exact  # broke a set: no whole one could beat


def _counts(hand, later) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in hand:
        counts[_RANK[c]] = counts.get(_RANK[c], 0) + 1
    for c in later:
        counts[_RANK[c]] = counts.get(_RANK[c], 0) + 1
    return counts


def _fits(evidence: list[Evidence], me: int):
    """accept(sample): the sampled hands agree with the other seats' decisions."""

    def accept(sample: dict) -> bool:
        return all(_consistent(_counts(sample["hands"][seat], later), kind, standing, played)
                   for seat, kind, standing, played, later in evidence if seat != me)

    return accept


REDEAL_TRIES = 30  # draws of one seat's hand before keeping the one that fits best

# `_consistent` for the redeals, which judge thousands of drawn hands against the same
# decisions: a hand is the count of its cards per strength (standard order: no variations, so
# no jokers), and a decision's own part is worked out once (`_check`).
_STANDARD = _STRENGTH[False]
_STRENGTH_OF = {c: _STANDARD[_RANK[c]] for c in _RANK}


def _check(kind: str, standing, played, later: list[str]) -> tuple:
    """A decision (as `_consistent` takes it, with the cards its seat played from then on)
    prepared for `_agrees`: (kind, cards played since, size played (-1: a pass), then what
    the kind compares). A pass or a follow compares the hand's count of each strength in a
    range with a target (the size to beat less the cards of that strength played since)."""
    after = [0] * (len(ORDER) + 1)
    for c in later:
        after[_STRENGTH_OF[c]] += 1
    if kind == "lead":
        rank, size = _STANDARD[played[0]], played[1]
        return kind, len(later), size, rank, after
    above, size = standing

    def targets(top: int) -> list[tuple[int, int]]:
        return [(v, size - after[v]) for v in range(above + 1, top)]

    if kind == "pass":
        return kind, len(later), -1, targets(CONTROL), None
    rank, played_size = _STANDARD[played[0]], played[1]
    if rank >= CONTROL:
        return "control", len(later), played_size, targets(CONTROL), None
    # a whole set must be the cheapest that beats; a broken one, no whole one could beat
    return kind, len(later), played_size, (rank, played_size - after[rank]), (targets(rank), targets(CONTROL))


def _agrees(now: list[int], held: int, check: tuple) -> bool:
    """`_consistent(counts, kind, standing, played)` for the hand of `held` cards counted per
    strength in `now`, plus the cards played since (`check`, from `_check`)."""
    kind, later, played_size, first, second = check
    total = held + later
    if total == played_size:
        return True  # went out
    if kind == "pass":
        for v, target in first:
            if now[v] == target:
                return False  # a whole ordinary set would have beaten
        return True
    if kind == "follow":
        rank, target = first
        for v, t in second[0] if now[rank] == target else second[1]:
            if now[v] == t:
                return False
        return True
    if kind == "control":
        for v, target in first:
            if now[v] >= target:
                return False  # an ordinary set, whole or broken, could have beaten
        return True
    # a lead
    rank, after = first, second
    if rank >= CONTROL or total < 6:
        return True
    if now[rank] + after[rank] != played_size:
        return False
    lowest = lowest_set = None
    for v in range(CONTROL):
        n = now[v] + after[v]
        if n:
            if lowest is None:
                lowest = v
            if n > 1:
                lowest_set = v
                break
    if played_size == 1:
        return rank == lowest and (lowest_set is None or lowest_set > lowest + LEAD_SET_WINDOW)
    return rank == lowest_set and rank <= lowest + LEAD_SET_WINDOW


def _refiner(evidence: list[Evidence], me: int):
    """refine(sample, rng) for the search: the other seats' hands of a determinization dealt
    again, seat by seat (the most watched first), each drawn until it agrees with that seat's
    decisions in the hand, at most REDEAL_TRIES times, keeping the draw that contradicts the
    fewest of them. Only for a sample whose other hands are exactly the cards not seen played
    (the history told every play)."""
    by_seat: dict[int, list[Evidence]] = {}
    for e in evidence:
        if e[0] != me:
            by_seat.setdefault(e[0], []).append(e)
    order = sorted(by_seat, key=lambda s: -len(by_seat[s]))

    # Each decision's own part, once.
    checks = {seat: [_check(kind, standing, played, later) for _, kind, standing, played, later in items]
              for seat, items in by_seat.items()}
    blank = [0] * (len(ORDER) + 1)

    def misfits(seat: int, hand: list[str], enough: int | None = None) -> int:
        """How many of the seat's decisions `hand` contradicts (`_consistent`), counted up to
        `enough` when given (a draw that contradicts as many as the best so far is not kept,
        whatever its count)."""
        now = list(blank)
        for c in hand:
            now[_STRENGTH_OF[c]] += 1
        held = len(hand)
        wrong = 0
        for check in checks[seat]:
            if not _agrees(now, held, check):
                wrong += 1
                if wrong == enough:
                    break
        return wrong

    def refine(sample: dict, rng: random.Random) -> dict:
        hands = sample["hands"]
        others = [s for s in range(len(hands)) if s != me]
        pool = [c for s in others for c in hands[s]]
        new: dict[int, list[str]] = {}
        for seat in order:
            need = len(hands[seat])
            hand = rng.sample(pool, need)
            worst = misfits(seat, hand)
            for _ in range(REDEAL_TRIES - 1):
                if not worst:
                    break
                other = rng.sample(pool, need)
                wrong = misfits(seat, other, enough=worst)
                if wrong < worst:
                    hand, worst = other, wrong
            new[seat] = hand
            taken = set(hand)
            pool = [c for c in pool if c not in taken]
        rng.shuffle(pool)
        for seat in others:
            if seat not in new:
                new[seat], pool = pool[: len(hands[seat])], pool[len(hands[seat]):]
        for seat, hand in new.items():
            hands[seat] = sorted(hand, key=card_key)
        return sample

    return refine


def hard(view: dict, rng: random.Random, history: list[dict] | None = None) -> dict:
    legal = view["legal_moves"]
    if len(legal) == 1:
        return legal[0]
    if view["phase"] != "play" or view["you"] is None:
        return easy(view, rng)
    hand_size = len(view["you"]["hand"])
    for m in legal:
        if m["type"] == "play" and len(m["cards"]) == hand_size:
            return m
    default = easy(view, rng)
    candidates = _candidates(view, legal, default)
    if len(candidates) == 1:
        return candidates[0]
    in_hands = sum(s["card_count"] for s in view["seats"])
    budget = min(PLAYOUT_BUDGET, CARD_BUDGET // max(1, in_hands))
    per = max(MIN_DETERMINIZATIONS, min(DETERMINIZATIONS, budget // len(candidates)))
    hand_no = view["public"]["hand"]
    player = view["seats"][view["you"]["seat"]]["player"]
    worst = len(view["seats"])
    if _deciding(view):
        # This hand may end the game (P-7): what counts is winning the table, not the place.
        # While the hand runs, the outcome depends on its places alone (the scores and the seats
        # move only when it ends), which every playout asks after every step: read once each.
        known: dict[tuple, float | None] = {}

        def outcome(state: dict) -> float | None:
            if state["status"] == "finished" or state["hand_no"] != hand_no:
                return _table_outcome(state, player, hand_no)
            places = tuple(state["places"])
            if places not in known:
                known[places] = _table_outcome(state, player, hand_no)
            return known[places]

        def done(state: dict) -> bool:
            return outcome(state) is not None

        def score(state: dict, seat: int) -> float:
            result = outcome(state)
            return WIN_SCALE * (result if result is not None else 0.0)
    else:
        def done(state: dict) -> bool:
            return place_in_hand(state, player, hand_no) is not None  # went out, or the hand ended

        def score(state: dict, seat: int) -> float:
            """Minus this seat's finishing place in the hand, FIRST_BONUS more for the first."""
            place = place_in_hand(state, player, hand_no)
            if place is None:
                return -float(worst)
            return -float(place) + (FIRST_BONUS if place == 1 else 0.0)

    # The playouts' states have the table's variations (`determinize` reads them in the view).
    variations = {v: v in view["public"]["variations"] for v in VARIATIONS}
    # Cards seen played earlier in the hand are in nobody's hand (weight 0 for `determinize`).
    prior = dict.fromkeys(played_this_hand(history), 0.0) or None
    # Inference: the other seats' hands are dealt so that they agree with how those seats
    # played this hand (if they play like `easy`; standard order only, since the variations
    # change what beats what; not after an exchange, whose cards determinize places).
    refine = None
    public = view["public"]
    if history is not None and not public["variations"] and not public["revolution"] and not public["exchange"]["done"]:
        evidence = _evidence(history)
        if evidence:
            refine = _refiner(evidence, view["you"]["seat"])
    return best_move(
        ENGINE, view, candidates, policy=_policy_for(variations), score=score, budget=Budget(samples=per), rng=rng, stop=done,
        prior=prior, refine=refine, select=_select,
    )


hard.wants_history = True


def _deciding(view: dict) -> bool:
    """Whether the game can end with this hand (P-7): the `hands` count is reached, or (by
    target score) some total can reach the target with a President's points. (The view does
    not say whether the end is already due; tied leaders who played on after reaching the
    target fall 3 or more below it only over several tied hands, and are then scored
    by place.)"""
    public = view["public"]
    if public["hands"] is not None:
        return public["hand"] >= public["hands"]
    return max(view["scores"]) + POINTS["president"] >= public["target_score"]


def _table_outcome(state: dict, player: int, hand_no: int) -> float | None:
    """In a hand that may end the game: 1.0 once `player` is sure to win the table, 0.0 once
    sure not to (another leads, or cannot be caught), TIE_VALUE when the hand ended with the
    lead tied and play goes on (P-7.1); None while it is open. Read as soon as it is known,
    so that a playout stops there: by this hand's points, the places still open going to the
    seats still holding cards."""
    if state["status"] == "finished":
        seat = state["seat_players"].index(player)
        return 1.0 if seat in state["winners"] else 0.0
    if state["hand_no"] != hand_no:
        return TIE_VALUE  # the hand ended without a sole leader (P-7.1: play goes on)
    n = state["players"]
    places, scores = state["places"], state["scores"]
    taken = {p for p in places if p is not None}
    open_points = [POINTS[role_of(n, p)] for p in range(1, n + 1) if p not in taken]
    best_open, worst_open = max(open_points, default=0), min(open_points, default=0)

    def final(s: int) -> tuple[int, int]:
        if places[s] is not None:
            total = scores[s] + POINTS[role_of(n, places[s])]
            return total, total
        return scores[s] + worst_open, scores[s] + best_open

    seat = state["seat_players"].index(player)
    low, high = final(seat)
    sure_win = True
    for s in range(n):
        if s != seat:
            other_low, other_high = final(s)
            if other_low > high:
                return 0.0  # someone ends ahead whatever happens
            sure_win = sure_win and low > other_high
    return 1.0 if sure_win else None


def _policy(state: dict, seat: int, rng: random.Random) -> dict:
    """`easy` for every seat in a playout (see `_policy_for`)."""
    return _policy_for(state["options"])(state, seat, rng)


def _policy_for(options: dict):
    """`easy` for every seat in a playout of a table with these `options`: the move
    `easy(playout_view(state, seat), rng)` makes (tests/engine/test_bots_president.py holds
    them equal), read from the state without listing the legal moves (a playout's main cost);
    what the options decide is worked out once."""
    variations = [v for v in VARIATIONS if options[v]]
    var = set(variations)
    plain = not variations

    def policy(state: dict, seat: int, rng: random.Random) -> dict:
        if state["phase"] != "play":
            return easy(playout_view(state, seat), rng)
        hand = state["hands"][seat]
        trick = state["trick"]
        standing = trick["standing"]
        revolution = state["revolution"]
        keys = _play_keys(options, plain, revolution, hand, standing)
        # easy's first rule: a seat with one legal move makes it.
        if standing is None:
            if len(hand) == 1:
                return {"type": "play", "cards": [hand[0]]}
        elif not keys:
            return {"type": "pass"}
        view = {  # what _Ctx reads of playout_view
            "you": {"seat": seat, "hand": hand},
            "public": {
                "trick": standing,
                "trick_plays": trick["plays"],
                "last_trick": state["last_trick"],
                "revolution": revolution,
                "variations": variations,
            },
        }
        ctx = _Ctx(view, var)
        key = _easy_play(ctx, keys, standing is None)
        if key is None:
            return {"type": "pass"}
        rank, size = key
        return {"type": "play", "cards": ctx.groups[rank][:size]}

    return policy


def _play_keys(options: dict, plain: bool, revolution: bool, hand: list[str], standing: dict | None) -> list[Key]:
    """The (rank, size) of every play the engine's `legal_moves` lists for `hand`, in its
    order: the groups of one rank in hand order (the hand is sorted), each size from one up.
    `plain`: no variation is on."""
    if standing is not None:
        strength = _STRENGTH[revolution]
        s_rank, s_size = standing["rank"], standing["count"]
        above = strength[s_rank]
    keys: list[Key] = []
    i, n = 0, len(hand)
    while i < n:
        rank = _RANK[hand[i]]
        j = i + 1
        while j < n and _RANK[hand[j]] == rank:
            j += 1
        if standing is None:
            keys.extend((rank, size) for size in range(1, j - i + 1))
        elif plain:
            # No variation: only as many cards of a higher rank beat (P-4.3), a joker only a joker.
            if j - i >= s_size and strength[rank] > above and (s_rank != JOKER or rank == JOKER):
                keys.append((rank, s_size))
        else:
            keys.extend((rank, size) for size in range(1, j - i + 1)
                        if beats(options, revolution, rank, size, standing) is not None)
        i = j
    return keys


def _candidates(view: dict, legal: list[dict], default: dict) -> list[dict]:
    """One move per (rank, size) (suits never matter), easy's choice first; when there are too
    many, the ones that keep sets whole and the weakest come first."""
    rev = bool(view["public"]["revolution"])
    sizes: dict[str, int] = {}
    for c in view["you"]["hand"]:
        sizes[rank_of(c)] = sizes.get(rank_of(c), 0) + 1
    seen = set()
    out = []
    for m in [default, *legal]:
        key = (m["type"], rank_of(m["cards"][0]) if m["type"] == "play" else None, len(m.get("cards", ())))
        if key not in seen:
            seen.add(key)
            out.append(m)
    if len(out) <= MAX_CANDIDATES:
        return out

    def prio(m):
        if m is default:
            return (-1, 0, 0)
        if m["type"] == "pass":
            return (0, 0, 0)
        r, k = rank_of(m["cards"][0]), len(m["cards"])
        return (1 if k == sizes[r] else 2, rank_value(r, rev), -k)

    return sorted(out, key=prio)[:MAX_CANDIDATES]
