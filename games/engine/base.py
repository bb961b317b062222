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


class GameConflict(EngineError):
    """Any other state conflict (e.g. the game is over)."""

    code = "conflict"


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


class Game:
    """Base class of a game engine. Subclasses set the class attributes and implement the
    methods that raise NotImplementedError. All methods are pure functions of their
    arguments; an engine instance holds no state of its own."""

    slug: str = ""
    name: str = ""
    min_players: int = 0
    max_players: int = 0
    options: dict[str, Option] = {}

    # --- options -----------------------------------------------------------------------
    def validate_options(self, options: dict | None) -> dict:
        """Check the client's options and return the complete dict with defaults filled in.
        Unknown names raise InvalidMove. Subclasses may add cross-option checks."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise InvalidMove(f"unknown option(s) {unknown}", fields={k: ["unknown option"] for k in unknown})
        return {name: opt.check(name, options.get(name, opt.default)) for name, opt in self.options.items()}

    def check_seats(self, options: dict, players: int) -> None:
        """Checks of validated options against the number of seats (Pitch's `partnerships`
        needs four), so table creation refuses them before the start. Raises InvalidMove naming
        the option; none by default."""

    def catalogue(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": {name: opt.catalogue() for name, opt in self.options.items()},
        }

    # --- lifecycle ------------------------------------------------------------------------
    def new_game(
        self,
        *,
        players: int,
        options: dict,
        seed: int,
        deck: list[str] | None = None,
        first_dealer: int | None = None,
    ) -> dict:
        """The state right after the first deal. `options` is already validated. `deck`, when
        given, fixes the first deal only (card 0 is dealt first); every other deal, and the
        first dealer when not fixed, come from `seed` (see cards.deal_rng). The seed is kept
        in the state and must never appear in a view."""
        raise NotImplementedError

    def to_act(self, state: dict) -> list[int]:
        """The seats that may make a move now (several in a simultaneous phase; empty when the
        game is over)."""
        raise NotImplementedError

    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        """Every move `seat` may make now, in the API's JSON form; [] when it may not act.
        Exactly the moves that `apply` accepts."""
        raise NotImplementedError

    def apply(self, state: dict, seat: int, move: dict) -> tuple[dict, list[dict]]:
        """Apply `move` by `seat` and return (new_state, events). Automatic steps that follow
        (end of trick, scoring, the next deal, the server's forced exchange card) happen here
        too and are reported as events. Raises InvalidMove, IllegalMove, NotYourTurn or
        GameConflict and leaves `state` untouched.

        Events are dicts with a "type". Anything in an event that not every player may see
        goes under "secret" (a dict) and the seats allowed to see it under "secret_to"
        (a list of seats); see `view_event`."""
        raise NotImplementedError

    def timeout_move(self, state: dict, seat: int, rng=None) -> dict:
        """The move the server makes for `seat` when its deadline passes (the spec's timeout
        move). Must be one of legal_moves(state, seat). `rng` is the server's random source
        (from `secrets`) for a timeout move that the rules make random, e.g. a duel throw;
        the move returned is concrete, so the log still replays exactly."""
        raise NotImplementedError

    def is_finished(self, state: dict) -> bool:
        raise NotImplementedError

    def view(self, state: dict, seat: int | None) -> dict:
        """What `seat` (None: a spectator) may see:
        {phase, turn, dealer, round, you, seats, public, scores, legal_moves}
        - turn: the single seat to act, else None;
        - you: None for spectators, else {"seat": s, "hand": [...], ...own hidden facts};
        - seats: one dict of public facts per seat (card counts, face-up cards, role, ...);
        - public: the game's public table state; when the game is over it includes
          "winners": [seats];
        - scores: one number per seat, or None where the game keeps no score.
        """
        raise NotImplementedError

    def seat_players(self, state: dict) -> list[int]:
        """For each current seat, the player (their seat when the table started) sitting there.
        Games that never move players keep the identity."""
        return list(range(state["players"]))

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
