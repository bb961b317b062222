"""api.md, Lopti: house rules (L-11), Rule Votes (L-12.1-12.2), duels (L-12.3-12.4) and
sessions (L-12.5) over HTTP."""

import random

import pytest

from games.services import lopti as lopti_services
from tests.api.helpers import move, seat_users

# Small deals so that a round ends in a few moves: one hand card, one face-down card, no
# face-up cards (no swap phase) and no draws.
QUICK = {"hand_size": 1, "face_up_count": 0, "face_down_count": 1, "draw_rule": "none"}
RULE = {
    "description": "After an ace, the next player draws a card.",
    "when": {"event": "play", "timing": "after", "ranks": ["A"], "min_cards": 1},
    "then": [{"effect": "draw", "target": "next_player", "count": 1}],
}


def state(user, table_id):
    return user.api.get(f"/api/v1/tables/{table_id}/state").json()


def play_until(table_id, users, done, rng, limit=400):
    """Everyone plays random legal game moves until `done(state)` holds."""
    for _ in range(limit):
        seats = seat_users(users[0].api, table_id, users)
        current = state(users[0], table_id)
        if done(current):
            return current
        for user in seats.values():
            mine = state(user, table_id)
            if mine["legal_moves"]:
                assert move(user, table_id, rng.choice(mine["legal_moves"])).status_code == 200
                break
    raise AssertionError("condition never reached")


@pytest.fixture
def window(table_of):
    """A 3-player Lopti table in the winner's window after round 1."""
    table_id, users = table_of("lopti", 3, options=QUICK, seed=11)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    current = play_until(table_id, users, lambda s: s["phase"] == "house_rule", random.Random(1))
    seats = seat_users(users[0].api, table_id, users)
    winner = seats[current["public"]["window"]["winner"]]
    others = [u for u in users if u is not winner]
    return table_id, users, winner, others


