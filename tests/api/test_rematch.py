"""Rematch (docs/api.md, "Account stream, invitations and rematch"): a player of a finished table
opens its rematch once; every later call answers with the same table."""

from __future__ import annotations

import json
import random

import pytest

from games.models import Invitation, Seat, Table
from games.services import tables
from tests.api.helpers import president_hands_deck
from tests.api.invitation_helpers import account_events, assert_error, open_table
from tests.api.test_lopti_sessions import QUICK, play_until
from tests.reliability.tables import json_strings


def rematch(user, table_id, **headers):
    return user.api.post(f"/api/v1/tables/{table_id}/rematch", **headers)


def summary(user, table_id) -> dict:
    return user.api.get(f"/api/v1/tables/{table_id}").json()


def finished_with_a_bot(make_user, **fields):
    """A President table of 4 (host, two players, an `easy` bot in seat 3), started, then aborted by
    an operator: finished. Returns (table_id, host, player, other)."""
    host, player, other = make_user(), make_user(), make_user()
    table_id = open_table(host, **fields)
    for user in (player, other):
        assert user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    assert host.api.post(f"/api/v1/tables/{table_id}/bots", {"level": "easy"}, format="json").status_code == 200
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    tables.table_abort(table_id=table_id)
    return table_id, host, player, other


@pytest.mark.django_db
def test_a_player_opens_the_rematch_with_the_same_table_and_everyone_asked(make_user):
    table_id, host, player, other = finished_with_a_bot(
        make_user, options={"hands": 2, "bot_delay": 0.2, "rated": False}, turn_timeout=90)
    old = summary(host, table_id)
    made = rematch(player, table_id)  # not the host: any player may ask
    assert made.status_code == 201, made.content
    new = made.json()
    assert new["id"] != table_id and new["status"] == "open" and new["game"] == "president"
    assert new["options"] == old["options"] == {**old["options"], "hands": 2, "bot_delay": 0.2, "rated": False}
    assert (new["turn_timeout"], new["private"], new["invite_only"]) == (90, False, False)
    assert len(new["seats"]) == 4 and new["host"]["id"] == player.pk
    assert new["seats"][0]["player"]["id"] == player.pk
    # The old table's bot is seated again, at its level; the other seats wait for the invitees.
    bots = Seat.objects.filter(table_id=new["id"], is_bot=True)
    assert [(s.index, s.bot_level) for s in bots] == [(1, "easy")]
    assert [s["player"] for s in new["seats"][2:]] == [None, None]
    # Every other human of the old table is invited, and told twice: invited, rematch_offered.
    for user in (host, other):
        [invitation] = user.api.get("/api/v1/me/invitations").json()
        assert invitation["table"] == new["id"] and invitation["status"] == "pending" and invitation["rematch"] is True
        assert invitation["by"]["id"] == player.pk
        [invited] = account_events(user, "invited")
        assert invited["data"]["invitation"]["id"] == invitation["id"]
        [offered] = account_events(user, "rematch_offered")
        assert str(offered["table"]) == new["id"]
        assert offered["data"]["table"] == new["id"] and offered["data"]["rematch_of"] == table_id
        assert offered["data"]["invitation"]["id"] == invitation["id"]
    assert account_events(player, "invited") == [] and account_events(player, "rematch_offered") == []
    assert not Invitation.objects.filter(to__is_bot=True).exists()
    # The old table names its rematch, at a new version.
    after = summary(host, table_id)
    assert after["rematch"] == new["id"] and after["version"] > old["version"]
    assert new["rematch"] is None


@pytest.mark.django_db
def test_a_second_rematch_call_by_anyone_answers_the_same_table_and_invites_no_one_again(make_user):
    table_id, host, player, other = finished_with_a_bot(make_user)
    first = rematch(other, table_id).json()
    invitations = Invitation.objects.count()
    for user in (host, player, other):
        again = rematch(user, table_id)
        assert again.status_code == 200, again.content
        assert again.json()["id"] == first["id"] and again.json()["host"]["id"] == other.pk
    assert Invitation.objects.count() == invitations
    assert len(account_events(host, "rematch_offered")) == 1
    assert Table.objects.count() == 2


@pytest.mark.django_db
def test_a_rematch_needs_a_finished_table_and_one_of_its_players(make_user):
    host, player, outsider = make_user(), make_user(), make_user()
    table_id = open_table(host, seats=4)
    assert_error(rematch(host, table_id), 409, "conflict")
    assert_error(rematch(outsider, table_id), 403, "forbidden")
    assert_error(rematch(host, "00000000-0000-4000-8000-000000000000"), 404, "not_found")
    player.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    for _ in range(2):
        host.api.post(f"/api/v1/tables/{table_id}/bots", {"level": "random"}, format="json")
    host.api.post(f"/api/v1/tables/{table_id}/start")
    assert_error(rematch(player, table_id), 409, "conflict")
    assert_error(rematch(outsider, table_id), 403, "forbidden")
    tables.table_abort(table_id=table_id)
    assert_error(rematch(outsider, table_id), 403, "forbidden")
    assert Table.objects.count() == 1 and not Invitation.objects.exists()


