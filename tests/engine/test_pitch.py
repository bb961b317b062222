"""Scenario tests for Auction Pitch, one or more per rule of docs/rules/pitch.md (A-1 .. A-8),
built from fixed decks so every situation is exact."""

from __future__ import annotations

import copy
import json

import pytest

from games.engine import cards, fairness, pitch
from games.engine.base import GameConflict, IllegalMove, InvalidMove, NotYourTurn

G = pitch.GAME
SEED = 20240613


def deck_for(hands: list[list[str]], dealer: int) -> list[str]:
    """A full deck that deals `hands[s]` (six cards each, as two packets of three) to seat s
    when `dealer` deals (A-2.2); the rest of the deck follows in the standard order."""
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


def move(state: dict, seat: int, mv: dict) -> tuple[dict, list[dict]]:
    before = copy.deepcopy(state)
    new_state, events = G.apply(state, seat, mv)
    assert state == before, "apply mutated its input"
    assert json.loads(json.dumps(new_state)) == new_state
    return new_state, events


def bid(state: dict, seat: int, value: int) -> tuple[dict, list[dict]]:
    return move(state, seat, {"type": "bid", "value": value})


def play(state: dict, seat: int, card: str) -> tuple[dict, list[dict]]:
    return move(state, seat, {"type": "play", "card": card})


def play_all(state: dict, plays: list[tuple[int, str]]) -> tuple[dict, list[dict]]:
    events: list[dict] = []
    for seat, card in plays:
        assert G.to_act(state) == [seat], (seat, card)
        state, evs = play(state, seat, card)
        events.extend(evs)
    return state, events


def auction(state: dict, bids: list[tuple[int, int]]) -> dict:
    for seat, value in bids:
        state, _ = bid(state, seat, value)
    return state


def illegal(state: dict, seat: int, mv: dict, rule: str) -> None:
    with pytest.raises(IllegalMove) as exc:
        G.apply(state, seat, mv)
    assert exc.value.rule == rule


def bids_of(moves: list[dict]) -> list[int]:
    return [m["value"] for m in moves if m["type"] == "bid"]


def plays_of(moves: list[dict]) -> list[str]:
    return [m["card"] for m in moves if m["type"] == "play"]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


# Hand H1 (3 players, dealer 0, seat 1 bids 2 and makes it). Worked by hand:
#  T1 s1 AS, s2 10S, s0 2S  -> s1 (trump spades)        T4 s0 9C, s1 5C, s2 8C -> s0
#  T2 s1 3S, s2 JS,  s0 9H  -> s2                       T5 s0 3D, s1 10D, s2 7D -> s1
#  T3 s2 QH, s0 AH,  s1 KH  -> s0                       T6 s1 6D, s2 4C, s0 4H -> s1
# Game counts: s1 AS 4 + 10S 10 + 10D 10 = 24; s2 JS 1; s0 QH 2 + AH 4 + KH 3 = 9.
# High AS: s1. Low 2S: won by s1, dealt to s0. Jack JS: s2. Game: s1.
H1 = [
    ["2S", "9H", "AH", "9C", "3D", "4H"],
    ["AS", "3S", "KH", "10D", "5C", "6D"],
    ["JS", "10S", "QH", "4C", "7D", "8C"],
]
H1_BIDS = [(1, 2), (2, 0), (0, 0)]
H1_PLAYS = [
    (1, "AS"), (2, "10S"), (0, "2S"),
    (1, "3S"), (2, "JS"), (0, "9H"),
    (2, "QH"), (0, "AH"), (1, "KH"),
    (0, "9C"), (1, "5C"), (2, "8C"),
    (0, "3D"), (1, "10D"), (2, "7D"),
    (1, "6D"), (2, "4C"), (0, "4H"),
]  # fmt: skip

# Hand H2 (seat 1 bids 3 with hearts and is set back; Game tied). Worked by hand:
#  T1 s1 5H, s2 AH, s0 2H -> s2      T4 s1 QS, s2 8S, s0 QD -> s1
#  T2 s2 10D, s0 5D, s1 3D -> s2     T5 s1 7S, s2 9S, s0 2D -> s2
#  T3 s2 2C, s0 4C, s1 10C -> s1     T6 s2 7C, s0 3C, s1 6C -> s2
# Counts: s2 AH 4 + 10D 10 = 14; s1 10C 10 + QS 2 + QD 2 = 14; s0 0: tie, no Game point.
# High AH: s2. Low 2H: won by s2, dealt to s0. JH was not dealt: no Jack point.
H2 = [
    ["2H", "5D", "4C", "QD", "3C", "2D"],
    ["5H", "10C", "3D", "QS", "7S", "6C"],
    ["AH", "10D", "2C", "8S", "9S", "7C"],
]
H2_BIDS = [(1, 3), (2, 0), (0, 0)]
H2_PLAYS = [
    (1, "5H"), (2, "AH"), (0, "2H"),
    (2, "10D"), (0, "5D"), (1, "3D"),
    (2, "2C"), (0, "4C"), (1, "10C"),
    (1, "QS"), (2, "8S"), (0, "QD"),
    (1, "7S"), (2, "9S"), (0, "2D"),
    (2, "7C"), (0, "3C"), (1, "6C"),
]  # fmt: skip

