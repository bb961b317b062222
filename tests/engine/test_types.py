"""The typed contract holds (api.md, "The typed contract"): thousands of random states of every
game, each shown to every seat and to a spectator, validated against the published OpenAPI
schema with a JSON Schema (2020-12) validator: the state view as the API assembles it
(`games.selectors.started_state`), every legal move, every event of every move as each viewer
sees it, and every move-log entry (`games.selectors.log_entry`).

Every object of the schema is closed for the test (no property it does not name), and `you` and
the seats are checked with all their in-game fields required, so a field an engine adds, renames
or retypes fails here until its types (games/engine/*types*.py) follow. And every move, decision
and event type a game's types declare must be seen in the walk, so the types name nothing the
game never shows.

Per-game walkers (optional: tests/engine/types_walk_lopti.py is one) add the moves a random pick
from `legal_moves` never makes (Lopti's house rules, votes, duels)."""

from __future__ import annotations

import copy
import datetime as dt
import importlib
import random
import uuid

import jsonschema_rs
import pytest

from config.schema import all_game_types
from games import deal_log, selectors
from games.engine import registry

pytestmark = pytest.mark.django_db

TABLES = 30  # random tables per game
MAX_MOVES = 260  # moves per table at most
AT = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def components():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


def closed(schema):
    """Every object schema that names its properties, closed to any other (for the test only: the
    published schema lets a client ignore a field added later)."""
    if isinstance(schema, dict):
        out = {k: closed(v) for k, v in schema.items()}
        if "properties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [closed(v) for v in schema]
    return schema


def strict(components):
    """The published components, closed, with `you` and the seats as they are once the game has
    started: every field their game's types require (games.engine.types.GameTypes)."""
    out = copy.deepcopy(components)
    for types in all_game_types():
        out[f"{types.title}You"] = copy.deepcopy(types.you)
        seat = out[f"{types.title}Seat"]
        seat["required"] = [*seat["required"], *[k for k in types.seat.get("required", []) if k not in seat["required"]]]
    return closed(out)


class Validators:
    def __init__(self, components):
        self.components = components
        self.cache = {}

    def __call__(self, name):
        if name not in self.cache:
            root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": {"schemas": self.components},
                    "$ref": f"#/components/schemas/{name}"}
            self.cache[name] = jsonschema_rs.validator_for(root)
        return self.cache[name]

    def check(self, name, instance, what):
        errors = list(self(name).iter_errors(instance))
        assert not errors, f"{what} does not match {name}: " + "; ".join(
            f"{e.message} at {'/'.join(map(str, e.instance_path))}" for e in errors[:5]) + f"\n{instance!r}"[:3000]


def random_options(rng, game, players):
    """Random table options from the catalogue (the defaults when a draw is refused)."""
    options = {}
    for name, option in game.options.items():
        if option.choices is not None:
            options[name] = rng.choice(list(option.choices))
        elif option.type == "bool":
            options[name] = rng.random() < 0.5
        elif option.type == "int" and option.minimum is not None and option.maximum is not None:
            options[name] = rng.randint(option.minimum, min(option.maximum, option.minimum + 5))
    try:
        return game.validate_table_options(options, players=players)
    except Exception:
        return game.validate_table_options({}, players=players)


def walker(slug):
    try:
        return importlib.import_module(f"tests.engine.types_walk_{slug}")
    except ModuleNotFoundError:
        return None


def platform_seats(players, rng):
    seats = [{"seat": s, "player": None if rng.random() < 0.3 else {"id": s + 1, "username": f"p{s}"},
              "is_bot": rng.random() < 0.5, "away": rng.random() < 0.1} for s in range(players)]
    # A bot account's seat (games.selectors.table_seats) at seat 1 whenever someone sits there (no
    # draw of its own: the walks stay those the draws above lead to).
    if seats[1]["player"] is not None:
        seats[1].update(is_bot=True, bot={"account": seats[1]["player"]["username"]})
    return seats


GAMES = [types.game for types in all_game_types()]


def test_every_game_has_types():
    assert sorted(GAMES) == sorted(game.slug for game in registry.all_games())


def test_presidents_variation_enum_is_the_engines_list():
    """The types name the variations (P-9) in a list of their own (the engine module imports its
    types, so they cannot import it back): it must be the engine's, in its order."""
    from games.engine import president, president_types

    assert tuple(president_types.VARIATION_ENUM["enum"]) == president.VARIATIONS


