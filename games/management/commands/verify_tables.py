"""Replay every table's log from its deal and report each table whose stored state differs.
Exit status 1 when one does (for cron jobs and CI)."""

from django.core.management.base import BaseCommand, CommandError

from games.models import Table
from games.services.verify import table_verify


class Command(BaseCommand):
    help = "Replay each table's move log and report every table whose stored state differs."

    def add_arguments(self, parser):
        parser.add_argument("--table", action="append", help="only these table ids")
        parser.add_argument("--game", help="only tables of this game")

    def handle(self, *args, table=None, game=None, verbosity=1, **options):
        tables = Table.objects.exclude(started_at=None).order_by("created_at")
        if table:
            tables = tables.filter(pk__in=table)
        if game:
            tables = tables.filter(game=game)
        checked = bad = 0
        for t in tables.iterator():
            checked += 1
            problem = table_verify(t)
            if problem:
                bad += 1
                self.stdout.write(f"DIFFERS {t.pk} ({t.game}): {problem}")
            elif verbosity > 1:
                self.stdout.write(f"ok {t.pk}")
        self.stdout.write(f"{checked} table(s) checked, {bad} differ(s)")
        if bad:
            raise CommandError(f"{bad} table(s) differ from their move log", returncode=1)