# Hand H3 (7D is the only diamond dealt; seat 1 bids 2). Worked by hand:
#  T1 s1 7D, s2 9S, s0 2S -> s1      T4 s1 2H, s2 5H, s0 7H -> s0
#  T2 s1 AC, s2 2C, s0 4C -> s1      T5 s0 8H, s1 3H, s2 6H -> s0
#  T3 s1 KC, s2 3C, s0 5C -> s1      T6 s0 3S, s1 4H, s2 10S -> s2
# Counts: s1 AC 4 + KC 3 = 7; s2 10S 10; s0 0. High and Low 7D: s1 (2 points); Game s2.
H3 = [
    ["4C", "5C", "7H", "8H", "2S", "3S"],
    ["7D", "AC", "KC", "2H", "3H", "4H"],
    ["2C", "3C", "5H", "6H", "9S", "10S"],
]
H3_PLAYS = [
    (1, "7D"), (2, "9S"), (0, "2S"),
    (1, "AC"), (2, "2C"), (0, "4C"),
    (1, "KC"), (2, "3C"), (0, "5C"),
    (1, "2H"), (2, "5H"), (0, "7H"),
    (0, "8H"), (1, "3H"), (2, "6H"),
    (0, "3S"), (1, "4H"), (2, "10S"),
]  # fmt: skip

# Hand H4 (JD is the only diamond dealt). Worked by hand:
#  T1 s1 JD, s2 9S, s0 2S -> s1      T4 s0 7H, s1 2H, s2 5H -> s0
#  T2 s1 2C, s2 AC, s0 4C -> s2      T5 s0 8H, s1 3H, s2 6H -> s0
#  T3 s2 5C, s0 6C, s1 3C -> s0      T6 s0 3S, s1 4S, s2 10S -> s2
# Counts: s1 JD 1; s2 AC 4 + 10S 10 = 14; s0 0. High, Low and Jack JD: s1 (3 points); Game s2.
H4 = [
    ["4C", "6C", "7H", "8H", "2S", "3S"],
    ["JD", "2C", "3C", "2H", "3H", "4S"],
    ["AC", "5C", "5H", "6H", "9S", "10S"],
]
H4_PLAYS = [
    (1, "JD"), (2, "9S"), (0, "2S"),
    (1, "2C"), (2, "AC"), (0, "4C"),
    (2, "5C"), (0, "6C"), (1, "3C"),
    (0, "7H"), (1, "2H"), (2, "5H"),
    (0, "8H"), (1, "3H"), (2, "6H"),
    (0, "3S"), (1, "4S"), (2, "10S"),
]  # fmt: skip


def scored(events: list[dict]) -> dict:
    (event,) = of_type(events, "hand_scored")
    return event


# --- A-1 -----------------------------------------------------------------------------------------
def test_A_1_1_three_to_seven_players_and_options_catalogue():
    assert (G.min_players, G.max_players) == (3, 7)
    for n in (2, 8):
        with pytest.raises(InvalidMove):
            G.new_game(players=n, options=G.validate_options({}), seed=1)
    cat = G.catalogue()["options"]
    # any whole number from 1 to 100, default 7.
    assert cat["target_score"] == {
        "type": "int", "default": 7, "minimum": 1, "maximum": 100, "description": cat["target_score"]["description"]
    }
    assert cat["low_to"]["choices"] == ["winner", "dealt"] and cat["low_to"]["default"] == "winner"
    assert all(o["description"] for o in cat.values())
    for target in (1, 10, 13, 100):
        assert G.validate_options({"target_score": target})["target_score"] == target
    for bad in (0, 101, -7, 7.0, "7", True, None):
        with pytest.raises(InvalidMove) as exc:
            G.validate_options({"target_score": bad})
        assert "target_score" in exc.value.fields
    with pytest.raises(InvalidMove):
        G.validate_options({"low_to": "pitcher"})


def test_A_1_2_ace_high_two_low_within_suit():
    hands = [
        ["2C", "3D", "4D", "5D", "6D", "7D"],
        ["KC", "3H", "4H", "5H", "6H", "7H"],
        ["AC", "3S", "4S", "5S", "6S", "7S"],
    ]
    st = auction(new(hands), [(1, 1), (2, 0), (0, 0)])
    st, events = play_all(st, [(1, "KC"), (2, "AC"), (0, "2C")])
    assert of_type(events, "trick")[0]["winner"] == 2


