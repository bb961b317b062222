"""The interface every game engine implements (pure Python, no Django).

A game's state is a JSON-serialisable dict (lists, dicts, str, int, bool, None only; no
tuples, no sets) so that it can be stored, compared and replayed losslessly. Engines never
mutate the state they are given: `apply` returns a new state.

Seats are numbered 0..n-1 and always mean the *current* seat at the table.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any


class EngineError(Exception):
    """Base class of errors raised by engines. `message` is safe to show to every player:
    it must never name a card the caller could not see."""

    code = "invalid"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InvalidMove(EngineError):
    """The move (or option, or deck) is malformed: unknown type, missing or badly typed field,
    a card code that does not exist, a card the mover does not hold."""

    code = "invalid"

    def __init__(self, message: str, fields: dict[str, list[str]] | None = None):
        super().__init__(message)
        self.fields = fields or {}


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid; `rule` is the spec's rule id, e.g. `P-4.3`."""

    code = "illegal_move"

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.rule = rule


class NotYourTurn(EngineError):
    """A seated player who may not act now (including a second decision in a simultaneous
    phase)."""

    code = "not_your_turn"


class NotPermitted(EngineError):
    """A seated player asking for something that belongs to another seat whatever the moment
    (Lopti: a house rule only the round's winner writes, a rule only its author edits). The
    API answers 403 `forbidden` ("not your rule")."""

    code = "forbidden"


class GameConflict(EngineError):
    """Any other state conflict (e.g. the game is over, or a Lopti vote at a time L-12.2
    forbids). `rule`, when given, is the spec's rule id behind the conflict."""

    code = "conflict"

    def __init__(self, message: str, rule: str | None = None):
        super().__init__(message)
        self.rule = rule


def turn_of(to_act: list[int]) -> int | None:
    """The view's `turn` (api.md, "The state view"), from a game's `to_act`. Ruling, every game
    and phase: `turn` is the seat whenever exactly one seat has a decision due, null only when
    none or several have one. `to_act` is exactly those seats (every decision `turn_timeout`
    bounds: a move, swap, bid, give, the winner's house rule, a ballot, a champion's answer, a
    duel throw), and the seats that receive `legal_moves` are among them, so `turn` and
    `legal_moves` never disagree."""
    return to_act[0] if len(to_act) == 1 else None


@dataclass(frozen=True)
class Option:
    """A table option as published in the games catalogue.

    type: "int", "bool" or "choice". `choices` lists the allowed values for "choice" (and
    optionally for "int"); `minimum`/`maximum` bound an "int". `nullable` allows None
    (e.g. President's `hands`, unset by default)."""

    type: str
    default: Any
    description: str
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    nullable: bool = False

    def catalogue(self) -> dict:
        out: dict[str, Any] = {"type": self.type, "default": self.default, "description": self.description}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.nullable:
            out["nullable"] = True
        return out

    def check(self, name: str, value: Any) -> Any:
        if value is None and self.nullable:
            return None
        if self.type == "bool":
            if not isinstance(value, bool):
                raise InvalidMove(f"option {name} must be true or false", fields={name: ["must be a boolean"]})
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidMove(f"option {name} must be an integer", fields={name: ["must be an integer"]})
            if self.minimum is not None and value < self.minimum:
                raise InvalidMove(f"option {name} must be at least {self.minimum}", fields={name: [f"must be >= {self.minimum}"]})
            if self.maximum is not None and value > self.maximum:
                raise InvalidMove(f"option {name} must be at most {self.maximum}", fields={name: [f"must be <= {self.maximum}"]})
        if self.choices is not None and value not in self.choices:
            raise InvalidMove(
                f"option {name} must be one of {list(self.choices)}",
                fields={name: [f"must be one of {list(self.choices)}"]},
            )
        return value


@dataclass(frozen=True)
class Result:
    """Everything the platform learns from one move, from one engine call (`Game.apply`): the
    new state and its events, who acts next, the phase, whether the game is over, its winners
    and finishing order (and the matches it is rated as), and which player sits in which
    seat. Unpacks as `state, events`."""

    state: dict
    events: list[dict]
    to_act: tuple[int, ...]
    phase: str
    over: bool
    winners: tuple[int, ...]
    finishing_order: tuple[tuple[int, ...], ...]
    seat_players: tuple[int, ...]
    # The matches the table is rated as (`Game.rating_matches`), once over; () before.
    rating_matches: tuple[tuple[tuple[int, ...], ...], ...] = ()

    def __iter__(self):
        return iter((self.state, self.events))


