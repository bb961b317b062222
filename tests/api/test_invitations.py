"""Invitations and invite-only tables (docs/api.md, "Account stream, invitations and rematch"):
each ruling of the section, its errors included, through the API."""

from __future__ import annotations

import pytest

from accounts.services import bot_user_get_or_create
from games.models import Invitation, Table
from tests.api.invitation_helpers import account_events, assert_error, open_table


def invite(host, table_id, username, **extra):
    return host.api.post(f"/api/v1/tables/{table_id}/invitations", {"username": username, **extra}, format="json")


def answer(user, invitation_id, verb):
    return user.api.post(f"/api/v1/me/invitations/{invitation_id}/{verb}")


def seated(table_id) -> list[int | None]:
    return list(Table.objects.get(pk=table_id).seats.order_by("index").values_list("user_id", flat=True))


@pytest.mark.django_db
def test_the_host_invites_and_the_invitee_sees_it_and_is_told(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host)
    made = invite(host, table_id, guest.username.upper())  # usernames match in any case
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["table"] == table_id and body["status"] == "pending" and body["game"] == "president"
    assert body["to"] == {"id": guest.pk, "username": guest.username}
    assert body["by"] == {"id": host.pk, "username": host.username}
    assert body["table_status"] == "open" and body["rematch"] is False and body["answered_at"] is None
    listed = guest.api.get("/api/v1/me/invitations").json()
    assert [i["id"] for i in listed] == [body["id"]]
    assert host.api.get("/api/v1/me/invitations").json() == []  # sent, not received
    [event] = account_events(guest, "invited")
    assert str(event["table"]) == table_id
    assert event["data"]["invitation"]["id"] == body["id"]
    assert event["data"]["game"] == "president" and event["data"]["table"] == table_id
    assert event["data"]["host"] == {"id": host.pk, "username": host.username}
    assert account_events(host, "invited") == []


@pytest.mark.django_db
def test_inviting_refuses_what_the_rulings_refuse(make_user, table_of):
    host, guest, stranger = make_user(), make_user(), make_user()
    table_id = open_table(host)
    assert_error(invite(host, "00000000-0000-4000-8000-000000000000", guest.username), 404, "not_found")
    assert_error(invite(stranger, table_id, guest.username), 403, "forbidden")
    assert_error(invite(host, table_id, "nobody-by-that-name"), 400, "invalid")
    assert_error(invite(host, table_id, host.username), 400, "invalid")
    bot_user_get_or_create(level="easy")
    assert_error(invite(host, table_id, "bot:easy"), 400, "invalid")  # a built-in bot: POST /bots
    gone = make_user()
    gone.is_active = False
    gone.save()
    assert_error(invite(host, table_id, gone.username), 400, "invalid")
    assert_error(invite(host, table_id, ""), 400, "invalid")
    first = invite(host, table_id, guest.username).json()
    again = assert_error(invite(host, table_id, guest.username), 409, "conflict")
    assert again["detail"]["invitation"] == first["id"]
    assert Invitation.objects.filter(table_id=table_id, to=guest).count() == 1
    stranger.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    assert_error(invite(host, table_id, stranger.username), 409, "conflict")  # already seated
    full_id, users = table_of("president", 4)
    users[0].api.post(f"/api/v1/tables/{full_id}/start")
    assert_error(invite(users[0], full_id, guest.username), 400, "invalid")  # not open any more
    assert not account_events(stranger, "invited")


@pytest.mark.django_db
def test_an_invitation_on_a_table_checks_expected_version(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host)
    version = Table.objects.get(pk=table_id).version
    stale = invite(host, table_id, guest.username, expected_version=version + 3)
    assert_error(stale, 409, "stale_version")
    assert not Invitation.objects.exists()
    assert invite(host, table_id, guest.username, expected_version=version).status_code == 201


@pytest.mark.django_db
def test_accepting_seats_the_invitee_as_a_join_and_is_final(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host)
    made = invite(host, table_id, guest.username).json()
    version = Table.objects.get(pk=table_id).version
    accepted = answer(guest, made["id"], "accept")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["status"] == "accepted" and accepted.json()["answered_at"] is not None
    assert seated(table_id) == [host.pk, guest.pk, None, None]  # the lowest free seat, as a join
    assert Table.objects.get(pk=table_id).version > version
    # The same answer again changes nothing; the other answer is refused.
    again = answer(guest, made["id"], "accept")
    assert again.status_code == 200 and again.json() == accepted.json()
    assert seated(table_id) == [host.pk, guest.pk, None, None]
    assert_error(answer(guest, made["id"], "decline"), 409, "conflict")
    assert Invitation.objects.get(pk=made["id"]).status == "accepted"
    assert account_events(host, "invitation_declined") == []


