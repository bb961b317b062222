"""Bot accounts (docs/api.md, "Bot accounts"; docs/bots-accounts.md): the upgrade and who may
make it, the marks on profiles and seats, the `bot` scope a bot account plays with, quick play
closed to bot accounts, and the bot accounts' own leaderboard."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import scopes, tokens
from accounts.models import ApiToken, User
from games.models import Move, Rating, Seat, Table
from games.services import lobby

pytestmark = pytest.mark.django_db

UPGRADE = "/api/v1/bot/account/upgrade"


def upgrade(user):
    return user.api.post(UPGRADE)


def pat(user, *held):
    made = user.api.post("/api/v1/me/tokens", {"name": "bot runner", "scopes": list(held)}, format="json")
    assert made.status_code == 201, made.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {made.json()['token']}")
    return client


def open_table(host, game="pitch", seats=4):
    made = host.api.post("/api/v1/tables", {"game": game, "seats": seats}, format="json")
    assert made.status_code == 201, made.content
    return made.json()["id"]


def test_the_upgrade_marks_the_account_for_good_and_answers_its_profile(make_user):
    bot, person = make_user(), make_user()
    answered = upgrade(bot)
    assert answered.status_code == 200, answered.content
    profile = answered.json()
    assert profile["is_bot_account"] is True and profile["username"] == bot.username
    assert profile == bot.api.get("/api/v1/me").json()  # the profile, as /me answers it
    assert User.objects.get(pk=bot.pk).is_bot_account
    # Profiles say so: the bot's own, its public profile; a person's say the opposite.
    assert person.api.get("/api/v1/me").json()["is_bot_account"] is False
    public = person.api.get(f"/api/v1/players/{bot.username}").json()
    assert public["is_bot_account"] is True and public["is_bot"] is False  # not a built-in bot
    assert bot.api.get(f"/api/v1/players/{person.username}").json()["is_bot_account"] is False


def test_upgrading_again_changes_nothing_and_answers_200(make_user, table_of):
    """Ruling: the upgrade is idempotent (a retry after a lost answer is safe), even once the bot
    account has played, which a first upgrade would refuse."""
    bot = make_user()
    first = upgrade(bot).json()
    host = make_user()
    bot.api.post(f"/api/v1/tables/{open_table(host)}/join", {}, format="json")
    again = upgrade(bot)
    assert again.status_code == 200 and again.json()["is_bot_account"] is True
    assert {k: v for k, v in again.json().items() if k != "stats"} == {k: v for k, v in first.items() if k != "stats"}
    assert ApiToken.objects.filter(user=bot, kind="first_party").get().scopes == list(scopes.SCOPES)


@pytest.mark.parametrize("history", ["seated at an open table", "hosts a table", "played a finished table", "rated"])
def test_an_account_that_has_played_cannot_upgrade(make_user, history):
    user = make_user()
    if history == "seated at an open table":
        user.api.post(f"/api/v1/tables/{open_table(make_user())}/join", {}, format="json")
        expected = ["seated"]
    elif history == "hosts a table":
        open_table(user)
        expected = ["seated", "hosts"]
    elif history == "played a finished table":
        host = make_user()
        table_id = open_table(host)
        user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
        Table.objects.filter(pk=table_id).update(status=Table.Status.FINISHED)
        expected = ["seated"]
    else:
        Rating.objects.create(user=user, game="president", mu=25, sigma=8, rating=1000, games=1)
        expected = ["rated"]
    refused = upgrade(user)
    assert refused.status_code == 409, refused.content
    body = refused.json()
    assert body["code"] == "conflict" and "played no table" in body["message"]
    assert body["detail"] == {"played": expected}
    assert User.objects.get(pk=user.pk).is_bot_account is False
    assert scopes.BOT not in ApiToken.objects.get(user=user, kind="first_party").scopes


def test_a_seat_given_back_before_the_start_leaves_no_trace(make_user):
    """Ruling: "played no table" is read from what the account holds: a seat, a hosted table, a
    move, a rating. A seat left before the table started is freed and played nothing."""
    user = make_user()
    table_id = open_table(make_user())
    user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    assert user.api.post(f"/api/v1/tables/{table_id}/leave").status_code == 200
    assert upgrade(user).status_code == 200


def test_only_a_first_party_login_upgrades(make_user, client):
    user = make_user()
    everything = pat(user, "read", "play", "host", "webhooks")
    refused = everything.post(UPGRADE)
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert "first-party" in refused.json()["message"]
    assert User.objects.get(pk=user.pk).is_bot_account is False
    # The web client's session is a first-party login.
    session = APIClient()
    session.force_login(user)
    assert session.post(UPGRADE).status_code == 200
    assert User.objects.get(pk=user.pk).is_bot_account is True
    assert APIClient().post(UPGRADE).status_code == 401


def test_first_party_tokens_take_the_bot_scope_and_personal_tokens_may_ask_for_it(make_user, anon):
    bot, person = make_user(), make_user()
    before = bot.api.get("/api/v1/me").json()  # the token is cached now: the upgrade must drop it
    assert before["is_bot_account"] is False and tokens.cached(bot.token) is not None
    asked = bot.api.post("/api/v1/me/tokens", {"name": "b", "scopes": ["read", "bot"]}, format="json")
    assert asked.status_code == 400  # not a bot account yet
    upgrade(bot)
    listed = bot.api.get("/api/v1/me/tokens").json()
    assert [t["scopes"] for t in listed if t["kind"] == "first_party"] == [list(scopes.SCOPES)]
    # A new login holds it too; a person's does not.
    logged_in = anon.post("/api/v1/auth/token", {"username": bot.username, "password": "correct horse battery"},
                          format="json").json()["token"]
    assert ApiToken.objects.get(digest=tokens.digest(logged_in)).scopes == list(scopes.SCOPES)
    assert ApiToken.objects.get(user=person, kind="first_party").scopes == list(scopes.FIRST_PARTY)
    made = bot.api.post("/api/v1/me/tokens", {"name": "b", "scopes": ["read", "bot"]}, format="json")
    assert made.status_code == 201 and made.json()["scopes"] == ["read", "bot"]


def test_a_bot_account_plays_with_the_bot_scope(make_user):
    """Ruling (accounts.scopes): for a bot account, what needs `play` needs `bot`; reading and
    hosting need what they always did."""
    bot = make_user()
    upgrade(bot)
    host = make_user()
    table_id = open_table(host)
    with_play = pat(bot, "read", "play")
    refused = with_play.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert refused.json()["detail"] == {"required": "bot"}
    assert with_play.get(f"/api/v1/tables/{table_id}").status_code == 200
    # Its session (the web client) holds no `bot`: a bot account's moves are its program's.
    session = APIClient()
    session.force_login(bot)
    assert session.post(f"/api/v1/tables/{table_id}/join", {}, format="json").json()["detail"] == {"required": "bot"}
    with_bot = pat(bot, "read", "bot")
    joined = with_bot.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    assert joined.status_code == 200, joined.content
    # A person's `play` is untouched.
    assert make_user().api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    # Hosting is `host`'s, for a bot account too.
    assert with_bot.post("/api/v1/tables", {"game": "pitch", "seats": 3}, format="json").json()["detail"] == {
        "required": "host"}


def test_a_bot_accounts_seat_is_marked_and_other_seats_keep_their_shape(make_user):
    host, person, bot = make_user(), make_user(), make_user()
    upgrade(bot)
    table_id = open_table(host, game="pitch", seats=4)
    person.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    bot.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json")
    host.api.post(f"/api/v1/tables/{table_id}/bots", {"level": "easy"}, format="json")

    def check(seats):
        by_name = {s["player"]["username"]: s for s in seats}
        assert by_name[bot.username]["is_bot"] is True and by_name[bot.username]["bot"] == {"account": bot.username}
        for name in (host.username, person.username):
            assert by_name[name]["is_bot"] is False and "bot" not in by_name[name]
        builtin = by_name["bot:easy"]
        assert builtin["is_bot"] is True and "bot" not in builtin

    check(host.api.get(f"/api/v1/tables/{table_id}").json()["seats"])
    check(host.api.get("/api/v1/tables?game=pitch").json()["results"][0]["seats"])
    check(host.api.get(f"/api/v1/tables/{table_id}/state").json()["seats"])
    started = host.api.post(f"/api/v1/tables/{table_id}/start")
    check(started.json()["seats"])
    state = bot.api.get(f"/api/v1/tables/{table_id}/state").json()
    check(state["seats"])
    assert state["you"]["seat"] is not None  # the bot account plays its seat itself
    check(bot.api.get("/api/v1/me/tables").json()[0]["seats"])


def test_quick_play_is_closed_to_bot_accounts_and_never_seats_one(make_user, monkeypatch):
    bot, person = make_user(), make_user()
    upgrade(bot)
    refused = bot.api.post("/api/v1/lobby/president/quick-play", {"options": {"hands": 1}}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert "quick play is for people" in refused.json()["message"]
    assert not Seat.objects.filter(user=bot).exists()
    # Nor by the waiting table's id.
    waiting = person.api.post("/api/v1/lobby/president/quick-play", {"options": {"hands": 1}}, format="json").json()
    joined = bot.api.post(f"/api/v1/tables/{waiting['id']}/join", {}, format="json")
    assert joined.status_code == 403 and joined.json()["code"] == "forbidden"
    # Any other open table takes a bot account by its id.
    assert bot.api.post(f"/api/v1/tables/{open_table(person)}/join", {}, format="json").status_code == 200
    # The free seats go to the built-in bots.
    from datetime import timedelta

    from django.utils import timezone

    later = timezone.now() + timedelta(seconds=31)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert lobby.quick_play_fill(table_id=waiting["id"])
    seated = Seat.objects.filter(table_id=waiting["id"]).select_related("user")
    assert [row.user.is_bot_account for row in seated] == [False] * 4
    assert sorted(row.user.is_bot for row in seated) == [False, True, True, True]


def test_the_leaderboard_of_bot_accounts_is_apart(make_user, settings):
    settings.LEADERBOARD_MIN_GAMES = 1
    bot, person = make_user(), make_user()
    upgrade(bot)
    builtin = User.objects.create(username="bot:hard", is_bot=True, bot_level="hard")
    for user, value in ((bot, 1500), (person, 1100), (builtin, 1300)):
        Rating.objects.create(user=user, game="lopti", mu=25, sigma=3, rating=value, games=3)
    people = person.api.get("/api/v1/leaderboards/lopti").json()
    assert [e["username"] for e in people["results"]] == ["bot:hard", person.username]
    assert not any(e["is_bot_account"] for e in people["results"])
    assert person.api.get("/api/v1/leaderboards/lopti?bots=false").json() == people
    bots = person.api.get("/api/v1/leaderboards/lopti?bots=true").json()
    assert bots["count"] == 1 and bots["results"][0]["username"] == bot.username
    assert bots["results"][0]["is_bot_account"] is True and bots["results"][0]["rank"] == 1
    bad = person.api.get("/api/v1/leaderboards/lopti?bots=maybe")
    assert bad.status_code == 400 and bad.json()["detail"]["fields"] == {"bots": ["must be true or false"]}


def test_the_user_admin_shows_bot_accounts_and_does_not_edit_the_mark(client, make_user):
    operator = User.objects.create_superuser("operator", "op@example.com", "operator password")
    client.force_login(operator)
    bot, person = make_user(username="mybot"), make_user(username="aperson")
    upgrade(bot)
    listed = client.get("/admin/accounts/user/?is_bot_account__exact=1").content.decode()
    assert "mybot" in listed and "aperson" not in listed
    page = client.get(f"/admin/accounts/user/{person.pk}/change/").content.decode()
    assert "Is bot account" in page and 'name="is_bot_account"' not in page


def test_a_host_adds_a_bot_account_by_username_as_an_invitation_it_accepts(make_user):
    """api.md, "Bot accounts": `POST /tables/{id}/bots {account}` invites the bot account (201,
    the invitation; `invited` on its account stream); accepting seats it, marked as a bot."""
    from tests.api.invitation_helpers import account_events

    host, bot = make_user(), make_user()
    upgrade(bot)
    table_id = open_table(host, game="pitch", seats=3)
    url = f"/api/v1/tables/{table_id}/bots"
    added = host.api.post(url, {"account": bot.username.upper()}, format="json")
    assert added.status_code == 201, added.content
    invitation = added.json()
    assert (invitation["table"], invitation["to"]["username"], invitation["status"]) == (table_id, bot.username, "pending")
    # Not seated yet: the seat is the bot's program's to take.
    assert all(s["player"] is None for s in host.api.get(f"/api/v1/tables/{table_id}").json()["seats"][1:])
    [event] = account_events(bot, "invited")
    assert event["table"] == table_id and event["data"]["invitation"]["id"] == invitation["id"]
    accepted = bot.api.post(f"/api/v1/me/invitations/{invitation['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted", accepted.content
    seat = host.api.get(f"/api/v1/tables/{table_id}").json()["seats"][1]
    assert seat["player"]["username"] == bot.username and seat["bot"] == {"account": bot.username}
    # Beside the built-in levels, on the same endpoint: the last seat, and the table starts.
    assert host.api.post(url, {"level": "easy"}, format="json").status_code == 200
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200


def test_adding_a_bot_account_refuses_what_is_not_one_and_changes_nothing(make_user):
    from tests.api.invitation_helpers import assert_error

    host, bot, person, stranger = make_user(), make_user(), make_user(), make_user()
    upgrade(bot)
    table_id = open_table(host, game="pitch", seats=3)
    url = f"/api/v1/tables/{table_id}/bots"

    def fields(body):
        return assert_error(host.api.post(url, body, format="json"), 400, "invalid")["detail"]["fields"]

    assert "account" in fields({"account": person.username})  # people are invited with /invitations
    assert "account" in fields({"account": "nobody-at-all"})
    assert "account" in fields({"account": host.username})  # yourself
    assert "non_field_errors" in fields({"account": bot.username, "level": "easy"})
    assert "non_field_errors" in fields({})
    assert "seat" in fields({"account": bot.username, "seat": 2})
    assert_error(stranger.api.post(url, {"account": bot.username}, format="json"), 403, "forbidden")
    assert not bot.invitations.exists()
    assert host.api.post(url, {"account": bot.username}, format="json").status_code == 201
    again = assert_error(host.api.post(url, {"account": bot.username}, format="json"), 409, "conflict")
    assert again["detail"]["invitation"] == bot.invitations.get().pk
    # A table with no free seat is refused: the host asks for a player, not a message.
    for level in ("easy", "random"):
        assert host.api.post(url, {"level": level}, format="json").status_code == 200
    other = make_user()
    upgrade(other)
    assert_error(host.api.post(url, {"account": other.username}, format="json"), 409, "conflict")
    assert not other.invitations.exists()


def test_a_bot_account_that_misses_its_deadlines_is_covered_like_an_absent_player(make_user):
    """api.md, "Time, bots and absence": a missed deadline is a server move; two in a row mark
    the seat away (the bot account hears `seat_away` on its stream) and a built-in bot plays it."""
    from games.engine import registry
    from games.services import automation, moves
    from tests.api.invitation_helpers import account_events

    host, person, bot = make_user(), make_user(), make_user()
    upgrade(bot)
    table_id = open_table(host, game="pitch", seats=3)
    for user in (person, bot):
        assert user.api.post(f"/api/v1/tables/{table_id}/join", {}, format="json").status_code == 200
    Table.objects.filter(pk=table_id).update(turn_timeout=30)
    assert host.api.post(f"/api/v1/tables/{table_id}/start").status_code == 200
    engine = registry.get("pitch")
    users = {u.pk: u for u in (host, person, bot)}
    row = Seat.objects.get(table_id=table_id, user=bot)
    for _ in range(100):
        table = Table.objects.get(pk=table_id)
        row.refresh_from_db()
        if row.away or table.status != Table.Status.ACTIVE:
            break
        seat = engine.to_act(table.state)[0]
        by_seat = {s["seat"]: s for s in host.api.get(f"/api/v1/tables/{table_id}").json()["seats"]}
        mover = users[by_seat[seat]["player"]["id"]] if by_seat[seat].get("player") else None
        if mover is bot:
            Table.objects.filter(pk=table_id).update(deadline=timezone.now() - timedelta(seconds=1))
            assert automation.table_enforce_deadline(table_id=table_id, version=table.version)
        else:
            moves.move_submit(table_id=table_id, user=mover, move=engine.legal_moves(table.state, seat)[0])
    assert row.away and row.timeouts_in_row == 2
    assert Move.objects.filter(table_id=table_id, by=Move.By.SERVER).count() == 2
    assert [e["data"]["reason"] for e in account_events(bot, "seat_away")] == ["timeouts"]
