"""The JSON shapes a game shows to clients, as JSON Schema (2020-12, the dialect of OpenAPI 3.1):
one `GameTypes` per game, written beside its engine (`president_types.py`, `pitch_types.py`,
`lopti/types.py`) and published by the OpenAPI schema (config.schema.postprocess_game_types)
as named components, told apart by `game` (docs/clients.md).

It is the one source of truth of the typed contract: `tests/engine/test_types.py` walks
thousands of random states of every game and validates every view, legal move and event
against the published schema, with every object closed (no property the schema does not
name), so a rule change that adds, renames or retypes a field fails until its types follow.

Pure data and small helpers, no Django, like the engines."""

from __future__ import annotations

from dataclasses import dataclass, field

# --- building blocks -------------------------------------------------------------------------
CARD = {
    "type": "string",
    "pattern": "^((10|[2-9JQKA])[CDHS]|RJ|BJ)$",
    "description": "a card code: rank `2`-`10`, `J`, `Q`, `K`, `A` then suit `C`, `D`, `H`, `S` (`10H`, `QS`); jokers `RJ`, `BJ`",
    "examples": ["10H"],
}
RANK = {"type": "string", "pattern": "^(10|[2-9JQKA]|RJ|BJ)$", "description": "a card rank: `2`-`10`, `J`, `Q`, `K`, `A`"}
SEAT = {"type": "integer", "minimum": 0, "maximum": 6, "description": "a seat number, from 0"}
COUNT = {"type": "integer", "minimum": 0}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}
STR = {"type": "string"}
HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


def ref(name: str) -> dict:
    """A reference to another component of the published schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: dict) -> dict:
    """`schema` or null (OpenAPI 3.1 has no `nullable`)."""
    if set(schema) <= {"type", "description", "minimum", "maximum", "pattern", "enum", "format", "examples"} and isinstance(
        schema.get("type"), str
    ):
        out = dict(schema)
        out["type"] = [schema["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: dict, **extra) -> dict:
    return {"type": "array", "items": items, **extra}


def enum(*values: str, description: str = "") -> dict:
    out: dict = {"type": "string", "enum": list(values)}
    if description:
        out["description"] = description
    return out


def const(value: str) -> dict:
    return {"type": "string", "enum": [value]}


def obj(properties: dict, *, optional: tuple | list = (), description: str = "") -> dict:
    """An object with these properties, each required unless named in `optional` (a property that
    only some states or events have)."""
    unknown = set(optional) - set(properties)
    if unknown:
        raise ValueError(f"optional names unknown properties {sorted(unknown)}")
    out: dict = {"type": "object", "properties": dict(properties)}
    required = [name for name in properties if name not in optional]
    if required:
        out["required"] = required
    if description:
        out["description"] = description
    return out


def cards(description: str = "") -> dict:
    return array(CARD, **({"description": description} if description else {}))


# --- one game's types ------------------------------------------------------------------------
@dataclass(frozen=True)
class GameTypes:
    """What a game shows, by part of the state view (api.md "The state view") and of the move log.

    - `phases`: every value of the view's `phase` (besides `waiting`, before the start).
    - `you`: `view["you"]` for a seated player (the object; null for spectators is added).
    - `seat`: the engine's facts in `view["seats"][i]` (the platform adds seat, player, is_bot, away).
    - `public`: `view["public"]`.
    - `moves`: by type, every move the move endpoint takes (`POST /tables/{id}/moves`), as
      `legal_moves` lists it and the POST body sends it: the properties besides `type`.
    - `decisions`: by type, entries of `legal_moves` that are made elsewhere (Lopti: the round
      winner's house rule), the properties besides `type`.
    - `events`: by type, every event a move causes as a seat or a spectator sees it (the move
      log's `events`, the move answer's `events`): the properties besides `type`.
    - `log`: by move type, the properties a move-log entry shows of the move besides `type`
      (default: the move's own properties, as sent).
    - `defs`: named schemas the others reference with `ref(name)`; each name starts with the
      game's title (`PresidentTrick`), so components of different games never clash.
    - `you_before_start`: the properties of `you` that a seated player has before the start
      (the platform shows `{seat, hand: []}` then); the rest are required once the game started.
    """

    game: str
    title: str
    phases: tuple[str, ...]
    you: dict
    seat: dict
    public: dict
    moves: dict[str, dict]
    events: dict[str, dict]
    decisions: dict[str, dict] = field(default_factory=dict)
    log: dict[str, dict] = field(default_factory=dict)
    defs: dict[str, dict] = field(default_factory=dict)
    scores: str = "one score per seat"

    def __post_init__(self):
        for name in self.defs:
            if not name.startswith(self.title):
                raise ValueError(f"{self.game}: component {name} must start with {self.title}")
        for part, schemas in (("moves", self.moves), ("events", self.events), ("decisions", self.decisions), ("log", self.log)):
            for kind, schema in schemas.items():
                if schema.get("type") != "object" or "type" in schema.get("properties", {}):
                    raise ValueError(f"{self.game} {part}[{kind}]: an object without `type` (added when published)")