def test_A_1_3_card_codes_and_hand_order():
    st = new(H1)
    # Hands sort by rank (ace high), then suit C D H S; 10 is the code `10D`.
    assert G.view(st, 1)["you"]["hand"] == ["3S", "5C", "6D", "10D", "KH", "AS"]
    st = auction(st, H1_BIDS)
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "play", "card": "1S"})
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "play", "card": "TS"})


# --- A-2 -----------------------------------------------------------------------------------------
def test_A_2_2_six_cards_three_at_a_time_from_dealers_left():
    deck = cards.standard_deck()
    st = G.new_game(players=4, options=G.validate_options({}), seed=SEED, deck=deck, first_dealer=2)
    # Seat 3 (the dealer's left) gets cards 0-2 and 12-14; the dealer (seat 2) 9-11 and 21-23.
    order = [3, 0, 1, 2]
    for k, seat in enumerate(order):
        expected = deck[3 * k : 3 * k + 3] + deck[12 + 3 * k : 15 + 3 * k]
        assert sorted(st["hands"][seat]) == sorted(expected)
    assert st["undealt"] == deck[24:]
    assert G.to_act(st) == [3]


def test_A_2_2_undealt_cards_never_shown_even_after_the_hand():
    st = new(H1, target_score=21)
    undealt = set(st["undealt"])
    assert len(undealt) == 52 - 18
    views = [G.view(st, s) for s in (0, 1, 2, None)]
    all_events: list[dict] = []
    for seat, value in H1_BIDS:
        st, evs = bid(st, seat, value)
        all_events += evs
        views += [G.view(st, s) for s in (0, 1, 2, None)]
    for seat, card in H1_PLAYS:
        st, evs = play(st, seat, card)
        all_events += evs
        views += [G.view(st, s) for s in (0, 1, 2, None)]
    # The next hand was dealt from a new shuffle; the old undealt cards may now sit in hands.
    assert st["hand_no"] == 1
    # Views before the redeal, and every public event of the old hand, hold none of them.
    blob_public = json.dumps([G.view_event(e, None) for e in all_events if e["type"] != "hand"])
    for card in undealt:
        assert f'"{card}"' not in blob_public
    last = G.view(st, None)["public"]["last_hand"]
    assert not undealt & {p["card"] for t in last["tricks"] for p in t["cards"]}
    for v in views[:-4]:
        blob = json.dumps(v)
        for card in undealt:
            assert f'"{card}"' not in blob
    for v in views[-4:]:
        blob = json.dumps({k: x for k, x in v.items() if k not in ("you", "legal_moves")})
        for card in undealt:
            assert f'"{card}"' not in blob


def test_A_2_1_first_dealer_from_seed_and_deal_passes_left():
    st = G.new_game(players=5, options=G.validate_options({}), seed=99)
    assert st["dealer"] == fairness.draw_dealer(fairness.deal_secret(99, 0), 5)
    assert st["hands"] == [
        pitch.sort_cards(h) for h in pitch_deal(fairness.shuffle(cards.standard_deck(), fairness.deal_secret(99, 0)), st["dealer"], 5)
    ]
    st = new(H1, target_score=21)
    st = auction(st, H1_BIDS)
    st, events = play_all(st, H1_PLAYS)
    assert st["dealer"] == 1 and st["hand_no"] == 1 and G.view(st, None)["round"] == 2
    # for later deals: deal number 1 shuffled from the seed, dealt from the new dealer's left.
    expected = pitch_deal(fairness.shuffle(cards.standard_deck(), fairness.deal_secret(SEED, 1)), 1, 3)
    assert st["hands"] == [pitch.sort_cards(h) for h in expected]
    assert G.to_act(st) == [2]
    (deal,) = of_type(events, "deal")
    committed = fairness.commitment(fairness.deal_secret(SEED, 1))
    assert deal == {"type": "deal", "hand": 2, "dealer": 1, "deal": 1, "deal_commitment": committed}
    hands = of_type(events, "hand")
    assert [(e["secret_to"], e["secret"]["cards"]) for e in hands] == [
        ([s], st["hands"][s]) for s in range(3)
    ]
    assert all("cards" not in G.view_event(e, (e["seat"] + 1) % 3) for e in hands)


def pitch_deal(deck: list[str], dealer: int, n: int) -> list[list[str]]:
    hands: list[list[str]] = [[] for _ in range(n)]
    for packet in range(2):
        for i in range(1, n + 1):
            start = (packet * n + i - 1) * 3
            hands[(dealer + i) % n] += deck[start : start + 3]
    return hands


