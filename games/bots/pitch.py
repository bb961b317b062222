"""Bot policies for Auction Pitch (Setback) (rules: `docs/rules/pitch.md`).

Both policies see only `view = engine.view(state, seat)` and return one of
`view["legal_moves"]` verbatim.

- `easy`: rule-based, deterministic (`rng` is not used).
  - Auction: for each suit it holds, it estimates the points it would take with that suit as
    trump (`estimate`: High from its top trump and the chance that a higher one was dealt to
    another seat, Low from its bottom trump, the Jack, Game from its trump length and 10s,
    plus the pitcher's edge; calibrated on self-play), and bids floor(estimate + BID_SLACK)
    when that is at least MIN_BID (2) and beats the current high bid, else passes. The
    dealer, who speaks last, only bids what wins the auction (takes the bid, or 2 when
    everyone passed, the forced bid). When the plan is a bid of 4 (a very strong hand) it
    pitches at once: it leads its best trump, which is the same as bidding 4 and leading it.
  - Play: the pitcher's first lead is the best suit's highest trump when that is a Q or better
    (else a trump that carries no point). Later leads: a trump that no unseen trump beats
    (pulling trumps), every trump when nobody else can hold one, else its cheapest card.
    Following, each legal card gets a value: the points in the trick (the jack of trump, a
    trump that may be the Low, the game count of the cards) plus the card's own, won if the
    card takes the trick for sure (last to play, or a trump above every unseen one), half
    that if it only wins for now, and its own worth lost when it cannot win; trumps cost a
    little to spend. The best value wins, the lowest rank on a tie: it takes the jack and the
    10s it can take, throws its cheapest card on a trick it cannot win, and wins cheaply.
- `hard`: determinized (information-set) Monte Carlo through the shared search
  (`games.bots.search.best_move`). The engine's `determinize` deals the cards the seat has
  not seen (52 minus its hand and this hand's played cards, all public) to the other seats
  with their public card counts, honouring the suits their plays showed them out of
  (A-4.2/A-4.3), the rest to the undealt pile; each candidate move is played out in each
  deal with the engine's unchecked `step` and `easy` for every seat to the end of the hand
  (common random numbers: all candidates are scored on the same deals). A playout's score
  (`hand_score`) is this seat's score change for the hand minus the best other seat's, plus
  `WIN_BONUS` when the hand ends the game (minus it when another seat wins). The auction is
  searched the same way: the candidates are the legal bids and one pitch per suit held
  (easy's first lead in that suit); after the bid, the rest of the auction and the play are
  easy's. Ties go to easy's choice. Deterministic given `rng`. Budget: MOVE_BUDGET simulated
  moves per decision, shared by the candidates (see `determinizations`); a single legal move
  is returned at once.

Partnerships (A-9, `public["partnerships"]`): `easy` estimates a hand against the two
opponents only (a card in the partner's hand scores for the side) and with two sides for
Game; it never outbids (nor, as the dealer, takes) its partner's winning bid unless its own
hand is worth a pitched 4; following, when the partner's card is sure to take the trick (it
plays last, or the partner's trump is above every unseen one) it plays its most valuable card
onto it (a 10, the jack of trump) rather than overtake, and when the partner only wins for now
it values the trick as the side's. `hard` scores a playout by side: its side's change for the
hand minus the other side's, and a win of its side is its own; in the auction, when its
partner holds the bid, it weighs only easy's choice and the pass (its deals do not read the
partner's bid, so a search would undervalue the partner's contract and outbid it).

Limitations: the bids are not used to infer the other hands (a seat that bid 3 is dealt at
random like one that passed); the playouts use `easy` for everyone, so `hard` values a move
as if the rest of the hand were played by the rule-based policy; the Game estimate of `easy`
is rough.
"""

from __future__ import annotations

import random

from games.bots import search
from games.engine.cards import rank_of, standard_deck
from games.engine.pitch import GAME as ENGINE
from games.engine.pitch import GAME_VALUES, RANK_INDEX, playable

