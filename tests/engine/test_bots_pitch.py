"""The Auction Pitch bots (games/bots/pitch.py): legal moves from random positions, the view as
their only input, easy's choices in fixed scenarios, the hard bot's determinizations and
playouts, and a strength check of easy against random seats. No Django, no database."""

from __future__ import annotations

import copy
import random

import pytest

from games.bots import choose_move, random_move, search
from games.bots import pitch as bots
from games.engine import cards, pitch

G = pitch.GAME
SEED = 4242


def deck_for(hands: list[list[str]], dealer: int) -> list[str]:
    """A full deck that deals `hands[s]` to seat s when `dealer` deals (A-2.2)."""
    n = len(hands)
    deck: list[str] = []
    for packet in range(2):
        for i in range(1, n + 1):
            deck.extend(hands[(dealer + i) % n][3 * packet : 3 * packet + 3])
    used = set(deck)
    assert len(used) == 6 * n
    return deck + [c for c in cards.standard_deck() if c not in used]


def new(hands: list[list[str]], dealer: int = 0, **options) -> dict:
    return G.new_game(
        players=len(hands),
        options=G.validate_options(options),
        seed=SEED,
        deck=deck_for(hands, dealer),
        first_dealer=dealer,
    )


def run(state: dict, moves: list[tuple[int, dict | int | str]]) -> dict:
    """Apply moves given as (seat, bid value) or (seat, card)."""
    for seat, mv in moves:
        if isinstance(mv, int):
            mv = {"type": "bid", "value": mv}
        elif isinstance(mv, str):
            mv = {"type": "play", "card": mv}
        assert G.to_act(state) == [seat], (seat, mv)
        state, _ = G.apply(state, seat, mv)
    return state


def act(state: dict, policy, seed: int = 0) -> dict:
    seat = state["turn"]
    view = G.view(state, seat)
    move = policy(view, random.Random(seed))
    assert move in view["legal_moves"]
    return move


def card(mv: dict) -> str | None:
    return mv["card"] if mv["type"] == "play" else None


@pytest.fixture
def small_budget(monkeypatch):
    """The hard bot with a tiny search, for the sweeps over many positions."""
    monkeypatch.setattr(bots, "MOVE_BUDGET", 60)
    monkeypatch.setattr(bots, "MIN_DETERMINIZATIONS", 1)
    monkeypatch.setattr(bots, "MAX_DETERMINIZATIONS", 2)


def positions(seed: int, players: int, steps: int, **options):
    """States from a random game (random moves), one per step, with the seat to act."""
    rng = random.Random(seed)
    st = G.new_game(players=players, options=G.validate_options(options), seed=seed)
    for _ in range(steps):
        if G.is_finished(st):
            return
        seat = st["turn"]
        yield st, seat
        st, _ = G.apply(st, seat, random_move(G.view(st, seat), rng))


CONFIGS = [
    (3, {}),
    (4, {}),
    (5, {"low_to": "dealt"}),
    (6, {"target_score": 11}),
    (7, {}),
    (4, {"partnerships": True, "low_to": "dealt"}),
]


# --- (a) legal moves from random positions ------------------------------------------------------
@pytest.mark.parametrize("players,options", CONFIGS)
def test_easy_and_hard_always_return_a_legal_move(players, options, small_budget):
    for k, (st, seat) in enumerate(positions(100 + players, players, 400, **options)):
        view = G.view(st, seat)
        before = copy.deepcopy(view)
        assert bots.easy(view, random.Random(k)) in view["legal_moves"]
        if k % 3 == 0:
            assert bots.hard(view, random.Random(k)) in view["legal_moves"]
        assert view == before, "a bot changed the view it was given"
        for other in range(players):  # nobody else may act; the bots never see their views
            assert other == seat or G.view(st, other)["legal_moves"] == []


def play_game(st: dict, levels: list[str], rng: random.Random, max_moves: int) -> dict:
    """Bots of the given levels (by seat) play through choose_move, each move checked legal."""
    moves = 0
    while not G.is_finished(st) and moves < max_moves:
        seat = st["turn"]
        view = G.view(st, seat)
        mv = choose_move("pitch", levels[seat], view, rng)
        assert mv in view["legal_moves"]
        st, _ = G.apply(st, seat, mv)
        moves += 1
    return st


def test_full_games_with_bots_at_every_level_through_choose_move(small_budget):
    for players, levels in ((3, ["easy", "hard", "random"]), (4, ["hard", "easy", "easy", "random"])):
        st = G.new_game(players=players, options=G.validate_options({}), seed=7 + players)
        st = play_game(st, levels, random.Random(players), 600)
        assert G.is_finished(st)


