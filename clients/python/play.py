"""Plays a table of each game (President, Auction Pitch, Lopti) against random bots, through
the client generated from the API's schema (clients/python/generate.sh) and nothing else: its
operations, its typed models and their fields.

    python clients/python/play.py [--base-url http://127.0.0.1:8000] [--timeout 300] [--against BOT]

It registers one user, then for each game creates a table with the fewest seats the game
allows and options that make it short, fills the other seats with `random` bots (`bot_delay:
0`: they move at once), starts it and plays its own seat to the end: it long-polls the state
(`?wait=` with the last `ETag` in `If-None-Match`) and, whenever `legal_moves` is not empty,
sends one of them to the endpoint that takes it. In Lopti it also proposes a Rule Vote once: a
bot that votes no ties it, and the tie goes to a rock-paper-scissors duel the program throws
in; and it declines the house rule when it wins a round. One line per finished table; exit
status 1 on any failure.

With `--against BOT`, seat 1 of each table goes to the bot account BOT instead (invited with
`POST /tables/{id}/bots {"account": BOT}`; its program, e.g. bot.py here, accepts and plays).

The generated package (`cardgames_client`) is imported from this folder or from PYTHONPATH."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar, runtime_checkable
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402 - the generated client's own HTTP library, for its timeout only
from cardgames_client import AuthenticatedClient, Client  # noqa: E402
from cardgames_client.api.accounts import auth_register  # noqa: E402
from cardgames_client.api.lopti import (  # noqa: E402
    lopti_duels_throw,
    lopti_house_rules_submit,
    lopti_votes_ballot,
    lopti_votes_champion,
    lopti_votes_propose,
)
from cardgames_client.api.moves import tables_moves_create, tables_state  # noqa: E402
from cardgames_client.api.tables import (  # noqa: E402
    games_list,
    tables_bots_add,
    tables_create,
    tables_retrieve,
    tables_start,
)
from cardgames_client.models import (  # noqa: E402
    AppliesEnum,
    BallotRequest,
    Duel,
    Game,
    GameEnum,
    HouseRuleDeclined,
    HouseRuleDeclineRequest,
    Invitation,
    KindEnum,
    LevelEnum,
    LoptiAbstainMove,
    LoptiBallotDecision,
    LoptiChampionDecision,
    LoptiDeclineRuleDecision,
    LoptiKeepMove,
    LoptiNoChampionMove,
    LoptiPlayFaceDownMove,
    LoptiPlayMove,
    LoptiState,
    LoptiStatePhase,
    LoptiSwapMove,
    LoptiTakePileMove,
    LoptiThrowDecision,
    MoveResult,
    PitchBidMove,
    PitchPlayMove,
    PitchState,
    PresidentGiveMove,
    PresidentPassMove,
    PresidentPlayMove,
    PresidentState,
    Registered,
    RegisterRequest,
    RuleVote,
    StaleVersionOrConflictOrIdempotencyKeyReusedError,
    StaleVersionOrConflictOrIdempotencyKeyReusedErrorCode,
    Table,
    TableAddBotRequest,
    TableCreateRequest,
    TableCreateRequestOptions,
    TableStatusEnum,
    ThrowEnum,
    ThrowRequest,
    VoteProposalRequest,
)

T = TypeVar("T")
WAIT = 25  # seconds a state long-poll may be held (the server allows up to 30)


class Failure(Exception):
    """Anything that stops a game: an error answer, an unexpected one, or no end in time."""


@runtime_checkable
class ErrorAnswer(Protocol):
    """What every error answer has (`{code, message, detail}`); each operation's errors are
    their own classes, with `code` an enum of the codes that operation answers."""

    @property
    def code(self) -> str: ...

    @property
    def message(self) -> str: ...


def failure(what: str, result: object) -> Failure:
    """A Failure that names the error the server answered, or the unexpected answer."""
    if isinstance(result, ErrorAnswer):
        return Failure(f"{what}: {result.code} ({result.message})")
    return Failure(f"{what}: unexpected answer {result!r}")


def expect(result: object, kind: type[T], what: str) -> T:
    """`result` if it is a `kind`; else a Failure that names the error the server answered."""
    if isinstance(result, kind):
        return result
    raise failure(what, result)


@dataclass
class Plan:
    """A game's table: the options that keep it short (GET /games lists each game's options)."""

    game: GameEnum
    options: dict[str, int | float | bool | str]


PLANS = [
    # One hand instead of playing to 11 points (P-7.2).
    Plan(GameEnum.PRESIDENT, {"hands": 1}),
    # The first to 1 point wins: usually the first hand.
    Plan(GameEnum.PITCH, {"target_score": 1}),
    # Two rounds (so a round's winner may have a house rule to write or decline, L-11.1),
    # with fewer cards per player and no draw pile.
    Plan(GameEnum.LOPTI, {"rounds": 2, "draw_rule": "none", "hand_size": 2, "face_up_count": 1, "face_down_count": 1}),
]


def create_table(client: AuthenticatedClient, plan: Plan, catalogue: list[Game], against: str | None = None) -> Table:
    """The plan's table with the fewest seats the game allows, started: `random` bots in every
    other seat, or first the bot account `against` (invited by POST /bots {account}: its
    program accepts, clients/python/bot.py), then the bots."""
    game = next(g for g in catalogue if g.slug == plan.game.value)
    # The one untyped part: a table's options depend on the game, and the schema leaves them
    # free-form (GET /games describes each game's), so the model takes them by name.
    options = TableCreateRequestOptions()
    for name, value in {**plan.options, "bot_delay": 0}.items():
        options[name] = value
    table = expect(
        tables_create.sync(client=client, body=TableCreateRequest(game=plan.game, seats=game.min_players, options=options)),
        Table, "create the table",
    )
    first = 1
    if against is not None:
        expect(tables_bots_add.sync(table.id, client=client, body=TableAddBotRequest(account=against)),
               Invitation, f"invite the bot account {against}")
        wait_for_seat(client, table.id, 1, against)
        first = 2
    for seat in range(first, game.min_players):
        expect(tables_bots_add.sync(table.id, client=client, body=TableAddBotRequest(level=LevelEnum.RANDOM, seat=seat)),
               Table, f"a bot in seat {seat}")
    return expect(tables_start.sync(table.id, client=client), Table, "start")


def wait_for_seat(client: AuthenticatedClient, table_id: UUID, seat: int, username: str, timeout: float = 60) -> None:
    """Until `username` sits in `seat` (a bot account's program accepts its invitation)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        table = expect(tables_retrieve.sync(table_id, client=client), Table, "read the table")
        player = next(s.player for s in table.seats if s.seat == seat)
        if player is not None and player.username.lower() == username.lower():
            return
        time.sleep(0.2)
    raise Failure(f"{username} did not accept the invitation within {timeout:.0f} s")


GameState = PresidentState | PitchState | LoptiState
LegalMove = (
    PresidentPlayMove | PresidentPassMove | PresidentGiveMove | PitchBidMove | PitchPlayMove
    | LoptiSwapMove | LoptiKeepMove | LoptiPlayMove | LoptiPlayFaceDownMove | LoptiTakePileMove
    | LoptiBallotDecision | LoptiAbstainMove | LoptiChampionDecision | LoptiNoChampionMove | LoptiThrowDecision
    | LoptiDeclineRuleDecision
)


class Player:
    """One seat of one table, played to the end."""

    def __init__(self, client: AuthenticatedClient, table: Table):
        self.client, self.table_id = client, table.id
        self.etag: str | None = None
        self.decisions = 0
        self.proposed = False
        self.declined = 0
        self.throws = 0

    def poll(self) -> GameState | None:
        """The next state (None while it has not changed): a long-poll from the last ETag, or
        at once after our own decision (the ETag is then set to None)."""
        if self.etag is None:
            response = tables_state.sync_detailed(self.table_id, client=self.client)
        else:
            response = tables_state.sync_detailed(self.table_id, client=self.client, wait=WAIT, if_none_match=self.etag)
        if response.status_code == 304:
            return None
        state = response.parsed
        if not isinstance(state, PresidentState | PitchState | LoptiState):
            raise failure("state", state)
        self.etag = response.headers.get("ETag")
        return state

    def play(self, timeout: float) -> GameState:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            state = self.poll()
            if state is None:
                continue
            if state.status == TableStatusEnum.FINISHED:
                return state
            if state.legal_moves:
                self.decide(choose(state.legal_moves))
                self.etag = None  # our own change: read the state it made at once
            elif isinstance(state, LoptiState) and self.may_propose(state):
                self.propose()
        raise Failure(f"no end within {timeout:.0f} s")

    # --- decisions -------------------------------------------------------------------------
    def decide(self, move: LegalMove) -> None:
        self.decisions += 1
        if isinstance(move, LoptiDeclineRuleDecision):
            self.declined += 1
        elif isinstance(move, LoptiThrowDecision):
            self.throws += 1
        send(self.client, self.table_id, move, f"{move.type_} (decision {self.decisions})")

    def may_propose(self, state: LoptiState) -> bool:
        """Once, in a Lopti round's play, when no vote was proposed this round (L-12.1)."""
        public = state.public
        return (not self.proposed and public is not None and state.phase == LoptiStatePhase.PLAY
                and not public.vote_used and public.vote is None and not (public.window and public.window.open_))

    def propose(self) -> None:
        """A Rule Vote on a base rule for the next round: a bot that votes no ties it, and the
        tie goes to a rock-paper-scissors duel (L-12.3)."""
        self.proposed = True
        proposal = VoteProposalRequest(kind=KindEnum.BASE_RULE, applies=AppliesEnum.NEXT_ROUND,
                                       key="extra_play_on_clear", value=False)
        result = lopti_votes_propose.sync(self.table_id, client=self.client, body=proposal)
        # The window may have opened or the round ended in between: a 409 is no failure.
        if (isinstance(result, StaleVersionOrConflictOrIdempotencyKeyReusedError)
                and result.code == StaleVersionOrConflictOrIdempotencyKeyReusedErrorCode.CONFLICT):
            return
        expect(result, RuleVote, "propose a Rule Vote")


def send(client: AuthenticatedClient, table: UUID, move: LegalMove, what: str) -> None:
    """Sends `move` to the endpoint that takes it: Lopti's house-rule decline, ballots,
    champions and throws have their own (api.md); every other move goes to /moves."""
    if isinstance(move, LoptiDeclineRuleDecision):  # L-11.1: the round's winner's window
        expect(lopti_house_rules_submit.sync(table, client=client, body=HouseRuleDeclineRequest(decline=True)),
               HouseRuleDeclined, what)
    elif isinstance(move, LoptiBallotDecision):  # L-12.2: a member's ballot on a Rule Vote
        expect(lopti_votes_ballot.sync(table, move.vote_id, client=client, body=BallotRequest(yes=move.yes)),
               RuleVote, what)
    elif isinstance(move, LoptiChampionDecision):  # L-12.3: come forward for a tied vote
        expect(lopti_votes_champion.sync(table, move.vote_id, client=client), RuleVote, what)
    elif isinstance(move, LoptiThrowDecision):  # L-12.4: a throw of the duel
        expect(lopti_duels_throw.sync(table, move.duel_id, client=client,
                                      body=ThrowRequest(throw=ThrowEnum(move.throw.value))), Duel, what)
    else:  # a game move, abstain and no_champion: the move endpoint takes it as listed
        expect(tables_moves_create.sync(table, client=client, body=move), MoveResult, what)


def choose(legal: Sequence[LegalMove]) -> LegalMove:
    """A move that ends games soon: no pile taken while a card can be played, no swap."""
    def cost(move: LegalMove) -> int:
        return 2 if isinstance(move, LoptiTakePileMove) else 1 if isinstance(move, LoptiSwapMove) else 0

    return min(legal, key=cost)


def summary(state: GameState) -> str:
    """The end of a table, from its typed state."""
    you = state.you.seat if state.you is not None else None
    winners = state.public.winners if state.public is not None else []
    return f"scores {state.scores}, winners {winners} (you: seat {you})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="the server (default: a local make run)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds each game may take")
    parser.add_argument("--against", metavar="USERNAME",
                        help="a bot account to invite to each table (clients/python/bot.py plays it)")
    args = parser.parse_args()
    timeout = httpx.Timeout(WAIT + 30)
    anonymous = Client(base_url=args.base_url, timeout=timeout)
    name = f"py-{secrets.token_hex(4)}"
    registered = auth_register.sync(client=anonymous, body=RegisterRequest(username=name, password=secrets.token_urlsafe(16)))
    if not isinstance(registered, Registered):
        print(f"register: {registered}", file=sys.stderr)
        return 1
    client = AuthenticatedClient(base_url=args.base_url, token=registered.token, prefix="Token", timeout=timeout)
    failed = 0
    catalogue = expect(games_list.sync(client=client), list, "games")
    for plan in PLANS:
        started = time.monotonic()
        try:
            table = create_table(client, plan, catalogue, args.against)
            player = Player(client, table)
            state = player.play(args.timeout)
            extra = ""
            if plan.game == GameEnum.LOPTI:
                extra = f", rule vote proposed: {player.proposed}, throws: {player.throws}, rules declined: {player.declined}"
            print(f"{plan.game.value}: finished, table {table.id}, {len(table.seats)} seats, {player.decisions} decisions, "
                  f"{summary(state)}{extra} ({time.monotonic() - started:.1f} s)", flush=True)
        except (Failure, httpx.HTTPError) as exc:
            failed += 1
            print(f"{plan.game.value}: FAILED: {exc}", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
