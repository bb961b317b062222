"""Verify a `cardgames-table/1` export file (api.md, "Fair deals"): the same checks as
`POST /api/v1/replays/verify` (games.engine.replay). Exit status 1 when the export is invalid,
2 when the file is not an export."""

import json

from django.core.management.base import BaseCommand, CommandError

from games.engine import replay


class Command(BaseCommand):
    help = "Recompute every deal of an exported table from its secret, replay its moves and compare the scores."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the export (JSON), or - for standard input")

    def handle(self, *args, file, **options):
        try:
            document = replay.load(file)
            result = replay.verify(document)
        except (OSError, ValueError, RecursionError) as exc:
            raise CommandError(f"cannot read {file}: {exc}", returncode=2) from exc
        except replay.DocumentError as exc:
            raise CommandError(f"not a {replay.FORMAT} document: {exc.field} {exc.message}", returncode=2) from exc
        self.stdout.write(json.dumps(result))
        if not result["valid"]:
            raise CommandError(result["reason"], returncode=1)
