"""The Rule Vote (L-12.1-12.2), its Rock-Paper-Scissors duels (L-12.3-12.4) and the restore
votes of a new session's setup (L-12.5).

A vote lives in `state["votes"]` (every vote of the table, by id) and, while it or its duel is
open, `state["open_vote"]` names it: play pauses (`to_act` is then the members who still owe
the vote a ballot, a champion decision or a throw). Duels live in `state["duels"]`; a throw
waits in the duel's `pending` until the opponent has thrown too, and only views built by
`duel_view` (which never shows `pending`) leave the engine.

The tie's champions and duels live in duels.py; their names stay here too.
"""

from __future__ import annotations

from ..base import GameConflict, IllegalMove, InvalidMove
from . import core, effects, house_rules
from .core import _Ctx

KINDS = ("remove", "modify", "restore", "base_rule")


# --- lookups and views ---------------------------------------------------------------------------


def find_vote(st: dict, vote_id) -> dict | None:
    if isinstance(vote_id, bool) or not isinstance(vote_id, int) or not 1 <= vote_id <= len(st["votes"]):
        return None
    return st["votes"][vote_id - 1]


THROWS = ("rock", "paper", "scissors")


def find_duel(st: dict, duel_id) -> dict | None:
    if isinstance(duel_id, bool) or not isinstance(duel_id, int) or not 1 <= duel_id <= len(st["duels"]):
        return None
    return st["duels"][duel_id - 1]


def open_vote(st: dict) -> dict | None:
    return find_vote(st, st["open_vote"]) if st["open_vote"] else None


def tally(st: dict, vote: dict) -> dict:
    ballots = vote["ballots"]
    return {
        "yes": ballots.count("yes"),
        "no": ballots.count("no"),
        "abstain": ballots.count("abstain"),
        "members": st["players"],
        "waiting": [s for s, b in enumerate(ballots) if b is None] if vote["stage"] == "ballots" else [],
    }


def vote_view(state: dict, vote_id: int) -> dict | None:
    """A vote as everyone may see it (ballots are public, L-14), or None for an unknown id."""
    vote = find_vote(state, vote_id)
    if vote is None:
        return None
    return {
        "id": vote["id"],
        "session": vote["session"],
        "round": vote["round"],
        "setup": vote["setup"],
        "kind": vote["kind"],
        "proposer": vote["proposer"],
        "applies": vote["applies"],
        "target": {"key": vote["key"], "value": vote["value"]}
        if vote["kind"] == "base_rule"
        else {"rule_id": vote["rule_id"]},
        "rule_id": vote["rule_id"],
        "rule": vote["rule"],
        "key": vote["key"],
        "value": vote["value"],
        "tally": tally(state, vote),
        "ballots": list(vote["ballots"]),
        "status": vote["status"],
        "stage": vote["stage"],
        "opponent": vote["opponent"],
        "champions": list(vote["champions"]),
        "champion_waiting": list(vote["champion_pending"]),
        "duel": vote["duel"],
        "duels": list(vote["duels"]),
        "decided_for": vote["decided_for"],
        "result": vote["result"],
        "reason": vote["reason"],
    }


def current_vote_id(st: dict) -> int | None:
    """The open vote, or the last vote of this round (of this setup in phase `setup`). Votes
    are kept in the order they were proposed, so only the table's last one can qualify."""
    if st["open_vote"]:
        return st["open_vote"]
    if not st["votes"]:
        return None
    vote = st["votes"][-1]
    setup = st["phase"] == "setup"
    if (
        vote["session"] == st["session"]
        and vote["setup"] == setup
        and (setup or vote["round"] == st["round"])
    ):
        return vote["id"]
    return None


# --- who acts --------------------------------------------------------------------------------------


def to_act(st: dict, vote: dict) -> list[int]:
    if vote["stage"] == "ballots":
        return [s for s, b in enumerate(vote["ballots"]) if b is None]
    if vote["stage"] == "champions":
        return list(vote["champion_pending"])
    duel = find_duel(st, vote["duel"])
    return [p for p, t in zip(duel["players"], duel["pending"], strict=True) if t is None]