@pytest.mark.django_db
def test_declining_tells_the_host_and_is_final_and_the_host_may_invite_again(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host)
    made = invite(host, table_id, guest.username).json()
    declined = answer(guest, made["id"], "decline")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert seated(table_id) == [host.pk, None, None, None]
    [event] = account_events(host, "invitation_declined")
    assert event["data"]["invitation"]["id"] == made["id"] and event["data"]["invitation"]["status"] == "declined"
    assert event["data"]["by"] == {"id": guest.pk, "username": guest.username}
    assert event["data"]["table"] == table_id and event["data"]["game"] == "president"
    assert answer(guest, made["id"], "decline").json() == declined.json()
    assert len(account_events(host, "invitation_declined")) == 1  # told once
    assert_error(answer(guest, made["id"], "accept"), 409, "conflict")
    assert seated(table_id) == [host.pk, None, None, None]
    assert invite(host, table_id, guest.username).status_code == 201


@pytest.mark.django_db
def test_only_the_invitee_may_answer_and_anyone_elses_is_not_found(make_user):
    host, guest, other = make_user(), make_user(), make_user()
    table_id = open_table(host)
    made = invite(host, table_id, guest.username).json()
    for user in (host, other):
        for verb in ("accept", "decline"):
            assert_error(answer(user, made["id"], verb), 404, "not_found")
    assert_error(answer(guest, made["id"] + 1000, "accept"), 404, "not_found")
    assert Invitation.objects.get(pk=made["id"]).status == "pending"
    assert seated(table_id) == [host.pk, None, None, None]


@pytest.mark.django_db
def test_accepting_a_full_or_started_table_is_the_joins_conflict_and_the_invitation_stays(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host, seats=4)
    made = invite(host, table_id, guest.username).json()
    for _ in range(3):
        assert make_user().api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    assert_error(answer(guest, made["id"], "accept"), 409, "conflict")
    assert Invitation.objects.get(pk=made["id"]).status == "pending"
    host.api.post(f"/api/v1/tables/{table_id}/start")
    refused = assert_error(answer(guest, made["id"], "accept"), 409, "conflict")
    assert "started" in refused["message"]
    listed = guest.api.get("/api/v1/me/invitations").json()
    assert listed[0]["table_status"] == "active" and listed[0]["status"] == "pending"


@pytest.mark.django_db
def test_joining_with_a_pending_invitation_accepts_it(make_user):
    host, guest = make_user(), make_user()
    table_id = open_table(host)
    made = invite(host, table_id, guest.username).json()
    assert guest.api.post(f"/api/v1/tables/{table_id}/join", {"seat": 3}, format="json").status_code == 200
    assert Invitation.objects.get(pk=made["id"]).status == "accepted"
    assert seated(table_id) == [host.pk, None, None, guest.pk]


