"""`manage.py recompute_ratings`: rebuild every rating from the rating history and compare it
with the stored ratings; `--write` stores the rebuilt values. Exits 1 when they differ (and
--write was not given)."""

from django.core.management.base import BaseCommand, CommandError

from games.services import ratings


class Command(BaseCommand):
    help = "Rebuild the ratings from their history; report (or --write) any difference."

    def add_arguments(self, parser):
        parser.add_argument("--write", action="store_true", help="store the rebuilt ratings")

    def handle(self, *args, write, **options):
        differences = ratings.ratings_recompute(write=write)
        for line in differences:
            self.stdout.write(line)
        if differences and not write:
            raise CommandError(f"{len(differences)} difference(s) between the stored ratings and their history")
        self.stdout.write(f"ratings rebuilt from their history: {len(differences)} difference(s)" + (" written" if write else ""))