def legal_moves(st: dict, vote: dict, seat: int) -> list[dict]:
    if seat not in to_act(st, vote):
        return []
    if vote["stage"] == "ballots":
        return [
            {"type": "ballot", "vote_id": vote["id"], "yes": True},
            {"type": "ballot", "vote_id": vote["id"], "yes": False},
            {"type": "abstain", "vote_id": vote["id"]},
        ]
    if vote["stage"] == "champions":
        return [{"type": "champion", "vote_id": vote["id"]}, {"type": "no_champion", "vote_id": vote["id"]}]
    return [{"type": "throw", "duel_id": vote["duel"], "throw": t} for t in THROWS]


def timeout_move(st: dict, vote: dict, seat: int, rng=None) -> dict:
    """L-12.2: a member who does not vote counts as not voting yes (abstain, no formal no);
    L-12.3: a member who does not come forward is no champion; L-12.4: a representative who
    does not throw throws at random (from the server's `rng`; "rock" without one)."""
    if vote["stage"] == "ballots":
        return {"type": "abstain", "vote_id": vote["id"]}
    if vote["stage"] == "champions":
        return {"type": "no_champion", "vote_id": vote["id"]}
    choice = rng.choice(THROWS) if rng is not None else THROWS[0]
    return {"type": "throw", "duel_id": vote["duel"], "throw": choice}


# --- proposing ---------------------------------------------------------------------------------------


def _rule_id(move: dict) -> int:
    rule_id = move["rule_id"]
    if isinstance(rule_id, bool) or not isinstance(rule_id, int):
        raise InvalidMove("rule_id must be an integer", fields={"rule_id": ["must be an integer"]})
    return rule_id


KIND_FIELDS = {
    "remove": {"rule_id"},
    "modify": {"rule_id", "rule"},
    "restore": {"rule_id"},
    "base_rule": {"key", "value"},
}


def parse_proposal(st: dict, move: dict) -> dict:
    """The proposal move, well-formed and normalised (the checked base-rule value, the
    normalised rule of a modify), or InvalidMove. These shape checks come before every state
    conflict (the precedence of the single check these were split from)."""
    kind = move.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidMove(f"kind must be one of {list(KINDS)}", fields={"kind": [f"one of {list(KINDS)}"]})
    wanted = KIND_FIELDS[kind] | {"type", "kind", "applies"}
    extra = sorted(set(move) - wanted)
    if extra:
        raise InvalidMove(
            f"unexpected field(s) {extra} for a {kind} vote",
            fields={k: [f"not used by a {kind} vote"] for k in extra},
        )
    missing = sorted(wanted - set(move))
    if missing:
        raise InvalidMove(f"missing field(s) {missing}", fields={k: ["required"] for k in missing})
    if move["applies"] not in ("now", "next_round"):
        raise InvalidMove("applies must be 'now' or 'next_round'", fields={"applies": ["now or next_round"]})
    proposal = {
        "kind": kind,
        "applies": move["applies"],
        "rule_id": None,
        "rule": None,
        "key": None,
        "value": None,
    }
    if kind == "base_rule":
        if not isinstance(move["key"], str):
            raise InvalidMove("key must be a base rule's name", fields={"key": ["not a base rule (L-13)"]})
        proposal["key"] = move["key"]
        proposal["value"] = core.check_base_rule(st, move["key"], move["value"], move["applies"])
    else:
        proposal["rule_id"] = _rule_id(move)
        if kind == "modify":
            proposal["rule"] = house_rules.validate_rule(move["rule"])
    return {"type": "propose_vote", **{k: proposal[k] for k in ("kind", "applies", *KIND_FIELDS[kind])}}


def proposal_of(move: dict) -> dict:
    """The vote record's proposal fields of a parsed propose_vote move (no checks)."""
    return {
        "kind": move["kind"],
        "applies": move["applies"],
        "rule_id": move.get("rule_id"),
        "rule": move.get("rule"),
        "key": move.get("key"),
        "value": move.get("value"),
    }