def test_a_single_legal_move_is_returned_at_once():
    view = {
        "phase": "play",
        "you": {"seat": 0, "hand": ["2C"]},
        "legal_moves": [{"type": "play", "card": "2C"}],
    }
    assert bots.hard(view, random.Random(0)) == view["legal_moves"][0]
    assert bots.easy(view, random.Random(0)) == view["legal_moves"][0]


# --- (b) the view is the bots' only input -------------------------------------------------------
def swapped(state: dict, seat: int, rng: random.Random) -> dict | None:
    """The same state with a card swapped between two hands other than `seat`'s (or with the
    undealt pile): a different deal that `seat` cannot tell apart."""
    others = [s for s in range(state["players"]) if s != seat and state["hands"][s]]
    if len(others) < 2:
        return None
    a, b = rng.sample(others, 2)
    st = copy.deepcopy(state)
    i, j = rng.randrange(len(st["hands"][a])), rng.randrange(len(st["hands"][b]))
    st["hands"][a][i], st["hands"][b][j] = st["hands"][b][j], st["hands"][a][i]
    if st["undealt"]:
        k = rng.randrange(len(st["undealt"]))
        st["hands"][a][0], st["undealt"][k] = st["undealt"][k], st["hands"][a][0]
    st["hands"][a] = pitch.sort_cards(st["hands"][a])
    st["hands"][b] = pitch.sort_cards(st["hands"][b])
    st["seed"] += 1  # the seed of the next deals is hidden too
    return st


@pytest.mark.parametrize("players", [3, 4, 6])
def test_bots_decide_on_the_view_alone(players, small_budget):
    rng = random.Random(players)
    checked = 0
    for k, (st, seat) in enumerate(positions(300 + players, players, 200)):
        other = swapped(st, seat, rng)
        if other is None or len(G.legal_moves(st, seat)) < 2:
            continue
        view = G.view(st, seat)
        assert G.view(other, seat) == view
        assert other["hands"] != st["hands"]
        assert bots.easy(view, random.Random(k)) == bots.easy(G.view(other, seat), random.Random(k))
        assert bots.hard(view, random.Random(k)) == bots.hard(G.view(other, seat), random.Random(k))
        checked += 1
    assert checked > 50


def test_hard_with_its_full_budget_decides_on_the_view_alone_and_is_deterministic():
    rng = random.Random(5)
    checked = 0
    for k, (st, seat) in enumerate(positions(555, 4, 40)):
        if k % 8 or len(G.legal_moves(st, seat)) < 2:
            continue
        other = swapped(st, seat, rng)
        view = G.view(st, seat)
        assert G.view(other, seat) == view
        move = bots.hard(view, random.Random(k))
        assert move == bots.hard(G.view(other, seat), random.Random(k))
        assert move == bots.hard(copy.deepcopy(view), random.Random(k))
        checked += 1
    assert checked >= 3


# --- (c) easy's choices -------------------------------------------------------------------------
# Four players, dealer 0: seat 1 speaks first, the dealer last.
WEAK = ["3C", "5D", "7H", "8S", "4C", "6D"]
STRONG = ["AH", "KH", "9H", "4H", "6D", "8S"]
VERY_STRONG = ["AS", "KS", "JS", "2S", "9H", "4D"]
FILL = [
    ["2D", "9C", "10C", "QD", "3H", "5S"],
    ["6C", "7C", "JD", "KD", "2H", "9S"],
    ["8C", "QC", "KC", "AC", "10D", "3S"],
]


def table(first: list[str], **options) -> dict:
    """Seat 1 (first to speak) holds `first`; the others hold the FILL hands."""
    return new([FILL[0], first, FILL[1], FILL[2]], dealer=0, **options)


def test_easy_passes_a_weak_hand():
    assert bots.estimate(WEAK, "C", 4) < 1.5
    assert act(table(WEAK), bots.easy) == {"type": "bid", "value": 0}


def test_easy_bids_a_strong_hand_and_the_pitcher_leads_its_best_trump():
    st = table(STRONG)
    mv = act(st, bots.easy)
    assert mv["type"] == "bid" and mv["value"] >= 2
    st, _ = G.apply(st, 1, mv)
    st = run(st, [(2, 0), (3, 0), (0, 0)])
    assert st["pitcher"] == 1
    assert card(act(st, bots.easy)) == "AH"  # the pitcher leads trump, its highest
    st = run(st, [(1, "AH"), (2, "2H"), (3, "10D"), (0, "3H")])  # s3 has no heart
    # The pitcher won; KH is now the highest trump out: it pulls trumps with it.
    assert st["turn"] == 1
    assert card(act(st, bots.easy)) == "KH"