@pytest.mark.django_db
def test_a_table_played_to_its_end_gets_its_rematch_and_an_invitee_accepts(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host, game="lopti", seats=2, options={**QUICK, "rounds": 1})
    guest.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    host.api.post(f"/api/v1/tables/{table_id}/start")
    play_until(table_id, [host, guest], lambda s: s["status"] == "finished", random.Random(3))
    assert Table.objects.get(pk=table_id).aborted is False
    new = rematch(guest, table_id).json()
    assert new["game"] == "lopti" and new["options"]["rounds"] == 1
    [invitation] = host.api.get("/api/v1/me/invitations").json()
    accepted = host.api.post(f"/api/v1/me/invitations/{invitation['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    seats = summary(host, new["id"])["seats"]
    assert [s["player"]["id"] for s in seats] == [guest.pk, host.pk]
    assert guest.api.post(f"/api/v1/tables/{new['id']}/start").status_code == 200


@pytest.mark.django_db
def test_an_invite_only_tables_rematch_is_invite_only_and_takes_its_invitees(make_user):
    host, guest, stranger = make_user(), make_user(), make_user()
    table_id = open_table(host, game="lopti", seats=2, invite_only=True, options={**QUICK, "rounds": 1})
    made = host.api.post(f"/api/v1/tables/{table_id}/invitations", {"username": guest.username}, format="json").json()
    guest.api.post(f"/api/v1/me/invitations/{made['id']}/accept")
    host.api.post(f"/api/v1/tables/{table_id}/start")
    tables.table_abort(table_id=table_id)
    new = rematch(host, table_id).json()
    assert new["invite_only"] is True
    assert_error(stranger.api.post(f"/api/v1/tables/{new['id']}/join", {}, format="json"), 403, "forbidden")
    assert guest.api.post(f"/api/v1/tables/{new['id']}/join", {}, format="json").status_code == 200


@pytest.mark.django_db
def test_a_rematch_left_empty_and_deleted_makes_way_for_a_new_one(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host, game="lopti", seats=2, options={**QUICK, "rounds": 1})
    guest.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    host.api.post(f"/api/v1/tables/{table_id}/start")
    tables.table_abort(table_id=table_id)
    first = rematch(guest, table_id).json()
    assert guest.api.post(f"/api/v1/tables/{first['id']}/leave").status_code == 204
    assert summary(host, table_id)["rematch"] is None
    assert not Invitation.objects.filter(table_id=first["id"]).exists()
    second = rematch(host, table_id)
    assert second.status_code == 201 and second.json()["id"] != first["id"]


@pytest.mark.django_db
def test_a_rematch_replays_its_idempotency_key(make_user):
    table_id, host, player, _ = finished_with_a_bot(make_user)
    first = rematch(player, table_id, HTTP_IDEMPOTENCY_KEY="again")
    replayed = rematch(player, table_id, HTTP_IDEMPOTENCY_KEY="again")
    assert first.status_code == replayed.status_code == 201
    assert replayed["Idempotent-Replayed"] == "true" and replayed.json()["id"] == first.json()["id"]
    assert rematch(player, table_id, HTTP_IDEMPOTENCY_KEY="another").status_code == 200


@pytest.mark.django_db
def test_no_invitation_or_rematch_answer_or_event_holds_a_card(make_user):
    """An invitation still pending when its table starts (with a known deal), the answers to it
    while the hands are in play, then the table aborted mid-hand (every hand still hidden), its
    rematch and the rematch's invitations and answers, and every account event: no card code
    anywhere."""
    hands, deck = president_hands_deck()
    host = make_user(staff=True)
    players = [make_user() for _ in range(3)]
    late = make_user()
    table_id = open_table(host, deck=deck, first_dealer=3)
    texts = [host.api.post(f"/api/v1/tables/{table_id}/invitations", {"username": late.username},
                           format="json").content.decode()]
    for user in players:
        user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    host.api.post(f"/api/v1/tables/{table_id}/start")
    listed = late.api.get("/api/v1/me/invitations")
    assert listed.json()[0]["table_status"] == "active"
    texts.append(listed.content.decode())
    late_id = listed.json()[0]["id"]
    for verb in ("accept", "decline"):
        texts.append(late.api.post(f"/api/v1/me/invitations/{late_id}/{verb}").content.decode())
    tables.table_abort(table_id=table_id)
    texts += [rematch(players[0], table_id).content.decode(), rematch(host, table_id).content.decode()]
    new_id = summary(host, table_id)["rematch"]
    fresh = make_user()
    texts.append(host.api.get("/api/v1/me/invitations").content.decode())
    texts.append(players[0].api.post(f"/api/v1/tables/{new_id}/invitations", {"username": fresh.username},
                                     format="json").content.decode())
    for user, verb in ((host, "accept"), (players[1], "decline"), (fresh, "accept")):
        [invitation] = user.api.get("/api/v1/me/invitations").json()
        texts.append(user.api.post(f"/api/v1/me/invitations/{invitation['id']}/{verb}").content.decode())
    cards = {card for hand in hands for card in hand}
    found = set().union(*(json_strings(text) for text in texts))
    assert len(found) > 20 and not (found & cards), sorted(found & cards)
    events = [event for user in (host, *players, late, fresh) for event in account_events(user)]
    assert {"invited", "invitation_declined", "rematch_offered"} <= {event["type"] for event in events}
    for event in events:
        assert not (json_strings(json.dumps(event, default=str)) & cards), event
