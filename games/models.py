"""Tables, seats and the append-only move log. Game state lives in `Table.state` as the
engine's JSON; only `games/services` writes any of it (docs/architecture.md, convention 5)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open"
        ACTIVE = "active"
        FINISHED = "finished"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    game = models.CharField(max_length=20, db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hosted_tables")
    seat_count = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict)
    turn_timeout = models.PositiveIntegerField(default=60, help_text="seconds per decision; 0 = no limit")
    private = models.BooleanField(default=False)
    # Only the host's invitees may join (docs/api.md, "Account stream, invitations and rematch");
    # unlisted, like a private table.
    invite_only = models.BooleanField(default=False)
    # Staff-only set-up, kept to replay the log from the first deal; never sent to players.
    deck = models.JSONField(null=True, blank=True)
    first_dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    seed = models.BigIntegerField()
    state = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    move_count = models.PositiveIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    bot_delay = models.FloatField(default=0.5, help_text="seconds a bot waits before its move")
    # A seat played by a bot (a bot player, or a bot covering an absent player) must act:
    # lets the periodic sweep find tables whose bot task was lost.
    bot_pending = models.BooleanField(default=False, db_index=True)
    aborted = models.BooleanField(default=False)
    # Ratings (api.md): the `rated` table option, and whether staff fixed the seed (a table with
    # a staff deck or seed is never rated: its deals were chosen).
    rated = models.BooleanField(default=False)
    staff_seed = models.BooleanField(default=False)
    # Duplicate play (api.md, "Fair deals"): the table whose seed, and so whose deals, this one
    # took; the seed itself is never shown.
    duplicate_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="duplicates"
    )
    # Quick play (api.md): the shape a table was opened for (game, seats, options), and when
    # its free seats go to bots.
    quick_play_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    bots_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # The table a rematch of this finished one opened: every later rematch call answers with it.
    # Cleared if that table is deleted (left empty before its start), so a new rematch can open.
    rematch = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematch_of")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["status", "game", "private"])]

    def __str__(self) -> str:
        return f"{self.game} {self.id} ({self.status})"


class Seat(models.Model):
    """A seat of a table. `index` is the seat the player took before the start; games that
    move players (President's `by_rank` seating) report the current seat through the engine,
    so a player's identity at the table is this row, not a seat number."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="seats"
    )
    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=10, blank=True, default="")
    away = models.BooleanField(default=False)
    left = models.BooleanField(default=False, help_text="the player left a started table; a bot plays on")
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["table", "index"]
        constraints = [models.UniqueConstraint(fields=["table", "index"], name="unique_seat_index")]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.table_id}"

    @property
    def bot_controlled(self) -> bool:
        """A bot moves for this seat: a bot player, a player who left, or one marked away."""
        return self.is_bot or self.left or self.away


class Invitation(models.Model):
    """The host's invitation of a user to an open table (docs/api.md, "Account stream, invitations
    and rematch"). At most one pending invitation per table and invitee; an answer is final.
    Written only under the table's lock (games.services.invitations)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="invitations")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent")
    to = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    rematch = models.BooleanField(default=False, help_text="sent by a rematch of the table's players' last table")
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "to"], condition=models.Q(status="pending"), name="unique_pending_invitation"
            )
        ]
        indexes = [models.Index(fields=["to", "status"])]

    def __str__(self) -> str:
        return f"invitation {self.pk} of {self.to_id} to {self.table_id} ({self.status})"


class Move(models.Model):
    """One entry of the append-only move log: the move as submitted and the engine's events.
    Replaying every move of a table, in `seq` order, from the first deal reproduces its state."""

    class By(models.TextChoices):
        PLAYER = "player"
        SERVER = "server"
        BOT = "bot"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    by = models.CharField(max_length=10, choices=By.choices, default=By.PLAYER)
    move = models.JSONField()
    events = models.JSONField(default=list)
    # Which player sat in each seat after the move: the log is shown per viewer's seat at
    # the time (President's by_rank seating moves players between hands).
    seat_players = models.JSONField(default=list)
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "seq"]
        constraints = [models.UniqueConstraint(fields=["table", "seq"], name="unique_move_seq")]


class IdempotencyRecord(models.Model):
    """The first response to a state-changing POST with an `Idempotency-Key`, kept 24 hours."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="unique_idempotency_key")]