# --- A-3 -----------------------------------------------------------------------------------------
def test_A_3_1_one_round_from_dealers_left_bids_must_rise():
    st = new(H1)
    assert G.to_act(st) == [1]
    with pytest.raises(NotYourTurn):
        G.apply(st, 0, {"type": "bid", "value": 1})
    assert bids_of(G.legal_moves(st, 1)) == [0, 1, 2, 3, 4]
    st, events = bid(st, 1, 2)
    assert events == [{"type": "bid", "seat": 1, "value": 2, "kind": "bid"}]
    assert G.to_act(st) == [2]
    assert bids_of(G.legal_moves(st, 2)) == [0, 3, 4]
    illegal(st, 2, {"type": "bid", "value": 1}, "A-3.1")
    # A bid equal to the current high is only the dealer's.
    illegal(st, 2, {"type": "bid", "value": 2}, "A-3.1")
    st, _ = bid(st, 2, 3)
    # One chance each: seat 1 cannot speak again.
    with pytest.raises(NotYourTurn):
        G.apply(st, 1, {"type": "bid", "value": 4})
    assert G.to_act(st) == [0]
    st, events = bid(st, 0, 0)
    assert st["pitcher"] == 2 and st["contract"] == 3 and st["phase"] == "play"
    assert of_type(events, "contract") == [{"type": "contract", "pitcher": 2, "contract": 3}]
    assert [b["value"] for b in G.view(st, None)["public"]["bids"]] == [2, 3, 0]
    # The auction is over: no more bids.
    illegal(st, 2, {"type": "bid", "value": 4}, "A-3.1")


def test_A_3_2_bid_of_four_ends_auction_and_bidder_leads():
    st = new(H1)
    st, _ = bid(st, 1, 1)
    st, events = bid(st, 2, 4)
    assert st["phase"] == "play" and st["pitcher"] == 2 and st["contract"] == 4
    assert G.to_act(st) == [2] and st["trump"] is None and st["trick"] == []
    view = G.view(st, None)
    assert view["seats"][0]["bid"] is None  # the dealer never spoke
    # The bidder leads normally: any card, and it sets trump.
    assert plays_of(G.legal_moves(st, 2)) == st["hands"][2]
    st, events = play(st, 2, "QH")
    assert st["trump"] == "H"


def test_A_3_2_pitching_a_four():
    st = new(H1)
    # Every card of the hand can be pitched in the auction.
    assert plays_of(G.legal_moves(st, 1)) == st["hands"][1]
    st, _ = bid(st, 1, 3)
    assert plays_of(G.legal_moves(st, 2)) == st["hands"][2]
    st, events = play(st, 2, "10S")
    assert [e["type"] for e in events] == ["bid", "contract", "play", "trump"]
    assert events[0] == {"type": "bid", "seat": 2, "value": 4, "kind": "pitch"}
    assert st["pitcher"] == 2 and st["contract"] == 4 and st["trump"] == "S"
    assert st["trick"] == [{"seat": 2, "card": "10S"}]
    assert G.to_act(st) == [0] and st["phase"] == "play"
    assert G.view(st, None)["seats"][2]["bid"] == 4
    assert G.view(st, None)["public"]["bids"][-1] == {"seat": 2, "value": 4, "kind": "pitch"}
    # already applies to the pitched lead: seat 0 holds 2S.
    illegal(st, 0, {"type": "play", "card": "9H"}, "A-4.2")


def test_A_3_2_pitch_then_set_back_single_jack_hand():
    """Pitching JD with hand H4: 3 points (A-5.5) do not make a bid of 4: set back 4."""
    st = new(H4)
    st, _ = play(st, 1, "JD")
    st, events = play_all(st, H4_PLAYS[1:])
    ev = scored(events)
    assert ev["contract"] == 4 and ev["points"] == [0, 3, 1]
    assert ev["set_back"] and ev["deltas"] == [0, -4, 1]
    assert st["scores"] == [0, -4, 1]


def test_A_3_3_dealer_forced_to_bid_two_when_all_passed():
    st = auction(new(H1), [(1, 0), (2, 0)])
    moves = G.legal_moves(st, 0)
    assert bids_of(moves) == [2, 3, 4]
    assert plays_of(moves) == st["hands"][0]
    illegal(st, 0, {"type": "bid", "value": 0}, "A-3.3")
    illegal(st, 0, {"type": "bid", "value": 1}, "A-3.3")
    st, events = bid(st, 0, 2)
    assert st["pitcher"] == 0 and st["contract"] == 2 and G.to_act(st) == [0]
    assert events[0]["kind"] == "bid"


def test_A_3_3_dealer_may_take_the_bid():
    st = auction(new(H1), [(1, 2), (2, 0)])
    assert bids_of(G.legal_moves(st, 0)) == [0, 2, 3, 4]
    illegal(st, 0, {"type": "bid", "value": 1}, "A-3.1")
    st2, events = bid(st, 0, 2)
    assert events[0] == {"type": "bid", "seat": 0, "value": 2, "kind": "take"}
    assert st2["pitcher"] == 0 and st2["contract"] == 2 and G.to_act(st2) == [0]
    # ... or bid higher ...
    st3, _ = bid(st, 0, 3)
    assert st3["pitcher"] == 0 and st3["contract"] == 3
    # ... or pass, leaving the bid with seat 1.
    st4, _ = bid(st, 0, 0)
    assert st4["pitcher"] == 1 and st4["contract"] == 2 and G.to_act(st4) == [1]


