"""Lopti's walker for the typed contract's test (tests/engine/test_types.py): the moves a random
pick from `legal_moves` never makes. House rules are written in most windows (so rules fire,
reveal hands, skip turns, give cards), Rule Votes are proposed in most rounds (ties at 2 and 4
seats go to duels, whose throws legal_moves lists), and now and then an author edits or
deletes a rule, the server moderates one or starts a new session (whose setup takes restore
votes and waits for start_session). The harness skips a candidate the engine refuses."""

from __future__ import annotations

from .test_lopti_house_rules_random import random_proposal, random_rule

# Unreachable from a new table by any sequence of moves: champions are called only when the
# rule's author "is no longer in the session" (L-12.3), that is when the author's seat no
# longer exists, and a table never loses seats (tests/engine/test_lopti_votes.py builds such a
# state by hand). Knockouts between champions follow from champions only.
RARE = {
    "champion": "L-12.3: champions only when the rule's author's seat is gone, which no move makes",
    "no_champion": "L-12.3: as champion",
    "champion_call": "L-12.3: as champion",
}


def candidates(rng, game, state) -> list[tuple[int | None, dict]]:
    st = state
    n = st["players"]
    out: list[tuple[int | None, dict]] = []
    if st["status"] == "finished":
        return out
    if st["phase"] == "setup" and not st["open_vote"]:
        # L-12.5: restore votes for earlier sessions' rules, then the host deals
        earlier = sorted({h["id"] for h in st["rule_history"]} - set(st["setup_votes"]))
        for rule_id in earlier[:3]:
            seat = rng.randrange(n)
            out.append((seat, {"type": "propose_vote", "kind": "restore", "rule_id": rule_id,
                               "applies": rng.choice(["now", "next_round"])}))
        out.append((None, {"type": "start_session"}))
        return out
    if st["phase"] == "house_rule" and not st["open_vote"]:
        winner = st["window"]["winner"]
        # the winner mostly writes (the harness would otherwise decline every time)
        out += [(winner, {"type": "write_rule", "rule": random_rule(rng)}) for _ in range(4)]
        if rng.random() < 0.15:
            out.append((None, {"type": "new_session"}))
    if not st["open_vote"] and not st["vote_used"] and st["phase"] in ("swap", "play") and rng.random() < 0.3:
        # one vote a round (L-12.1); proposals on the table's own rules are the likelier
        proposal = random_proposal(rng, st)
        if proposal["kind"] == "base_rule" and st["house_rules"] and rng.random() < 0.6:
            record = rng.choice(st["house_rules"])
            kind = rng.choice(["remove", "modify", "restore"])
            proposal = {"type": "propose_vote", "kind": kind, "rule_id": record["id"], "applies": rng.choice(["now", "next_round"])}
            if kind == "modify":
                proposal["rule"] = random_rule(rng)
        # the author proposing faces nobody on a tie: mostly someone else
        out += [(rng.randrange(n), proposal)] * 3
    if st["house_rules"] and rng.random() < 0.08:
        record = rng.choice(st["house_rules"])
        out.append((record["author"], {"type": "delete_rule", "rule_id": record["id"]}))
    editable = [r for r in st["house_rules"] if r["status"] != "deleted" and r["edit_round"] == st["round"]
                and not st["round_started"]]
    if editable and rng.random() < 0.3:
        record = rng.choice(editable)
        out.append((record["author"], {"type": "edit_rule", "rule_id": record["id"], "rule": random_rule(rng)}))
    if (st["house_rules"] or st["rule_history"]) and rng.random() < 0.04:
        record = rng.choice(st["house_rules"] + st["rule_history"])
        out.append((None, {"type": "moderate_rule", "rule_id": record["id"], "hidden": rng.random() < 0.7}))
    if st["phase"] in ("swap", "play") and not st["round_started"] and not st["open_vote"] and rng.random() < 0.05:
        out.append((None, {"type": "new_session"}))
    return out
