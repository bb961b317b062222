"""The project's side of `make bench` and `make bench-longpoll`: users and started President
tables, made through the project's services (no HTTP, so neither password hashing nor the
throttles slow the set-up), written as the JSON targets of bench/load.py.

    DATABASE_URL=... .venv/bin/python bench/seed_project.py --tables 8 --out FILE [--bots] [--spectators N]
        [--open N --invitees M]

FILE: {"read": [{token, path}], "play": [{table, tokens}], "bots": [{table, tokens, bots}],
"spectators": [token], "open": [{table, token}], "invitees": [{username, token}]}. Read and play
tables have four human players and no turn limit, so no one but the driver moves them; bot
tables (--bots) one human and three random bots. Open tables (--open, the account-stream bench)
have only their host seated (the token is the host's), so the host may invite anyone; invitees
(--invitees) are users seated nowhere, with the username an invitation names.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

import django  # noqa: E402

django.setup()

from accounts.models import User  # noqa: E402
from accounts.services import token_issue  # noqa: E402
from games.services import automation  # noqa: E402
from games.services import tables as table_services  # noqa: E402

RUN = uuid.uuid4().hex[:6]


def new_player(name: str) -> tuple[User, str]:
    user = User(username=f"bench_{RUN}_{name}")
    user.set_unusable_password()
    user.save()
    return user, token_issue(user=user)


def started_table(name: str, humans: int, options: dict) -> dict:
    players = [new_player(f"{name}_p{i}") for i in range(humans)]
    host = players[0][0]
    table = table_services.table_create(user=host, game="president", seats=4, options=options, turn_timeout=0)
    for user, _ in players[1:]:
        table_services.table_join(table_id=table.pk, user=user)
    for _ in range(4 - humans):
        automation.table_add_bot(table_id=table.pk, user=host, level="random")
    table_services.table_start(table_id=table.pk, user=host)
    return {"table": str(table.pk), "tokens": [token for _, token in players], "bots": 4 - humans}


def open_table(name: str, options: dict) -> dict:
    host, token = new_player(f"{name}_host")
    table = table_services.table_create(user=host, game="president", seats=4, options=options, turn_timeout=0)
    return {"table": str(table.pk), "token": token}


def invitee(name: str) -> dict:
    user, token = new_player(name)
    return {"username": user.username, "token": token}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=8, help="tables of each kind")
    ap.add_argument("--bots", action="store_true", help="also tables of one human and three bots")
    ap.add_argument("--no-read", action="store_true", help="no read tables (the long-poll bench)")
    ap.add_argument("--spectators", type=int, default=0, help="users seated nowhere (long-poll waiters)")
    ap.add_argument("--open", type=int, default=0, help="open tables with only their host seated")
    ap.add_argument("--invitees", type=int, default=0, help="users seated nowhere, with their usernames")
    ap.add_argument("--options", default='{"bot_delay": 0}', help="table options (JSON)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if (not 0 <= args.tables <= 500 or not 0 <= args.spectators <= 5000 or not 0 <= args.open <= 2500
            or not 0 <= args.invitees <= 5000):
        sys.exit("--tables 0..500, --spectators 0..5000, --open 0..2500, --invitees 0..5000")
    options = json.loads(args.options)
    reads = [] if args.no_read else [started_table(f"r{i}", 4, options) for i in range(args.tables)]
    out = {
        "read": [{"token": t["tokens"][0], "path": f"/api/v1/tables/{t['table']}/state"} for t in reads],
        "play": [started_table(f"h{i}", 4, options) for i in range(args.tables)],
        "bots": [started_table(f"b{i}", 1, options) for i in range(args.tables)] if args.bots else [],
        "spectators": [new_player(f"s{i}")[1] for i in range(args.spectators)],
        "open": [open_table(f"o{i}", options) for i in range(args.open)],
        "invitees": [invitee(f"i{i}") for i in range(args.invitees)],
    }
    Path(args.out).write_text(json.dumps(out))
    print(f"seeded {len(reads)} read, {args.tables} play, {len(out['bots'])} bot and {args.open} open tables, "
          f"{args.spectators} spectators, {args.invitees} invitees -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
