"""`POST /api/v1/tables/{id}/moves` (docs/api.md, "Moves by game"), computed once for both
adapters: the edge's route (games.edge.app, a token's plain move) and the DRF view
(games.api.tables.TableMovesApi: everything else, an `Idempotency-Key` included).

A move is the one command path (`moves.move_submit`) and the view of the table it committed, for
the mover: `{version, events, state}`, with the ETag of that state, so the client polls on from it
(If-None-Match, `?wait=`) without a GET first."""

from __future__ import annotations

import re

from django.db import transaction

from config.errors import ApiError, Invalid
from games import selectors
from games.services import moves

from .http import Answer
from .state import etag

PATH = re.compile(r"^/api/v1/tables/(?P<table_id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/moves$")
SAMPLE = "/api/v1/tables/00000000-0000-4000-8000-000000000000/moves"


class CommittedThenFailed(RuntimeError):
    """An API error raised after the move committed (by a later hook): not a refusal of the move,
    which stands; the request fails as a server error rather than tell the client to retry."""


def move_body(data) -> tuple[dict, int | None]:
    """(move, expected_version) of a move's JSON body; Invalid when it is not one."""
    if not isinstance(data, dict):
        raise Invalid("the move must be a JSON object", {"fields": {"non_field_errors": ["expected an object"]}})
    move = dict(data)
    expected = move.pop("expected_version", None)
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int)):
        raise Invalid("expected_version must be an integer", {"fields": {"expected_version": ["must be an integer"]}})
    if not isinstance(move.get("type"), str):
        raise Invalid("a move needs a type", {"fields": {"type": ["this field is required"]}})
    return move, expected


def result(table_id: str, user, data) -> dict:
    """Apply the move in `data` for `user`: the answer's body. Raises the API's errors for a
    refused move (nothing applied)."""
    move, expected = move_body(data)
    committed = []

    def check(table):
        # Registered before the change's own hooks: set once the move has committed, so an
        # error raised after that (by a later hook) is never mistaken for a refused move.
        transaction.on_commit(lambda: committed.append(True))

    try:
        table, seat, events = moves.move_submit(
            table_id=table_id, user=user, move=move, expected_version=expected, check=check
        )
    except ApiError as exc:
        if committed:
            raise CommittedThenFailed(str(exc)) from exc
        raise
    return {
        "version": table.version,
        "events": selectors.move_events(table, events, seat),
        "state": selectors.state_view(table, user),
    }


def with_etag(body: dict, user) -> dict[str, str]:
    """The headers a move's answer adds to its body: the ETag of the mover's new state."""
    state = body.get("state")
    return {"ETag": etag(state["version"], user)} if isinstance(state, dict) and isinstance(state.get("version"), int) else {}


def answer(table_id: str, user, data) -> Answer:
    """The move endpoint's answer (sync: it runs on a thread). Raises the API's errors."""
    body = result(table_id, user, data)
    return Answer.json(body, headers=with_etag(body, user))
