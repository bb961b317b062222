from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player. Bots are users too (`is_bot`, with their `bot_level`), so that every seat,
    move and statistic points at a user."""

    class BotLevel(models.TextChoices):
        RANDOM = "random"
        EASY = "easy"
        HARD = "hard"

    is_bot = models.BooleanField(default=False)
    bot_level = models.CharField(max_length=10, choices=BotLevel.choices, blank=True, default="")

    class Meta:
        ordering = ["id"]
