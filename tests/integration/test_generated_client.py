"""A client generated from the OpenAPI schema (openapi-python-client) plays a game: the schema
is enough for a client, with every response typed. The test generates the client from the
served `/api/schema/`, imports it, and uses only it to register four players, play a whole
President hand against a live server and read the move log."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def generated(tmp_path, client):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(client.get("/api/schema/?format=json").json()))
    binary = Path(sys.executable).with_name("openapi-python-client")
    env = {**os.environ, "PATH": f"{binary.parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        [str(binary), "generate", "--path", str(schema), "--meta", "none", "--output-path", str(tmp_path / "cardgames_client")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )
    # The generator warns about every schema piece it cannot type: none may be left out.
    assert result.returncode == 0 and "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("cardgames_client")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("cardgames_client")]:
            del sys.modules[name]
        shutil.rmtree(tmp_path / "cardgames_client", ignore_errors=True)


def test_a_generated_client_plays_a_president_hand(generated, live_server):
    from cardgames_client import AuthenticatedClient, Client

    # One module per tag (config.contract.OPERATION_TAGS).
    from cardgames_client.api.accounts import auth_register
    from cardgames_client.api.moves import tables_moves_create, tables_moves_list, tables_state
    from cardgames_client.api.tables import tables_create, tables_join, tables_retrieve, tables_start
    from cardgames_client.models import (
        GameEnum,
        MoveResult,
        PresidentPassMove,
        PresidentPassMoveType,
        PresidentState,
        RegisterRequest,
        Table,
        TableCreateRequest,
        TableCreateRequestOptions,
    )

    # A move's 409: its codes as an enum (config.contract.postprocess_errors).
    from cardgames_client.models import (
        NotYourTurnOrStaleVersionOrConflictOrIdempotencyKeyReusedError as MoveConflict,
    )

    anonymous = Client(base_url=live_server.url, raise_on_unexpected_status=True)
    players = {}
    for name in ("ann", "bob", "cat", "dan"):
        registered = auth_register.sync(client=anonymous, body=RegisterRequest(username=f"gen-{name}", password="a long passphrase"))
        players[name] = AuthenticatedClient(base_url=live_server.url, token=registered.token, prefix="Token",
                                            raise_on_unexpected_status=True)
    ann = players["ann"]
    table = tables_create.sync(
        client=ann,
        body=TableCreateRequest(game=GameEnum("president"), seats=4, options=TableCreateRequestOptions.from_dict({"hands": 1})),
    )
    assert isinstance(table, Table)
    for name in ("bob", "cat", "dan"):
        assert isinstance(tables_join.sync(table.id, client=players[name]), Table)
    assert tables_start.sync(table.id, client=ann).status.value == "active"
    by_seat = {}
    summary = tables_retrieve.sync(table.id, client=ann)
    for seat in summary.seats:
        by_seat[seat.seat] = players[seat.player.username.removeprefix("gen-")]
    # A move out of turn comes back typed, in the one error shape.
    state = tables_state.sync(table.id, client=ann)
    idle = next(c for s, c in by_seat.items() if s != state.turn)
    refused = tables_moves_create.sync(table.id, client=idle, body=PresidentPassMove(type_=PresidentPassMoveType.PASS))
    assert isinstance(refused, MoveConflict) and refused.code == "not_your_turn"
    moves = 0
    while True:
        state = tables_state.sync(table.id, client=ann)
        assert isinstance(state, PresidentState)
        if state.status.value != "active":
            break
        acting = [c for s, c in by_seat.items() if tables_state.sync(table.id, client=c).legal_moves]
        mover = acting[0]
        # typed: a legal move comes back as the game's move class and goes out as the body
        legal = tables_state.sync(table.id, client=mover).legal_moves[0]
        result = tables_moves_create.sync(table.id, client=mover, body=legal)
        assert isinstance(result, MoveResult), result
        moves += 1
        assert moves < 500
    assert state.status.value == "finished" and state.public.winners
    log = tables_moves_list.sync(table.id, client=ann)
    assert len([e for e in log if e.by.value == "player"]) == moves
    # entry 0: the first deal's commitment (fair deals), then the moves from 1
    assert [e.seq for e in log] == list(range(len(log))) and log[0].type_ == "deal"
