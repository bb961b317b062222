"""Lopti's session features over HTTP: house rules (L-11), Rule Votes (L-12.1-12.2), duels
(L-12.3-12.4) and sessions (L-12.5). Every change is an engine move, so it is in the move
log and replays like any other; this module adds the checks that belong to the platform
(the game, the ids in the path, hosting) and maps HTTP calls to those moves. Every check runs
under the table lock, inside the command path (`moves.move_submit(check=...)`); the reads
are in `games.selectors` (`lopti_table`, `vote_detail`, `duel_detail`, `house_rules`)."""

from __future__ import annotations

from config.errors import Forbidden
from games import selectors
from games.models import Table

from . import moves

# Who may act is decided in one place, the engine, under the table lock: a house rule's
# write or decline by anyone but the round's winner, or an edit or delete by anyone but the
# rule's author, raises the engine's NotPermitted (403 `forbidden`); the winner outside the
# window, or a vote at a time L-12.2 forbids, raises GameConflict (409 `conflict`). This module
# only turns a table that is not a started Lopti table, or an id in the path that names
# nothing, into the contract's 404/409 first, under the same lock.


def _started_lopti(table: Table) -> None:
    selectors.lopti_check(table)


def _rule_exists(rule_id: int):
    def check(table: Table) -> None:
        selectors.lopti_check(table)
        selectors.find_rule(table, rule_id)

    return check


def _vote_exists(vote_id: int):
    def check(table: Table) -> None:
        selectors.lopti_check(table)
        selectors.vote_detail(table, vote_id)

    return check


def _duel_exists(duel_id: int):
    def check(table: Table) -> None:
        selectors.lopti_check(table)
        selectors.duel_detail(table, duel_id)

    return check


def _submit(table_id, user, move: dict, check=_started_lopti) -> tuple[Table, list[dict]]:
    table, _, events = moves.move_submit(table_id=table_id, user=user, move=move, check=check)
    return table, events


def house_rule_write(*, table_id, user, rule: dict) -> Table:
    return _submit(table_id, user, {"type": "write_rule", "rule": rule})[0]


def house_rule_decline(*, table_id, user) -> Table:
    return _submit(table_id, user, {"type": "decline_rule"})[0]


def house_rule_edit(*, table_id, user, rule_id: int, rule: dict) -> Table:
    """L-11.5: the author only (the engine checks), before the next round begins."""
    move = {"type": "edit_rule", "rule_id": rule_id, "rule": rule}
    return _submit(table_id, user, move, _rule_exists(rule_id))[0]


def house_rule_delete(*, table_id, user, rule_id: int) -> Table:
    """L-11.6: the author only (the engine checks), any time."""
    return _submit(table_id, user, {"type": "delete_rule", "rule_id": rule_id}, _rule_exists(rule_id))[0]


def house_rule_moderate(*, table_id, rule_id: int, hidden: bool) -> Table:
    """Operators hide (or show again) a rule's description; its effect is unchanged."""
    move = {"type": "moderate_rule", "rule_id": rule_id, "hidden": hidden}
    table, _ = moves.server_move_submit(table_id=table_id, move=move, check=_rule_exists(rule_id))
    return table


def vote_propose(*, table_id, user, proposal: dict) -> tuple[Table, int]:
    """L-12.1: a member proposes a change; the proposal is their yes ballot. Returns the
    vote's id, from the move's own `vote_proposed` event (not from a view)."""
    table, events = _submit(table_id, user, {"type": "propose_vote", **proposal})
    vote_id = next(e["vote"]["id"] for e in events if e.get("type") == "vote_proposed")
    return table, vote_id


def vote_ballot(*, table_id, user, vote_id: int, yes: bool) -> Table:
    move = {"type": "ballot", "vote_id": vote_id, "yes": yes}
    return _submit(table_id, user, move, _vote_exists(vote_id))[0]


def vote_champion(*, table_id, user, vote_id: int) -> Table:
    return _submit(table_id, user, {"type": "champion", "vote_id": vote_id}, _vote_exists(vote_id))[0]


def duel_throw(*, table_id, user, duel_id: int, throw: str) -> Table:
    move = {"type": "throw", "duel_id": duel_id, "throw": throw}
    return _submit(table_id, user, move, _duel_exists(duel_id))[0]


def session_new(*, table_id, user) -> Table:
    """The host, between rounds: a new session with fresh rules, waiting in `setup`."""

    def host_only(table: Table) -> None:
        selectors.lopti_check(table)
        if table.host_id != user.pk:
            raise Forbidden("only the host may start a new session")

    table, _ = moves.server_move_submit(table_id=table_id, move={"type": "new_session"}, check=host_only)
    return table