# --- the hard bot's budget -------------------------------------------------------------------
# The budget counts simulated moves (candidates x determinizations x moves left in the hand),
# so a decision costs about the same with 3 or 7 seats, early or late in the hand: about
# 0.1 s of CPU here (a simulated move costs some 25 microseconds).
MOVE_BUDGET = 6000
PLAYOUT_OVERHEAD = 8  # a playout's fixed cost (copy, scoring, next deal) in simulated moves
MIN_DETERMINIZATIONS = 6  # never fewer per candidate
MAX_DETERMINIZATIONS = 48  # never more per candidate
WIN_BONUS = 4.0  # a playout whose hand ends the game: + for this seat winning, - for another

# --- the easy bot's model and thresholds -----------------------------------------------------
PITCHER_EDGE = 0.4  # points a pitcher takes beyond the raw estimate (it leads, it names trump)
BID_SLACK = 0.5  # bid floor(estimate + BID_SLACK): a set-back risk worth taking (tuned)
PITCH_AT = 3.5  # estimate from which the plan is a bid of 4 (pitched at once)
MIN_BID = 2  # a seat other than the dealer passes rather than bid less (a 1 is the dealer's to take)
GAME_UNIT = 0.04  # worth of one game count point (a 10 is worth 0.4 of a hand point)
TRUMP_COST = 0.15  # cost of spending a trump
BOSS_COST = 0.3  # cost of spending a trump no unseen trump beats while unseen trumps remain
UNSURE = 0.5  # chance that a card winning the trick for now still wins it

DECK = standard_deck()
_R = {c: RANK_INDEX[rank_of(c)] for c in DECK}  # 0 for a 2 .. 12 for an ace
_S = {c: c[-1] for c in DECK}
_V = {c: GAME_VALUES.get(rank_of(c), 0) for c in DECK}
TEN, JACK, QUEEN, KING, ACE = 8, 9, 10, 11, 12
UNSEEN_AT_DEAL = len(DECK) - 6  # cards a seat cannot see during the auction
_SUIT_CARDS = {suit: [c for c in DECK if _S[c] == suit] for suit in "CDHS"}
_LOWEST_RANK = min(_R.values())


# --- reading the view ------------------------------------------------------------------------
class _Ctx:
    """What `easy` derives from a view, computed once per decision."""

    def __init__(self, view: dict, players: int | None = None):
        """`players`: the seat count, when the view lists no seats (a playout's, see
        `playout_policy`)."""
        public = view["public"]
        self.view = view
        self.me = view["you"]["seat"]
        self.hand = view["you"]["hand"]
        self.n = len(view["seats"]) if players is None else players
        self.trump = public["trump"]
        self.dealt_low = public["low_to"] == "dealt"
        # with partnerships the partner sits opposite; `.get` reads views of older tables.
        self.partnerships = bool(public.get("partnerships"))
        self.partner = (self.me + 2) % 4 if self.partnerships else None
        self.trick = public["trick"]
        played = {p["card"] for t in public["tricks"] for p in t["cards"]}
        played.update(p["card"] for p in self.trick)
        self.played = played
        t = self.trump
        if t is not None:
            mine = set(self.hand)
            self.unseen_trumps = [_R[c] for c in _SUIT_CARDS[t] if c not in played and c not in mine]
            self.top_unseen = max(self.unseen_trumps, default=-1)
            # The lowest trump among the unseen, held and played ones: every trump of the deck
            # is one of those, so this is the suit's lowest rank, the 2 (undealt cards are
            # unseen too), whatever the view; as the estimate always read it.
            self.lowest_trump = _LOWEST_RANK

    def is_trump(self, card: str) -> bool:
        return _S[card] == self.trump

    def worth(self, card: str) -> float:
        """What a card is worth to the seat that wins the trick holding it."""
        w = _V[card] * GAME_UNIT
        if _S[card] == self.trump:
            r = _R[card]
            if r == JACK:
                w += 1.0
            if r == self.lowest_trump and not self.dealt_low:
                w += 0.8  # may be the Low, which goes to the trick's winner
        return w

    def best_suit(self) -> tuple[str, float]:
        suits = sorted({_S[c] for c in self.hand})
        scored = [(estimate(self.hand, s, self.n, self.dealt_low, self.partnerships), s) for s in suits]
        est, suit = max(scored, key=lambda x: (x[0], -"CDHS".index(x[1])))
        return suit, est


