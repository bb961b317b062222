"""Tables in a known shape for the reliability suites: who sits where, in which state, with
an API client per role. Built through the services (the API's own code paths), so that every
suite starts from tables a real client could have made."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field

from rest_framework.test import APIClient

from accounts.models import User
from games.engine import registry
from games.models import Table
from games.services import tables
from tests.tokens import first_party_token

# The matrix's roles, in the order every row of expectations lists them.
ROLES = ("anonymous", "deactivated", "outsider", "spectator", "player", "other_player", "host", "staff")
STATES = ("open", "active", "finished")
SEATS = 4

_names = itertools.count()


def client_for(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {first_party_token(user)}")
    return client


def new_user(prefix: str, **fields) -> User:
    return User.objects.create_user(username=f"{prefix}{next(_names)}", password="correct horse battery", **fields)


@dataclass
class Built:
    table_id: str
    game: str
    users: dict[str, User | None]
    clients: dict[str, APIClient] = field(default_factory=dict)

    @property
    def table(self) -> Table:
        return Table.objects.get(pk=self.table_id)

    def seat_of(self, role: str) -> int | None:
        """The role's current seat at the table (None: not seated, a spectator's view)."""
        user = self.users[role]
        if user is None or role == "deactivated":
            return None
        table = self.table
        mapping = list(range(table.seat_count))
        if table.state is not None:
            mapping = registry.get(table.game).seat_players(table.state)
        for row in table.seats.all():
            if row.user_id == user.pk and not row.is_bot:
                return mapping.index(row.index)
        return None


def build(game: str, state: str, *, private: bool = False) -> Built:
    """A `game` table with SEATS seats in `state`:
    - host in seat 0, `player` in seat 1, `other_player` in seat 2;
    - open: seat 3 is free; active and finished: seat 3 is the `deactivated` user's, who was
      deactivated by an operator after the start (a deactivated member gets 401 like anyone
      deactivated, api.md Accounts);
    - President: the first dealer fixed at seat 0 (as staff may) so that `player` leads;
    - finished: an operator aborted it after the start (a finished table with hidden cards
      still in the hands: the strictest case for the leak checks);
    - `outsider` is seated at another open table of the same game; `spectator` and `staff`
      sit nowhere."""
    host = new_user("host")
    users: dict[str, User | None] = {
        "anonymous": None,
        "deactivated": new_user("gone"),
        "outsider": new_user("outsider"),
        "spectator": new_user("watcher"),
        "player": new_user("player"),
        "other_player": new_user("other"),
        "host": host,
        "staff": new_user("staff", is_staff=True),
    }
    table = tables.table_create(user=host, game=game, seats=SEATS, private=private)
    if game == "president":
        # P-4.1: the dealer's left leads the first trick, so `player` (seat 1) is on turn.
        Table.objects.filter(pk=table.pk).update(first_dealer=0)
    tables.table_join(table_id=table.pk, user=users["player"], seat=1)
    tables.table_join(table_id=table.pk, user=users["other_player"], seat=2)
    elsewhere = tables.table_create(user=new_user("elsehost"), game=game, seats=SEATS)
    tables.table_join(table_id=elsewhere.pk, user=users["outsider"])
    if state in ("active", "finished"):
        tables.table_join(table_id=table.pk, user=users["deactivated"], seat=3)
        tables.table_start(table_id=table.pk, user=host)
    users["deactivated"].is_active = False
    users["deactivated"].save(update_fields=["is_active"])
    if state == "finished":
        tables.table_abort(table_id=table.pk)
    built = Built(table_id=str(table.pk), game=game, users=users)
    built.clients = {role: client_for(user) for role, user in users.items()}
    return built


def json_strings(text: str) -> set[str]:
    """Every string in a JSON document (keys and values), or in each `data:` line of an
    event stream; a card code is a whole string in every body the API sends."""
    found: set[str] = set()

    def walk(value):
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                found.add(k)
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    documents = [text]
    if text.startswith("retry:") or "\ndata: " in text:
        documents = [line[len("data: "):] for line in text.splitlines() if line.startswith("data: ")]
    for document in documents:
        if not document.strip():
            continue
        try:
            walk(json.loads(document))
        except ValueError:
            found.add(document)
    return found