def test_easy_pitches_a_four_with_a_very_strong_hand():
    assert bots.estimate(VERY_STRONG, "S", 4) >= bots.PITCH_AT
    assert act(table(VERY_STRONG), bots.easy) == {"type": "play", "card": "AS"}


def test_easy_dealer_bids_two_when_forced_and_takes_a_bid_it_can_make():
    st = new([WEAK, FILL[0], FILL[1], FILL[2]], dealer=0)
    st = run(st, [(1, 0), (2, 0), (3, 0)])
    assert act(st, bots.easy) == {"type": "bid", "value": 2}  # pass is not allowed
    st = new([STRONG, FILL[0], FILL[1], FILL[2]], dealer=0)
    st = run(st, [(1, 2), (2, 0), (3, 0)])
    assert act(st, bots.easy) == {"type": "bid", "value": 2}  # takes the bid, no higher
    st = new([WEAK, FILL[0], FILL[1], FILL[2]], dealer=0)
    st = run(st, [(1, 2), (2, 0), (3, 0)])
    assert act(st, bots.easy) == {"type": "bid", "value": 0}


# A trick scenario (4 players, dealer 0, seat 1 pitches spades with 5S):
#   s1: 5S AD 2C 3C 7D 9D      s2: JS 8C 9C 4D 6D 3H
#   s3: 6S 7C QH 5D 8D 2H      s0: KS 3S 8H 4H 10H 5C
TRICK_HANDS = [
    ["KS", "3S", "8H", "4H", "10H", "5C"],
    ["5S", "AD", "2C", "3C", "7D", "9D"],
    ["JS", "8C", "9C", "4D", "6D", "3H"],
    ["6S", "7C", "QH", "5D", "8D", "2H"],
]


def test_easy_takes_a_jack_it_can_take():
    st = new(TRICK_HANDS, dealer=0)
    st = run(st, [(1, "5S"), (2, "JS"), (3, "6S")])  # s1 pitches: spades are trump
    assert card(act(st, bots.easy)) == "KS"  # last to play: KS takes the jack
    assert card(act(st, bots.hard)) == "KS"


def test_easy_plays_low_on_a_trick_it_cannot_win():
    hands = [list(h) for h in TRICK_HANDS]
    hands[1][0], hands[0][0] = "AS", "5S"  # s1 now leads the ace: nobody can beat it
    st = new(hands, dealer=0)
    st = run(st, [(1, "AS"), (2, "JS"), (3, "6S")])
    assert card(act(st, bots.easy)) == "3S"  # must trump: the cheaper one, not 5S
    st = new(hands, dealer=0)
    st = run(st, [(1, "AS"), (2, "JS"), (3, "6S"), (0, "3S")])
    # s1 leads a diamond; s2 (no trump left) cannot beat it and follows low
    st = run(st, [(1, "AD")])
    assert card(act(st, bots.easy)) == "4D"  # s2: cannot beat AD, keeps 6D
    st = run(st, [(2, "4D")])
    # s3 (no trump left) cannot beat AD either: its lowest diamond
    assert card(act(st, bots.easy)) == "5D"


def test_easy_throws_its_cheapest_card_when_void_and_beaten():
    hands = [
        ["2C", "3C", "10C", "AC", "4H", "5H"],
        ["AS", "KS", "QS", "JS", "10S", "9S"],
        ["6C", "7C", "8C", "9C", "6H", "7H"],
        ["2D", "3D", "4D", "5D", "6D", "7D"],
    ]
    st = new(hands, dealer=0)
    st = run(st, [(1, "AS"), (2, "6C"), (3, "2D")])
    # s0 holds no spade: anything goes; it cannot win: not the 10 or the ace (game points)
    assert card(act(st, bots.easy)) == "2C"


def test_easy_wins_a_ten_for_game_when_last():
    hands = [
        ["10D", "4D", "8C", "9C", "10C", "KH"],
        ["AS", "3D", "4C", "5C", "6C", "7C"],
        ["9D", "2H", "3H", "4H", "5H", "6H"],
        ["2D", "7H", "8H", "9H", "JH", "QH"],
    ]
    st = new(hands, dealer=0)
    # s1 pitches AS (spades trump; nobody else holds one) and wins; then it leads 3D.
    st = run(st, [(1, "AS"), (2, "2H"), (3, "7H"), (0, "8C"), (1, "3D"), (2, "9D"), (3, "2D")])
    assert card(act(st, bots.easy)) == "10D"  # last: the 10 wins the trick and its 10 for game


