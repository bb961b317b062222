from django.conf import settings
from django.db import models


class Game(models.Model):
    """One per user: a table's state as one ~2 KB JSON text and its version."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="floor_game")
    version = models.PositiveIntegerField(default=0)
    state = models.TextField()
    changed_at = models.DateTimeField(auto_now=True)


class Move(models.Model):
    """One per write: the game's move log."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE)
    version = models.PositiveIntegerField()
    body = models.TextField()
    at = models.DateTimeField(auto_now_add=True)