def test_A_3_3_dealer_after_a_bid_of_three_and_pitch_by_dealer():
    st = auction(new(H1), [(1, 0), (2, 3)])
    assert bids_of(G.legal_moves(st, 0)) == [0, 3, 4]
    st, _ = play(st, 0, "AH")
    assert st["pitcher"] == 0 and st["contract"] == 4 and st["trump"] == "H"
    assert G.to_act(st) == [1]


def test_A_3_4_highest_bidder_is_pitcher_with_contract():
    st = auction(new(H1), [(1, 1), (2, 2), (0, 0)])
    view = G.view(st, None)
    assert view["public"]["pitcher"] == 2 and view["public"]["contract"] == 2
    assert [s["bid"] for s in view["seats"]] == [0, 1, 2]


def test_A_3_5_timeout_in_the_auction():
    st = new(H1)
    assert G.timeout_move(st, 1) == {"type": "bid", "value": 0}
    st = auction(st, [(1, 0), (2, 0)])
    assert G.timeout_move(st, 0) == {"type": "bid", "value": 2}
    st2 = auction(new(H1), [(1, 1), (2, 0)])
    assert G.timeout_move(st2, 0) == {"type": "bid", "value": 0}


# --- A-4 -----------------------------------------------------------------------------------------
def test_A_4_1_pitcher_leads_and_first_card_sets_trump():
    st = auction(new(H1), H1_BIDS)
    assert G.to_act(st) == [1] and st["trump"] is None
    with pytest.raises(NotYourTurn):
        G.apply(st, 2, {"type": "play", "card": "JS"})
    st, events = play(st, 1, "KH")
    assert st["trump"] == "H" and of_type(events, "trump") == [{"type": "trump", "suit": "H"}]
    assert G.view(st, 0)["public"]["trump"] == "H"


def test_A_4_2_must_trump_on_a_trump_lead():
    st = auction(new(H1), H1_BIDS)
    st, _ = play(st, 1, "AS")
    assert plays_of(G.legal_moves(st, 2)) == ["10S", "JS"]
    illegal(st, 2, {"type": "play", "card": "QH"}, "A-4.2")
    st, _ = play(st, 2, "JS")
    assert plays_of(G.legal_moves(st, 0)) == ["2S"]
    illegal(st, 0, {"type": "play", "card": "AH"}, "A-4.2")
    st, _ = play(st, 0, "2S")
    # Without a trump, anything goes on a trump lead: seat 0 has none left.
    st, _ = play(st, 1, "3S")
    st, _ = play(st, 2, "10S")
    assert plays_of(G.legal_moves(st, 0)) == st["hands"][0]


def test_A_4_3_follow_or_trump_on_another_lead():
    hands = [
        ["2S", "9H", "AH", "9C", "3D", "4H"],
        ["AS", "3S", "KH", "10D", "5C", "6D"],
        ["JS", "10S", "QH", "4C", "7D", "8C"],
    ]
    st = auction(new(hands), H1_BIDS)
    st, _ = play_all(st, [(1, "AS"), (2, "10S"), (0, "2S")])
    st, _ = play(st, 1, "5C")
    # Seat 2 holds clubs: clubs or a trump, not a heart or a diamond.
    assert plays_of(G.legal_moves(st, 2)) == ["4C", "8C", "JS"]
    illegal(st, 2, {"type": "play", "card": "QH"}, "A-4.3")
    illegal(st, 2, {"type": "play", "card": "7D"}, "A-4.3")
    st, _ = play(st, 2, "JS")  # trumping while able to follow
    st, _ = play(st, 0, "9C")
    assert st["tricks"][-1]["winner"] == 2
    # Hearts led; seat 0 has hearts and no trump left: hearts only.
    st, _ = play(st, 2, "QH")
    assert plays_of(G.legal_moves(st, 0)) == ["4H", "9H", "AH"]
    illegal(st, 0, {"type": "play", "card": "3D"}, "A-4.3")
    st, _ = play(st, 0, "4H")
    # Seat 1 holds KH and a trump: either.
    assert plays_of(G.legal_moves(st, 1)) == ["3S", "KH"]
    st, _ = play(st, 1, "KH")
    st, _ = play_all(st, [(1, "10D"), (2, "7D"), (0, "3D"), (1, "6D")])
    # Seat 2 has no diamond: any card.
    assert plays_of(G.legal_moves(st, 2)) == ["4C", "8C"]