class WebhookEndpoint(models.Model):
    """A user's webhook (api.md, Push): the events it wants, where to POST them and the secret
    that signs them. Disabled after a day of failed deliveries; the user or an operator
    re-enables it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=2000)
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=200)
    active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    # The first failure of the current run of failures; cleared by a success.
    failing_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of {self.user_id}: {self.url}"


class WebhookDelivery(models.Model):
    """One event for one webhook, and its delivery tries. Created in the transaction of the
    change it reports (an outbox: a committed change always has its deliveries), sent by tasks
    queued on commit. The id is the `Webhook-Id` header, the same on every try; `body` is kept
    as the exact bytes that are signed."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=30)
    table_id = models.UUIDField(null=True, blank=True)
    version = models.PositiveIntegerField(null=True, blank=True)
    # One delivery per endpoint and occurrence (e.g. your_turn of a seat at a version), so a
    # task or hook that runs twice creates nothing twice.
    dedupe_key = models.CharField(max_length=200)
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True, default="")
    error = models.CharField(max_length=200, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["endpoint", "dedupe_key"], name="unique_webhook_occurrence")]
        indexes = [models.Index(fields=["status", "next_attempt_at"])]


class Rating(models.Model):
    """A player's rating in one game (OpenSkill's Plackett-Luce model): `mu` and `sigma`, and
    the display `rating` shown on leaderboards. Bots have one per level (their shared account)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=20)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.IntegerField(db_index=True)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-rating", "id"]
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="unique_rating_per_game")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.game} {self.rating}"


class RatedTable(models.Model):
    """A finished table that was rated, once (the unique table): the order in which ratings
    were updated, so `recompute_ratings` can replay them."""

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="rated_as")
    game = models.CharField(max_length=20)
    combine = models.CharField(
        max_length=4, default="sum",
        help_text="how one account's seats made its update (services.ratings._combine): sum; mean before 2026-12-01",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class RatingHistory(models.Model):
    """One player's part in one match of a rated table (a seat's row; a Lopti table is rated
    round by round): their team and place, and their rating before and after. Rebuilding every
    rating from these rows, in RatedTable order and match order within a table, gives the
    stored ones."""

    rated_table = models.ForeignKey(RatedTable, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_history")
    game = models.CharField(max_length=20)
    match = models.PositiveSmallIntegerField(
        default=0, help_text="the match of the table, in the order rated (Lopti: the round, from 0); 0 for one match",
    )
    team = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(help_text="1 = first in this match; tied teams share a place")
    won = models.BooleanField(default=False, help_text="won the table (its first place), on each match's row")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        ordering = ["rated_table", "match", "team", "id"]


class RatingReset(models.Model):
    """An operator reset a player's rating in a game after the rated tables up to `after`."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_resets")
    game = models.CharField(max_length=20)
    after = models.PositiveBigIntegerField(help_text="the last RatedTable id before the reset (0: none)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["after", "id"]


class QuickPlayLock(models.Model):
    """One row per quick-play shape, locked while a player is seated for that shape, so two
    players asking at once end up at one table rather than at two half-filled ones; and one
    per player and game (`player:<id>:<game>`), so one player is queued once per game."""

    key = models.CharField(max_length=64, unique=True)


class AccountEvent(models.Model):
    """The account stream's outbox (docs/api.md, "Account stream, invitations and rematch"): one
    event for one user, written in the transaction of the change that causes it, so a committed
    change never loses its events and a rolled-back one never sends any (games.services.
    account_events). `seq` is the event's id on the user's stream: given per user, in the order
    the events became visible (`account_events.number`), so a stream resuming after a `seq`
    misses nothing that committed later with a smaller row id."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_events")
    type = models.CharField(max_length=32)
    table = models.ForeignKey(Table, on_delete=models.CASCADE, null=True, blank=True, related_name="account_events")
    version = models.PositiveIntegerField(null=True, blank=True, help_text="the table's version the event is of")
    data = models.JSONField(default=dict)
    created = models.DateTimeField(db_index=True)
    seq = models.PositiveBigIntegerField(null=True, blank=True, help_text="the id on the user's stream, once numbered")

    class Meta:
        ordering = ["user", "seq", "id"]
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="unique_account_event_seq")]


class AccountEventSeq(models.Model):
    """Per user, the last `seq` given to one of their account events: its row is the lock under
    which their events are numbered, one reader at a time."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+")
    last = models.PositiveBigIntegerField(default=0)