@pytest.mark.django_db
def test_an_invite_only_table_takes_only_invitees_and_is_not_listed(make_user):
    host, guest, stranger = make_user(), make_user(), make_user()
    table_id = open_table(host, invite_only=True)
    summary = host.api.get(f"/api/v1/tables/{table_id}").json()
    assert summary["invite_only"] is True and summary["private"] is False
    assert summary["options"]["rated"] is True  # invite_only leaves `rated` at its default
    assert_error(stranger.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json"), 403, "forbidden")
    made = invite(host, table_id, guest.username).json()
    assert guest.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    assert Invitation.objects.get(pk=made["id"]).status == "accepted"
    # A declined invitation is no ticket in.
    third = make_user()
    declined = invite(host, table_id, third.username).json()
    answer(third, declined["id"], "decline")
    assert_error(third.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json"), 403, "forbidden")
    assert seated(table_id) == [host.pk, guest.pk, None, None]
    # Listed: neither an invite-only table nor a private one; a plain table is, showing the field.
    private_id = open_table(host, private=True)
    public_id = open_table(host)
    listed = {t["id"]: t for t in stranger.api.get("/api/v1/tables?limit=200").json()["results"]}
    assert public_id in listed and listed[public_id]["invite_only"] is False
    assert table_id not in listed and private_id not in listed
    # `private` keeps its meaning: anyone with the id joins.
    assert stranger.api.post(f"/api/v1/tables/{private_id}/join", {}, format="json").status_code == 200


@pytest.mark.django_db
def test_invite_only_must_be_a_boolean(make_user):
    host = make_user()
    refused = host.api.post("/api/v1/tables", {"game": "president", "seats": 4, "invite_only": "maybe"}, format="json")
    assert_error(refused, 400, "invalid")
    assert "invite_only" in refused.json()["detail"]["fields"]


@pytest.mark.django_db
def test_my_invitations_list_pending_first_then_newest_and_filter_by_status(make_user):
    guest = make_user()
    hosts = [make_user() for _ in range(4)]
    ids = []
    for host in hosts:
        ids.append(invite(host, open_table(host), guest.username).json()["id"])
    answer(guest, ids[0], "decline")
    answer(guest, ids[2], "accept")
    listed = [i["id"] for i in guest.api.get("/api/v1/me/invitations").json()]
    assert listed == [ids[3], ids[1], ids[2], ids[0]]
    pending = guest.api.get("/api/v1/me/invitations?status=pending").json()
    assert [i["id"] for i in pending] == [ids[3], ids[1]]
    assert [i["id"] for i in guest.api.get("/api/v1/me/invitations?status=declined").json()] == [ids[0]]
    assert_error(guest.api.get("/api/v1/me/invitations?status=maybe"), 400, "invalid")


@pytest.mark.django_db
def test_an_invitation_or_a_decline_is_never_stored_without_its_event(make_user, monkeypatch):
    from games.services import account_events as events
    from games.services import invitations

    host, guest = make_user(), make_user()
    table_id = open_table(host)
    made = invite(host, table_id, guest.username).json()

    def broken(**kwargs):
        raise RuntimeError("the event store is down")

    monkeypatch.setattr(events, "record", broken)
    with pytest.raises(RuntimeError):
        invitations.invitation_create(table_id=table_id, user=host, username=make_user().username)
    with pytest.raises(RuntimeError):
        invitations.invitation_decline(invitation_id=made["id"], user=guest)
    assert list(Invitation.objects.values_list("pk", "status")) == [(made["id"], "pending")]


@pytest.mark.django_db
def test_invitations_need_the_play_scope_and_listing_the_read_scope(make_user):
    from tests.api.test_tokens_and_scopes import client_with, pat

    host, guest = make_user(), make_user()
    table_id = open_table(host)
    reader, _ = pat(host, "read")
    refused = client_with(reader).post(f"/api/v1/tables/{table_id}/invitations", {"username": guest.username},
                                       format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == {"required": "play"}
    made = invite(host, table_id, guest.username).json()
    guest_reader, _ = pat(guest, "read")
    assert client_with(guest_reader).get("/api/v1/me/invitations").status_code == 200
    refused = client_with(guest_reader).post(f"/api/v1/me/invitations/{made['id']}/accept")
    assert refused.status_code == 403 and refused.json()["detail"] == {"required": "play"}


@pytest.mark.django_db
def test_operators_see_invitations_in_the_admin_and_cannot_add_or_edit_them(client, make_user):
    from accounts.models import User

    operator = User.objects.create_superuser("operator", "op@example.com", "operator password")
    client.force_login(operator)
    host, guest = make_user(), make_user()
    table_id = open_table(host, invite_only=True)
    made = invite(host, table_id, guest.username).json()
    listing = client.get("/admin/games/invitation/?status__exact=pending")
    assert listing.status_code == 200 and guest.username in listing.content.decode()
    assert client.get("/admin/games/invitation/add/").status_code == 403
    page = client.get(f"/admin/games/invitation/{made['id']}/change/")
    assert page.status_code == 200 and 'name="status"' not in page.content.decode()  # shown, not editable
    client.post(f"/admin/games/invitation/{made['id']}/change/", {"status": "accepted"})
    assert Invitation.objects.get(pk=made["id"]).status == "pending"
    table_page = client.get(f"/admin/games/table/{table_id}/change/").content.decode()
    assert "Invite only" in table_page or "invite_only" in table_page


@pytest.mark.django_db
def test_the_invitation_events_match_their_account_stream_schemas(make_user):
    """Real `invited`, `invitation_declined` and `rematch_offered` bodies validate against their
    components in the OpenAPI schema (`InvitedAccountEvent`, ...)."""
    from django.test import Client

    from games.services import tables
    from tests.api.test_typed_contract import check

    raw = Client().get("/api/schema/?format=json").json()
    host, guest = make_user(), make_user()
    table_id = open_table(host, game="lopti", seats=2)
    made = invite(host, table_id, guest.username).json()
    answer(guest, made["id"], "decline")
    invite(host, table_id, guest.username)
    guest.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    host.api.post(f"/api/v1/tables/{table_id}/start")
    tables.table_abort(table_id=table_id)
    assert guest.api.post(f"/api/v1/tables/{table_id}/rematch").status_code == 201
    bodies = [e for user in (host, guest) for e in account_events(user)
              if e["type"] in ("invited", "invitation_declined", "rematch_offered")]
    assert sorted(e["type"] for e in bodies) == ["invitation_declined", "invited", "invited", "invited",
                                                 "rematch_offered"]
    for body in bodies:
        name = "".join(part.capitalize() for part in body["type"].split("_")) + "AccountEvent"
        check(raw, {"$ref": f"#/components/schemas/{name}"}, body, body["type"])
