"""Auction Pitch (Setback), following `docs/rules/pitch.md` (rule ids A-1 .. A-9).

- A-1: 3 to 7 players, one 52-card deck, ace high (2 low).
- A-2: six cards each, dealt three at a time from the dealer's left (two rounds of three;
  a fixed deck's card 0 is dealt first). The other cards are out of play and never shown.
  The deal passes to the left after each hand.
- A-3: one round of bidding from the dealer's left, the dealer last: pass (`bid` 0) or a bid
  of 1-4 higher than the current high. A bid of 4 ends the auction at once; so does pitching
  a 4, a `play` during the auction that is a bid of 4 and the first lead. The dealer must bid
  2-4 when everyone else passed, and may take the bid at the current high otherwise.
- A-4: the pitcher leads; the first card led fixes trump for the hand. On a trump lead a
  player must trump if able; on another lead a player holding that suit must follow or trump;
  otherwise anything. Highest trump wins, else the highest card of the suit led.
- A-5: High, Low (to the trick winner or, with `low_to=dealt`, to the player dealt it), Jack
  (only when dealt) and Game (10=10, A=4, K=3, Q=2, J=1; a tie for the highest count scores
  nothing), each 1 point; a single trump in play is high and low (and jack).
- A-6: a pitcher who made the bid scores every point won, else loses the bid (set back);
  everyone else scores the points they won.
- A-7: the first to reach `target_score` (1 to 100) wins; the pitcher counts first, then the
  hand's points are counted one at a time in the order High, Low, Jack, Game.
- A-8: bids, contract, trump, every card played and every trick's winner, the points awarded
  and the scores are public; each hand is private; undealt cards are never shown.
- A-9: option `partnerships` (4 seats only): seats 0+2 and 1+3 are sides. Bidding and play are
  unchanged; points, Game counts, settlement, scores and the end are by side. The engine
  scores "teams" throughout: one seat each when playing alone, the two sides otherwise, so
  both games share one code path. Each seat's score is its side's total; `public` adds
  `partnerships`, `sides` and `side_scores` (None when playing alone), each entry of `seats`
  its `side` (None alone), a hand's summary adds `side_points`, `side_deltas`,
  `side_scores` and a `side` per award (Game's award is the side's: `side`, `counts` per seat,
  `side_counts`, and no `seat`).

The engine front door (docs/architecture.md): `Game.apply` checks (over, the seat to act), then
`parse_move` (InvalidMove), `check_move` (IllegalMove, `move_error`) and the unchecked `step`.
The rule functions are public module functions over a `PitchState` (the layout, documented
below) for the search: `bid_error`, `play_error`, `move_error`, `trick_winner`, `shown_out`,
`played_cards`, `scoring_teams`, `clone`; `determinize` samples the hidden cards (the other
hands and the undealt pile) from a seat's view.
"""

from __future__ import annotations

import json
from typing import TypedDict

from . import cards, fairness
from .base import Game, IllegalMove, InvalidMove, Option, turn_of
from .pitch_types import TYPES
from .registry import register

