"""A tied Rule Vote settled (L-12.3, L-12.4): who represents each side, champions and their
knockout, and the Rock-Paper-Scissors duel (first to 16 decisive throws; a throw waits in the
duel's `pending`, seen by nobody, until the other's is in)."""

from __future__ import annotations

from . import house_rules, votes
from .core import _Ctx
from .votes import THROWS, find_duel  # noqa: F401 (defined with the votes: their moves list throws)

BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
DUEL_WINS = 16  # L-12.4: 30 decisive throws, 15-15 goes to the next one: first to 16
KNOCKOUT_WINS = 1  # L-12.3: one decisive throw per knockout match


def duel_view(state: dict, duel_id: int) -> dict | None:
    """A duel as everyone may see it: the score and only completed pairs of throws (L-12.4,
    L-14); a throw still waiting for the opponent's never appears. None for an unknown id."""
    duel = find_duel(state, duel_id)
    if duel is None:
        return None
    return {
        "id": duel["id"],
        "vote_id": duel["vote_id"],
        "kind": duel["kind"],
        "players": list(duel["players"]),
        "first_to": duel["first_to"],
        "score": list(duel["score"]),
        "throws": [dict(t, throws=list(t["throws"])) for t in duel["throws"]],
        "waiting": [p for p, t in zip(duel["players"], duel["pending"], strict=True) if t is None]
        if duel["status"] == "open"
        else [],
        "status": duel["status"],
        "winner": duel["winner"],
    }


def _author(st: dict, vote: dict) -> int:
    record = house_rules.find(st, vote["rule_id"])
    if record is None:
        record = house_rules.find_earlier(st, vote["rule_id"])
    return record["author"]


def _settle_tie(ctx: _Ctx, vote: dict) -> None:
    """L-12.3: who represents each side of a tie, or why the tie passes."""
    st = ctx.state
    noes = [s for s in vote["order"] if vote["ballots"][s] == "no"]
    proposer = vote["proposer"]
    if vote["kind"] == "base_rule":
        # Ruling: voting no is formal opposition; the earliest no-vote is the opponent
        if not noes:
            votes._close(ctx, vote, "passed", True, "tie with nobody voting no")
            return
        _start_duel(ctx, vote, proposer, noes[0], DUEL_WINS)
        return
    author = _author(st, vote)
    if author == proposer:
        # Ruling: the author changing their own rule faces nobody: the tie passes
        votes._close(ctx, vote, "passed", True, "tie, the proposer is the rule's author")
        return
    if author < st["players"]:
        _start_duel(ctx, vote, proposer, author, DUEL_WINS)
        return
    # Ruling: the author is "no longer in the session" when their seat no longer exists; the
    # rule's supporters (the members who voted no) may come forward as champions.
    if not noes:
        votes._close(ctx, vote, "passed", True, "tie, no champion")
        return
    vote["stage"] = "champions"
    vote["champion_pending"] = noes
    ctx.log({"type": "champion_call", "vote_id": vote["id"], "seats": list(noes)})


def settle_if_tied(ctx: _Ctx, vote: dict) -> None:
    """After a ballot (or the proposal's own): a vote that just tied goes to its duel or its
    champions (L-12.3)."""
    if vote["status"] == "tied" and vote["stage"] == "ballots":
        _settle_tie(ctx, vote)


def champion(ctx: _Ctx, vote: dict, seat: int, forward: bool) -> None:
    vote["champion_pending"].remove(seat)
    if forward:
        vote["champions"].append(seat)  # the order they came forward
    ctx.log({"type": "champion", "vote_id": vote["id"], "seat": seat, "forward": forward})
    if vote["champion_pending"]:
        return
    champions = vote["champions"]
    if not champions:
        votes._close(ctx, vote, "passed", True, "tie, no champion")
    elif len(champions) == 1:
        _start_duel(ctx, vote, vote["proposer"], champions[0], DUEL_WINS)
    else:
        # L-12.3: several candidates play a knockout, one decisive throw per match, in order
        vote["knockout_next"] = 2
        _start_duel(ctx, vote, champions[0], champions[1], KNOCKOUT_WINS)


# --- duels (L-12.4) ------------------------------------------------------------------------------------


def _start_duel(ctx: _Ctx, vote: dict, first: int, second: int, wins: int) -> None:
    st = ctx.state
    duel = {
        "id": len(st["duels"]) + 1,
        "vote_id": vote["id"],
        "kind": "duel" if wins == DUEL_WINS else "knockout",
        "players": [first, second],
        "first_to": wins,
        "score": [0, 0],
        "throws": [],
        "pending": [None, None],
        "status": "open",
        "winner": None,
    }
    st["duels"].append(duel)
    vote["stage"] = "duel"
    vote["duel"] = duel["id"]
    vote["duels"].append(duel["id"])
    if duel["kind"] == "duel":
        vote["opponent"] = second
    ctx.log(
        {
            "type": "duel_start",
            "duel_id": duel["id"],
            "vote_id": vote["id"],
            "kind": duel["kind"],
            "players": [first, second],
            "first_to": wins,
        }
    )


def throw(ctx: _Ctx, vote: dict, duel: dict, seat: int, choice: str) -> None:
    """Both throw at once: a throw stays in `pending`, seen by nobody, until the other's is in."""
    index = duel["players"].index(seat)
    duel["pending"][index] = choice
    ctx.log(
        {
            "type": "throw",
            "duel_id": duel["id"],
            "seat": seat,
            "secret": {"throw": choice},
            "secret_to": [seat],
        }
    )
    if None in duel["pending"]:
        return
    first, second = duel["pending"]
    duel["pending"] = [None, None]
    winner = None
    if BEATS[first] == second:
        winner = duel["players"][0]
        duel["score"][0] += 1
    elif BEATS[second] == first:
        winner = duel["players"][1]
        duel["score"][1] += 1
    # a draw does not count (L-12.4), but it is shown like every completed pair
    duel["throws"].append({"throws": [first, second], "winner": winner})
    ctx.log(
        {
            "type": "throws_revealed",
            "duel_id": duel["id"],
            "players": list(duel["players"]),
            "throws": [first, second],
            "winner": winner,
            "score": list(duel["score"]),
        }
    )
    if max(duel["score"]) < duel["first_to"]:
        return
    duel["status"] = "finished"
    duel["winner"] = duel["players"][0] if duel["score"][0] > duel["score"][1] else duel["players"][1]
    ctx.log(
        {"type": "duel_end", "duel_id": duel["id"], "winner": duel["winner"], "score": list(duel["score"])}
    )
    _after_duel(ctx, vote, duel)


def _after_duel(ctx: _Ctx, vote: dict, duel: dict) -> None:
    if duel["kind"] == "knockout":
        champions = vote["champions"]
        if vote["knockout_next"] < len(champions):
            nxt = champions[vote["knockout_next"]]
            vote["knockout_next"] += 1
            _start_duel(ctx, vote, duel["winner"], nxt, KNOCKOUT_WINS)
        else:
            _start_duel(ctx, vote, vote["proposer"], duel["winner"], DUEL_WINS)
        return
    changed = duel["winner"] == vote["proposer"]
    vote["decided_for"] = "yes" if changed else "no"
    votes._close(ctx, vote, "decided", changed, "duel")