# What every game implements; `Game.__init_subclass__` refuses a class that lacks one.
REQUIRED = (
    "new_game",
    "to_act",
    "phase",
    "is_over",
    "winners",
    "finishing_order",
    "scores",
    "legal_moves",
    "parse_move",
    "check_move",
    "step",
    "timeout_move",
    "view",
    "determinize",
    "cards",
    "secret_cards",
)
# The one door: no game overrides these.
FINAL = ("apply", "result", "is_finished")


class Game:
    """Base class of a game engine. A game sets the class attributes and implements REQUIRED;
    `apply` is the one door through which a move changes a state: the checks every game
    shares, then the game's own `parse_move`, `check_move` and `step`. All methods are pure
    functions of their arguments; an engine instance holds no state of its own.

    Seats are the current seats at the table; `seat_players` maps them to players (the seat
    each player took at the start) for games that move players."""

    slug: str = ""
    name: str = ""
    min_players: int = 0
    max_players: int = 0
    options: dict[str, Option] = {}
    # Every move type `parse_move` knows (server moves included): another type is malformed for
    # every seat (`apply`). Each game sets it.
    move_types: frozenset[str] | None = None
    over_message = "the game is over"
    # State keys added after tables were stored with this engine: a stored state without one
    # was played without it, so its replay starts without it too (services.verify); the engine
    # reads such a key with a default and records nothing in a state that lacks it.
    added_keys: tuple[str, ...] = ()
    # What the game shows clients, as JSON Schema (games.engine.types.GameTypes, in a module
    # beside the engine): the typed contract's one source, checked by tests/engine/test_types.py.
    types = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        overridden = [name for name in FINAL if name in cls.__dict__]
        if overridden:
            raise TypeError(f"{cls.__name__} may not override {overridden}: Game.apply is the one door")
        missing = [name for name in REQUIRED if getattr(cls, name) is getattr(Game, name)]
        missing += ["move_types"] if cls.move_types is None else []
        if missing:
            raise TypeError(f"{cls.__name__} does not implement {missing}")

    # --- options -----------------------------------------------------------------------
    def validate_options(self, options: dict | None) -> dict:
        """Check the client's options and return the complete dict with defaults filled in.
        Unknown names raise InvalidMove. Subclasses may add cross-option checks."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise InvalidMove(f"unknown option(s) {unknown}", fields={k: ["unknown option"] for k in unknown})
        return {name: opt.check(name, options.get(name, opt.default)) for name, opt in self.options.items()}

    def validate_table_options(self, options: dict | None, *, players: int) -> dict:
        """`validate_options` for a table of `players` seats, with the cross-checks that need
        the seat count (Lopti: the deal must fit the deck, L-13; Pitch: partnerships need four
        seats, A-9.1). Table creation calls this; engines whose options do not depend on the
        seats keep the default."""
        return self.validate_options(options)

    def catalogue(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": {name: opt.catalogue() for name, opt in self.options.items()},
            # The rules ship with the project; their ids are the ones `illegal_move` cites.
            "rules": f"docs/rules/{self.slug}.md",
        }

    # --- the door -------------------------------------------------------------------------
    def apply(self, state: dict, seat: int | None, move: object) -> Result:
        """Apply `move` by `seat` (None: a server move, for the games that have them) and
        return the Result. The shared checks come first: the game must not be over, and the
        seat must be one that may act (`may_act`), except that a move whose type the game does
        not have (`move_types`) is InvalidMove for every seat; then the game parses the move
        (InvalidMove when malformed), checks it against the rules (IllegalMove with the rule id, or
        NotYourTurn / GameConflict / NotPermitted) and steps. `state` is never modified."""
        if self.is_over(state):
            raise GameConflict(self.over_message)
        kind = move.get("type") if isinstance(move, dict) else None
        if not (isinstance(kind, str) and kind in self.move_types):
            # api.md "Errors not named above": a move type the game does not have is 400
            # `invalid` from any seat, not `not_your_turn`: it is malformed for every seat.
            # parse_move refuses it, naming the game's types.
            self.parse_move(state, seat, move)
        if not self.may_act(state, seat, move):
            raise NotYourTurn("it is not your turn")
        parsed = self.parse_move(state, seat, move)
        self.check_move(state, seat, parsed)
        new_state, events = self.step(state, seat, parsed)
        return self.result(new_state, events)

    def result(self, state: dict, events: list[dict]) -> Result:
        over = self.is_over(state)
        return Result(
            state=state,
            events=events,
            to_act=tuple(self.to_act(state)),
            phase=self.phase(state),
            over=over,
            winners=tuple(self.winners(state)) if over else (),
            finishing_order=tuple(tuple(place) for place in self.finishing_order(state)) if over else (),
            seat_players=tuple(self.seat_players(state)),
            rating_matches=tuple(tuple(tuple(p) for p in places) for places in self.rating_matches(state)) if over else (),
        )

    def is_finished(self, state: dict) -> bool:
        """The older name of `is_over`."""
        return self.is_over(state)

    def seat_refusal(self, state: dict, seat: int | None, move: object) -> EngineError | None:
        """A refusal of `move` that holds for `seat` at any moment, the game's end included (a
        move only another seat may ever make: NotPermitted), or None. `apply` reports a game
        over first; the services ask this on a table no longer in play. Default: none."""
        return None

    def may_act(self, state: dict, seat: int | None, move: object) -> bool:
        """Whether `seat` may send a move now at all (before the move is parsed). By default:
        it is one of `to_act`. Games with moves that do not wait for a turn (Lopti's ballots,
        house rules, server moves) override this; it must accept malformed moves it cannot
        judge, so that `parse_move` reports them."""
        return seat is not None and seat in self.to_act(state)

    # --- what each game implements -----------------------------------------------------------
    def new_game(
        self,
        *,
        players: int,
        options: dict,
        seed: int,
        deck: list[str] | None = None,
        first_dealer: int | None = None,
        shuffle: int = 1,
        replay: list[str] | None = None,
    ) -> dict:
        """The state right after the first deal. `options` is already validated. `deck`, when
        given, fixes the first deal only (card 0 is dealt first); every other deal, and the
        first dealer when not fixed, come from `seed` through each deal's secret (see
        engine/fairness.py and docs/fair-deals.md). The seed is kept in the state and must never
        appear in a view. `shuffle`: the algorithm's version (0: the generator of tables dealt
        before fair deals, cards.deal_rng); `replay`: the revealed deal secrets (hex, by deal
        number) that stand for the seed when an export is replayed (`seed` is then None)."""
        raise NotImplementedError

    def to_act(self, state: dict) -> list[int]:
        """The seats that may make a move now (several in a simultaneous phase; empty when the
        game is over)."""
        raise NotImplementedError

    def phase(self, state: dict) -> str:
        """The phase's name, as views show it (`view(...)["phase"]`)."""
        raise NotImplementedError

    def is_over(self, state: dict) -> bool:
        raise NotImplementedError

    def winners(self, state: dict) -> list[int]:
        """The winning seats (current seats) of a finished game; [] before the end."""
        raise NotImplementedError

    def finishing_order(self, state: dict) -> list[list[int]]:
        """The places of a finished game, best first, each a list of the seats tied there
        (for ratings); [] before the end."""
        raise NotImplementedError

    def rating_matches(self, state: dict) -> list[list[list[int]]]:
        """The matches a finished game is rated as, in order, each a finishing order (places
        best first, each a list of the seats tied there); [] before the end. The ratings rate
        them one after another, counting the table as one game won by the first place of
        `finishing_order`. Default: one match, `finishing_order` (President, Pitch). Lopti:
        one per round, by the round's places."""
        return [self.finishing_order(state)] if self.is_over(state) else []

    def scores(self, state: dict) -> list[int] | None:
        """One score per current seat, or None where the game keeps no score."""
        raise NotImplementedError

    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        """Every move `seat` may make now, in the API's JSON form; [] when it may not act.
        Exactly the moves that `apply` accepts (games may accept more than they list when the
        moves cannot be enumerated, e.g. Lopti's house rules; they say so)."""
        raise NotImplementedError

    def parse_move(self, state: dict, seat: int | None, move: object) -> dict:
        """The move, checked to be well-formed (InvalidMove otherwise: unknown type, missing
        or badly typed field, a card that does not exist or is not the mover's) and
        normalised to what `step` expects."""
        raise NotImplementedError

    def check_move(self, state: dict, seat: int | None, move: dict) -> None:
        """Raise the rules' refusal of a parsed move: IllegalMove (with the rule id),
        NotYourTurn, GameConflict or NotPermitted. Returns None for a legal move."""
        raise NotImplementedError

    def step(self, state: dict, seat: int | None, move: dict) -> tuple[dict, list[dict]]:
        """The move's effect, UNCHECKED: `move` must be parsed and legal. Returns (new_state,
        events) and leaves `state` untouched. Automatic steps that follow (end of trick,
        scoring, the next deal, the server's forced exchange card) happen here too and are
        reported as events. The search's fast path (games.bots.search).

        Events are dicts with a "type". Anything in an event that not every player may see
        goes under "secret" (a dict) and the seats allowed to see it under "secret_to"
        (a list of seats); see `view_event`."""
        raise NotImplementedError

    def advance(self, state: dict, seat: int | None, move: dict) -> dict:
        """`step` for a caller that owns `state` and needs neither it nor the events again (the
        search's playouts, which make thousands of moves a decision): the new state, which may
        be `state` itself, changed in place (its copy is most of what a step costs). The same
        new state as `step`'s. Default: `step`'s state."""
        return self.step(state, seat, move)[0]

    def timeout_move(self, state: dict, seat: int, rng=None) -> dict:
        """The move the server makes for `seat` when its deadline passes (the spec's timeout
        move). Must be one of legal_moves(state, seat). `rng` is the server's random source
        (from `secrets`) for a timeout move that the rules make random, e.g. a duel throw;
        the move returned is concrete, so the log still replays exactly."""
        raise NotImplementedError

    def view(self, state: dict, seat: int | None) -> dict:
        """What `seat` (None: a spectator) may see:
        {phase, turn, dealer, round, you, seats, public, scores, legal_moves}
        - turn: `turn_of(to_act(state))`, the one seat with a decision due, else None;
        - you: None for spectators, else {"seat": s, "hand": [...], ...own hidden facts};
        - seats: one dict of public facts per seat (card counts, face-up cards, role, ...);
        - public: the game's public table state; when the game is over it includes
          "winners": [seats];
        - scores: one number per seat, or None where the game keeps no score.
        """
        raise NotImplementedError

    def determinize(self, view: dict, rng, prior=None) -> dict:
        """A full state consistent with `view` (a seat's view, as `view(state, seat)` gives
        it): everything the seat sees is as in the view; everything hidden from it is sampled
        with `rng`, consistently with what the view reveals (card counts, cards seen played,
        suits shown out of). `prior` is an optional bot-supplied weighting of unseen cards
        (documented by the game; None: uniform). For the hard bots' search."""
        raise NotImplementedError

    def cards(self, state: dict) -> list[str]:
        """Every card the state holds, wherever it lies (hands, piles, tricks, out of play),
        each as often as it is there: the deck, for the card-conservation tests."""
        raise NotImplementedError

    def secret_cards(self, state: dict, seat: int | None) -> set[str]:
        """The cards `seat` (None: a spectator) may not see now: other players' hands,
        face-down cards, undealt cards, the draw pile. No view, event or error shown to that
        seat may name one of them."""
        raise NotImplementedError

    def seat_players(self, state: dict) -> list[int]:
        """For each current seat, the player (their seat when the table started) sitting there.
        Games that never move players keep the identity."""
        return list(range(state["players"]))

    def teams(self, state: dict) -> list[list[int]]:
        """The sides that win or lose together, as lists of current seats (for ratings): each
        seat alone unless the game plays in partnerships."""
        return [[seat] for seat in range(len(self.seat_players(state)))]

    # --- the move log ------------------------------------------------------------------------
    def view_event(self, event: dict, seat: int | None) -> dict:
        """An event as `seat` may see it: the "secret" part is merged in only for the seats
        listed in "secret_to"."""
        out = {k: v for k, v in event.items() if k not in ("secret", "secret_to")}
        if "secret" in event and seat is not None and seat in event.get("secret_to", []):
            out.update(copy.deepcopy(event["secret"]))
        return out

    def view_move(self, move: dict, mover: int | None, events: list[dict], seat: int | None) -> dict:
        """The move's own fields as `seat` may see them in the log. Public by default; games
        with private moves (President's exchange) override this."""
        return copy.deepcopy(move)

    def view_log_entry(self, entry: dict, state: dict) -> dict:
        """A last pass over a viewed log entry with the table's current state, for what the
        state decides after the fact (Lopti: a moderated rule's description). Identity by
        default."""
        return entry
