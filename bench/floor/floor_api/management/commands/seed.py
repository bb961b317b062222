"""`manage.py seed --users N --out FILE`: N users, each with a DRF token and a game row;
FILE gets one token per line. Users that exist already are reused (their rows reset)."""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from rest_framework.authtoken.models import Token

from floor_api.models import Game
from floor_api.state import initial_state


class Command(BaseCommand):
    help = "Create N floor users with tokens and game rows; write the tokens to a file."

    def add_arguments(self, parser):
        parser.add_argument("--users", type=int, default=32)
        parser.add_argument("--out", required=True, help="the file that gets one token per line")

    @transaction.atomic
    def handle(self, *args, users, out, **options):
        tokens = []
        for i in range(users):
            user, created = get_user_model().objects.get_or_create(username=f"floor{i}")
            if created:
                user.set_unusable_password()
                user.save(update_fields=["password"])
            game, _ = Game.objects.get_or_create(player=user, defaults={"state": "{}"})
            game.version = 0
            game.state = json.dumps(initial_state(game.pk))
            game.save()
            tokens.append(Token.objects.get_or_create(user=user)[0].key)
        with open(out, "w") as f:
            f.write("".join(f"{token}\n" for token in tokens))
        size = len(Game.objects.filter(player__username="floor0").values_list("state", flat=True).get())
        self.stdout.write(f"{users} floor users, state {size} bytes; tokens in {out}")