def check_proposal(st: dict, move: dict) -> None:
    """The refusals of a parsed proposal, in the order the rules give them: GameConflict when
    no vote may open now, IllegalMove (with the rule id) when the rules forbid this change, and
    InvalidMove for a rule id that names no rule (after the conflicts, as the single check
    these were split from had it)."""
    proposal = proposal_of(move)
    kind = proposal["kind"]
    # state conflicts (409) come before what the rules forbid
    if st["open_vote"]:
        raise GameConflict("a vote is already open: one vote at a time")
    setup = st["phase"] == "setup"
    # api.md: a Rule Vote proposed at a time L-12.2 forbids is a state conflict (409), not an
    # illegal move: the same proposal is fine at another moment.
    if st["phase"] == "house_rule":
        raise GameConflict("L-12.2: no Rule Vote in the winner's window between rounds", rule="L-12.2")
    if not setup and st["vote_used"]:
        raise GameConflict("L-12.2: this round's one Rule Vote is used up", rule="L-12.2")
    if setup and kind != "restore":
        raise IllegalMove("during setup only earlier sessions' rules may be voted back", rule="L-12.5")
    if kind == "base_rule":
        return
    rule_id = proposal["rule_id"]
    record = house_rules.find(st, rule_id)
    if setup:
        if house_rules.find_earlier(st, rule_id) is None:
            raise InvalidMove(
                f"no earlier session has a rule {rule_id}", fields={"rule_id": ["no such rule"]}
            )
        if record is not None or rule_id in st["setup_votes"]:
            raise IllegalMove(f"rule {rule_id} has had its setup vote", rule="L-12.5")
        return
    if record is None:
        if house_rules.find_earlier(st, rule_id) is not None:
            raise IllegalMove(
                "an earlier session's rule comes back only by a vote during setup", rule="L-12.5"
            )
        raise InvalidMove(f"this session has no rule {rule_id}", fields={"rule_id": ["no such rule"]})
    if kind in ("remove", "modify") and record["status"] != "active":
        raise IllegalMove(f"only an active rule can be {kind}d", rule="L-12.1")
    if kind == "restore" and record["status"] != "removed":
        raise IllegalMove("only a removed rule can be brought back", rule="L-12.1")


def propose(ctx: _Ctx, seat: int, proposal: dict) -> None:
    st = ctx.state
    n = st["players"]
    setup = st["phase"] == "setup"
    vote = {
        "id": len(st["votes"]) + 1,
        "session": st["session"],
        "round": st["round"],
        "setup": setup,
        "proposer": seat,
        **proposal,
        "ballots": [None] * n,
        "order": [],
        "status": "open",
        "stage": "ballots",
        "opponent": None,
        "champions": [],
        "champion_pending": [],
        "knockout_next": 0,
        "duel": None,
        "duels": [],
        "decided_for": None,
        "result": None,
        "reason": None,
    }
    st["votes"].append(vote)
    st["open_vote"] = vote["id"]
    if setup:
        st["setup_votes"].append(vote["rule_id"])  # L-12.5: one vote per rule
    else:
        st["vote_used"] = True  # L-12.1: a failed or tied vote uses it up too
    vote["ballots"][seat] = "yes"  # Ruling: the proposal is the proposer's yes ballot
    vote["order"].append(seat)
    ctx.log({"type": "vote_proposed", "vote": vote_view(st, vote["id"])})
    _count(ctx, vote)


# --- ballots and the result (L-12.2) ------------------------------------------------------------


def cast(ctx: _Ctx, vote: dict, seat: int, ballot: str) -> None:
    vote["ballots"][seat] = ballot
    vote["order"].append(seat)
    ctx.log({"type": "ballot", "vote_id": vote["id"], "seat": seat, "ballot": ballot})
    _count(ctx, vote)


