"""Invitations and rematches (docs/api.md, "Account stream, invitations and rematch").

Every write to an invitation happens under its table's lock, so an answer, a join and a new
invitation to the same table never interleave; the account-stream events an invitation causes
are written in the same transaction (an invitation never commits without its event)."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from config.errors import Conflict, Forbidden, Invalid, NotFound
from games import selectors
from games.models import Invitation, Table

from . import account_events, automation
from .common import bump, lock_table
from .tables import join_locked, pending_invitation, table_create


def _plain(value: dict) -> dict:
    """`value` as plain JSON (timestamps as ISO 8601 strings), as an event stores it."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def _invite_locked(table: Table, *, by, to, rematch: bool = False) -> Invitation:
    """Create a pending invitation to a locked open table and its `invited` event."""
    invitation = Invitation.objects.create(table=table, by=by, to=to, rematch=rematch)
    account_events.record(
        user_id=to.pk,
        type="invited",
        table_id=table.pk,
        version=table.version,
        data=_plain({
            "invitation": selectors.invitation_json(invitation),
            "game": table.game,
            "table": str(table.pk),
            "host": selectors.player_json(table.host),
        }),
    )
    return invitation


def invitation_create(*, table_id, user, username: str, bot_account: bool = False) -> Invitation:
    """The host invites `username` to their open table. Runs under the table lock. 409 when the
    invitee already sits there or already holds a pending invitation to it (the one they hold is
    named in `detail.invitation`): one invitation per table and invitee until it is answered.

    With `bot_account` (`POST /tables/{id}/bots {account}`), `username` must name a bot account
    (400 `invalid` on `account` otherwise: people are invited with /invitations) and the table
    must have a free seat for it (409 `conflict`), since the host asks for a player, not a
    message; the invitation and its `invited` event are the ones any invitee gets."""
    field = "account" if bot_account else "username"
    with transaction.atomic():
        table = lock_table(table_id)
        if table.host_id != user.pk:
            raise Forbidden("only the host may invite players" if not bot_account else "only the host may add bots")
        if table.status != Table.Status.OPEN:
            raise Invalid("the table has already started", {"fields": {"non_field_errors": ["the table is not open"]}})
        # Built-in bots are seated with POST /bots {level}; deactivated accounts cannot answer.
        invitee = get_user_model().objects.filter(username__iexact=username, is_active=True, is_bot=False).first()
        if invitee is None:
            raise Invalid("no such user", {"fields": {field: ["no such user"]}})
        if bot_account and not invitee.is_bot_account:
            raise Invalid("not a bot account", {"fields": {field: [
                "not a bot account: invite people with POST /tables/{id}/invitations"]}})
        if bot_account and not table.seats.filter(user__isnull=True).exists():
            raise Conflict("the table is full")
        if invitee.pk == user.pk:
            raise Invalid("you cannot invite yourself", {"fields": {field: ["you cannot invite yourself"]}})
        if table.seats.filter(user=invitee, is_bot=False).exists():
            raise Conflict(f"{invitee.username} already sits at this table")
        pending = pending_invitation(table, invitee)
        if pending is not None:
            raise Conflict(f"{invitee.username} already has a pending invitation to this table",
                           {"invitation": pending.pk})
        return _invite_locked(table, by=user, to=invitee)


def _locked_invitation(invitation_id, user) -> tuple[Table, Invitation]:
    """The caller's invitation and its table, locked; 404 for anyone else's (ids do not leak)."""
    found = Invitation.objects.filter(pk=invitation_id, to=user).values_list("table_id", flat=True).first()
    if found is None:
        raise NotFound("no such invitation")
    table = lock_table(found)
    invitation = Invitation.objects.select_related("by", "to").get(pk=invitation_id)
    invitation.table = table
    return table, invitation


def invitation_accept(*, invitation_id, user) -> Invitation:
    """The invitee takes the lowest free seat, exactly as a join does (same errors: the table
    full or started). Accepting an accepted invitation again changes nothing; a declined one
    is 409."""
    with transaction.atomic():
        table, invitation = _locked_invitation(invitation_id, user)
        if invitation.status == Invitation.Status.ACCEPTED:
            return invitation
        if invitation.status == Invitation.Status.DECLINED:
            raise Conflict("you declined this invitation")
        join_locked(table, user=user, invitation=invitation)
        return invitation


def invitation_decline(*, invitation_id, user) -> Invitation:
    """The invitee says no: the table's host hears of it (`invitation_declined`). Declining a
    declined invitation again changes nothing; an accepted one is 409."""
    with transaction.atomic():
        table, invitation = _locked_invitation(invitation_id, user)
        if invitation.status == Invitation.Status.DECLINED:
            return invitation
        if invitation.status == Invitation.Status.ACCEPTED:
            raise Conflict("you accepted this invitation")
        invitation.status = Invitation.Status.DECLINED
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
        account_events.record(
            user_id=table.host_id,
            type="invitation_declined",
            table_id=table.pk,
            version=table.version,
            data=_plain({
                "invitation": selectors.invitation_json(invitation),
                "game": table.game,
                "table": str(table.pk),
                "by": selectors.player_json(user),
            }),
        )
        return invitation


def table_rematch(*, table_id, user) -> tuple[Table, bool]:
    """A player of a finished table opens its rematch: a new open table of the same game, seat
    count, options, time limit, bot delay, rating and visibility, with the caller as host in
    seat 0, the old table's built-in bots seated again and every other player of it invited
    (`invited` and `rematch_offered`). Runs under the old table's lock, which also holds the
    link to the new table: every later call, by any player, answers with that table. Returns
    (the rematch table, whether this call opened it)."""
    with transaction.atomic():
        old = lock_table(table_id)
        rows = list(old.seats.select_related("user").order_by("index"))
        if not any(row.user_id == user.pk and not row.is_bot for row in rows):
            raise Forbidden("only the table's players may ask for a rematch")
        if old.status != Table.Status.FINISHED:
            raise Conflict("the table has not finished")
        if old.rematch_id is not None:
            return Table.objects.get(pk=old.rematch_id), False
        new = table_create(
            user=user,
            game=old.game,
            seats=old.seat_count,
            options={**old.options, "bot_delay": old.bot_delay, "rated": old.rated},
            turn_timeout=old.turn_timeout,
            private=old.private,
            invite_only=old.invite_only,
        )
        for row in rows:
            if row.is_bot and row.bot_level:
                automation.table_add_bot(table_id=new.pk, user=user, level=row.bot_level)
        new = lock_table(new.pk)
        invited = set()
        for row in rows:
            if row.user is None or (row.is_bot and row.bot_level) or row.user_id in invited | {user.pk}:
                continue
            invited.add(row.user_id)
            invitation = _invite_locked(new, by=user, to=row.user, rematch=True)
            account_events.record(
                user_id=row.user_id,
                type="rematch_offered",
                table_id=new.pk,
                version=new.version,
                data=_plain({
                    "table": str(new.pk),
                    "rematch_of": str(old.pk),
                    "game": new.game,
                    "host": selectors.player_json(user),
                    "invitation": selectors.invitation_json(invitation),
                }),
            )
        old.rematch = new
        bump(old, update_fields=["rematch"])
        return new, True
