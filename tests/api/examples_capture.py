"""Writes config/examples.json, the OpenAPI examples (config.contract.postprocess_examples): real
requests and the server's real answers, from tables played here. Not collected by a plain
`pytest` run (not a test_ module); run it when an operation's answer changes:

    .venv/bin/python -m pytest tests/api/examples_capture.py -q -p no:randomly

tests/api/test_typed_contract.py checks every example against the schema it illustrates."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from tests.api.helpers import seat_users
from tests.api.test_lopti_sessions import QUICK, RULE, play_until, state

OUT = Path(__file__).resolve().parents[2] / "config" / "examples.json"
PASSWORD = "correct horse battery staple"
# Tokens and secrets are replaced by made-up ones of the same form.
FAKE_TOKEN = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"


class Recorder:
    def __init__(self):
        self.examples: dict[str, dict] = {}

    def __call__(self, operation: str, response, request=None, *, summary: str = "", expect: int | None = None,
                 parameters: dict | None = None):
        assert response.status_code < 300 and (expect is None or response.status_code == expect), (
            operation, response.status_code, getattr(response, "content", b"")[:500])
        if operation in self.examples:
            return response
        entry = {"summary": summary, "status": response.status_code}
        if request is not None:
            entry["request"] = request
        if parameters:
            entry["parameters"] = parameters
        if response.status_code != 204:
            entry["response"] = response.json()
        self.examples[operation] = entry
        return response


def scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, FAKE_TOKEN)
    return re.sub(r"http://testserver", "https://cards.example.com", text)


@pytest.mark.django_db
def test_capture(make_user, table_of, settings, anon, monkeypatch):
    from games.services import webhooks

    # No DNS here: example.com resolves to its public address (deliveries are not sent: no commit).
    monkeypatch.setattr(webhooks, "resolve", lambda host, port: ["93.184.215.14"])
    settings.LEADERBOARD_MIN_GAMES = 1  # one rated table puts its players on the leaderboard
    rec = Recorder()
    secrets: list[str] = []

    # accounts
    body = {"username": "alice", "password": PASSWORD, "email": "alice@example.com"}
    registered = rec("auth_register", anon.post("/api/v1/auth/register", body, format="json"), body,
                     summary="a new account and its first token").json()
    secrets.append(registered["token"])
    body = {"username": "alice", "password": PASSWORD}
    secrets.append(rec("auth_token", anon.post("/api/v1/auth/token", body, format="json"), body,
                       summary="a login: the account's first-party token").json()["token"])
    rec("games_list", anon.get("/api/v1/games"), summary="the three games and their options")
    rec("oauth_server_metadata", anon.get("/.well-known/oauth-authorization-server"), summary="the OAuth endpoints and scopes")

    # a President table, four players
    table_id, users = table_of("president", 4, options={"hands": 1}, turn_timeout=60)
    host = users[0]
    for user in users:
        secrets.append(user.token)
    rec("me", host.api.get("/api/v1/me"), summary="your account, stats and ratings")
    rec("tables_retrieve", host.api.get(f"/api/v1/tables/{table_id}"), summary="a full President table, not started")
    rec("tables_list", host.api.get("/api/v1/tables?game=president&status=open"), summary="open President tables")
    body = {"game": "president", "seats": 4, "options": {"hands": 3}, "turn_timeout": 60}
    other = rec("tables_create", host.api.post("/api/v1/tables", body, format="json"), body,
                summary="a President table for four, three hands").json()
    body = {"seat": 2}
    rec("tables_join", users[1].api.post(f"/api/v1/tables/{other['id']}/join", body, format="json"), body,
        summary="take seat 2")
    body = {"level": "random"}
    rec("tables_bots_add", host.api.post(f"/api/v1/tables/{other['id']}/bots", body, format="json"), body,
        summary="a bot at the first free seat")
    rec("tables_leave", users[1].api.post(f"/api/v1/tables/{other['id']}/leave"), summary="the table without you")
    rec("tables_start", host.api.post(f"/api/v1/tables/{table_id}/start"), summary="the started table")
    from games.models import Seat

    # A player away (as two missed deadlines make one) comes back.
    Seat.objects.filter(table_id=table_id, user=users[3]).update(away=True)
    rec("tables_back", users[3].api.post(f"/api/v1/tables/{table_id}/back"), summary="your seat back from the bot")

    # webhooks (registered after the start: the deliveries below are your_turn's)
    body = {"url": "https://example.com/hooks/cardgames", "events": ["your_turn", "table_finished"],
            "secret": "a shared secret of some length"}
    webhook = rec("me_webhooks_create", host.api.post("/api/v1/me/webhooks", body, format="json"), body,
                  summary="your turns and finished tables, signed with your secret").json()

    # play the table to its end
    seats = seat_users(host.api, table_id, users)
    moved = 0
    while True:
        current = state(host, table_id)
        if current["status"] == "finished":
            break
        for user in seats.values():
            mine = state(user, table_id)
            if mine["legal_moves"]:
                if moved == 3 and "tables_state" not in rec.examples:
                    rec("tables_state", user.api.get(f"/api/v1/tables/{table_id}/state"),
                        summary="your view of a President table in play")
                choice = mine["legal_moves"][0]
                response = user.api.post(f"/api/v1/tables/{table_id}/moves", choice, format="json")
                if choice["type"] != "pass" and "tables_moves_create" not in rec.examples:
                    rec("tables_moves_create", response, choice, summary="play the cards legal_moves lists")
                assert response.status_code == 200, response.content
                moved += 1
                break
    rec("tables_moves_list", host.api.get(f"/api/v1/tables/{table_id}/moves?limit=6"), summary="the log's first entries")
    rec("me_tables", host.api.get("/api/v1/me/tables"), summary="your tables, newest first")
    exported = rec("tables_export", host.api.get(f"/api/v1/tables/{table_id}/export"),
                   summary="a finished President table: its deals, secrets and moves").json()
    rec("replays_verify", host.api.post("/api/v1/replays/verify", exported, format="json"), exported,
        summary="the export above, verified")
    rec("players_retrieve", host.api.get("/api/v1/players/" + host.username), summary="a player's ratings")
    rec("leaderboards_retrieve", host.api.get("/api/v1/leaderboards/president"), summary="the President leaderboard")

    # invitations and the rematch of the finished table
    rematched = rec("tables_rematch", users[1].api.post(f"/api/v1/tables/{table_id}/rematch"), expect=201,
                    summary="the same table again: you its host, the bots seated, the other players invited").json()
    rec("me_invitations_list", host.api.get("/api/v1/me/invitations"), summary="your invitations, pending first")
    mine = host.api.get("/api/v1/me/invitations").json()[0]["id"]
    rec("me_invitations_accept", host.api.post(f"/api/v1/me/invitations/{mine}/accept"),
        summary="seated at the rematch, as a join would")
    theirs = users[2].api.get("/api/v1/me/invitations").json()[0]["id"]
    rec("me_invitations_decline", users[2].api.post(f"/api/v1/me/invitations/{theirs}/decline"),
        summary="no, thanks: the host is told")
    body = {"username": "alice"}
    rec("tables_invitations_create",
        users[1].api.post(f"/api/v1/tables/{rematched['id']}/invitations", body, format="json"), body, expect=201,
        summary="the host invites a player by name")

    rec("me_webhooks_list", host.api.get("/api/v1/me/webhooks"), summary="your webhooks")
    rec("me_webhooks_retrieve", host.api.get(f"/api/v1/me/webhooks/{webhook['id']}"), summary="one webhook")
    body = {"events": ["your_turn", "table_started", "table_finished"], "active": True}
    rec("me_webhooks_update", host.api.patch(f"/api/v1/me/webhooks/{webhook['id']}", body, format="json"), body,
        summary="also told of starts")
    rec("me_webhooks_deliveries", host.api.get(f"/api/v1/me/webhooks/{webhook['id']}/deliveries"),
        summary="the last deliveries, newest first")
    rec("me_webhooks_delete", host.api.delete(f"/api/v1/me/webhooks/{webhook['id']}"), expect=204,
        parameters={"webhook_id": webhook["id"]}, summary="delete a webhook")

    # tokens
    body = {"name": "my scoreboard", "scopes": ["read"], "expires_in": 2592000}
    created = rec("me_tokens_create", host.api.post("/api/v1/me/tokens", body, format="json"), body,
                  summary="a read-only token for 30 days").json()
    secrets.append(created["token"])
    rec("me_tokens_list", host.api.get("/api/v1/me/tokens"), summary="your live tokens")
    rec("me_tokens_revoke", host.api.delete(f"/api/v1/me/tokens/{created['id']}"), expect=204,
        parameters={"token_id": created["id"]}, summary="revoke a token")

    # a bot account: an account that has played nothing, upgraded
    bot = make_user(username="mybot")
    secrets.append(bot.token)
    rec("bot_account_upgrade", bot.api.post("/api/v1/bot/account/upgrade"),
        summary="your account, a bot account from now on")

    # quick play
    body = {"seats": 4, "bots_after": 30}
    rec("lobby_quick_play", users[2].api.post("/api/v1/lobby/president/quick-play", body, format="json"), body,
        summary="seated at a rated President table")
    rec("lobby_quick_play_leave", users[2].api.delete("/api/v1/lobby/president/quick-play"), expect=204,
        parameters={"game": "president"}, summary="leave President's quick play")

    # Lopti: a house rule in the winner's window, its edit and deletion, a session
    table_id, users = table_of("lopti", 3, options=QUICK, seed=11)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    current = play_until(table_id, users, lambda s: s["phase"] == "house_rule", random.Random(1))
    winner = seat_users(users[0].api, table_id, users)[current["public"]["window"]["winner"]]
    body = {"rule": RULE}
    rule_id = rec("lopti_house_rules_submit", winner.api.post(f"/api/v1/tables/{table_id}/house-rules", body, format="json"),
                  body, summary="the round's winner writes a house rule").json()[0]["id"]
    rec("lopti_house_rules_list", winner.api.get(f"/api/v1/tables/{table_id}/house-rules"), summary="the table's house rules")
    body = {"rule": {**RULE, "description": "After an ace, the next player draws one card."}}
    rec("lopti_house_rules_edit", winner.api.patch(f"/api/v1/tables/{table_id}/house-rules/{rule_id}", body, format="json"),
        body, summary="its author rewrites it before the round begins")
    rec("lopti_house_rules_delete", winner.api.delete(f"/api/v1/tables/{table_id}/house-rules/{rule_id}"),
        summary="its author deletes it")

    # Lopti: a vote, its ballots, a tie and the duel that decides it
    table_id, users = table_of("lopti", 2, options=QUICK, seed=5)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    seats = seat_users(users[0].api, table_id, users)
    proposer, opponent = seats[0], seats[1]
    body = {"kind": "base_rule", "key": "ten_clears", "value": False, "applies": "now"}
    vote = rec("lopti_votes_propose", proposer.api.post(f"/api/v1/tables/{table_id}/rule-votes", body, format="json"),
               body, summary="propose: tens no longer clear the pile").json()
    vote_url = f"/api/v1/tables/{table_id}/rule-votes/{vote['id']}"
    body = {"yes": False}
    tied = rec("lopti_votes_ballot", opponent.api.post(f"{vote_url}/ballots", body, format="json"), body,
               summary="a no: one each, a tie").json()
    rec("lopti_votes_retrieve", proposer.api.get(vote_url), summary="the tied vote")
    duel_url = f"/api/v1/tables/{table_id}/duels/{tied['duel']}"
    rec("lopti_duels_retrieve", proposer.api.get(duel_url), summary="the duel deciding the vote")
    body = {"throw": "paper"}
    rec("lopti_duels_throw", proposer.api.post(f"{duel_url}/throws", body, format="json"), body,
        summary="your throw, hidden until both threw")

    # A champion is needed only when a house rule's author left the session (L-12.3), out of
    # reach here: the answer to a champion is the vote, as its retrieval shows it.
    rec.examples["lopti_votes_champion"] = {**rec.examples["lopti_votes_retrieve"],
                                            "summary": "the vote, your championing recorded"}

    # Lopti: a new session
    table_id, users = table_of("lopti", 3, options=QUICK, seed=11)
    users[0].api.post(f"/api/v1/tables/{table_id}/start")
    play_until(table_id, users, lambda s: s["phase"] == "house_rule", random.Random(1))
    rec("lopti_sessions_new", users[0].api.post(f"/api/v1/tables/{table_id}/sessions"), summary="a new session at the table")

    # the event stream: its opening, as a WSGI client gets it
    events = host.api.get(f"/api/v1/tables/{other['id']}/events")
    text = b"".join(events.streaming_content).decode() if events.streaming else events.content.decode()
    event = dict(line.split(": ", 1) for line in text.split("\n\n")[1].splitlines())
    assert event["event"] == "state", text
    rec.examples["tables_events"] = {"summary": "an event: the table's state at a version", "status": 200,
                                     "response": event, "stream": text}

    # the account stream: its opening, resumed from the start, as a WSGI client gets it
    stream = host.api.get("/api/v1/stream/events?after=0")
    text = b"".join(stream.streaming_content).decode() if stream.streaming else stream.content.decode()
    event = dict(line.split(": ", 1) for line in [b for b in text.split("\n\n") if b.startswith("id: ")][-1].splitlines())
    rec.examples["stream_events"] = {"summary": "an event of your account stream (resumed with ?after=0)",
                                     "status": 200, "response": event, "stream": text}

    OUT.write_text(scrub(json.dumps(rec.examples, indent=1, sort_keys=True, default=str), secrets) + "\n")

