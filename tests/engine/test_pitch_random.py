"""Random full games of Auction Pitch checked step by step against a small reference model of
docs/rules/pitch.md: the deal (A-2), the legal moves (A-3, A-4), trick winners (A-4.4), the
points and settlement of each hand (A-5, A-6), the end of the game (A-7), card conservation,
hidden information in views and events (A-8), partnerships (A-9) and the apply/legal_moves
agreement."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from games.engine import cards, fairness, pitch
from games.engine.base import IllegalMove, InvalidMove, NotYourTurn

G = pitch.GAME
FULL = cards.standard_deck()
VALUES = {"10": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
MAX_HANDS = 400


def rank(card: str) -> int:
    return cards.RANKS.index(cards.rank_of(card))


def order(card: str) -> tuple[int, int]:
    return rank(card), "CDHS".index(cards.suit_of(card))


def suit(card: str) -> str:
    return cards.suit_of(card)


class Ref:
    """The reference model: what the spec says should happen, kept beside the engine."""

    def __init__(self, n: int, options: dict, seed: int, deck: list[str] | None, dealer: int):
        self.n, self.options, self.seed = n, options, seed
        self.partnerships = bool(options.get("partnerships"))
        self.dealer, self.hand_no = dealer, 0
        self.scores = [0] * n
        self.winners: list[int] = []
        self.played_prev: set[str] = set()
        self.deal(deck if deck is not None else fairness.shuffle(FULL, fairness.deal_secret(seed, 0)))

    def deal(self, deck: list[str]) -> None:
        n = self.n
        self.hands: list[list[str]] = [[] for _ in range(n)]
        for packet in range(2):
            for i in range(1, n + 1):
                start = (packet * n + i - 1) * 3
                self.hands[(self.dealer + i) % n] += deck[start : start + 3]
        self.hands = [sorted(h, key=order) for h in self.hands]
        self.undealt = deck[6 * n :]
        self.phase, self.turn = "auction", (self.dealer + 1) % n
        self.high, self.high_bidder, self.spoken = 0, None, 0
        self.trump, self.trick, self.tricks = None, [], []
        self.played_cur: list[str] = []

    def legal(self, seat: int) -> list[dict]:
        hand = self.hands[seat]
        if self.phase == "auction":
            if seat == self.dealer:
                ok = [v for v in range(5) if (v >= 2 if self.high == 0 else v == 0 or v >= self.high)]
            else:
                ok = [v for v in range(5) if v == 0 or v > self.high]
            return [{"type": "bid", "value": v} for v in ok] + [{"type": "play", "card": c} for c in hand]
        allowed = hand
        if self.trick:
            led = suit(self.trick[0][1])
            if led == self.trump:
                allowed = [c for c in hand if suit(c) == self.trump] or hand
            elif any(suit(c) == led for c in hand):
                allowed = [c for c in hand if suit(c) in (led, self.trump)]
        return [{"type": "play", "card": c} for c in allowed]

    def apply(self, seat: int, move: dict) -> None:
        if move["type"] == "bid":
            v = move["value"]
            if v:
                self.high, self.high_bidder = v, seat
            if v == 4 or seat == self.dealer:
                self.close()
            else:
                self.turn = (seat + 1) % self.n
            return
        if self.phase == "auction":
            self.high, self.high_bidder = 4, seat
            self.close()
        self.play(seat, move["card"])

    def close(self) -> None:
        self.phase, self.pitcher, self.contract, self.turn = (
            "play",
            self.high_bidder,
            self.high,
            self.high_bidder,
        )

    def play(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.played_cur.append(card)
        self.trump = self.trump or suit(card)
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            self.turn = (seat + 1) % self.n
            return
        trumps = [p for p in self.trick if suit(p[1]) == self.trump]
        led = [p for p in self.trick if suit(p[1]) == suit(self.trick[0][1])]
        winner = max(trumps or led, key=lambda p: rank(p[1]))[0]
        self.tricks.append((self.trick, winner))
        self.trick, self.turn = [], winner
        if len(self.tricks) == 6:
            self.score()

    def score(self) -> None:
        n = self.n
        won = {c: w for t, w in self.tricks for _, c in t}
        dealt_to = {c: s for t, _ in self.tricks for s, c in t}
        trumps = [c for c in won if suit(c) == self.trump]
        high, low = max(trumps, key=rank), min(trumps, key=rank)
        counts = [sum(VALUES.get(cards.rank_of(c), 0) for c in won if won[c] == s) for s in range(n)]
        top = [s for s in range(n) if counts[s] == max(counts)]
        self.awards = {
            "high": won[high],
            "low": won[low] if self.options["low_to"] == "winner" else dealt_to[low],
            "jack": won.get("J" + self.trump),
            "game": top[0] if len(top) == 1 else None,
        }
        self.cards = {"high": high, "low": low, "jack": "J" + self.trump}
        self.counts = counts
        points = [0] * n
        for s in self.awards.values():
            if s is not None:
                points[s] += 1
        self.points = points
        target = self.options["target_score"]
        if self.partnerships:
            self.score_sides(target)
        else:
            self.score_alone(target)
        if self.winners:
            self.phase, self.turn = "finished", None
            return
        self.next_deal()

    def score_alone(self, target: int) -> None:
        """A-6 and A-7: every seat for itself."""
        points = self.points
        self.made = points[self.pitcher] >= self.contract
        deltas = list(points)
        if not self.made:
            deltas[self.pitcher] = -self.contract
        self.deltas = deltas
        before = self.scores
        self.scores = [a + b for a, b in zip(before, deltas, strict=True)]
        if self.made and self.scores[self.pitcher] >= target:
            self.winners = [self.pitcher]
            return
        running = list(before)
        for cat in ("high", "low", "jack", "game"):
            s = self.awards[cat]
            if s is None or s == self.pitcher:
                continue
            running[s] += 1
            if running[s] >= target:
                self.winners = [s]
                return

    def score_sides(self, target: int) -> None:
        """A-9.3 .. A-9.5: seats 0+2 and 1+3 score as sides."""
        side = [s % 2 for s in range(self.n)]
        self.side_counts = [self.counts[0] + self.counts[2], self.counts[1] + self.counts[3]]
        a, b = self.side_counts
        self.side_awards = {cat: None if s is None else side[s] for cat, s in self.awards.items() if cat != "game"}
        self.side_awards["game"] = 0 if a > b else 1 if b > a else None
        self.side_points = [sum(1 for t in self.side_awards.values() if t == k) for k in (0, 1)]
        mine = side[self.pitcher]
        self.made = self.side_points[mine] >= self.contract
        side_deltas = list(self.side_points)
        if not self.made:
            side_deltas[mine] = -self.contract
        self.side_deltas = side_deltas
        self.deltas = [side_deltas[side[s]] for s in range(self.n)]
        self.points = [self.side_points[side[s]] for s in range(self.n)]
        before = [self.scores[0], self.scores[1]]
        after = [before[k] + side_deltas[k] for k in (0, 1)]
        self.scores = [after[side[s]] for s in range(self.n)]
        won = None
        if self.made and after[mine] >= target:
            won = mine
        else:
            running = list(before)
            for cat in ("high", "low", "jack", "game"):
                k = self.side_awards[cat]
                if k is None or k == mine:
                    continue
                running[k] += 1
                if running[k] >= target:
                    won = k
                    break
        if won is not None:
            self.winners = [won, won + 2]

    def next_deal(self) -> None:
        n = self.n
        self.played_prev = set(self.played_cur)
        self.dealer = (self.dealer + 1) % n
        self.hand_no += 1
        self.deal(fairness.shuffle(FULL, fairness.deal_secret(self.seed, self.hand_no)))


CARD_STRING = re.compile(r'"((?:10|[2-9JQKA])[CDHS])"')


def scan(obj: object, seed: int) -> set[str]:
    """The card codes among the strings of `obj`, after checking that the seed is absent."""
    blob = json.dumps(obj)
    assert re.search(rf"(?<![0-9]){seed}(?![0-9])", blob) is None
    return set(CARD_STRING.findall(blob))


def check_state(st: dict, ref: Ref) -> None:
    n = ref.n
    assert st["hands"] == ref.hands and st["undealt"] == ref.undealt
    assert st["dealer"] == ref.dealer and st["hand_no"] == ref.hand_no
    assert st["scores"] == ref.scores and st["phase"] == ref.phase
    # Card conservation: hands + cards played this hand + undealt = the 52 cards, once each.
    played = [p["card"] for t in st["tricks"] for p in t["cards"]] + [p["card"] for p in st["trick"]]
    held = [c for h in st["hands"] for c in h]
    assert sorted(held + played + st["undealt"]) == sorted(FULL)
    assert played == ref.played_cur
    assert len(st["undealt"]) == 52 - 6 * n
    assert G.to_act(st) == ([] if ref.turn is None else [ref.turn])
    if ref.partnerships:  # partners show their side's total; `public` names the sides
        public = G.view(st, None)["public"]
        assert public["sides"] == [[0, 2], [1, 3]] and public["side_scores"] == [ref.scores[0], ref.scores[1]]


def check_views(st: dict, ref: Ref, seed: int) -> None:
    for s in [*range(ref.n), None]:
        view = G.view(st, s)
        assert json.loads(json.dumps(view)) == view
        own = set(ref.hands[s]) if s is not None else set()
        visible = own | set(ref.played_cur) | ref.played_prev
        assert scan(view, seed) <= visible
        if s is not None:
            assert view["you"]["hand"] == ref.hands[s]


def check_events(
    events: list[dict], move: dict, mover: int, before_hands: list[list[str]], ref: Ref, seed: int
):
    public = set(ref.played_cur) | ref.played_prev
    if ref.phase != "finished" and not ref.played_cur:
        # A new hand was dealt: the finished hand's cards are the ones just recorded.
        public = ref.played_prev
    for s in [*range(ref.n), None]:
        own = set(before_hands[s]) | set(ref.hands[s]) if s is not None else set()
        for e in events:
            assert scan(G.view_event(e, s), seed) <= public | own, (e["type"], s)
        assert scan(G.view_move(move, mover, events, s), seed) <= public


def check_scored(events: list[dict], ref: Ref) -> list[int] | None:
    scored = [e for e in events if e["type"] == "hand_scored"]
    if not scored:
        return None
    (ev,) = scored
    for cat in ("high", "low", "jack"):
        if ref.awards[cat] is None:
            assert ev[cat] is None
        elif ref.partnerships:
            assert ev[cat] == {"seat": ref.awards[cat], "card": ref.cards[cat], "side": ref.side_awards[cat]}
        else:
            assert ev[cat] == {"seat": ref.awards[cat], "card": ref.cards[cat]}
    if ref.partnerships:
        assert ev["game"] == {"side": ref.side_awards["game"], "counts": ref.counts, "side_counts": ref.side_counts}
        assert ev["points"] == ref.points and ev["made"] == ref.made
        assert ev["side_points"] == ref.side_points and ev["side_deltas"] == ref.side_deltas
        assert ev["deltas"] == ref.deltas and ev["side_scores"] == [ref.scores[0], ref.scores[1]]
        return ev["deltas"]
    assert ev["game"] == {"seat": ref.awards["game"], "counts": ref.counts}
    assert ev["points"] == ref.points and ev["made"] == ref.made and ev["set_back"] == (not ref.made)
    # The deltas follow from the awarded categories alone.
    points = [0] * ref.n
    for cat in ("high", "low", "jack", "game"):
        if ev[cat] is not None and ev[cat]["seat"] is not None:
            points[ev[cat]["seat"]] += 1
    deltas = list(points)
    if points[ev["pitcher"]] < ev["contract"]:
        deltas[ev["pitcher"]] = -ev["contract"]
    assert ev["deltas"] == deltas == ref.deltas
    return ev["deltas"]


def random_wellformed(rng: random.Random) -> dict:
    if rng.random() < 0.3:
        return {"type": "bid", "value": rng.randrange(5)}
    return {"type": "play", "card": rng.choice(FULL)}


def choose(rng: random.Random, st: dict, seat: int, legal: list[dict], phase: str) -> dict:
    """Random play with cautious bidding (mostly passes and low bids, now and then any move,
    a pitch included), so that pitchers make their bids often enough for games to end."""
    r = rng.random()
    if phase != "auction" or r > 0.95:
        return rng.choice(legal)
    if r < 0.6:
        return G.timeout_move(st, seat)
    bids = [m for m in legal if m["type"] == "bid" and m["value"]]
    return bids[0]


def tally(stats: Counter, events: list[dict], st: dict) -> None:
    for e in events:
        if e["type"] == "bid":
            stats[e["kind"]] += 1
            bids = st["bids"]
            # a bid over the partner's standing high bid (partners sit two seats apart).
            if st["options"].get("partnerships") and e["value"] and len(bids) > 1:
                highs = [b for b in bids[: len(bids) - 1] if b["value"]]
                stats["partner_outbid"] += bool(highs) and (highs[-1]["seat"] - e["seat"]) % 4 == 2
        elif e["type"] == "hand_scored":
            stats["set_back" if e["set_back"] else "made"] += 1
            stats["game_tie"] += e["game"].get("seat", e["game"].get("side")) is None
            stats["no_jack"] += e["jack"] is None
            stats["single_trump"] += e["high"]["card"] == e["low"]["card"]
            stats["single_jack"] += e["high"]["card"] == e["low"]["card"] == "J" + e["trump"]
            stats["high_low_split"] += e["low"]["seat"] != e["high"]["seat"]
        elif e["type"] == "game_over":
            stats["pitcher_wins" if st["pitcher"] in e["winners"] else "other_wins"] += 1
            stats["negative_score"] += min(e["scores"]) < 0


def run_game(rng: random.Random, n: int, options: dict, heavy: bool, stats: Counter | None = None) -> int:
    """Play one random game to the end; return the number of hands played."""
    seed = rng.getrandbits(63)
    deck = rng.sample(FULL, 52) if rng.random() < 0.3 else None
    first = rng.randrange(n) if rng.random() < 0.5 else None
    st = G.new_game(players=n, options=options, seed=seed, deck=deck, first_dealer=first)
    dealer = first if first is not None else fairness.draw_dealer(fairness.deal_secret(seed, 0), n)
    ref = Ref(n, options, seed, deck, dealer)
    totals = [0] * n
    hands = 0
    for _ in range(MAX_HANDS * (6 * n + n)):
        check_state(st, ref)
        if ref.phase == "finished":
            break
        seat = ref.turn
        legal = G.legal_moves(st, seat)
        assert legal == ref.legal(seat)
        assert G.timeout_move(st, seat) in legal
        if heavy:
            assert json.loads(json.dumps(st)) == st
            check_views(st, ref, seed)
            for other in range(n):
                if other != seat:
                    assert G.legal_moves(st, other) == []
                    with pytest.raises(NotYourTurn):
                        G.apply(st, other, legal[0])
            for mv in rng.sample(legal, min(2, len(legal))):
                G.apply(st, seat, mv)
            for _ in range(3):
                mv = random_wellformed(rng)
                if mv not in legal:
                    expected = (
                        InvalidMove
                        if mv["type"] == "play" and mv["card"] not in ref.hands[seat]
                        else IllegalMove
                    )
                    with pytest.raises(expected):
                        G.apply(st, seat, mv)
        mv = choose(rng, st, seat, legal, ref.phase)
        before = json.dumps(st, sort_keys=True) if heavy else None
        before_hands = [list(h) for h in ref.hands]
        new_state, events = G.apply(st, seat, mv)
        if heavy:
            assert json.dumps(st, sort_keys=True) == before
        ref.apply(seat, mv)
        deltas = check_scored(events, ref)
        if deltas is not None:
            totals = [a + b for a, b in zip(totals, deltas, strict=True)]
            hands += 1
        if stats is not None:
            tally(stats, events, new_state)
        if heavy:
            check_events(events, mv, seat, before_hands, ref, seed)
        st = new_state
    else:
        pytest.fail("the game did not end")
    assert G.is_finished(st) and st["winners"] == ref.winners
    assert len(ref.winners) == (2 if ref.partnerships else 1)
    assert st["scores"] == totals
    target = options["target_score"]
    assert all(st["scores"][w] >= target for w in ref.winners)
    assert G.view(st, None)["public"]["winners"] == ref.winners
    return hands


CONFIGS = [(n, t, low) for n in range(3, 8) for t in (7, 11, 15, 21) for low in ("winner", "dealt")]


@pytest.mark.parametrize("n", range(3, 8))
@pytest.mark.parametrize("low_to", ["winner", "dealt"])
def test_random_games_heavy_checks(n: int, low_to: str):
    """Every step: reference legal moves, sampled applies, random illegal moves, hidden
    information in every seat's and a spectator's view and events, conservation, JSON
    round-trip, no mutation of the input state."""
    rng = random.Random(f"pitch-heavy-{n}-{low_to}")
    # Longer targets cost time here; the light test below plays them all.
    target = 11 if n <= 4 else 7
    run_game(rng, n, G.validate_options({"target_score": target, "low_to": low_to}), heavy=True)


@pytest.mark.parametrize("low_to", ["winner", "dealt"])
def test_random_partnership_games_heavy_checks(low_to: str):
    """A-9: the heavy checks above on 4-seat partnership games, scored by side by the model."""
    rng = random.Random(f"pitch-partners-heavy-{low_to}")
    for _ in range(2):
        run_game(rng, 4, G.validate_options({"target_score": 11, "low_to": low_to, "partnerships": True}), heavy=True)


def test_random_partnership_games_many_hands():
    """A-9: hundreds of partnership hands over several targets and both low_to, against the
    model (points, Game counts, settlement, scores and the end by side)."""
    rng = random.Random("pitch-partners-light")
    stats: Counter = Counter()
    hands = games = 0
    while hands < 600 or games < 8:
        target = (1, 7, 11, 21)[games % 4]
        low_to = ("winner", "dealt")[games // 4 % 2]
        options = G.validate_options({"target_score": target, "low_to": low_to, "partnerships": True})
        hands += run_game(rng, 4, options, heavy=False, stats=stats)
        games += 1
    situations = ["pass", "bid", "take", "pitch", "made", "set_back", "game_tie", "no_jack", "pitcher_wins"]
    situations += ["other_wins", "negative_score", "partner_outbid"]
    assert all(stats[k] for k in situations), stats


def test_random_games_thousands_of_hands():
    """Many more games over every player count, target and low_to, against the reference model
    (deals, legal moves, timeouts, tricks, points, settlement, the winner, conservation)."""
    rng = random.Random("pitch-light")
    stats: Counter = Counter()
    hands = games = 0
    while hands < 2000 or games < len(CONFIGS):
        n, target, low_to = CONFIGS[games % len(CONFIGS)]
        options = G.validate_options({"target_score": target, "low_to": low_to})
        hands += run_game(rng, n, options, heavy=False, stats=stats)
        games += 1
    # The random play reached every situation the rules single out.
    situations = ["pass", "bid", "take", "pitch", "made", "set_back", "game_tie", "no_jack", "single_trump"]
    situations += ["high_low_split", "pitcher_wins", "other_wins", "negative_score"]
    assert all(stats[k] for k in situations), stats
