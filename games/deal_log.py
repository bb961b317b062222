"""The move log's fair-deal entries that no move records (api.md, "Fair deals"): the first
deal's commitment, dealt by the start rather than by a move, as entry `seq` 0; and, for a table
an operator aborted mid-deal, the `deal_revealed` entry after its last move. Both are computed
from the table at read time, so the log stays exactly the moves that replay the state. Later
deals' commitments and reveals are events of the moves that dealt and ended them."""

from __future__ import annotations

from games.engine import fairness
from games.models import Table


def _fair(table: Table) -> dict | None:
    return None if table.state is None else table.state.get("fairness")


def first_deal_entry(table: Table, first_move_version: int | None) -> dict | None:
    """Entry 0: deal 0's commitment (or `fixed_deck: true`), before its first decision. Its
    `version` is the one before the first move (the table's, while none was made)."""
    if _fair(table) is None:
        return None
    if table.deck is not None:
        fields = {"deal": 0, "fixed_deck": True}
    else:
        fields = {"deal": 0, "deal_commitment": fairness.commitment(fairness.deal_secret(table.seed, 0))}
    version = table.version if first_move_version is None else first_move_version - 1
    return first_entry(fields, version, table.started_at)


def first_entry(fields: dict, version: int, at) -> dict:
    """Entry 0 from deal 0's public fields (pure: tests/engine/test_types.py checks its type)."""
    return {**fields, "seq": 0, "seat": None, "type": "deal", "by": "server", "version": version,
            "at": at, "events": [{"type": "deal", **fields}]}


def abort_entry(table: Table) -> dict | None:
    """An aborted table's reveal of the deal it stopped in, as the entry after its last move."""
    fair = _fair(table)
    if not table.aborted or fair is None or fair["fixed_deck"] or fair["revealed"]:
        return None
    event = reveal_event(fair["deal"], fairness.deal_secret(table.seed, fair["deal"]).hex(), fair["commitment"])
    return {**event, "seq": table.move_count + 1, "seat": None, "by": "server", "version": table.version,
            "at": table.finished_at, "events": [event]}


def reveal_event(deal: int, secret: str, commitment: str) -> dict:
    """A deal's reveal, as an aborted table's last entry shows it."""
    return {"type": "deal_revealed", "deal": deal, "deal_secret": secret, "deal_commitment": commitment}