def test_A_4_4_trick_winner_and_next_leader():
    st = auction(new(H1), H1_BIDS)
    st, events = play_all(st, H1_PLAYS[:9])
    winners = [e["winner"] for e in of_type(events, "trick")]
    # T1 highest trump AS; T2 JS beats 3S; T3 no trump: AH highest heart over KH.
    assert winners == [1, 2, 0]
    assert G.to_act(st) == [0]
    view = G.view(st, None)
    assert view["public"]["tricks_won"] == [1, 1, 1]
    assert [s["tricks_won"] for s in view["seats"]] == [1, 1, 1]
    assert view["public"]["tricks"][0] == {
        "cards": [{"seat": 1, "card": "AS"}, {"seat": 2, "card": "10S"}, {"seat": 0, "card": "2S"}],
        "winner": 1,
    }
    # T5: 10D beats 3D and 7D (led suit, no trump); an off-suit card never wins.
    st, events = play_all(st, H1_PLAYS[9:15])
    assert [e["winner"] for e in of_type(events, "trick")] == [0, 1]


def test_A_4_4_low_trump_beats_the_ace_of_the_suit_led():
    hands = [
        ["AD", "AC", "4C", "5C", "6C", "7C"],
        ["2H", "KD", "4H", "5H", "6H", "7H"],
        ["QD", "3S", "4S", "5S", "6S", "7S"],
    ]
    st = auction(new(hands), [(1, 1), (2, 0), (0, 0)])
    st, _ = play_all(st, [(1, "2H"), (2, "3S"), (0, "4C")])
    st, events = play_all(st, [(1, "KD"), (2, "QD"), (0, "AD")])
    assert of_type(events, "trick")[0]["winner"] == 0
    st, _ = play(st, 0, "AC")
    st, _ = play(st, 1, "4H")
    st, events = play(st, 2, "4S")
    assert of_type(events, "trick")[0]["winner"] == 1


def test_A_4_5_timeout_plays_lowest_legal_card():
    st = auction(new(H1), H1_BIDS)
    assert G.timeout_move(st, 1) == {"type": "play", "card": "3S"}
    st, _ = play(st, 1, "AS")
    # Lowest legal: 10S (a trump is required), not 4C.
    assert G.timeout_move(st, 2) == {"type": "play", "card": "10S"}
    # Equal ranks break C, D, H, S.
    hands = [
        ["4S", "4H", "9C", "10C", "JC", "QC"],
        ["2C", "4D", "5D", "6D", "7D", "8D"],
        ["3C", "5H", "6H", "7H", "8H", "9H"],
    ]
    st = auction(new(hands), [(1, 1), (2, 0), (0, 0)])
    st, _ = play(st, 1, "4D")
    st, _ = play(st, 2, "5H")
    assert G.timeout_move(st, 0) == {"type": "play", "card": "4H"}
    assert G.timeout_move(st, 0) in G.legal_moves(st, 0)


# --- the hands worked out by hand ----------------------------------------------------------
def test_A_5_full_hand_high_low_jack_game_low_to_winner():
    """A-5.1 .. A-5.4, A-6.2: hand H1 worked by hand (see above); seat 2 scores its Jack."""
    st = auction(new(H1), H1_BIDS)
    st, events = play_all(st, H1_PLAYS)
    ev = scored(events)
    assert ev["trump"] == "S"
    assert ev["high"] == {"seat": 1, "card": "AS"}
    assert ev["low"] == {"seat": 1, "card": "2S"}
    assert ev["jack"] == {"seat": 2, "card": "JS"}
    assert ev["game"] == {"seat": 1, "counts": [9, 24, 1]}
    assert ev["points"] == [0, 3, 1] and ev["made"] and not ev["set_back"]
    assert st["scores"] == [0, 3, 1]
    last = G.view(st, 2)["public"]["last_hand"]
    assert last["points"] == [0, 3, 1] and len(last["tricks"]) == 6
    assert G.view(st, 2)["scores"] == [0, 3, 1]


def test_A_5_2_low_to_dealt():
    st = auction(new(H1, low_to="dealt"), H1_BIDS)
    st, events = play_all(st, H1_PLAYS)
    ev = scored(events)
    # 2S was dealt to seat 0 but won by seat 1.
    assert ev["low"] == {"seat": 0, "card": "2S"}
    assert ev["points"] == [1, 2, 1] and ev["made"]
    assert st["scores"] == [1, 2, 1]


def test_A_5_3_A_5_4_A_6_1_set_back_game_tie_and_no_jack():
    st = auction(new(H2), H2_BIDS)
    st, events = play_all(st, H2_PLAYS)
    ev = scored(events)
    assert ev["high"] == {"seat": 2, "card": "AH"} and ev["low"] == {"seat": 2, "card": "2H"}
    assert ev["jack"] is None  # JH was not dealt
    assert ev["game"] == {"seat": None, "counts": [0, 14, 14]}
    assert ev["points"] == [0, 0, 2]
    assert ev["set_back"] and not ev["made"] and ev["deltas"] == [0, -3, 2]
    assert st["scores"] == [0, -3, 2]


def test_A_6_1_set_back_pitcher_loses_only_the_bid_and_scores_go_negative():
    st = auction(new(H2, low_to="dealt"), H2_BIDS)
    st["scores"] = [0, 1, 0]
    st, events = play_all(st, H2_PLAYS)
    ev = scored(events)
    assert ev["low"] == {"seat": 0, "card": "2H"}
    assert ev["deltas"] == [1, -3, 1]
    assert st["scores"] == [1, -2, 1]