def _count(ctx: _Ctx, vote: dict) -> None:
    st = ctx.state
    if None in vote["ballots"]:
        return
    # Ruling: the vote closes when every member has voted or abstained (at the timer's end
    # the server abstains for the rest); abstaining is not voting yes.
    yes, n = vote["ballots"].count("yes"), st["players"]
    if 2 * yes > n:  # more than half of ALL members
        _close(ctx, vote, "passed", True, "majority")
    elif 2 * yes == n:
        vote["status"] = "tied"
        # L-12.3: the caller settles the tie (duels.settle_if_tied), so that the duels, which
        # close votes, stay a layer above them.
        ctx.log({"type": "vote_tied", "vote_id": vote["id"], "tally": tally(st, vote)})
    else:
        _close(ctx, vote, "failed", False, "no majority")


# --- closing and applying ---------------------------------------------------------------------------


def _close(ctx: _Ctx, vote: dict, status: str, changed: bool, reason: str) -> None:
    st = ctx.state
    vote["status"] = status
    vote["stage"] = "closed"
    vote["result"] = "changed" if changed else "unchanged"
    vote["reason"] = reason
    st["open_vote"] = None
    ctx.log(
        {
            "type": "vote_closed",
            "vote_id": vote["id"],
            "status": status,
            "result": vote["result"],
            "reason": reason,
            "tally": tally(st, vote),
        }
    )
    if changed:
        _apply(ctx, vote)


def _apply(ctx: _Ctx, vote: dict) -> None:
    """L-12.2: a passed change applies now or from the next round, as proposed."""
    st = ctx.state
    if vote["kind"] == "base_rule":
        lock, obligation = st["low_lock"], st["obligation"]
        try:
            value = core.check_base_rule(st, vote["key"], vote["value"], vote["applies"])
        except InvalidMove as exc:  # another change since the proposal made it impossible
            ctx.log({"type": "change_void", "vote_id": vote["id"], "reason": exc.message})
            return
        when = core.change_base_rule(st, vote["key"], value, vote["applies"])
        ctx.log({"type": "base_rule_changed", "key": vote["key"], "value": value, "applies": when})
        if st["low_lock"] != lock:
            ctx.log({"type": "low_lock", "on": st["low_lock"]})
        if st["obligation"] != obligation:
            ctx.log({"type": "obligation", "seat": st["obligation"]})
        return
    change = {"vote_id": vote["id"], "kind": vote["kind"], "rule_id": vote["rule_id"], "rule": vote["rule"]}
    if vote["setup"]:
        # L-12.5: an earlier session's rule, back for this session from its first round
        earlier = house_rules.find_earlier(st, vote["rule_id"])
        record = core._clone(earlier)
        record.update(status="active", session=st["session"], edit_round=None)
        st["house_rules"].append(record)
        ctx.log({"type": "rule_changed", "rule_id": record["id"], "kind": "restore", "status": "active"})
    elif vote["applies"] == "next_round":
        st["pending_changes"].append(change)
        ctx.log({"type": "rule_change_pending", **change})
    else:
        apply_rule_change(ctx, change)


def apply_rule_change(ctx: _Ctx, change: dict) -> None:
    """A passed house-rule change; void when the author deleted the rule meanwhile."""
    record = house_rules.find(ctx.state, change["rule_id"])
    kind = change["kind"]
    wanted = "removed" if kind == "restore" else "active"
    if record is None or record["status"] != wanted:
        ctx.log({"type": "change_void", "vote_id": change["vote_id"], "reason": "the rule changed meanwhile"})
        return
    if kind == "remove":
        record["status"] = "removed"  # L-12.1: back only by a later restore vote
    elif kind == "restore":
        record["status"] = "active"
    else:
        record["rule"] = change["rule"]
    if kind != "restore":
        effects.stop_pending(ctx, record["id"])
    ctx.log({"type": "rule_changed", "rule_id": record["id"], "kind": kind, "status": record["status"]})


def apply_pending(ctx: _Ctx) -> None:
    """Changes voted to apply from the next round, just before its deal."""
    st = ctx.state
    pending, st["pending_changes"] = st["pending_changes"], []
    for change in pending:
        apply_rule_change(ctx, change)
