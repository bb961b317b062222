from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username):
        """Sign-in (API token, admin) matches the username regardless of case, as
        registration does; the unique constraint below makes the match unambiguous."""
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A player. Bots are users too (`is_bot`, with their `bot_level`), so that every seat,
    move and statistic points at a user."""

    class BotLevel(models.TextChoices):
        RANDOM = "random"
        EASY = "easy"
        HARD = "hard"

    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=10, choices=BotLevel.choices, blank=True, default="")

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