def test_A_6_1_pitcher_who_makes_the_bid_scores_every_point_won():
    st = auction(new(H1), [(1, 3), (2, 0), (0, 0)])
    st, events = play_all(st, H1_PLAYS)
    ev = scored(events)
    assert ev["made"] and ev["deltas"] == [0, 3, 1]


def test_A_5_5_single_trump_is_high_and_low():
    st = auction(new(H3), [(1, 2), (2, 0), (0, 0)])
    st, events = play_all(st, H3_PLAYS)
    ev = scored(events)
    assert ev["high"] == {"seat": 1, "card": "7D"} and ev["low"] == {"seat": 1, "card": "7D"}
    assert ev["jack"] is None
    assert ev["game"] == {"seat": 2, "counts": [0, 7, 10]}
    assert ev["points"] == [0, 2, 1] and ev["made"]
    assert st["scores"] == [0, 2, 1]


def test_A_5_5_single_trump_jack_scores_three():
    st = auction(new(H4), [(1, 2), (2, 0), (0, 0)])
    st, events = play_all(st, H4_PLAYS)
    ev = scored(events)
    assert ev["high"]["card"] == ev["low"]["card"] == ev["jack"]["card"] == "JD"
    assert ev["high"]["seat"] == ev["low"]["seat"] == ev["jack"]["seat"] == 1
    assert ev["game"] == {"seat": 2, "counts": [0, 1, 14]}
    assert ev["points"] == [0, 3, 1] and ev["made"]
    assert st["scores"] == [0, 3, 1]


# --- A-7 -----------------------------------------------------------------------------------------
def test_A_7_1_target_score_and_automatic_next_hand():
    st = auction(new(H1, target_score=11), H1_BIDS)
    st["scores"] = [0, 7, 0]
    st, events = play_all(st, H1_PLAYS)
    # 10 < 11: the next hand is dealt automatically.
    assert st["status"] == "active" and st["scores"] == [0, 10, 1]
    assert [e["type"] for e in events[-5:]] == ["hand_scored", "deal", "hand", "hand", "hand"]
    assert not G.is_finished(st)
    st = auction(new(H1, target_score=11), H1_BIDS)
    st["scores"] = [0, 8, 0]
    st, events = play_all(st, H1_PLAYS)
    assert st["status"] == "finished" and st["winners"] == [1]
    assert events[-1] == {"type": "game_over", "winners": [1], "scores": [0, 11, 1]}


def test_A_7_1_any_whole_target_from_1_to_100():
    # H1: the pitcher, seat 1, makes its bid of 2 with High, Low and Game (3 points).
    st, events = play_all(auction(new(H1, target_score=3), H1_BIDS), H1_PLAYS)
    assert st["winners"] == [1] and events[-1]["scores"] == [0, 3, 1]
    st, _ = play_all(auction(new(H1, target_score=4), H1_BIDS), H1_PLAYS)
    assert st["status"] == "active" and G.view(st, None)["public"]["target_score"] == 4
    st = auction(new(H1, target_score=100), H1_BIDS)
    st["scores"] = [0, 97, 0]
    st, _ = play_all(st, H1_PLAYS)
    assert st["winners"] == [1] and st["scores"] == [0, 100, 1]


def test_A_7_2_pitcher_counts_first():
    # H1: seat 2 reaches 7 with the Jack (counted before Game) but the pitcher reaches 7 too.
    st = auction(new(H1), H1_BIDS)
    st["scores"] = [0, 4, 6]
    st, events = play_all(st, H1_PLAYS)
    assert st["scores"] == [0, 7, 7]
    assert st["winners"] == [1] and G.is_finished(st)
    # The same with low_to=dealt: seat 2 reaches 7 with the Jack before Game is counted.
    st = auction(new(H1, low_to="dealt"), H1_BIDS)
    st["scores"] = [5, 5, 6]
    st, _ = play_all(st, H1_PLAYS)
    assert st["scores"] == [6, 7, 7] and st["winners"] == [1]
    view = G.view(st, 0)
    assert view["public"]["winners"] == [1] and view["phase"] == "finished"
    assert view["turn"] is None and view["legal_moves"] == [] and G.to_act(st) == []


def test_A_7_2_pitcher_set_back_cannot_win():
    st = auction(new(H2), H2_BIDS)
    st["scores"] = [0, 6, 5]
    st, _ = play_all(st, H2_PLAYS)
    assert st["scores"] == [0, 3, 7] and st["winners"] == [2]
    # H1 bid 4: seat 1 wins High first (which would take it to 7) but is set back; the Jack wins.
    st = auction(new(H1), [(1, 4)])
    st["scores"] = [0, 6, 6]
    st, _ = play_all(st, H1_PLAYS)
    assert st["scores"] == [0, 2, 7] and st["winners"] == [2]