def estimate(hand: list[str], suit: str, players: int, dealt_low: bool = False, partnerships: bool = False) -> float:
    """The points (High, Low, Jack, Game) a pitcher holding `hand` (A-9: its side, with
    `partnerships`) may expect with `suit` as trump, before any card is played."""
    tr = sorted(_R[c] for c in hand if _S[c] == suit)
    if not tr:
        return 0.0
    # A given unseen card is in an opponent's hand: any other seat's when playing alone; with
    # partnerships one of the two opponents' (a card in the partner's hand scores for the side).
    opponents = 2 if partnerships else players - 1
    p = 6 * opponents / UNSEEN_AT_DEAL
    q = 1.0 - p
    k, top, bottom = len(tr), tr[-1], tr[0]
    high = q ** (ACE - top)
    low_mine = q**bottom  # no lower trump in another hand
    if dealt_low:
        low = low_mine
    else:
        # the holder of the lowest trump must also win the trick it falls in
        low = low_mine * min(0.85, 0.35 + 0.1 * k + (0.15 if top == ACE else 0.0))
        low += (1.0 - low_mine) * (0.15 if top >= KING else 0.05)
    above_jack = sum(1 for r in tr if r > JACK)
    if JACK in tr:
        jack = min(0.9, 0.4 + 0.12 * (k - 1) + (0.2 if top == ACE else 0.0))
    else:
        jack = p * min(0.6, 0.15 * above_jack + (0.15 if top == ACE else 0.0))
    sides = [c for c in hand if _S[c] != suit]
    game = 0.05 + 0.1 * k + (0.12 if TEN in tr else 0.0) + 0.05 * sum(1 for c in sides if _R[c] >= KING)
    # Game is shared by fewer rivals with partnerships (two sides), and the partner's tricks count.
    rivals = 2 if partnerships else players
    game = min(0.85, game * (4 / max(3, rivals)) ** 0.5)
    return high + low + jack + game + PITCHER_EDGE


def _play(legal: list[dict], card: str) -> dict:
    for m in legal:
        if m["type"] == "play" and m["card"] == card:
            return m
    raise LookupError(card)


def _bid(legal: list[dict], value: int) -> dict | None:
    for m in legal:
        if m["type"] == "bid" and m["value"] == value:
            return m
    return None


# --- easy ------------------------------------------------------------------------------------
def easy(view: dict, rng: random.Random) -> dict:
    return _easy(view, None)


def _easy(view: dict, players: int | None) -> dict:
    """easy's move; `players` as for `_Ctx`."""
    legal = view["legal_moves"]
    if len(legal) == 1:
        return legal[0]
    ctx = _Ctx(view, players)
    if view["phase"] == "auction":
        return _easy_auction(ctx, legal)
    if ctx.trump is None:  # the pitcher's first lead after a bid: it names trump
        return _play(legal, _first_lead(ctx.hand, ctx.best_suit()[0]))
    if not ctx.trick:
        return _play(legal, _easy_lead(ctx))
    return _play(legal, _easy_follow(ctx, legal))


def _easy_auction(ctx: _Ctx, legal: list[dict]) -> dict:
    suit, est = ctx.best_suit()
    public = ctx.view["public"]
    high = public["high_bid"]
    want = 4 if est >= PITCH_AT else min(3, int(est + BID_SLACK))
    if ctx.partnerships and public.get("high_bidder") == ctx.partner and est < PITCH_AT:
        # the partner's bid already wins the auction for the side; outbidding it (or, as
        # the dealer, taking it) only raises the side's risk, unless this hand is strong enough
        # to pitch a 4, when naming trump itself is worth it.
        return _bid(legal, 0) or min((m for m in legal if m["type"] == "bid"), key=lambda m: m["value"])
    if ctx.me == ctx.view["dealer"]:
        # The dealer speaks last: the cheapest bid that wins is enough (a bid of 4 is never
        # needed), and a forced bid (everyone passed, A-3.3) is 2 at least.
        need = max(high, 2)
        if want >= need or _bid(legal, 0) is None:
            move = _bid(legal, need) or _bid(legal, need + 1)
            if move is not None:
                return move
        return _bid(legal, 0) or min((m for m in legal if m["type"] == "bid"), key=lambda m: m["value"])
    if want >= 4:
        # Pitching a 4: the same as bidding 4 and leading this card.
        return _play(legal, _first_lead(ctx.hand, suit))
    if want > high and want >= MIN_BID:
        move = _bid(legal, want)
        if move is not None:
            return move
    return _bid(legal, 0) or min((m for m in legal if m["type"] == "bid"), key=lambda m: m["value"])


