"""Lopti's session features over HTTP: house rules (L-11), Rule Votes (L-12.1-12.2), duels
(L-12.3-12.4) and sessions (L-12.5). Every change is an engine move, so it is in the move
log and replays like any other; this module adds the checks that belong to the platform
(the game, authorship, hosting) and maps HTTP calls to those moves."""

from __future__ import annotations

from config.errors import Conflict, Forbidden, NotFound
from games.engine import lopti as lopti_engine
from games.engine import registry
from games.models import Table

from . import moves


def lopti_table(table_id) -> Table:
    """A started Lopti table, or the contract's error."""
    try:
        table = Table.objects.prefetch_related("seats__user").get(pk=table_id)
    except (Table.DoesNotExist, ValueError, TypeError) as exc:
        raise NotFound("no such table") from exc
    if table.game != "lopti":
        raise NotFound("house rules, votes and duels exist only at Lopti tables")
    if table.state is None:
        raise Conflict("the table has not started")
    return table


def find_rule(table: Table, rule_id: int) -> dict:
    rule = next((r for r in lopti_engine.house_rules_view(table.state) if r["id"] == rule_id), None)
    if rule is None:
        raise NotFound("no such house rule")
    return rule


# Who may act is decided in one place, the engine, under the table lock: a house rule's
# write or decline by anyone but the round's winner, or an edit or delete by anyone but the
# rule's author, raises the engine's NotPermitted (403 `forbidden`); the winner outside the
# window, or a vote at a time L-12.2 forbids, raises GameConflict (409 `conflict`). This module
# only turns an id in the path that names nothing into 404 first. Rules, votes and duels are
# never removed from the state and their ids only grow, so this lookup without the lock can
# at worst miss one created a moment later, which the caller could not have known about.


def house_rule_write(*, table_id, user, rule: dict) -> Table:
    lopti_table(table_id)
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move={"type": "write_rule", "rule": rule})
    return table


def house_rule_decline(*, table_id, user) -> Table:
    lopti_table(table_id)
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move={"type": "decline_rule"})
    return table


def house_rule_edit(*, table_id, user, rule_id: int, rule: dict) -> Table:
    """L-11.5: the author only (the engine checks), before the next round begins."""
    find_rule(lopti_table(table_id), rule_id)
    move = {"type": "edit_rule", "rule_id": rule_id, "rule": rule}
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move=move)
    return table


def house_rule_delete(*, table_id, user, rule_id: int) -> Table:
    """L-11.6: the author only (the engine checks), any time."""
    find_rule(lopti_table(table_id), rule_id)
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move={"type": "delete_rule", "rule_id": rule_id})
    return table


def house_rule_moderate(*, table_id, rule_id: int, hidden: bool) -> Table:
    """Operators hide (or show again) a rule's description; its effect is unchanged."""
    find_rule(lopti_table(table_id), rule_id)
    table, _ = moves.server_move_submit(
        table_id=table_id, move={"type": "moderate_rule", "rule_id": rule_id, "hidden": hidden}
    )
    return table


def vote_propose(*, table_id, user, proposal: dict) -> tuple[Table, int]:
    """L-12.1: a member proposes a change; the proposal is their yes ballot. Returns the
    vote's id."""
    lopti_table(table_id)
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move={"type": "propose_vote", **proposal})
    vote = registry.get("lopti").view(table.state, None)["public"]["vote"]
    return table, vote["id"]


def vote_ballot(*, table_id, user, vote_id: int, yes: bool) -> Table:
    vote_detail(lopti_table(table_id), vote_id)  # 404 for a vote that does not exist
    move = {"type": "ballot", "vote_id": vote_id, "yes": yes}
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move=move)
    return table


def vote_champion(*, table_id, user, vote_id: int) -> Table:
    vote_detail(lopti_table(table_id), vote_id)
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move={"type": "champion", "vote_id": vote_id})
    return table


def duel_throw(*, table_id, user, duel_id: int, throw: str) -> Table:
    duel_detail(lopti_table(table_id), duel_id)
    move = {"type": "throw", "duel_id": duel_id, "throw": throw}
    table, _, _ = moves.move_submit(table_id=table_id, user=user, move=move)
    return table


def session_new(*, table_id, user) -> Table:
    """The host, between rounds: a new session with fresh rules, waiting in `setup`."""
    table = lopti_table(table_id)
    if table.host_id != user.pk:
        raise Forbidden("only the host may start a new session")
    table, _ = moves.server_move_submit(table_id=table_id, move={"type": "new_session"})
    return table


def vote_detail(table: Table, vote_id: int) -> dict:
    vote = lopti_engine.vote_view(table.state, vote_id)
    if vote is None:
        raise NotFound("no such vote")
    return vote


def duel_detail(table: Table, duel_id: int) -> dict:
    duel = lopti_engine.duel_view(table.state, duel_id)
    if duel is None:
        raise NotFound("no such duel")
    return duel


def house_rules(table: Table) -> list[dict]:
    return lopti_engine.house_rules_view(table.state)