def test_A_7_3_points_counted_high_low_jack_game():
    # H1 with low_to=dealt: seat 0 gets Low, seat 2 the Jack; both reach 7; Low counts first.
    st = auction(new(H1, low_to="dealt"), H1_BIDS)
    st["scores"] = [6, 0, 6]
    st, _ = play_all(st, H1_PLAYS)
    assert st["scores"] == [7, 2, 7] and st["winners"] == [0]
    # H2 with low_to=dealt: seat 2 gets High before seat 0 gets Low.
    st = auction(new(H2, low_to="dealt"), H2_BIDS)
    st["scores"] = [6, 0, 6]
    st, _ = play_all(st, H2_PLAYS)
    assert st["scores"] == [7, -3, 7] and st["winners"] == [2]
    # H3: seat 2 reaches 7 through Game while the pitcher, who made the bid, stays short.
    st = auction(new(H3), [(1, 2), (2, 0), (0, 0)])
    st["scores"] = [0, 0, 6]
    st, _ = play_all(st, H3_PLAYS)
    assert st["winners"] == [2]


def test_A_7_finished_game_rejects_moves():
    st = auction(new(H1), H1_BIDS)
    st["scores"] = [0, 6, 0]
    st, _ = play_all(st, H1_PLAYS)
    assert G.is_finished(st)
    with pytest.raises(GameConflict):
        G.apply(st, 0, {"type": "bid", "value": 0})
    with pytest.raises(GameConflict):
        G.apply(st, 1, {"type": "pass"})
    assert all(G.legal_moves(st, s) == [] for s in range(3))


# --- A-8 and the move form ---------------------------------------------------------------------------
def test_A_8_view_layout_and_hidden_hands():
    st = auction(new(H1), H1_BIDS)
    st, _ = play_all(st, H1_PLAYS[:4])
    for seat in (0, 1, 2, None):
        view = G.view(st, seat)
        assert set(view) == {
            "phase",
            "turn",
            "dealer",
            "round",
            "you",
            "seats",
            "public",
            "scores",
            "legal_moves",
        }
        assert view["phase"] == "play" and view["turn"] == 2 and view["dealer"] == 0 and view["round"] == 1
        assert view["public"]["trick"] == [{"seat": 1, "card": "3S"}]
        assert view["public"]["hand"] == 1 and view["public"]["trump"] == "S"
        assert view["public"]["pitcher"] == 1 and view["public"]["contract"] == 2
        assert [s["card_count"] for s in view["seats"]] == [5, 4, 5]
        assert SEED not in json.loads(json.dumps(view)).values()
        assert str(SEED) not in json.dumps(view)
        blob = json.dumps({k: v for k, v in view.items() if k not in ("you", "legal_moves")})
        for s in range(3):
            for card in st["hands"][s]:
                assert f'"{card}"' not in blob
        if seat is None:
            assert view["you"] is None and view["legal_moves"] == []
        else:
            assert view["you"] == {"seat": seat, "hand": st["hands"][seat]}
            others = {c for s in range(3) if s != seat for c in st["hands"][s]}
            assert not others & set(json.dumps(view).replace('"', " ").split())
    assert G.view(st, 2)["legal_moves"] == [{"type": "play", "card": "JS"}]


def test_move_form_errors():
    st = new(H1)
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "pass"})
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "bid"})
    with pytest.raises(InvalidMove) as exc:
        G.apply(st, 1, {"type": "bid", "value": 1, "cards": []})
    assert "cards" in exc.value.fields
    for value in (5, -1, True, "2", None, 2.0):
        with pytest.raises(InvalidMove):
            G.apply(st, 1, {"type": "bid", "value": value})
    with pytest.raises(InvalidMove):
        G.apply(st, 1, {"type": "play", "card": "ZZ"})
    with pytest.raises(InvalidMove) as exc:
        G.apply(st, 1, {"type": "play", "card": "JS"})  # seat 2's card
    assert "JS" not in exc.value.message
    with pytest.raises(InvalidMove):
        G.apply(st, 1, ["bid", 1])
    # Order of checks: not your turn before malformed, except that a type Pitch does not have
    # (`pass`) is malformed for every seat (api.md: 400 `invalid`).
    with pytest.raises(NotYourTurn):
        G.apply(st, 2, {"type": "bid", "value": 9})
    with pytest.raises(InvalidMove):
        G.apply(st, 2, {"type": "pass"})
    with pytest.raises(NotYourTurn):
        G.apply(st, 7, {"type": "bid", "value": 0})


def test_fixed_deck_and_first_dealer_are_validated():
    with pytest.raises(InvalidMove):
        G.new_game(players=3, options=G.validate_options({}), seed=1, deck=cards.standard_deck()[:-1])
    with pytest.raises(InvalidMove):
        G.new_game(players=3, options=G.validate_options({}), seed=1, first_dealer=3)
