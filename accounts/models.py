from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username):
        """Sign-in (API token, admin) matches the username regardless of case, as
        registration does; the unique constraint below makes the match unambiguous."""
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player. Bots are users too (`is_bot`, with their `bot_level`), so that every seat,
    move and statistic points at a user. A *bot account* (`is_bot_account`) is something else:
    an account someone registered and turned into a bot of their own, for good (docs/api.md,
    "Bot accounts"); it signs in and plays through the API like a person, while the built-in
    bots (`is_bot`) never sign in and are played by the server."""

    class BotLevel(models.TextChoices):
        RANDOM = "random"
        EASY = "easy"
        HARD = "hard"

    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=10, choices=BotLevel.choices, blank=True, default="")
    is_bot_account = models.BooleanField(
        default=False,
        help_text="a bot account (its owner's program plays it through the API); set for good by "
        "POST /bot/account/upgrade",
    )

    objects = CaseInsensitiveUserManager()

    class Meta:
        ordering = ["id"]
        constraints = [
            # Usernames are unique regardless of case, in the database itself: a check before
            # the insert let 16 concurrent case variants of one name create 2-8 accounts
            # (tests/api/test_usernames.py). Migration 0002 renamed any duplicates that existed before.
            models.UniqueConstraint(
                Lower("username"),
                name="accounts_user_username_ci_unique",
                violation_error_message="A user with that username already exists.",
            ),
        ]


class ApiToken(models.Model):
    """An API token, stored as its SHA-256 digest only: neither the database nor the admin can
    show it again (the prefix identifies it). First-party tokens come from `/auth/token` and
    `/auth/register` and hold every scope but `bot`; personal access tokens are made by their
    owner with the scopes and expiry they choose (`/me/tokens`). OAuth apps' tokens are
    django-oauth-toolkit's, stored hashed too."""

    class Kind(models.TextChoices):
        FIRST_PARTY = "first_party"
        PERSONAL = "personal"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=12, help_text="the token's first characters, to recognise it")
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token, hex")
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "kind"])]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.get_kind_display()}, {self.user})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > timezone.now())