def _first_lead(hand: list[str], suit: str) -> str:
    """The pitcher's first lead, which names `suit` as trump: the highest trump when it is a Q
    or better (it pulls trumps and may take High), else the highest trump that carries no
    point of its own (keeping the jack, the 10 and the lowest trump for later)."""
    tr = sorted((c for c in hand if _S[c] == suit), key=lambda c: _R[c])
    if _R[tr[-1]] >= QUEEN or len(tr) == 1:
        return tr[-1]
    plain = [c for c in tr[1:] if _R[c] not in (TEN, JACK)]
    return plain[-1] if plain else tr[-1]


def _easy_lead(ctx: _Ctx) -> str:
    hand = ctx.hand
    trumps = sorted((c for c in hand if ctx.is_trump(c)), key=lambda c: _R[c])
    if trumps:
        if not ctx.unseen_trumps:
            # Nobody else can hold a trump: each of ours wins; the ones with points first.
            return max(trumps, key=lambda c: (ctx.worth(c), _R[c]))
        boss = [c for c in trumps if _R[c] > ctx.top_unseen]
        if boss:
            # Pull trumps with a trump nobody can beat (the lowest such: same effect).
            return boss[0]
    sides = [c for c in hand if not ctx.is_trump(c)]
    pool = sides or trumps
    return min(pool, key=lambda c: (_throw_cost(ctx, c), _R[c]))


def _throw_cost(ctx: _Ctx, card: str) -> float:
    cost = ctx.worth(card)
    if ctx.is_trump(card):
        cost += TRUMP_COST
    return cost


def _easy_follow(ctx: _Ctx, legal: list[dict]) -> str:
    trick = ctx.trick
    trump = ctx.trump
    led = _S[trick[0]["card"]]
    best, best_seat = trick[0]["card"], trick[0]["seat"]
    for p in trick[1:]:
        c = p["card"]
        if _beats(c, best, led, trump):
            best, best_seat = c, p["seat"]
    stake = sum(ctx.worth(p["card"]) for p in trick)
    last = len(trick) == ctx.n - 1
    top_unseen = ctx.top_unseen
    # a trick the partner wins scores for the side. When the partner's card is sure to
    # hold, every card wins the trick for the side: give it points, never overtake for nothing.
    partner_leads = best_seat == ctx.partner
    partner_sure = partner_leads and (last or (_S[best] == trump and _R[best] > top_unseen))

    def value(card: str) -> float:
        own = ctx.worth(card)
        is_trump = _S[card] == trump
        spend = 0.0
        if is_trump:
            spend = BOSS_COST if (_R[card] > top_unseen and ctx.unseen_trumps) else TRUMP_COST
        if partner_sure:
            return own - spend
        if not _beats(card, best, led, trump):
            if partner_leads:
                # The partner wins for now: the side keeps the trick (and this card) as often.
                return UNSURE * (stake + own) - (1 - UNSURE) * own - spend * 0.5
            return -own - (spend if is_trump else 0.0) * 0.5
        sure = last or (is_trump and _R[card] > top_unseen)
        if sure:
            return stake + own - spend
        return UNSURE * (stake + own) - (1 - UNSURE) * own - spend

    cards = [m["card"] for m in legal]
    return max(cards, key=lambda c: (round(value(c), 6), -_R[c], -"CDHS".index(_S[c])))


def _beats(card: str, best: str, led: str, trump: str) -> bool:
    s, bs = _S[card], _S[best]
    if s == trump:
        return bs != trump or _R[card] > _R[best]
    return bs != trump and s == led and _R[card] > _R[best]


