"""An example external bot: the program of a bot account (docs/bots-accounts.md), on the client
generated from the API's schema (clients/python/generate.sh) and the account stream.

    python clients/python/bot.py --token TOKEN [--base-url http://127.0.0.1:8000] [--tables N]
    python clients/python/bot.py --register NAME [...]   # a new account, upgraded to a bot account

It follows its account stream (`GET /api/v1/stream/events`, Server-Sent Events) and answers
what it hears:

- `invited`: accepts (`POST /me/invitations/{id}/accept`), for the games it plays (`--games`),
  and declines the others;
- `your_turn`, `table_started`: reads the table's state and, while `legal_moves` is not empty,
  sends one of them to the endpoint that takes it (play.py's `send`: Lopti's ballots, duels and
  house-rule windows have their own);
- `table_finished`: prints a line; with `--tables N` it exits after N finished tables.

On (re)connecting, and on every `: ping` (15 s) at the latest, it catches up with what a stream
cannot tell a program that was not listening: pending invitations and the tables where a
decision of its is due (`GET /me/invitations`, `GET /me/tables`). A dropped stream is resumed
with `Last-Event-ID`, so no event is missed. Exit status 1 on a failure it cannot go past.

Its moves are the first legal ones but for taking Lopti's pile (play.py's `choose`): a real bot
chooses better; the rest of the program is what every bot needs."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402 - the generated client's own HTTP library: the stream is read with it
from cardgames_client import AuthenticatedClient, Client  # noqa: E402
from cardgames_client.api.accounts import auth_register, bot_account_upgrade, me_tables  # noqa: E402
from cardgames_client.api.moves import tables_state  # noqa: E402
from cardgames_client.api.tables import me_invitations_accept, me_invitations_decline, me_invitations_list  # noqa: E402
from cardgames_client.models import (  # noqa: E402
    Invitation,
    InvitedAccountEvent,
    LoptiState,
    Me,
    MeInvitationsListStatus,
    PitchState,
    PresidentState,
    Registered,
    RegisterRequest,
    TableFinishedAccountEvent,
    TableStartedAccountEvent,
    TableStatusEnum,
    YourTurnAccountEvent,
)
from play import WAIT, Failure, choose, expect, failure, send  # noqa: E402

GAMES = ("president", "pitch", "lopti")
STREAM = "/api/v1/stream/events"
CATCH_UP_EVERY = 15.0  # seconds: at most the time between two pings
RETRIES = 6  # failures in a row (about a minute of backing off) before the program gives up


@dataclass
class SseEvent:
    """One event of a Server-Sent Events stream: its `id:`, `event:` and `data:` lines."""

    id: str | None
    type: str
    data: str


def sse_events(lines: Iterator[str]) -> Iterator[SseEvent | None]:
    """The stream's events; None for each `: ping` comment (so the caller gets a turn at
    least every 15 s)."""
    fields: dict[str, str] = {}
    for line in lines:
        if line.startswith(":"):
            yield None
        elif line == "":
            if "data" in fields:
                yield SseEvent(fields.get("id"), fields.get("event", "message"), fields["data"])
            fields = {}
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            fields[name] = f"{fields[name]}\n{value}" if name == "data" and "data" in fields else value


class Bot:
    def __init__(self, client: AuthenticatedClient, games: set[str], tables: int):
        self.client, self.games, self.limit = client, games, tables
        self.last_event_id: str | None = None
        self.finished: set[UUID] = set()
        self.decisions: dict[UUID, int] = {}
        self.caught_up = 0.0
        self.failures = 0  # in a row, since the stream last opened

    # --- the stream ------------------------------------------------------------------------
    def run(self) -> None:
        """Follows the account stream until `--tables` tables have finished (or for ever),
        reconnecting with Last-Event-ID when it drops or the server refuses for a moment (a
        restart, a 503); gives up after RETRIES failures in a row."""
        while not self.done():
            try:
                self.follow()
            except (httpx.HTTPError, Failure) as exc:
                self.failures += 1
                if self.failures >= RETRIES:
                    raise Failure(f"{self.failures} failures in a row, the last: {exc}") from exc
                print(f"stream dropped ({exc}): reconnecting", flush=True)
                time.sleep(min(30, 2 ** self.failures))

    def follow(self) -> None:
        headers = {"Last-Event-ID": self.last_event_id} if self.last_event_id else {}
        with self.client.get_httpx_client().stream("GET", STREAM, headers=headers) as response:
            if response.status_code != 200:
                response.read()
                raise Failure(f"the account stream: {response.status_code} {response.text[:200]}")
            if self.last_event_id is None:
                print("ready: following the account stream", flush=True)
            self.failures = 0
            # From here on the stream holds every new event: what came before is caught up.
            self.catch_up()
            for event in sse_events(response.iter_lines()):
                if event is not None:
                    if event.id is not None:
                        self.last_event_id = event.id
                    self.handle(event)
                if self.done():
                    return
                if time.monotonic() - self.caught_up >= CATCH_UP_EVERY:
                    self.catch_up()

    def handle(self, event: SseEvent) -> None:
        body = json.loads(event.data)
        if event.type == "invited":
            invited = InvitedAccountEvent.from_dict(body)
            self.answer(invited.data.invitation.id, invited.data.game.value, invited.data.host.username)
        elif event.type == "your_turn":
            self.act(YourTurnAccountEvent.from_dict(body).table)
        elif event.type == "table_started":
            self.act(TableStartedAccountEvent.from_dict(body).table)
        elif event.type == "table_finished":
            ended = TableFinishedAccountEvent.from_dict(body)
            self.finish(ended.table, ended.data.game.value,
                        f"seat {ended.data.seat}, winners {ended.data.winners}, scores {ended.data.scores}")
        # timeout_warning, seat_away, invitation_declined, rematch_offered (its invitation
        # comes as `invited`): nothing to do for this bot.

    def catch_up(self) -> None:
        """Pending invitations and the tables where a decision of ours is due."""
        self.caught_up = time.monotonic()
        pending = expect(me_invitations_list.sync(client=self.client, status=MeInvitationsListStatus.PENDING),
                         list, "list the invitations")
        for invitation in pending:
            if isinstance(invitation, Invitation) and invitation.table_status == TableStatusEnum.OPEN:
                self.answer(invitation.id, invitation.game, invitation.by.username)
        for table in expect(me_tables.sync(client=self.client), list, "list my tables"):
            if table.status == TableStatusEnum.ACTIVE and table.your_turn:
                self.act(table.id)

    def done(self) -> bool:
        return self.limit > 0 and len(self.finished) >= self.limit

    # --- answers ---------------------------------------------------------------------------
    def answer(self, invitation_id: int, game: str, host: str) -> None:
        if game in self.games:
            result = me_invitations_accept.sync(invitation_id, client=self.client)
            verdict = "accepted"
        else:
            result = me_invitations_decline.sync(invitation_id, client=self.client)
            verdict = "declined"
        if not isinstance(result, Invitation):  # taken by another, full, started: not ours to fix
            verdict = f"not {verdict}: {failure('answer', result)}"
        print(f"invited to {game} by {host} (invitation {invitation_id}): {verdict}", flush=True)

    def act(self, table_id: UUID) -> None:
        """While a decision of ours is due at the table: read the state, send a legal move."""
        for _ in range(50):  # a bound, in case the table keeps asking: the next event resumes
            state = tables_state.sync(table_id, client=self.client)
            if not isinstance(state, PresidentState | PitchState | LoptiState):
                print(f"{table_id}: {failure('read the state', state)}", flush=True)
                return
            if state.status == TableStatusEnum.FINISHED:
                self.finish(table_id, state.game.value, f"scores {state.scores}")
                return
            if not state.legal_moves:
                return
            move = choose(state.legal_moves)
            self.decisions[table_id] = self.decisions.get(table_id, 0) + 1
            try:
                send(self.client, table_id, move, f"{move.type_} at {table_id}")
            except Failure as exc:  # e.g. a deadline passed meanwhile: read the table again
                print(f"{exc}: reading the table again", flush=True)

    def finish(self, table_id: UUID, game: str, result: str) -> None:
        if table_id in self.finished:
            return
        self.finished.add(table_id)
        print(f"{game}: finished, table {table_id}, {self.decisions.get(table_id, 0)} decisions, {result}", flush=True)


def register(base_url: str, username: str, timeout: httpx.Timeout) -> str:
    """A new account upgraded to a bot account: its token (which holds the `bot` scope)."""
    anonymous = Client(base_url=base_url, timeout=timeout)
    registered = expect(auth_register.sync(client=anonymous, body=RegisterRequest(
        username=username, password=secrets.token_urlsafe(16))), Registered, "register")
    client = AuthenticatedClient(base_url=base_url, token=registered.token, prefix="Token", timeout=timeout)
    me = expect(bot_account_upgrade.sync(client=client), Me, "upgrade to a bot account")
    print(f"registered {me.username}, a bot account: {me.is_bot_account}", flush=True)
    return registered.token


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default: a local make run)")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", help="a token of the bot account holding `read` and `bot`")
    who.add_argument("--register", metavar="NAME", help="register NAME and upgrade it to a bot account first")
    parser.add_argument("--tables", type=int, default=0, help="exit after this many finished tables (0: never)")
    parser.add_argument("--games", default=",".join(GAMES), help="the games to accept invitations to")
    args = parser.parse_args()
    # Reads wait at most a long-poll's time; the stream has a ping every 15 s.
    timeout = httpx.Timeout(WAIT + 30)
    try:
        token = args.token or register(args.base_url, args.register, timeout)
        client = AuthenticatedClient(base_url=args.base_url, token=token, prefix="Token", timeout=timeout)
        Bot(client, set(args.games.split(",")), args.tables).run()
    except Failure as exc:
        print(f"FAILED: {exc}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