HAND_SIZE = 6
PACKET = 3
FULL_DECK = cards.standard_deck()
# cards.RANKS already runs 2 .. A, low to high.
RANK_INDEX = {rank: i for i, rank in enumerate(cards.RANKS)}
SUIT_INDEX = {suit: i for i, suit in enumerate(cards.SUITS)}
#
GAME_VALUES = {"10": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
CATEGORIES = ("high", "low", "jack", "game")
MOVE_FIELDS = {"bid": ("value",), "play": ("card",)}


class Bid(TypedDict):
    seat: int
    value: int  # 0 pass, 1-4
    kind: str  # "pass", "bid", "take" (the dealer at the current high, A-3.3) or "pitch"


class Play(TypedDict):
    seat: int
    card: str


class Trick(TypedDict):
    cards: list[Play]
    winner: int


class PitchState(TypedDict):
    """The state's layout (JSON data; every key is always present). Seats are 0..players-1."""

    players: int
    seed: int | None  # every deal after a fixed first one is shuffled from it (never shown; None: a replay)
    status: str  # "active" or "finished"
    # target_score, low_to; `partnerships` only when on (older tables lack it: off)
    options: dict
    phase: str  # "auction", "play" or "finished"
    dealer: int
    hand_no: int  # 0 for the first hand (views show it + 1 as `round`)
    hands: list[list[str]]  # per seat, sorted by card_key; secret but to its seat
    undealt: list[str]  # out of play for the hand, never shown
    turn: int | None  # the seat to act; None when finished
    bids: list[Bid]  # this hand's auction
    high_bid: int  # 0 while nobody bid
    high_bidder: int | None
    pitcher: int | None  # once the auction closes
    contract: int | None
    trump: str | None  # a suit letter, from the first card led
    trick: list[Play]  # the trick on the table
    tricks: list[Trick]  # this hand's finished tricks
    tricks_won: list[int]  # per seat, this hand
    scores: list[int]  # per seat (with partnerships, each seat shows its side's total)
    last_hand: dict | None  # the previous hand's summary (the `hand_scored` event) and its tricks
    winners: list[int]  # the winning seats once finished, else []


def card_key(card: str) -> tuple[int, int]:
    """Rank first, then suit C D H S: the hand order and the A-4.5 timeout order."""
    return RANK_INDEX[cards.rank_of(card)], SUIT_INDEX[cards.suit_of(card)]


def sort_cards(hand: list[str]) -> list[str]:
    return sorted(hand, key=card_key)


class Pitch(Game):
    slug = "pitch"
    name = "Auction Pitch"
    move_types = frozenset(MOVE_FIELDS)
    types = TYPES  # what the game shows clients (pitch_types.py, the typed contract)
    min_players = 3
    max_players = 7
    options = {
        "target_score": Option(
            type="int",
            default=7,
            minimum=1,
            maximum=100,
            description="Points needed to win the game, any whole number from 1 to 100 (A-7.1).",
        ),
        "low_to": Option(
            type="choice",
            default="winner",
            choices=("winner", "dealt"),
            description=(
                "Who scores Low (A-5.2): 'winner', the player who wins the lowest trump in a trick; "
                "'dealt', the player who was dealt it."
            ),
        ),
        "partnerships": Option(
            type="bool",
            default=False,
            description=(
                "Two sides of two partners sitting opposite, seats 0 and 2 against 1 and 3; points, "
                "scores and the win are by side (A-9). Only with 4 seats."
            ),
        ),
    }

    def validate_table_options(self, options: dict | None, *, players: int) -> dict:
        clean = self.validate_options(options)
        check_seats(clean, players)
        return clean

    # --- lifecycle ---------------------------------------------------------------------------
    def new_game(
        self,
        *,
        players: int,
        options: dict,
        seed: int | None,
        deck: list[str] | None = None,
        first_dealer: int | None = None,
        shuffle: int = fairness.VERSION,
        replay: list[str] | None = None,
    ) -> dict:
        if isinstance(players, bool) or not isinstance(players, int) or not 3 <= players <= 7:
            raise InvalidMove("Auction Pitch needs 3 to 7 players", fields={"seats": ["must be 3 to 7"]})
        options = self.validate_table_options(options, players=players)
        if not options["partnerships"]:
            # Ruling: the state keeps `partnerships` only when it is on, so a table stored before
            # the option existed (its options lack it: off) replays to exactly its stored state.
            del options["partnerships"]
        fair = fairness.setup(seed, shuffle, replay)
        seeded = {"seed": seed} if fair is None else {"seed": seed, "fairness": fair}
        dealer = fairness.first_dealer(seeded, first_dealer, players)
        if deck is not None:
            deck = cards.check_fixed_deck(deck, FULL_DECK)
        state = {
            "players": players,
            **seeded,
            "status": "active",
            "options": options,
            "phase": "auction",
            "dealer": dealer,
            "hand_no": 0,
            "hands": [],
            "undealt": [],
            "turn": None,
            "bids": [],
            "high_bid": 0,
            "high_bidder": None,
            "pitcher": None,
            "contract": None,
            "trump": None,
            "trick": [],
            "tricks": [],
            "tricks_won": [0] * players,
            "scores": [0] * players,
            "last_hand": None,
            "winners": [],
        }
        deal(state, fairness.deal_deck(state, FULL_DECK, 0, deck)[0])
        return state

    def to_act(self, state: dict) -> list[int]:
        if state["status"] == "finished":
            return []
        return [state["turn"]]

    def is_over(self, state: dict) -> bool:
        return state["status"] == "finished"

    # --- moves -------------------------------------------------------------------------------
    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        hand = state["hands"][seat]
        if state["phase"] == "auction":
            moves = [{"type": "bid", "value": v} for v in range(5) if bid_error(state, seat, v) is None]
            # every card of the hand may be pitched, since a bid of 4 is always open here.
            return moves + [{"type": "play", "card": c} for c in hand]
        return [{"type": "play", "card": c} for c in hand if play_error(state, seat, c) is None]

    def timeout_move(self, state: dict, seat: int, rng=None) -> dict:
        if state["phase"] == "auction":
            # pass, or 2 for the dealer when everyone else passed.
            value = 2 if bid_error(state, seat, 0) else 0
            return {"type": "bid", "value": value}
        # hands are kept in (rank, suit) order, so the first legal card is the lowest.
        return self.legal_moves(state, seat)[0]


    # --- the front door ---------------------------------------------------------------------
    # `Game.apply` checks, in this order (the order the engine always had): the game is over
    # (GameConflict), a type Pitch does not have such as `pass` (InvalidMove from any seat,
    # api.md), the seat is not the one to act (NotYourTurn, the default `may_act`), then
    # `parse_move` (InvalidMove: malformed, or a card the mover does not hold), then
    # `check_move` (IllegalMove with the rule id), then `step`.
    def parse_move(self, state: dict, seat: int | None, move: object) -> dict:
        kind = parse(move)
        if kind == "play" and move["card"] not in state["hands"][seat]:
            raise InvalidMove("you do not hold that card", fields={"card": ["not in your hand"]})
        field = MOVE_FIELDS[kind][0]
        return {"type": kind, field: move[field]}

    def check_move(self, state: dict, seat: int | None, move: dict) -> None:
        error = move_error(state, seat, move)
        if error:
            raise IllegalMove(*error)

    def step(self, state: dict, seat: int | None, move: dict) -> tuple[dict, list[dict]]:
        st = clone(state)
        return st, effect(st, seat, move)

    def advance(self, state: dict, seat: int | None, move: dict) -> dict:
        effect(state, seat, move)
        return state

    def phase(self, state: dict) -> str:
        return state["phase"]

    def winners(self, state: dict) -> list[int]:
        return list(state["winners"])

    def finishing_order(self, state: dict) -> list[list[int]]:
        """The winner (A-7.1; with partnerships the winning side, A-9.5) first and every other
        seat tied behind it. Ruling (docs/ratings.md): a table is ranked by what its rules
        decide, nothing more; Pitch's rules name a winner and no second place (the first to
        reach the target wins, A-7.2 and A-7.3 settle who that is), so how far a loser fell
        behind is not a place. The table's one rated match (`rating_matches`). Tables rated
        before 2026-12-02 were ranked by final score behind the winner; their rating history
        keeps those places."""
        if state["status"] != "finished":
            return []
        winners = sorted(state["winners"])
        return [winners, [s for s in range(state["players"]) if s not in winners]]

    def scores(self, state: dict) -> list[int]:
        return list(state["scores"])

    def cards(self, state: dict) -> list[str]:
        held = [c for hand in state["hands"] for c in hand] + list(state["undealt"])
        return held + played_cards(state["tricks"], state["trick"])

    def secret_cards(self, state: dict, seat: int | None) -> set[str]:
        # every hand but the seat's own, and the undealt cards, which nobody ever sees.
        hidden = set(state["undealt"])
        for s, hand in enumerate(state["hands"]):
            if s != seat:
                hidden.update(hand)
        return hidden

    def determinize(self, view: dict, rng, prior=None) -> dict:
        """A full state that gives exactly `view` to its seat (a spectator's view works too:
        every hand is sampled). The cards the seat has not seen (the deck minus its hand and
        this hand's played cards, all public) are dealt at random to the other seats with
        their public card counts, honouring the suits their plays showed them out of
        (`shown_out`), the rest to the undealt pile (A-2.2: the undealt cards are as unknown as
        the others' hands). The later deals come from a seed drawn from `rng`.

        `prior`, optional: {seat: {card: weight}}, how likely the bot thinks each unseen card
        is in that seat's hand (weight 1.0 when a card is not listed; 0 only if nothing else
        fits). Seats are dealt weighted samples without replacement; None: uniform."""
        me = view["you"]["seat"] if view["you"] is not None else None
        public = view["public"]
        n = len(view["seats"])
        mine = list(view["you"]["hand"]) if me is not None else []
        seen = set(mine) | set(played_cards(public["tricks"], public["trick"]))
        pool = [c for c in FULL_DECK if c not in seen]
        rng.shuffle(pool)
        voids = shown_out(public["tricks"], public["trick"], public["trump"], n)
        hands: list[list[str]] = [[] for _ in range(n)]
        if me is not None:
            hands[me] = mine
        # The most constrained seats choose first, so the others still find cards they may hold.
        for s in sorted((s for s in range(n) if s != me), key=lambda s: (-len(voids[s]), s)):
            need = view["seats"][s]["card_count"]
            allowed = [c for c in pool if cards.suit_of(c) not in voids[s]]
            if len(allowed) < need:  # only with an inconsistent view: deal freely then
                allowed = pool
            if prior and prior.get(s):
                weights = prior[s]
                # Efraimidis-Spirakis: the `need` largest keys u ** (1 / w) are a weighted sample.
                allowed = sorted(allowed, key=lambda c: -_key(rng.random(), weights.get(c, 1.0)))
            got = set(allowed[:need])
            hands[s] = sort_cards(list(got))
            pool = [c for c in pool if c not in got]
        return _state_from_view(view, hands, pool, rng.randrange(1 << 30))

    # --- views -------------------------------------------------------------------------------
    def teams(self, state: dict) -> list[list[int]]:
        # partners opposite win and lose together.
        if state["options"].get("partnerships"):
            return [[0, 2], [1, 3]]
        return [[seat] for seat in range(state["players"])]

    def view(self, state: dict, seat: int | None) -> dict:
        # Built from references into the state; one JSON round trip detaches it cheaply.
        return json.loads(json.dumps(fast_view(state, seat)))


def fast_view(state: dict, seat: int | None) -> dict:
    """`Pitch.view` without the copy: the same dict, built from references into the state, so
    it must be neither kept nor modified (the search's playout policies read it)."""
    n = state["players"]
    spoken = {b["seat"]: b["value"] for b in state["bids"]}
    partnerships = bool(state["options"].get("partnerships"))
    public = {
        "hand": state["hand_no"] + 1,
        "target_score": state["options"]["target_score"],
        "low_to": state["options"]["low_to"],
        # the sides and their scores; None when everyone plays alone.
        "partnerships": partnerships,
        "sides": [list(side) for side in SIDES] if partnerships else None,
        "side_scores": [state["scores"][side[0]] for side in SIDES] if partnerships else None,
        "bids": state["bids"],
        "high_bid": state["high_bid"],
        "high_bidder": state["high_bidder"],
        "pitcher": state["pitcher"],
        "contract": state["contract"],
        "trump": state["trump"],
        "trick": state["trick"],
        "tricks": state["tricks"],
        "tricks_won": state["tricks_won"],
        "last_hand": state["last_hand"],
        "winners": state["winners"],
        **fairness.public(state),
    }
    out = {
        "phase": state["phase"],
        "turn": turn_of(GAME.to_act(state)),  # one bidder or player at a time
        "dealer": state["dealer"],
        "round": state["hand_no"] + 1,
        "you": None if seat is None else {"seat": seat, "hand": state["hands"][seat]},
        "seats": [
            {
                "seat": i,
                "card_count": len(state["hands"][i]),
                "bid": spoken.get(i),
                "tricks_won": state["tricks_won"][i],
                "side": i % 2 if partnerships else None,
            }
            for i in range(n)
        ],
        "public": public,
        "scores": state["scores"],
        "legal_moves": [] if seat is None else GAME.legal_moves(state, seat),
    }
    return out


# --- move parsing ------------------------------------------------------------------------------
def check_seats(options: dict, players: int) -> None:
    # partnerships need exactly four seats (two sides of two).
    if options.get("partnerships") and players != 4:
        raise InvalidMove("partnerships need exactly 4 seats (A-9.1)", fields={"partnerships": ["needs exactly 4 seats"]})


def parse(move: object) -> str:
    if not isinstance(move, dict):
        raise InvalidMove("a move must be an object", fields={"type": ["required"]})
    kind = move.get("type")
    if kind not in MOVE_FIELDS:
        raise InvalidMove(
            "a move's type must be 'bid' or 'play'", fields={"type": ["must be 'bid' or 'play'"]}
        )
    fields = MOVE_FIELDS[kind]
    extra = sorted(k for k in move if k != "type" and k not in fields)
    if extra:
        raise InvalidMove(f"unknown field(s) {extra}", fields={k: ["unknown field"] for k in extra})
    missing = [f for f in fields if f not in move]
    if missing:
        raise InvalidMove(f"missing field(s) {missing}", fields={f: ["required"] for f in missing})
    if kind == "bid":
        value = move["value"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 4:
            raise InvalidMove("a bid's value must be 0 (pass) to 4", fields={"value": ["must be 0 to 4"]})
    elif not cards.is_card(move["card"]):
        raise InvalidMove("unknown card code", fields={"card": ["not a card code"]})
    return kind


def move_error(st: dict, seat: int, move: dict) -> tuple[str, str] | None:
    """The rules' refusal of a parsed move by the seat to act, as (message, rule id), or None
    when it is legal."""
    if st["phase"] == "auction":
        return bid_error(st, seat, move["value"]) if move["type"] == "bid" else None
    if move["type"] == "bid":
        # Ruling: a bid after the auction breaks A-3.1's one chance to bid.
        return "the auction is over", "A-3.1"
    return play_error(st, seat, move["card"])


# --- the state as a value ----------------------------------------------------------------------
def clone(st: dict) -> dict:
    """A copy of `st` that the step functions may change without touching `st`: the containers
    they modify in place are copied; what they only ever replace (the options, the undealt
    cards, the last hand's summary, the winners) and the entries they never modify (bids,
    plays, finished tricks) are shared. States are values: nothing changes a state in place
    once it is returned, so the sharing is invisible (and far cheaper than a deep copy, which
    matters to the search's playouts)."""
    out = dict(st)
    out["hands"] = [list(hand) for hand in st["hands"]]
    out["bids"] = list(st["bids"])
    out["trick"] = list(st["trick"])
    out["tricks"] = list(st["tricks"])
    out["tricks_won"] = list(st["tricks_won"])
    out["scores"] = list(st["scores"])
    return out


def _clone_json(value):
    """A deep copy of JSON data (dicts, lists and scalars), several times faster than
    copy.deepcopy."""
    if isinstance(value, dict):
        return {k: _clone_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone_json(v) for v in value]
    return value


def effect(st: dict, seat: int, move: dict) -> list[dict]:
    """`step`'s changes, made to `st` in place; its events."""
    events: list[dict] = []
    if move["type"] == "bid":
        bid(st, seat, move["value"], events)
    elif st["phase"] == "auction":
        pitch(st, seat, move["card"], events)
    else:
        play(st, seat, move["card"], events)
    return events


def played_cards(tricks: list[dict], trick: list[dict]) -> list[str]:
    """The cards played this hand: the finished tricks and the trick on the table."""
    return [p["card"] for t in tricks for p in t["cards"]] + [p["card"] for p in trick]


def shown_out(tricks: list[dict], trick: list[dict], trump: str | None, players: int) -> list[set[str]]:
    """The suits each seat is known not to hold, from this hand's plays (all public): a seat
    that neither followed a trump lead (A-4.2) nor followed or trumped another lead (A-4.3)
    holds none of the suit led."""
    voids: list[set[str]] = [set() for _ in range(players)]
    if trump is None:
        return voids
    for plays in [t["cards"] for t in tricks] + ([trick] if trick else []):
        led = cards.suit_of(plays[0]["card"])
        for p in plays[1:]:
            suit = cards.suit_of(p["card"])
            if suit != led and (led == trump or suit != trump):
                voids[p["seat"]].add(led)
    return voids


def _key(u: float, weight: float) -> float:
    return u ** (1.0 / weight) if weight > 0 else -1.0


def _state_from_view(view: dict, hands: list[list[str]], undealt: list[str], seed: int) -> dict:
    """The state layout (PitchState) rebuilt from a view and the sampled hidden cards."""
    public = view["public"]
    options = {"target_score": public["target_score"], "low_to": public["low_to"]}
    if public.get("partnerships"):  # stored only when on (see new_game)
        options["partnerships"] = True
    finished = view["phase"] == "finished"
    return _clone_json(
        {
            "players": len(view["seats"]),
            "seed": seed,
            "status": "finished" if finished else "active",
            "options": options,
            "phase": view["phase"],
            "dealer": view["dealer"],
            "hand_no": view["round"] - 1,
            "hands": hands,
            "undealt": undealt,
            "turn": view["turn"],
            "bids": public["bids"],
            "high_bid": public["high_bid"],
            "high_bidder": public["high_bidder"],
            "pitcher": public["pitcher"],
            "contract": public["contract"],
            "trump": public["trump"],
            "trick": public["trick"],
            "tricks": public["tricks"],
            "tricks_won": public["tricks_won"],
            "scores": view["scores"],
            "last_hand": public["last_hand"],
            "winners": public["winners"],
            **({} if (fair := fairness.from_view(public)) is None else {"fairness": fair}),
        }
    )


# --- the deal ----------------------------------------------------------------------------------
def deal(st: dict, deck: list[str]) -> None:
    """A-2.2: two rounds of three cards from the dealer's left; the rest is out of play."""
    n = st["players"]
    hands: list[list[str]] = [[] for _ in range(n)]
    pos = 0
    for _ in range(HAND_SIZE // PACKET):
        for i in range(1, n + 1):
            hands[(st["dealer"] + i) % n].extend(deck[pos : pos + PACKET])
            pos += PACKET
    st["hands"] = [sort_cards(h) for h in hands]
    st["undealt"] = deck[pos:]
    fairness.record_hands(st, {"hands": st["hands"], "undealt": st["undealt"]})
    st["phase"] = "auction"
    # the player on the dealer's left speaks first.
    st["turn"] = (st["dealer"] + 1) % n
    st["bids"] = []
    st["high_bid"] = 0
    st["high_bidder"] = None
    st["pitcher"] = None
    st["contract"] = None
    st["trump"] = None
    st["trick"] = []
    st["tricks"] = []
    st["tricks_won"] = [0] * n


def deal_events(st: dict, committed: dict) -> list[dict]:
    events = [{"type": "deal", "hand": st["hand_no"] + 1, "dealer": st["dealer"], **committed}]
    for s, hand in enumerate(st["hands"]):
        events.append({"type": "hand", "seat": s, "secret": {"cards": list(hand)}, "secret_to": [s]})
    return events


# --- the auction -------------------------------------------------------------------------------
def bid_error(st: dict, seat: int, value: int) -> tuple[str, str] | None:
    high = st["high_bid"]
    dealer_alone = seat == st["dealer"] and high == 0
    if value == 0:
        if dealer_alone:
            return "the dealer must bid at least 2 when everyone else passed", "A-3.3"
        return None
    if dealer_alone and value < 2:
        return "the dealer must bid at least 2 when everyone else passed", "A-3.3"
    # only the dealer may take the bid at the current high.
    if value < high or (value == high and seat != st["dealer"]):
        return "a bid must be higher than the current highest bid", "A-3.1"
    return None


def bid(st: dict, seat: int, value: int, events: list[dict]) -> None:
    if value == 0:
        kind = "pass"
    elif value == st["high_bid"]:
        kind = "take"
    else:
        kind = "bid"
    st["bids"].append({"seat": seat, "value": value, "kind": kind})
    events.append({"type": "bid", "seat": seat, "value": value, "kind": kind})
    if value:
        st["high_bid"] = value
        st["high_bidder"] = seat
    # ruling: nobody can outbid 4: the dealer speaks last.
    if value == 4 or seat == st["dealer"]:
        close_auction(st, events)
    else:
        st["turn"] = (seat + 1) % st["players"]


def pitch(st: dict, seat: int, card: str, events: list[dict]) -> None:
    """A-3.2: a card led during the auction is a bid of 4 and the first lead."""
    st["bids"].append({"seat": seat, "value": 4, "kind": "pitch"})
    events.append({"type": "bid", "seat": seat, "value": 4, "kind": "pitch"})
    st["high_bid"] = 4
    st["high_bidder"] = seat
    close_auction(st, events)
    play(st, seat, card, events)


def close_auction(st: dict, events: list[dict]) -> None:
    # : the pitcher leads.
    st["pitcher"] = st["high_bidder"]
    st["contract"] = st["high_bid"]
    st["phase"] = "play"
    st["turn"] = st["pitcher"]
    events.append({"type": "contract", "pitcher": st["pitcher"], "contract": st["contract"]})


# --- the play ----------------------------------------------------------------------------------
def play_error(st: dict, seat: int, card: str) -> tuple[str, str] | None:
    if not st["trick"]:
        return None
    hand = st["hands"][seat]
    led = cards.suit_of(st["trick"][0]["card"])
    trump = st["trump"]
    suit = cards.suit_of(card)
    if led == trump:
        #
        if suit != trump and any(cards.suit_of(c) == trump for c in hand):
            return "you must play a trump on a trump lead", "A-4.2"
        return None
    # trumping is allowed even when able to follow.
    if suit not in (led, trump) and any(cards.suit_of(c) == led for c in hand):
        return "you must follow suit or play a trump", "A-4.3"
    return None


def playable(st: dict, hand: list[str]) -> list[str]:
    """The cards of `hand` its seat may play in the play phase, in hand order: the cards
    `play_error` accepts, each trick's suits read once (the search's playouts ask at every
    move)."""
    trick = st["trick"]
    if not trick:
        return list(hand)
    led = cards.suit_of(trick[0]["card"])
    trump = st["trump"]
    suits = [cards.suit_of(c) for c in hand]
    if led == trump:
        #
        if trump in suits:
            return [c for c, suit in zip(hand, suits, strict=True) if suit == trump]
        return list(hand)
    # trumping is allowed even when able to follow.
    if led in suits:
        return [c for c, suit in zip(hand, suits, strict=True) if suit in (led, trump)]
    return list(hand)


def play(st: dict, seat: int, card: str, events: list[dict]) -> None:
    n = st["players"]
    st["hands"][seat].remove(card)
    st["trick"].append({"seat": seat, "card": card})
    events.append({"type": "play", "seat": seat, "card": card})
    if st["trump"] is None:
        # the first card led fixes trump.
        st["trump"] = cards.suit_of(card)
        events.append({"type": "trump", "suit": st["trump"]})
    if len(st["trick"]) < n:
        st["turn"] = (seat + 1) % n
        return
    winner = trick_winner(st["trick"], st["trump"])
    done = {"cards": st["trick"], "winner": winner}
    st["tricks"].append(done)
    st["tricks_won"][winner] += 1
    st["trick"] = []
    events.append({"type": "trick", "number": len(st["tricks"]), **_copy_trick(done)})
    # the winner leads the next trick.
    st["turn"] = winner
    if len(st["tricks"]) == HAND_SIZE:
        end_hand(st, events)


def _copy_trick(trick: Trick) -> Trick:
    """A deep copy of a finished trick (its plays are flat dicts)."""
    return {"cards": [dict(p) for p in trick["cards"]], "winner": trick["winner"]}


def trick_winner(trick: list[dict], trump: str) -> int:
    """A-4.4: the highest trump, else the highest card of the suit led."""
    led = cards.suit_of(trick[0]["card"])
    suit = trump if any(cards.suit_of(p["card"]) == trump for p in trick) else led
    best = max((p for p in trick if cards.suit_of(p["card"]) == suit), key=lambda p: card_key(p["card"]))
    return best["seat"]


# --- scoring -----------------------------------------------------------------------------------
SIDES = [[0, 2], [1, 3]]  # partners sit opposite


def scoring_teams(st: dict) -> list[list[int]]:
    """Who scores together: the two sides with `partnerships` (A-9), else each seat alone.
    (`.get`: an option missing from an older table's state means off.)"""
    if st["options"].get("partnerships"):
        return [list(side) for side in SIDES]
    return [[s] for s in range(st["players"])]


def end_hand(st: dict, events: list[dict]) -> None:
    n = st["players"]
    trump = st["trump"]
    teams = scoring_teams(st)
    partnerships = len(teams) != n
    team_of = {s: t for t, members in enumerate(teams) for s in members}
    won_by: dict[str, int] = {}
    played_by: dict[str, int] = {}
    for trick in st["tricks"]:
        for p in trick["cards"]:
            won_by[p["card"]] = trick["winner"]
            played_by[p["card"]] = p["seat"]
    # every dealt card is played, so the trumps in play are the trumps in the tricks;
    # the first lead is one, so there is at least one.
    trumps = sorted((c for c in won_by if cards.suit_of(c) == trump), key=card_key)
    high_card, low_card, jack_card = trumps[-1], trumps[0], "J" + trump
    # every card is played by the player it was dealt to.
    low_seat = won_by[low_card] if st["options"]["low_to"] == "winner" else played_by[low_card]
    counts = [0] * n
    for card, winner in won_by.items():
        counts[winner] += GAME_VALUES.get(cards.rank_of(card), 0)
    # A-5.4 / A-9.3: Game compares the teams' counts; a tie for the highest scores nothing.
    team_counts = [sum(counts[s] for s in members) for members in teams]
    best = max(team_counts)
    game_team = team_counts.index(best) if team_counts.count(best) == 1 else None
    card_seats = {"high": (won_by[high_card], high_card), "low": (low_seat, low_card)}
    if jack_card in won_by:  # no jack dealt, no point.
        card_seats["jack"] = (won_by[jack_card], jack_card)
    # High, Low and Jack go to the side of the seat that won (or, Low dealt, was dealt) it.
    awards: dict = {cat: None for cat in CATEGORIES}
    award_team: dict[str, int | None] = {}
    for cat, (seat, card) in card_seats.items():
        awards[cat] = {"seat": seat, "card": card}
        award_team[cat] = team_of[seat]
        if partnerships:
            awards[cat]["side"] = team_of[seat]
    award_team["game"] = game_team
    if partnerships:
        awards["game"] = {"side": game_team, "counts": counts, "side_counts": team_counts}
    else:
        awards["game"] = {"seat": None if game_team is None else teams[game_team][0], "counts": counts}
    team_points = [0] * len(teams)
    for team in award_team.values():
        if team is not None:
            team_points[team] += 1
    pitcher, contract = st["pitcher"], st["contract"]
    pitcher_team = team_of[pitcher]
    # the pitcher's team makes the bid with at least the bid's points, else it is
    # set back by the bid and scores nothing else: the others score what they won.
    made = team_points[pitcher_team] >= contract
    team_deltas = list(team_points)
    if not made:
        team_deltas[pitcher_team] = -contract
    before = [st["scores"][members[0]] for members in teams]
    team_scores = [before[t] + team_deltas[t] for t in range(len(teams))]
    # every seat shows its team's numbers (both partners the side's total).
    st["scores"] = [team_scores[team_of[s]] for s in range(n)]
    summary = {
        "hand": st["hand_no"] + 1,
        "dealer": st["dealer"],
        "pitcher": pitcher,
        "contract": contract,
        "trump": trump,
        **awards,
        "points": [team_points[team_of[s]] for s in range(n)],
        "made": made,
        "set_back": not made,
        "deltas": [team_deltas[team_of[s]] for s in range(n)],
        "scores": list(st["scores"]),
    }
    if partnerships:
        summary.update(side_points=team_points, side_deltas=team_deltas, side_scores=list(team_scores))
    events.append({"type": "hand_scored", **_clone_json(summary)})
    st["last_hand"] = {**summary, "tricks": [_copy_trick(t) for t in st["tricks"]]}
    events.extend(fairness.reveal(st))
    winner = game_winner(st, before, team_scores, award_team, pitcher_team, made)
    if winner is not None:
        winners = sorted(teams[winner])
        st["status"] = "finished"
        st["phase"] = "finished"
        st["turn"] = None
        st["winners"] = winners
        events.append({"type": "game_over", "winners": list(winners), "scores": list(st["scores"])})
        return
    # the deal passes to the left; each deal after the first is shuffled from the seed.
    st["dealer"] = (st["dealer"] + 1) % n
    st["hand_no"] += 1
    deck, committed = fairness.deal_deck(st, FULL_DECK, st["hand_no"])
    deal(st, deck)
    events.extend(deal_events(st, committed))


def game_winner(
    st: dict, before: list[int], after: list[int], award_team: dict, pitcher_team: int, made: bool
) -> int | None:
    """The winning team, if any (A-7; A-9.5: by side with partnerships)."""
    target = st["options"]["target_score"]
    # the pitcher (A-9.5: the pitcher's side) counts first.
    if made and after[pitcher_team] >= target:
        return pitcher_team
    # then the hand's points one at a time, High, Low, Jack, Game. Ruling: the pitcher's
    # categories are skipped, as the pitcher counted first without reaching the target (and a
    # set-back pitcher scores none of them, A-6.1); with partnerships, the pitcher's side's.
    running = list(before)
    for cat in CATEGORIES:
        team = award_team.get(cat)
        if team is None or team == pitcher_team:
            continue
        running[team] += 1
        if running[team] >= target:
            return team
    return None


GAME = register(Pitch())
