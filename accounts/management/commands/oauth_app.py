"""`manage.py oauth_app`: register a third-party app from the command line (docs/apps.md), as
an operator does in the admin. Prints its client_id and, for a confidential app, its secret: the
only time it is shown (only its hash is stored)."""

import json

from django.core.management.base import BaseCommand, CommandError

from accounts import services
from config.errors import Invalid


class Command(BaseCommand):
    help = "Register an OAuth2 app (authorization code with PKCE) and print its client_id (and secret, once)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True, help="shown to users on the consent page")
        parser.add_argument("--redirect-uri", action="append", required=True, dest="redirect_uris",
                            help="an exact redirect URI (repeat for several)")
        kind = parser.add_mutually_exclusive_group(required=True)
        kind.add_argument("--public", action="store_true",
                          help="a browser, mobile or desktop app: it cannot keep a secret")
        kind.add_argument("--confidential", action="store_true", help="a server-side app: it gets a secret")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print {client_id, client_secret} as JSON")

    def handle(self, *args, name, redirect_uris, confidential, as_json, **options):
        try:
            app, secret = services.oauth_app_create(name=name, redirect_uris=redirect_uris, confidential=confidential)
        except Invalid as exc:
            raise CommandError(f"{exc.message}: {exc.detail['fields']}") from exc
        if as_json:
            self.stdout.write(json.dumps({"client_id": app.client_id, "client_secret": secret}))
            return
        self.stdout.write(f"client_id: {app.client_id}")
        if secret is not None:
            self.stdout.write(f"client_secret: {secret}")
            self.stderr.write("The secret is shown this once: only its hash is stored.")

