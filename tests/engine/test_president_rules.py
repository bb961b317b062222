"""Scenario tests for President, one or more per rule of docs/rules/president.md (P-1 .. P-8).

Positions come from fixed decks (`fixed_deck` deals the named cards to the named seats). Late-hand
positions (a player about to go out) are reached with `with_hands`, which stands for the tricks
already played by giving the seats the cards they have left.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from games.engine import cards, fairness
from games.engine.base import GameConflict, IllegalMove, InvalidMove, NotYourTurn
from games.engine.president import GAME, card_key

G = GAME
SEED = 987_654_321_012


# --- helpers shared with the other President test files -------------------------------------
def options(**kw):
    return G.validate_options(kw)


def fixed_deck(n, dealer, hands, jokers=False):
    """A deck whose deal (one card at a time from the dealer's left, P-2.2) gives each seat in
    `hands` the listed cards first; every seat is then filled up from the remaining cards in
    ascending order."""
    full = cards.standard_deck(jokers=jokers)
    order = [(dealer + 1 + i) % n for i in range(len(full))]
    sizes = Counter(order)
    used = [c for h in hands.values() for c in h]
    assert len(set(used)) == len(used)
    rest = sorted((c for c in full if c not in used), key=card_key)
    dealt = {s: list(hands.get(s, [])) for s in range(n)}
    for s in range(n):
        need = sizes[s] - len(dealt[s])
        assert need >= 0
        dealt[s] += rest[:need]
        rest = rest[need:]
    return [dealt[s].pop(0) for s in order]


def start(n=4, dealer=0, deal=None, seed=SEED, **opts):
    o = options(**opts)
    deck = fixed_deck(n, dealer, deal or {}, jokers=o["jokers"])
    return G.new_game(players=n, options=o, seed=seed, deck=deck, first_dealer=dealer)


def with_hands(state, hands):
    st = json.loads(json.dumps(state))
    for s, h in hands.items():
        st["hands"][s] = sorted(h, key=card_key)
    return st


def play(state, seat, *played):
    return G.apply(state, seat, {"type": "play", "cards": list(played)})


def pass_(state, seat):
    return G.apply(state, seat, {"type": "pass"})


def illegal(state, seat, move, rule):
    with pytest.raises(IllegalMove) as exc:
        G.apply(state, seat, move)
    assert exc.value.rule == rule
    return exc.value


def run_timeouts(state, until):
    """Apply timeout moves until `until(state)` holds; returns the state and all events."""
    events = []
    for _ in range(5000):
        if until(state):
            return state, events
        seat = G.to_act(state)[0]
        state, ev = G.apply(state, seat, G.timeout_move(state, seat))
        events += ev
    raise AssertionError("did not get there")


def next_hand(state):
    hand = state["hand_no"]
    return run_timeouts(state, lambda s: s["hand_no"] > hand or s["status"] == "finished")


def types(events):
    return [e["type"] for e in events]


CARD_TOKEN = re.compile(r'"((?:10|[2-9JQKA])[CDHS]|RJ|BJ)"')


def card_strings(obj):
    """Every card code among the strings (keys included) of a JSON-like object."""
    return set(CARD_TOKEN.findall(json.dumps(obj)))


# --- catalogue and options ---------------------------------------------------------------------
def test_catalogue_lists_every_option_with_description_and_default():
    cat = G.catalogue()
    assert (cat["slug"], cat["min_players"], cat["max_players"]) == ("president", 4, 7)
    opts = cat["options"]
    assert opts["target_score"]["default"] == 11 and opts["target_score"]["minimum"] == 1
    assert opts["hands"]["default"] is None and opts["hands"]["nullable"] and opts["hands"]["minimum"] == 1
    assert opts["seating"]["choices"] == ["fixed", "by_rank"] and opts["seating"]["default"] == "fixed"
    assert opts["exchange"]["choices"] == ["none", "one", "two"] and opts["exchange"]["default"] == "one"
    for v in (
        "larger_sets_beat_lower",
        "larger_sets_beat_any",
        "equal_rank_beats",
        "revolution",
        "jokers",
        "twos_high_and_low",
        "clear_threes",
    ):
        assert opts[v]["type"] == "bool" and opts[v]["default"] is False
    assert all(o["description"] for o in opts.values())


@pytest.mark.parametrize(
    "bad",
    [
        {"hands": 0},
        {"target_score": 0},
        {"seating": "random"},
        {"exchange": "three"},
        {"jokers": 1},
        {"x": 1},
    ],
)
def test_bad_options_are_invalid(bad):
    with pytest.raises(InvalidMove):
        G.validate_options(bad)


# --- P-1 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 8])
def test_P_1_1_four_to_seven_players(n):
    with pytest.raises(InvalidMove):
        G.new_game(players=n, options=options(), seed=SEED)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_P_1_1_one_52_card_deck_dealt_out(n):
    state = G.new_game(players=n, options=options(), seed=SEED)
    dealt = [c for h in state["hands"] for c in h]
    assert sorted(dealt) == sorted(cards.standard_deck())


def test_P_1_2_two_is_highest_ace_second():
    state = start(deal={1: ["AS"], 2: ["2C", "KD"], 3: ["3H", "4H"]})
    after, _ = play(state, 1, "AS")
    illegal(after, 2, {"type": "play", "cards": ["KD"]}, "P-4.3")
    after, _ = play(after, 2, "2C")
    assert after["trick"]["standing"]["cards"] == ["2C"]
    # 3 is the lowest rank: a 4 beats it.
    state = start(deal={1: ["3S"], 2: ["4C"]})
    after, _ = play(state, 1, "3S")
    play(after, 2, "4C")


@pytest.mark.parametrize("code", ["1H", "TH", "RJ", "10X", 7])
def test_P_1_3_unknown_card_codes_are_invalid(code):
    state = start()
    with pytest.raises(InvalidMove):
        G.apply(state, 1, {"type": "play", "cards": [code]})


def test_P_1_3_ten_is_written_10():
    state = start(deal={1: ["10H"]})
    after, events = play(state, 1, "10H")
    assert events[0] == {"type": "play", "seat": 1, "cards": ["10H"], "rank": "10"}


# --- P-2 ---------------------------------------------------------------------------------------
def test_P_2_1_first_dealer_from_seed_or_fixed():
    for seed in (SEED, SEED + 1, SEED + 2):
        state = G.new_game(players=5, options=options(), seed=seed)
        assert state["dealer"] == fairness.draw_dealer(fairness.deal_secret(seed, 0), 5)
    assert G.new_game(players=5, options=options(), seed=SEED, first_dealer=3)["dealer"] == 3


def test_P_2_1_president_deals_the_next_hand():
    state = start(n=5, dealer=2, exchange="none")
    # Timeout play: each leader plays out alone, so the dealer's left (seat 3) finishes first.
    state, events = next_hand(state)
    end = next(e for e in events if e["type"] == "hand_end")
    assert end["roles"][3] == "president"
    assert state["dealer"] == 3
    assert G.view(state, 0)["dealer"] == 3


@pytest.mark.parametrize(
    "n,sizes", [(4, [13] * 4), (5, [11, 11, 10, 10, 10]), (6, [9, 9, 9, 9, 8, 8]), (7, [8, 8, 8, 7, 7, 7, 7])]
)
def test_P_2_2_deal_one_at_a_time_from_dealers_left(n, sizes):
    dealer = 2
    deck = cards.standard_deck()
    state = G.new_game(players=n, options=options(), seed=SEED, deck=deck, first_dealer=dealer)
    in_order = [(dealer + 1 + i) % n for i in range(n)]
    assert [len(state["hands"][s]) for s in in_order] == sizes
    for s in range(n):
        expected = [deck[i] for i in range(len(deck)) if (dealer + 1 + i) % n == s]
        assert sorted(state["hands"][s]) == sorted(expected)
    assert deck[0] in state["hands"][(dealer + 1) % n]


def test_P_2_2_later_deals_come_from_the_seed():
    state = start(n=4, dealer=0, exchange="none")
    state, _ = next_hand(state)
    deck = fairness.shuffle(cards.standard_deck(), fairness.deal_secret(SEED, 1))
    dealer = state["dealer"]
    for s in range(4):
        assert sorted(state["hands"][s]) == sorted(deck[i] for i in range(52) if (dealer + 1 + i) % 4 == s)


def test_P_2_2_fixed_deck_is_checked():
    with pytest.raises(InvalidMove):
        G.new_game(players=4, options=options(), seed=SEED, deck=cards.standard_deck()[:-1])
    with pytest.raises(InvalidMove):
        G.new_game(players=4, options=options(), seed=SEED, deck=cards.standard_deck(jokers=True))


def test_P_2_3_fixed_seating_keeps_players():
    state = start(n=4, dealer=0, exchange="none")
    state, events = next_hand(state)
    assert G.seat_players(state) == [0, 1, 2, 3]
    assert "reseat" not in types(events)


def test_P_2_3_by_rank_moves_players_into_finishing_order():
    state = start(n=4, dealer=1, seating="by_rank", exchange="none")
    # Finishing order with timeouts: seats 2, 3, 0, 1.
    state, events = next_hand(state)
    assert G.seat_players(state) == [2, 3, 0, 1]
    reseat = next(e for e in events if e["type"] == "reseat")
    assert reseat["from_seats"] == [2, 3, 0, 1]
    # Scores and roles moved with the players: the President now sits in seat 0 and deals.
    assert state["scores"] == [2, 1, -1, -2]
    view = G.view(state, None)
    assert view["scores"] == [2, 1, -1, -2]
    assert [s["player"] for s in view["seats"]] == [2, 3, 0, 1]
    assert [s["role"] for s in view["seats"]] == ["president", "vice_president", "vice_scum", "scum"]
    assert view["dealer"] == 0 and view["turn"] == 1
    # The next deal is dealt from the new dealer's left.
    deck = fairness.shuffle(cards.standard_deck(), fairness.deal_secret(SEED, 1))
    assert deck[0] in state["hands"][1]


def test_P_2_3_by_rank_exchange_between_seat_0_and_last_seat():
    state = start(n=5, dealer=0, seating="by_rank")
    state, events = next_hand(state)
    give = next(e for e in events if e["type"] == "give")
    assert (give["from"], give["to"]) == (4, 0)
    assert G.to_act(state) == [0]


# --- P-3 ---------------------------------------------------------------------------------------
def highest(hand, count):
    return sorted(sorted(hand, key=lambda c: (-card_key(c)[0], card_key(c)[1]))[:count], key=card_key)


def dealt_hand(seed, deal_no, n, dealer, seat, jokers=False):
    deck = fairness.shuffle(cards.standard_deck(jokers=jokers), fairness.deal_secret(seed, deal_no))
    return [deck[i] for i in range(len(deck)) if (dealer + 1 + i) % n == seat]


def test_P_3_1_no_exchange_in_the_first_hand():
    state = start()
    assert state["phase"] == "play" and G.to_act(state) == [1]


def test_P_3_1_scum_gives_highest_president_gives_one_back():
    state = start(n=4, dealer=0)
    # Hand 1 finishing order: 1, 2, 3, 0. Seat 1 is President and deals hand 2; seat 0 is Scum.
    state, events = next_hand(state)
    scum_dealt = dealt_hand(SEED, 1, 4, 1, 0)
    top = highest(scum_dealt, 1)
    auto = [e for e in events if e["type"] == "give"]
    assert len(auto) == 1
    assert auto[0]["from"] == 0 and auto[0]["to"] == 1 and auto[0]["auto"] is True
    assert auto[0]["secret"] == {"cards": top} and auto[0]["secret_to"] == [0, 1]
    for seat in (2, 3, None):
        assert card_strings(G.view_event(auto[0], seat)) == set()
    assert G.view_event(auto[0], 0)["cards"] == top
    assert top[0] in state["hands"][1] and top[0] not in state["hands"][0]
    # api.md: with one giver, `turn` is that giver's seat (null only when several may act).
    for seat in (0, 1, 2, 3, None):
        assert (state["phase"], G.to_act(state), G.view(state, seat)["turn"]) == ("exchange", [1], 1)
    assert G.view(state, 1)["you"]["received"] == top and G.view(state, 1)["you"]["must_give"] == 1
    assert G.view(state, 0)["you"]["gave"] == top

    with pytest.raises(NotYourTurn):
        G.apply(state, 2, {"type": "play", "cards": [state["hands"][2][0]]})
    illegal(state, 1, {"type": "play", "cards": [state["hands"][1][0]]}, "P-3.1")
    illegal(state, 1, {"type": "pass"}, "P-3.1")
    illegal(state, 1, {"type": "give", "cards": state["hands"][1][:2]}, "P-3.1")
    assert len(G.legal_moves(state, 1)) == len(state["hands"][1])

    # Giving back the card just received is allowed.
    move = {"type": "give", "cards": top}
    after, events = G.apply(state, 1, move)
    assert top[0] in after["hands"][0] and len(after["hands"][1]) == 13
    give = events[0]
    assert (give["type"], give["from"], give["to"], give["auto"]) == ("give", 1, 0, False)
    assert give["secret"] == {"cards": top} and give["secret_to"] == [0, 1]
    # P-8: only the two players involved see the cards in the move log.
    for seat in (2, 3, None):
        assert G.view_move(move, 1, events, seat) == {"type": "give", "cards_count": 1}
        assert card_strings(G.view_event(give, seat)) == set()
    assert G.view_move(move, 1, events, 0) == move
    assert G.view_move(move, 1, events, 1) == move
    # P-4.1: then the dealer's left leads.
    assert after["phase"] == "play" and G.to_act(after) == [2]
    assert types(events) == ["give", "lead"]


def test_P_3_1_scum_ties_broken_by_suit_order():
    seed = next(
        s
        for s in range(SEED, SEED + 500)
        if sum(1 for c in dealt_hand(s, 1, 4, 1, 0) if c.startswith("2")) >= 2
    )
    state = start(n=4, dealer=0, seed=seed)
    state, events = next_hand(state)
    twos = sorted((c for c in dealt_hand(seed, 1, 4, 1, 0) if c.startswith("2")), key=card_key)
    give = next(e for e in events if e["type"] == "give")
    assert give["secret"]["cards"] == [twos[0]]


def test_P_3_2_exchange_none_goes_straight_to_play():
    state = start(n=4, dealer=0, exchange="none")
    state, events = next_hand(state)
    assert "give" not in types(events)
    assert state["phase"] == "play" and G.to_act(state) == [2]


def test_P_3_2_exchange_two_is_simultaneous():
    state = start(n=4, dealer=0, exchange="two")
    # Hand 1 places: seat 1 President, 2 Vice President, 3 Vice-scum, 0 Scum.
    state, events = next_hand(state)
    gives = [e for e in events if e["type"] == "give"]
    assert [(e["from"], e["to"], e["count"]) for e in gives] == [(0, 1, 2), (3, 2, 1)]
    assert gives[0]["secret"]["cards"] == highest(dealt_hand(SEED, 1, 4, 1, 0), 2)
    assert gives[1]["secret"]["cards"] == highest(dealt_hand(SEED, 1, 4, 1, 3), 1)
    assert gives[1]["secret_to"] == [2, 3]
    assert G.to_act(state) == [1, 2] and G.view(state, 1)["turn"] is None
    assert G.view(state, 1)["you"]["must_give"] == 2 and G.view(state, 2)["you"]["must_give"] == 1
    illegal(state, 1, {"type": "give", "cards": state["hands"][1][:1]}, "P-3.2")
    illegal(state, 2, {"type": "give", "cards": state["hands"][2][:2]}, "P-3.2")
    assert len(G.legal_moves(state, 1)) == 15 * 14 // 2

    state, _ = G.apply(state, 2, {"type": "give", "cards": state["hands"][2][-1:]})
    assert G.to_act(state) == [1] and state["phase"] == "exchange"
    # api.md's ruling: once one giver is left, `turn` is that giver's seat, for every viewer.
    for seat in (0, 1, 2, 3, None):
        assert G.view(state, seat)["turn"] == 1
        assert bool(G.view(state, seat)["legal_moves"]) == (seat == 1)
    with pytest.raises(NotYourTurn):
        G.apply(state, 2, {"type": "give", "cards": state["hands"][2][:1]})
    state, events = G.apply(state, 1, {"type": "give", "cards": state["hands"][1][:2]})
    assert state["phase"] == "play" and G.to_act(state) == [2]
    assert [len(h) for h in state["hands"]] == [13] * 4


def test_P_3_2_exchange_two_with_seven_players_uses_super_scum():
    state = start(n=7, dealer=0, exchange="two")
    state, events = next_hand(state)
    # Places: seats 1..6 then 0; the Super scum (seat 0) gives two, the Vice-scum (seat 6) one.
    gives = [(e["from"], e["to"], e["count"]) for e in events if e["type"] == "give"]
    assert gives == [(0, 1, 2), (6, 2, 1)]


def test_P_3_3_timeout_gives_lowest_cards():
    state = start(n=4, dealer=0, exchange="two")
    state, _ = next_hand(state)
    assert G.timeout_move(state, 1) == {"type": "give", "cards": state["hands"][1][:2]}
    assert G.timeout_move(state, 2) == {"type": "give", "cards": state["hands"][2][:1]}
    low = min(state["hands"][1], key=card_key)
    assert G.timeout_move(state, 1)["cards"][0] == low


# --- P-4 ---------------------------------------------------------------------------------------
def test_P_4_1_dealers_left_leads():
    state = start(n=6, dealer=5)
    assert G.to_act(state) == [0] and G.view(state, 0)["turn"] == 0
    with pytest.raises(NotYourTurn):
        G.apply(state, 5, {"type": "play", "cards": [state["hands"][5][0]]})


def test_P_4_2_leader_plays_one_card_or_a_set_and_may_not_pass():
    state = start(deal={1: ["7C", "7D", "7H", "7S", "9C"]})
    illegal(state, 1, {"type": "pass"}, "P-4.2")
    illegal(state, 1, {"type": "play", "cards": ["7C", "9C"]}, "P-4.2")
    for chosen in (["9C"], ["7C", "7H"], ["7C", "7D", "7S"], ["7C", "7D", "7H", "7S"]):
        after, _ = play(state, 1, *chosen)
        assert after["trick"]["standing"]["cards"] == chosen
    lead_moves = G.legal_moves(state, 1)
    sevens = [m for m in lead_moves if all(c.startswith("7") for c in m["cards"])]
    assert len(sevens) == 15  # every distinct subset of the four 7s, each once
    assert {"type": "pass"} not in lead_moves


def test_P_4_3_beat_with_same_count_of_higher_rank():
    state = start(deal={1: ["7C", "7D"], 2: ["6C", "6D", "7H", "7S", "8C", "9C", "9D", "9H"]})
    state, _ = play(state, 1, "7C", "7D")
    for bad in (["8C"], ["6C", "6D"], ["7H", "7S"], ["9C", "9D", "9H"]):
        illegal(state, 2, {"type": "play", "cards": bad}, "P-4.3")
    legal = G.legal_moves(state, 2)
    assert {"type": "play", "cards": ["9C", "9D"]} in legal
    assert all(len(m.get("cards", [1, 1])) == 2 for m in legal)
    assert {"type": "pass"} in legal
    after, _ = play(state, 2, "9C", "9H")
    assert after["trick"]["standing"] == {"seat": 2, "cards": ["9C", "9H"], "count": 2, "rank": "9"}
    assert G.to_act(after) == [3]


def test_P_4_4_passing_allowed_and_does_not_stop_later_play():
    state = start(deal={1: ["5C"], 2: ["AC", "KC"], 3: ["6C"], 0: ["8C"]})
    state, _ = play(state, 1, "5C")
    state, ev = pass_(state, 2)  # could beat, passes anyway
    assert ev == [{"type": "pass", "seat": 2}]
    state, _ = play(state, 3, "6C")
    state, _ = play(state, 0, "8C")
    state, _ = pass_(state, 1)
    assert G.to_act(state) == [2]
    assert G.view(state, 2)["seats"][1]["passed"] is True
    state, _ = play(state, 2, "KC")
    assert state["trick"]["standing"]["seat"] == 2


def test_P_4_5_trick_ends_when_all_others_passed_last_player_leads():
    state = start(deal={1: ["5C"], 2: ["9C"]})
    state, _ = play(state, 1, "5C")
    state, _ = play(state, 2, "9C")
    state, _ = pass_(state, 3)
    state, _ = pass_(state, 0)
    assert state["trick"]["standing"] is not None and G.to_act(state) == [1]
    state, events = pass_(state, 1)
    assert events[-1] == {"type": "trick_end", "winner": 2, "leader": 2}
    assert state["trick"]["standing"] is None and G.to_act(state) == [2]
    view = G.view(state, 0)
    assert view["public"]["last_trick"] == {
        "plays": [{"seat": 1, "cards": ["5C"]}, {"seat": 2, "cards": ["9C"]}],
        "winner": 2,
    }
    assert view["public"]["trick"] is None and view["public"]["passed"] == []


def test_P_4_6_leader_gone_out_next_holder_leads():
    state = start()
    state = with_hands(state, {1: ["AH"], 2: [], 3: ["4C", "5C"], 0: ["6C", "7C"]})
    state, events = play(state, 1, "AH")
    assert {"type": "out", "seat": 1, "place": 1} in events
    state, _ = pass_(state, 3)
    state, events = pass_(state, 0)
    # Seat 2 holds no cards, so seat 3 is next clockwise after seat 1.
    assert events[-1] == {"type": "trick_end", "winner": 1, "leader": 3}
    assert G.to_act(state) == [3]


def test_P_4_7_players_without_cards_are_skipped():
    state = start()
    state = with_hands(state, {2: []})
    state, _ = play(state, 1, state["hands"][1][0])
    assert G.to_act(state) == [3]
    state, _ = pass_(state, 3)
    state, _ = pass_(state, 0)
    assert state["trick"]["standing"] is None and G.to_act(state) == [1]


def test_P_4_8_timeout_pass_or_lowest_single_when_leading():
    state = start(deal={1: ["3D", "3C", "KS"]})
    assert G.timeout_move(state, 1) == {"type": "play", "cards": ["3C"]}
    state, _ = play(state, 1, "KS")
    assert G.timeout_move(state, 2) == {"type": "pass"}


# --- P-5 ---------------------------------------------------------------------------------------
def test_P_5_1_playing_last_card_goes_out_with_place():
    state = start()
    state = with_hands(state, {1: ["9C", "9D"]})
    state, events = play(state, 1, "9C", "9D")
    assert {"type": "out", "seat": 1, "place": 1} in events
    view = G.view(state, 2)
    assert view["seats"][1]["out"] is True and view["seats"][1]["place"] == 1
    assert view["public"]["finish_order"] == [1]
    assert G.to_act(state) == [2]  # the trick goes on without seat 1


def test_P_5_2_hand_ends_when_one_player_holds_cards():
    state = start(exchange="none")
    state = with_hands(state, {1: ["9C"], 2: [], 3: [], 0: ["4C", "5C"]})
    state["finish_order"] = [2, 3]
    state["places"] = [None, None, 1, 2]
    state, events = play(state, 1, "9C")
    end = next(e for e in events if e["type"] == "hand_end")
    assert end["places"] == [4, 3, 1, 2]
    assert {"type": "out", "seat": 0, "place": 4} in events
    assert state["hand_no"] == 2 and types(events)[-2:] == ["deal", "lead"]


# --- P-6 ---------------------------------------------------------------------------------------
ROLE_TABLE = {
    4: (["president", "vice_president", "vice_scum", "scum"], [2, 1, -1, -2]),
    5: (["president", "vice_president", "neutral", "vice_scum", "scum"], [2, 1, 0, -1, -2]),
    6: (
        ["president", "vice_president", "upper_neutral", "lower_neutral", "vice_scum", "scum"],
        [2, 1, 0, 0, -1, -2],
    ),
    7: (
        [
            "president",
            "vice_president",
            "upper_neutral",
            "neutral",
            "lower_neutral",
            "vice_scum",
            "super_scum",
        ],
        [2, 1, 0, 0, 0, -1, -2],
    ),
}


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_P_6_roles_and_points_by_place(n):
    dealer = 3
    state = start(n=n, dealer=dealer, exchange="none")
    state, events = next_hand(state)
    end = next(e for e in events if e["type"] == "hand_end")
    roles, points = ROLE_TABLE[n]
    by_place = [(dealer + 1 + i) % n for i in range(n)]  # timeout play finishes in turn order
    assert [end["roles"][s] for s in by_place] == roles
    assert [end["points"][s] for s in by_place] == points
    assert state["scores"] == end["points"] == end["scores"]
    view = G.view(state, 0)
    assert view["public"]["previous_hand"]["roles"] == end["roles"]
    assert [s["role"] for s in view["seats"]] == end["roles"]


# --- P-7 ---------------------------------------------------------------------------------------
def test_P_7_1_game_ends_when_target_reached():
    state = start(target_score=2)
    state, events = next_hand(state)
    assert state["status"] == "finished" and G.is_finished(state)
    assert events[-1] == {"type": "game_end", "winners": [1], "scores": [-2, 2, 1, -1]}
    view = G.view(state, 0)
    assert view["public"]["winners"] == [1] and view["phase"] == "finished" and view["turn"] is None
    assert G.to_act(state) == [] and G.legal_moves(state, 1) == []
    with pytest.raises(GameConflict):
        G.apply(state, 1, {"type": "pass"})


def test_P_7_1_not_over_below_target():
    state = start(target_score=3)
    state, _ = next_hand(state)
    assert state["status"] == "active" and state["hand_no"] == 2


def test_P_7_1_tied_leaders_play_on():
    state = start(target_score=10, exchange="none")
    state["scores"] = [0, 8, 9, 0]
    state, events = next_hand(state)  # seat 1 +2, seat 2 +1: 10 and 10
    assert state["scores"] == [-2, 10, 10, -1]
    assert state["status"] == "active" and "game_end" not in types(events)
    state, events = next_hand(state)  # seat 1 deals, seat 2 leads and wins
    assert state["status"] == "finished" and state["winners"] == [2]


def test_P_7_1_tie_after_target_continues_even_below_target():
    """P-7.1 (Ruling): once the end is due, a lone leader ends the game even below the target."""
    state = start(target_score=10, exchange="none")
    state["scores"] = [0, 8, 9, 0]
    state, _ = next_hand(state)
    state["scores"] = [5, 2, 0, 5]
    state, _ = next_hand(state)
    # Seats 2 and 3 finish first (+2, +1): scores 4, 0, 2, 6 -> seat 3 leads alone below the target.
    assert state["status"] == "finished" and state["winners"] == [3]


def test_P_7_2_hands_option_ends_after_that_many_hands():
    state = start(hands=2, target_score=1)
    state, _ = next_hand(state)
    assert state["status"] == "active"  # target_score is not used when hands is set
    state, _ = next_hand(state)
    assert state["status"] == "finished" and state["hand_no"] == 2
    assert state["winners"] == [state["scores"].index(max(state["scores"]))]


def test_P_7_2_hands_option_tie_plays_on():
    state = start(hands=1, exchange="none")
    state["scores"] = [0, 0, 1, 0]
    state, _ = next_hand(state)
    assert state["scores"] == [-2, 2, 2, -1] and state["status"] == "active"
    state, _ = next_hand(state)
    assert state["status"] == "finished" and state["hand_no"] == 2


# --- P-8 ---------------------------------------------------------------------------------------
def test_P_8_view_layout_and_hidden_hands():
    state = start(n=5, dealer=0, deal={1: ["4C"]})
    state, _ = play(state, 1, "4C")
    view = G.view(state, 3)
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
    assert view["you"]["seat"] == 3 and view["you"]["hand"] == state["hands"][3]
    assert view["phase"] == "play" and view["turn"] == 2 and view["round"] == 1 and view["dealer"] == 0
    assert view["seats"][1] == {
        "player": 1,
        "card_count": 10,
        "out": False,
        "place": None,
        "role": None,
        "passed": False,
    }
    assert view["public"]["trick"] == {"seat": 1, "cards": ["4C"], "count": 1, "rank": "4"}
    assert view["public"]["revolution"] is False and view["public"]["variations"] == []
    assert view["scores"] == [0] * 5 and view["legal_moves"] == []
    others = {c for s in range(5) if s != 3 for c in state["hands"][s]}
    assert card_strings(view) & others == set()
    spectator = G.view(state, None)
    assert spectator["you"] is None and spectator["legal_moves"] == []
    assert card_strings(spectator) == {"4C"}
    assert str(SEED) not in json.dumps(view) + json.dumps(spectator)
    assert G.view(state, 2)["legal_moves"] == G.legal_moves(state, 2)


def test_P_8_hands_sorted_by_rank_then_suit():
    state = start(deal={1: ["2S", "3H", "10C", "3C", "AD", "JD"]})
    hand = G.view(state, 1)["you"]["hand"]
    assert hand == sorted(hand, key=card_key)
    assert hand.index("3C") < hand.index("3H") < hand.index("10C") < hand.index("JD") < hand.index("AD")
    ranks = [card_key(c)[0] for c in hand]
    assert ranks == sorted(ranks) and hand[0] == "3C" and hand[-1] == "2S"


# --- move checking -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "move",
    [
        "pass",
        {},
        {"type": "fold"},
        {"type": "pass", "cards": []},
        {"type": "play"},
        {"type": "play", "cards": "7H"},
        {"type": "play", "cards": []},
        {"type": "play", "cards": ["4C", "4C"]},
        {"type": "play", "cards": ["4C"], "extra": 1},
    ],
)
def test_malformed_moves_are_invalid(move):
    state = start(deal={1: ["4C"]})
    with pytest.raises(InvalidMove):
        G.apply(state, 1, move)


def test_card_not_held_is_invalid_and_message_names_no_card():
    state = start(deal={1: ["4C"], 2: ["KH"]})
    with pytest.raises(InvalidMove) as exc:
        G.apply(state, 1, {"type": "play", "cards": ["KH"]})
    assert "KH" not in exc.value.message


def test_order_of_checks():
    state = start(deal={1: ["4C"]}, target_score=2)
    with pytest.raises(NotYourTurn):
        G.apply(state, 2, {"type": "play", "cards": ["ZZ"]})
    with pytest.raises(InvalidMove):  # a type President does not have: malformed for every seat
        G.apply(state, 2, {"type": "bogus"})
    with pytest.raises(InvalidMove):
        G.apply(state, 1, {"type": "pass", "junk": True})  # malformed before forbidden
    done, _ = next_hand(state)
    with pytest.raises(GameConflict):
        G.apply(done, 5, {"type": "bogus"})


def test_apply_does_not_mutate_and_state_is_json():
    state = start(deal={1: ["4C"]})
    before = json.dumps(state, sort_keys=True)
    after, _ = play(state, 1, "4C")
    assert json.dumps(state, sort_keys=True) == before
    assert json.loads(json.dumps(after)) == after