# --- the hard bot's parts -----------------------------------------------------------------------
@pytest.mark.parametrize("players,options", CONFIGS)
def test_determinizations_give_the_same_view_and_honour_what_the_plays_revealed(players, options):
    rng = random.Random(players)
    for k, (st, seat) in enumerate(positions(700 + players, players, 300, **options)):
        if k % 4:
            continue
        view = G.view(st, seat)
        voids = pitch.shown_out(view["public"]["tricks"], view["public"]["trick"], view["public"]["trump"], players)
        for s, suits in enumerate(voids):  # a void is read only from plays the rules forced
            assert not any(cards.suit_of(c) in suits for c in st["hands"][s])
        det = G.determinize(view, rng)
        assert G.view(det, seat) == view
        assert sorted(G.cards(det)) == sorted(cards.standard_deck())
        for s, suits in enumerate(voids):
            assert not any(cards.suit_of(c) in suits for c in det["hands"][s])
            assert det["hands"][s] == pitch.sort_cards(det["hands"][s])


def test_the_search_scores_a_playout_by_the_hand_it_started_in():
    """`hand_score` reads the summary of the view's hand: after the hand's last card (and the
    next deal) the seat's change minus the best rival's; 0 when cut off before the end."""
    compared = 0
    for players in (3, 5):
        for k, (st, seat) in enumerate(positions(900 + players, players, 200)):
            if k % 5:
                continue
            view = G.view(st, seat)
            sample = G.determinize(view, random.Random(k))
            for mv in view["legal_moves"][:3]:
                after, _ = G.step(sample, seat, mv)
                end = search.playout(G, after, bots.playout_policy, random.Random(k), bots.moves_left(view) - 1)
                last = end["last_hand"]
                assert last["hand"] == view["round"]  # the budget always finishes the hand
                rivals = max(d for s, d in enumerate(last["deltas"]) if s != seat)
                bonus = 0.0 if not G.is_over(end) else (bots.WIN_BONUS if seat in G.winners(end) else -bots.WIN_BONUS)
                assert bots.hand_score(end, seat, view["round"]) == last["deltas"][seat] - rivals + bonus
                compared += 1
    assert compared > 40
    st = G.new_game(players=4, options=G.validate_options({}), seed=3)
    assert bots.hand_score(st, 0, 1) == 0.0  # no hand scored yet


def test_the_playout_policy_is_easy_on_the_engine_view():
    for players, options in CONFIGS:
        for st, seat in positions(1100 + players, players, 250, **options):
            view = G.view(st, seat)
            assert pitch.fast_view(st, seat) == view
            assert bots.playout_policy(st, seat, random.Random(0)) == bots.easy(view, random.Random(0))
            if st["phase"] == "play":
                assert pitch.playable(st, st["hands"][seat]) == [m["card"] for m in view["legal_moves"]]


def test_hard_budget_is_bounded_and_shared_by_the_candidates():
    st = G.new_game(players=4, options=G.validate_options({}), seed=1)
    view = G.view(st, st["turn"])
    left = 24 + 4
    for k in (1, 2, 6, 10):
        per = bots.determinizations(view, k)
        assert bots.MIN_DETERMINIZATIONS <= per <= bots.MAX_DETERMINIZATIONS
        assert (
            per == bots.MIN_DETERMINIZATIONS or k * per * (left + bots.PLAYOUT_OVERHEAD) <= bots.MOVE_BUDGET
        )


# --- (d) strength -------------------------------------------------------------------------------
def test_easy_beats_random_seats():
    """Easy in one seat (each seat in turn) against three random seats, fixed seeds: a random
    policy would win about a quarter of the games and score like the others."""
    games, wins = 24, 0
    easy_points = random_points = hands = 0
    for g in range(games):
        me = g % 4
        st = G.new_game(players=4, options=G.validate_options({}), seed=2000 + g)
        rng = random.Random(g)
        while not G.is_finished(st):
            seat = st["turn"]
            view = G.view(st, seat)
            mv = bots.easy(view, rng) if seat == me else random_move(view, rng)
            st, events = G.apply(st, seat, mv)
            for e in events:
                if e["type"] == "hand_scored":
                    hands += 1
                    easy_points += e["deltas"][me]
                    random_points += sum(e["deltas"]) - e["deltas"][me]
        wins += st["winners"] == [me]
    assert wins >= games * 2 // 3, wins
    assert easy_points / hands > 0.5 > random_points / (3 * hands), (easy_points, random_points, hands)