@pytest.mark.django_db
def test_L_11_1_only_the_winner_writes_in_the_window_and_the_next_round_is_dealt(window):
    table_id, users, winner, others = window
    url = f"/api/v1/tables/{table_id}/house-rules"
    r = others[0].api.post(url, {"rule": RULE}, format="json")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    bad = {**RULE, "then": [{"effect": "draw", "target": "alice", "count": 9}]}
    r = winner.api.post(url, {"rule": bad}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert any("then" in field for field in r.json()["detail"]["fields"])
    r = winner.api.post(url, {"rule": RULE}, format="json")
    assert r.status_code == 201
    rules = r.json()
    assert len(rules) == 1 and rules[0]["rule"]["description"] == RULE["description"] and rules[0]["status"] == "active"
    assert state(winner, table_id)["phase"] in ("swap", "play") and state(winner, table_id)["round"] == 2
    assert others[1].api.get(url).json() == rules
    assert state(others[1], table_id)["public"]["house_rules"][0]["id"] == rules[0]["id"]


@pytest.mark.django_db
def test_L_11_1_the_winner_may_decline(window):
    table_id, users, winner, _ = window
    r = winner.api.post(f"/api/v1/tables/{table_id}/house-rules", {"decline": True}, format="json")
    assert r.status_code == 200 and r.json()["declined"] is True
    assert winner.api.get(f"/api/v1/tables/{table_id}/house-rules").json() == []
    assert state(winner, table_id)["round"] == 2


@pytest.mark.django_db
def test_L_11_5_and_L_11_6_only_the_author_edits_before_the_round_begins_and_deletes_any_time(window):
    table_id, users, winner, others = window
    rule_id = winner.api.post(f"/api/v1/tables/{table_id}/house-rules", {"rule": RULE}, format="json").json()[0]["id"]
    url = f"/api/v1/tables/{table_id}/house-rules/{rule_id}"
    edited = {**RULE, "description": "After an ace, the next player draws one card."}
    r = others[0].api.patch(url, {"rule": edited}, format="json")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    r = winner.api.patch(url, {"rule": edited}, format="json")
    assert r.status_code == 200 and r.json()[0]["rule"]["description"] == edited["description"]
    # The round begins with its first card play; then the rule can no longer be rewritten.
    play_until(table_id, users, lambda s: bool(s["public"]["pile"]) or bool(s["public"]["three_chain"]), random.Random(2), limit=5)
    late = winner.api.patch(url, {"rule": RULE}, format="json")
    assert late.status_code == 400 and late.json()["code"] == "illegal_move" and late.json()["detail"]["rule"] == "L-11.5"
    assert others[1].api.delete(url).json()["code"] == "forbidden"
    r = winner.api.delete(url)
    assert r.status_code == 200 and r.json()[0]["status"] == "deleted"
    missing = winner.api.delete(f"/api/v1/tables/{table_id}/house-rules/999")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


@pytest.mark.django_db
def test_L_12_votes_ballots_and_a_duel_decided_over_http(table_of):
    """Two members: one yes and one no is a tie (L-12.2), decided by a duel between the
    proposer and the earliest no-voter (L-12.3), first to 16 decisive wins (L-12.4)."""
    table_id, users = table_of("lopti", 2, options=QUICK, seed=5)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    seats = seat_users(users[0].api, table_id, users)
    proposer, opponent = seats[0], seats[1]
    votes = f"/api/v1/tables/{table_id}/rule-votes"
    proposal = {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    r = proposer.api.post(votes, {**proposal, "kind": "banish"}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    r = proposer.api.post(votes, proposal, format="json")
    assert r.status_code == 201
    vote = r.json()
    assert vote["status"] == "open" and vote["tally"]["yes"] == 1 and vote["proposer"] == 0
    vote_url = f"{votes}/{vote['id']}"
    assert proposer.api.post(votes, proposal, format="json").json()["code"] == "conflict"
    # Play pauses while the vote is open.
    r = move(opponent, table_id, {"type": "take_pile"})
    assert r.status_code == 409 and r.json()["code"] == "conflict"
    again = proposer.api.post(f"{vote_url}/ballots", {"yes": True}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    r = opponent.api.post(f"{vote_url}/ballots", {"yes": False}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "tied"
    duel_id = r.json()["duel"]
    duel_url = f"/api/v1/tables/{table_id}/duels/{duel_id}"
    duel = proposer.api.get(duel_url).json()
    assert duel["players"] == [0, 1] and duel["score"] == [0, 0]

    # A throw is hidden from everybody but the thrower until both threw.
    assert proposer.api.post(f"{duel_url}/throws", {"throw": "rock"}, format="json").status_code == 200
    for viewer in (opponent, proposer):
        assert viewer.api.get(duel_url).json()["throws"] == []
    seen = state(opponent, table_id)
    assert {m["throw"] for m in seen.pop("legal_moves")} == {"rock", "paper", "scissors"}
    opponent_view = str(seen) + str(opponent.api.get(f"/api/v1/tables/{table_id}/moves").json())
    assert "rock" not in opponent_view
    assert state(proposer, table_id)["you"]["throw"]["throw"] == "rock"
    # A draw does not count.
    r = opponent.api.post(f"{duel_url}/throws", {"throw": "rock"}, format="json")
    assert r.status_code == 200 and r.json()["score"] == [0, 0] and len(r.json()["throws"]) == 1
    for _ in range(16):
        proposer.api.post(f"{duel_url}/throws", {"throw": "paper"}, format="json")
        opponent.api.post(f"{duel_url}/throws", {"throw": "rock"}, format="json")
    duel = opponent.api.get(duel_url).json()
    assert duel["score"] == [16, 0] and duel["winner"] == 0 and duel["status"] != "open"
    late = opponent.api.post(f"{duel_url}/throws", {"throw": "rock"}, format="json")
    assert late.status_code == 409 and late.json()["code"] == "conflict"
    vote = proposer.api.get(vote_url).json()
    assert vote["status"] == "decided"
    assert state(proposer, table_id)["public"]["rules"]["ten_clears"] is False
    assert proposer.api.get(f"{votes}/99").json()["code"] == "not_found"


@pytest.mark.django_db
def test_L_12_5_the_host_starts_a_new_session_between_rounds(window):
    table_id, users, winner, others = window
    host = users[0]
    stranger_host = next(u for u in users if u is not host)
    r = stranger_host.api.post(f"/api/v1/tables/{table_id}/sessions")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert host.api.post(f"/api/v1/tables/{table_id}/sessions").status_code == 200
    setup = state(host, table_id)
    assert setup["phase"] == "setup" and setup["public"]["session"] == 2 and setup["public"]["house_rules"] == []
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    dealt = state(host, table_id)
    assert dealt["phase"] in ("swap", "play") and dealt["public"]["session"] == 2


@pytest.mark.django_db
def test_a_moderated_description_disappears_from_every_view_and_the_log(window):
    table_id, users, winner, others = window
    rule_id = winner.api.post(f"/api/v1/tables/{table_id}/house-rules", {"rule": RULE}, format="json").json()[0]["id"]
    lopti_services.house_rule_moderate(table_id=table_id, rule_id=rule_id, hidden=True)
    for viewer in users:
        everything = str(viewer.api.get(f"/api/v1/tables/{table_id}/house-rules").json())
        everything += str(state(viewer, table_id)) + str(viewer.api.get(f"/api/v1/tables/{table_id}/moves").json())
        assert RULE["description"] not in everything
        assert "hidden by a moderator" in everything
    # Its effect is unchanged: the rule is still active.
    assert winner.api.get(f"/api/v1/tables/{table_id}/house-rules").json()[0]["status"] == "active"


@pytest.mark.django_db
def test_lopti_endpoints_at_other_tables_are_not_found(table_of):
    table_id, users = table_of("president", 4)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    r = users[0].api.get(f"/api/v1/tables/{table_id}/house-rules")
    assert r.status_code == 404 and r.json()["code"] == "not_found"


BIG_DEAL = {"hand_size": 5, "face_up_count": 3, "face_down_count": 3}


@pytest.mark.django_db
def test_L_13_table_creation_checks_the_deal_for_its_own_seats(make_user):
    """5 + 3 + 3 cards each: 22 for two seats fit the deck, 55 for five do not."""
    host = make_user()
    r = host.api.post("/api/v1/tables", {"game": "lopti", "seats": 2, "options": BIG_DEAL}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["options"]["hand_size"] == 5
    r = host.api.post("/api/v1/tables", {"game": "lopti", "seats": 5, "options": BIG_DEAL}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert set(r.json()["detail"]["fields"]["options"]) == {"hand_size", "face_up_count", "face_down_count"}
    assert "L-13" in r.json()["message"]


@pytest.mark.django_db
def test_L_13_a_two_seat_table_deals_five_three_and_three(table_of):
    table_id, users = table_of("lopti", 2, options=BIG_DEAL)
    assert users[0].api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    seen = state(users[0], table_id)
    assert len(seen["you"]["hand"]) == 5 and seen["public"]["draw_pile_count"] == 52 - 22


@pytest.mark.django_db
@pytest.mark.parametrize("seats, fits", [(2, True), (4, True), (5, False)])
def test_L_13_a_rule_vote_on_the_deal_is_checked_for_the_seats_at_the_table(table_of, seats, fits):
    table_id, users = table_of("lopti", seats, options=QUICK | {"face_up_count": 3, "face_down_count": 3})
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    proposal = {"kind": "base_rule", "key": "hand_size", "value": 5, "applies": "next_round"}
    r = users[0].api.post(f"/api/v1/tables/{table_id}/rule-votes", proposal, format="json")
    if fits:
        assert r.status_code == 201, r.content
    else:
        assert r.status_code == 400 and r.json()["code"] == "invalid"
        assert "value" in r.json()["detail"]["fields"]


@pytest.mark.django_db
def test_api_house_rule_post_is_forbidden_to_all_but_the_winner_whenever_it_comes(window):
    """api.md "Errors not named above": 403 for anyone but the round's winner (in the window or
    not); 409 for the winner outside the window. The message names the rule."""
    table_id, users, winner, others = window
    url = f"/api/v1/tables/{table_id}/house-rules"
    for other in others:  # in the window
        for body in ({"rule": RULE}, {"decline": True}):
            r = other.api.post(url, body, format="json")
            assert r.status_code == 403 and r.json()["code"] == "forbidden", r.content
            assert "L-11.1" in r.json()["message"]
    assert winner.api.post(url, {"decline": True}, format="json").status_code == 200
    # the window is closed: the next round is dealt
    for body in ({"rule": RULE}, {"decline": True}):
        r = winner.api.post(url, body, format="json")
        assert r.status_code == 409 and r.json()["code"] == "conflict", r.content
        assert "L-11.1" in r.json()["message"] and r.json()["detail"]["rule"] == "L-11.1"
        for other in others:
            r = other.api.post(url, body, format="json")
            assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert winner.api.get(url).json() == []


@pytest.mark.django_db
def test_api_house_rule_post_before_any_round_ended_is_forbidden(table_of):
    table_id, users = table_of("lopti", 2, options=QUICK)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    for user in users:
        r = user.api.post(f"/api/v1/tables/{table_id}/house-rules", {"rule": RULE}, format="json")
        assert r.status_code == 403 and r.json()["code"] == "forbidden"


@pytest.mark.django_db
def test_api_a_rule_vote_at_a_time_L_12_2_forbids_is_a_conflict(window):
    table_id, users, winner, others = window
    votes = f"/api/v1/tables/{table_id}/rule-votes"
    proposal = {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    for user in (winner, *others):  # the winner's window
        r = user.api.post(votes, proposal, format="json")
        assert r.status_code == 409 and r.json()["code"] == "conflict", r.content
        assert r.json()["message"].startswith("L-12.2") and r.json()["detail"]["rule"] == "L-12.2"
    assert winner.api.post(f"/api/v1/tables/{table_id}/house-rules", {"decline": True}, format="json").status_code == 200
    # round 2: one vote; once it has closed, a second in the same round is a conflict too
    r = others[0].api.post(votes, proposal, format="json")
    assert r.status_code == 201, r.content
    vote_url = f"{votes}/{r.json()['id']}/ballots"
    for user in (winner, others[1]):
        assert user.api.post(vote_url, {"yes": False}, format="json").status_code == 200
    assert users[0].api.get(f"{votes}/{r.json()['id']}").json()["status"] == "failed"
    r = others[1].api.post(votes, {**proposal, "key": "two_resets"}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "conflict"
    assert "L-12.2" in r.json()["message"] and r.json()["detail"]["rule"] == "L-12.2"


@pytest.mark.django_db
def test_api_ballots_champions_and_throws_on_a_missing_vote_or_duel_are_not_found(table_of):
    """18.6: an id in the path that names nothing is 404, not 400."""
    table_id, users = table_of("lopti", 2, options=QUICK)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    base = f"/api/v1/tables/{table_id}"
    for path, body in (
        ("rule-votes/7/ballots", {"yes": True}),
        ("rule-votes/7/champions", {}),
        ("duels/7/throws", {"throw": "rock"}),
    ):
        r = users[1].api.post(f"{base}/{path}", body, format="json")
        assert r.status_code == 404 and r.json()["code"] == "not_found", (path, r.content)
    # an existing vote still takes ballots
    proposal = {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    vote_id = users[0].api.post(f"{base}/rule-votes", proposal, format="json").json()["id"]
    assert users[1].api.post(f"{base}/rule-votes/{vote_id}/ballots", {"yes": True}, format="json").status_code == 200


@pytest.mark.django_db
def test_L_11_7_a_revealed_hand_is_shown_alike_by_the_state_and_the_move_log(table_of, make_user):
    """18.11: a `before play` reveal of the actor's hand, then the play and its draw, in one
    move. Every viewer, spectators included, sees the drawn card both in `GET /state`
    (`revealed_hand`) and in `GET /moves`; once the hand is private again, so are its draws."""
    from games.models import Table
    from tests.engine.test_lopti_house_rules import eff, rule, with_rules
    from tests.engine.test_lopti_support import table as engine_table

    table_id, users = table_of("lopti", 3)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    st = engine_table(players=3, turn=0, hands={0: ["9C", "5C"], 1: ["KD"], 2: ["QH"]}, draw=["2H", "4S", "6D"])
    st = with_rules(st, rule("play", eff("reveal_hand", "actor"), timing="before", ranks=["9"]))
    Table.objects.filter(pk=table_id).update(state=st)  # a position reached in play, built directly
    seats = seat_users(users[0].api, table_id, users)
    viewers = [*seats.values(), make_user()]
    assert move(seats[0], table_id, {"type": "play", "cards": ["9C"]}).status_code == 200
    for viewer in viewers:
        assert state(viewer, table_id)["seats"][0]["revealed_hand"] == ["2H", "5C"]
        dealt, entry = viewer.api.get(f"/api/v1/tables/{table_id}/moves").json()
        assert dealt["seq"] == 0 and dealt["type"] == "deal"  # the first deal's entry
        shown = {e["type"]: e for e in entry["events"]}
        assert shown["reveal_hand"]["cards"] == ["5C"] and shown["play"]["cards"] == ["9C"]
        assert shown["draw"]["cards"] == ["2H"]
    assert move(seats[1], table_id, {"type": "play", "cards": ["KD"]}).status_code == 200
    assert move(seats[2], table_id, {"type": "take_pile"}).status_code == 200
    assert move(seats[0], table_id, {"type": "play", "cards": ["5C"]}).status_code == 200
    for viewer in viewers:
        assert state(viewer, table_id)["seats"][0]["revealed_hand"] is None
        last = viewer.api.get(f"/api/v1/tables/{table_id}/moves?after=3").json()[0]
        draw = next(e for e in last["events"] if e["type"] == "draw")
        assert ("cards" in draw) == (viewer is seats[0])


@pytest.mark.django_db
def test_api_house_rule_post_on_an_aborted_table_is_still_forbidden_to_all_but_the_winner(window, make_user):
    """api.md: 403 for anyone but the round's winner "whenever it comes" — also once the table
    is aborted; the winner then gets the table's 409 (it is not in play)."""
    from games.services import tables

    table_id, users, winner, others = window
    tables.table_abort(table_id=table_id)
    url = f"/api/v1/tables/{table_id}/house-rules"
    for other in others:
        r = other.api.post(url, {"rule": RULE}, format="json")
        assert r.status_code == 403 and r.json()["code"] == "forbidden" and "L-11.1" in r.json()["message"]
    r = winner.api.post(url, {"rule": RULE}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "conflict"


@pytest.mark.django_db
def test_api_house_rule_post_on_a_finished_table_is_still_forbidden_to_all_but_the_rounds_winner(table_of, make_user):
    """api.md: 403 for anyone but the round's winner "whenever it comes", also once the table
    has finished by its `rounds` (its last round opens no window: the winner of that round gets
    409, the others 403, not the table's 409 for all)."""
    table_id, users = table_of("lopti", 3, options=QUICK | {"rounds": 2}, seed=11)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    rng = random.Random(1)
    window = play_until(table_id, users, lambda s: s["phase"] == "house_rule", rng)["public"]["window"]
    seats = seat_users(users[0].api, table_id, users)
    assert seats[window["winner"]].api.post(
        f"/api/v1/tables/{table_id}/house-rules", {"decline": True}, format="json"
    ).status_code == 200
    finished = play_until(table_id, users, lambda s: s["status"] == "finished", rng)
    winner = finished["public"]["last_round_winner"]  # round 2's, not the window's of round 1
    assert winner != window["winner"]  # this seed: the latest window names round 1's winner
    url = f"/api/v1/tables/{table_id}/house-rules"
    for seat, user in seats.items():
        for body in ({"rule": RULE}, {"decline": True}):
            r = user.api.post(url, body, format="json")
            if seat == winner:
                assert r.status_code == 409 and r.json()["code"] == "conflict", r.content
            else:
                assert r.status_code == 403 and r.json()["code"] == "forbidden", (seat, winner, r.content)
                assert "L-11.1" in r.json()["message"]
    r = make_user().api.post(url, {"decline": True}, format="json")  # not seated at all
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