# --- hard ------------------------------------------------------------------------------------
def hard(view: dict, rng: random.Random) -> dict:
    legal = view["legal_moves"]
    if len(legal) == 1:
        return legal[0]
    if view["you"] is None or view["phase"] not in ("auction", "play"):
        return easy(view, rng)
    candidates = _candidates(view, legal, easy(view, rng))
    left = moves_left(view)
    hand = view["round"]
    return search.best_move(
        ENGINE,
        view,
        candidates,
        policy=playout_policy,
        score=lambda end, me: hand_score(end, me, hand),
        # The candidate is one of the hand's `left` moves: `left - 1` steps always finish the
        # hand (fewer when the auction ends early: then a few of the next hand's bids follow,
        # which the score ignores).
        budget=search.Budget(samples=determinizations(view, len(candidates)), max_steps=left - 1),
        rng=rng,
    )


def moves_left(view: dict) -> int:
    """At most how many moves the hand has left: a play per card held, a bid per seat yet to
    speak (a pitch is both in one move)."""
    left = sum(s["card_count"] for s in view["seats"])
    if view["phase"] == "auction":
        left += len(view["seats"]) - len(view["public"]["bids"])
    return left


def determinizations(view: dict, candidates: int) -> int:
    """Deals per candidate move: MOVE_BUDGET shared by the candidates' playouts."""
    per = MOVE_BUDGET // (candidates * (moves_left(view) + PLAYOUT_OVERHEAD))
    return max(MIN_DETERMINIZATIONS, min(MAX_DETERMINIZATIONS, per))


def _candidates(view: dict, legal: list[dict], default: dict) -> list[dict]:
    """Easy's choice first. In play, every legal card; in the auction, the bids and one pitch
    per suit held (easy's first lead in that suit)."""
    out = [default]
    if view["phase"] == "auction":
        public = view["public"]
        if public.get("partnerships") and public["high_bidder"] == (view["you"]["seat"] + 2) % 4:
            # the partner holds the bid. The deals ignore what that bid says of the
            # partner's hand (see Limitations), so a search would undervalue the partner's
            # contract and outbid it; only easy's choice and the pass are weighed.
            return out + [m for m in legal if m == {"type": "bid", "value": 0} and m != default]
        hand = view["you"]["hand"]
        pitches = [_first_lead(hand, s) for s in sorted({_S[c] for c in hand})]
        for m in legal:
            if (m["type"] == "bid" or m["card"] in pitches) and m != default:
                out.append(m)
        return out
    return out + [m for m in legal if m != default]


def hand_score(state: dict, me: int, hand: int) -> float:
    """A playout's score: this seat's score change for hand number `hand` (as views count
    hands) minus the best other seat's, plus WIN_BONUS when the hand ended the game with this
    seat among the winners, minus it when another won. A-9: by side with partnerships (both
    partners carry the side's change, and the partner is no rival). Read from the state's
    `last_hand` (the view's `public.last_hand`, the summary of the latest hand scored)."""
    last = state["last_hand"]  # the view's `public.last_hand`
    if last is None or last["hand"] != hand:  # the playout was cut off before the hand ended
        return 0.0
    team = {me, (me + 2) % 4} if state["options"].get("partnerships") else {me}
    deltas = last["deltas"]
    score = deltas[me] - max(d for s, d in enumerate(deltas) if s not in team)
    if ENGINE.is_over(state):
        score += WIN_BONUS if me in ENGINE.winners(state) else -WIN_BONUS
    return float(score)


def playout_policy(state: dict, seat: int, rng: random.Random) -> dict:
    """`easy` for every seat of a playout: the move `easy(view, rng)` makes on the seat's
    view (tests/engine/test_bots_pitch.py holds them equal), from the part of the view it
    reads, built from references into the state (the playout neither keeps nor changes it)."""
    hand = state["hands"][seat]
    if state["phase"] == "play":
        legal = [{"type": "play", "card": c} for c in playable(state, hand)]
    else:
        legal = ENGINE.legal_moves(state, seat)
    view = {
        "phase": state["phase"],
        "dealer": state["dealer"],
        "you": {"seat": seat, "hand": hand},
        "public": {
            "low_to": state["options"]["low_to"],
            "partnerships": bool(state["options"].get("partnerships")),
            "high_bid": state["high_bid"],
            "high_bidder": state["high_bidder"],
            "trump": state["trump"],
            "trick": state["trick"],
            "tricks": state["tricks"],
        },
        "legal_moves": legal,
    }
    return _easy(view, state["players"])