@pytest.mark.parametrize("slug", GAMES)
def test_random_states_views_moves_and_events_match_the_schema(slug, components):
    game = registry.get(slug)
    types = game.types
    t = types.title
    check = Validators(strict(components)).check
    published = Validators(closed(components)).check
    extra = walker(slug)
    seen = {"moves": set(), "decisions": set(), "events": set()}
    states = 0
    for n in range(TABLES):
        rng = random.Random(f"{slug}-{n}")
        players = rng.randint(game.min_players, game.max_players)
        state = game.new_game(players=players, options=random_options(rng, game, players), seed=rng.getrandbits(63))
        base = {"table": str(uuid.UUID(int=n)), "game": slug, "status": "active", "deadline": None}
        seats = platform_seats(players, rng)
        # Before the start: the waiting view, against the published (not the in-game) schema.
        published("State", selectors.waiting_state({**base, "version": 0, "status": "open"}, seats, 0), "waiting view")
        published("State", selectors.waiting_state({**base, "version": 0, "status": "open"}, seats, None), "waiting view")
        for version in range(1, MAX_MOVES + 1):
            states += 1
            for viewer in [*range(players), None]:
                view = game.view(state, viewer)
                shown = selectors.started_state({**base, "version": version}, [dict(s) for s in seats], view, active=True)
                check(f"{t}State", shown, f"{slug} view of seat {viewer}")
                check("State", shown, f"{slug} view of seat {viewer}")
                for move in view["legal_moves"]:
                    check(f"{t}LegalMove", move, f"{slug} legal move")
                    if move["type"] in types.moves:
                        check(f"{t}Move", move, f"{slug} legal move as a POST body")
                        check("MoveInputRequest", move, f"{slug} legal move as a POST body")
                        seen["moves"].add(move["type"])
                    else:
                        seen["decisions"].add(move["type"])
            if game.is_over(state):
                break
            candidates = [(seat, m) for seat in game.to_act(state) for m in game.legal_moves(state, seat)]
            if extra is not None:
                candidates += extra.candidates(rng, game, state)
            if not candidates:
                break
            if rng.random() < 0.05 and game.to_act(state):
                seat = rng.choice(game.to_act(state))
                move, by = game.timeout_move(state, seat, random.Random(rng.random())), "server"
            else:
                seat, move = rng.choice(candidates)
                by = rng.choice(["player", "bot"])
            try:
                result = game.apply(state, seat, move)
            except Exception:
                if extra is None:
                    raise
                continue  # a walker's proposal the rules refuse now
            for viewer in [*range(players), None]:
                for event in result.events:
                    shown_event = game.view_event(event, viewer)
                    check(f"{t}Event", shown_event, f"{slug} event seen by {viewer}")
                    check("GameEvent", shown_event, f"{slug} event seen by {viewer}")
                    seen["events"].add(shown_event["type"])
                entry = selectors.log_entry(game, move=move, mover=seat, events=result.events, viewer=viewer, seq=version,
                                            by=by, version=version, at=AT, state=result.state)
                entry["at"] = AT.isoformat()
                check(f"{t}LogEntry", entry, f"{slug} log entry seen by {viewer}")
                check("MoveLogEntry", entry, f"{slug} log entry seen by {viewer}")
            state = result.state
    # The platform's own entries: deal 0's commitment (or fixed deck) and an aborted table's reveal.
    commitment, secret = "ab" * 32, "cd" * 32
    for fields in ({"deal": 0, "deal_commitment": commitment}, {"deal": 0, "fixed_deck": True}):
        entry = deal_log.first_entry(fields, 0, AT.isoformat())
        check(f"{t}LogEntry", entry, f"{slug} first deal entry")
        check("MoveLogEntry", entry, f"{slug} first deal entry")
    event = deal_log.reveal_event(3, secret, commitment)
    entry = {**event, "seq": 9, "seat": None, "by": "server", "version": 9, "at": AT.isoformat(), "events": [event]}
    check(f"{t}LogEntry", entry, f"{slug} an aborted table's reveal")
    assert states >= 1000, f"only {states} states walked"
    declared = {"moves": set(types.moves), "decisions": set(types.decisions), "events": set(types.events)}
    rare = getattr(extra, "RARE", {}) if extra is not None else {}
    for part in declared:
        unseen = declared[part] - seen[part] - set(rare)
        assert not unseen, f"{slug}: {part} declared but never seen in {TABLES} random tables: {sorted(unseen)}"
