"""Lopti's walker for the typed contract's test (tests/engine/test_types.py): the moves a random
pick from `legal_moves` never makes. House rules are written in most windows (so rules fire,
reveal hands, skip turns, give cards), Rule Votes are proposed in most rounds (ties at 2 and 4
seats go to duels, whose throws legal_moves lists), and now and then an author edits or
deletes a rule, the server moderates one or starts a new session (whose setup takes restore
votes and waits for start_session). The harness skips a candidate the engine refuses."""

from __future__ import annotations

from games.engine import cards, lopti

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


# Rules that surely fire, for the events random rules rarely reach. The first clears after
# every play and refills the hand, so every play gives an extra play until the turn's rule
# firings run out (rule_limit, L-11.3), and skips the next player (turn_skipped; at two seats
# a second skip in a row is void, skip_void). The others fire at every turn's start: cleared
# cards returned, the direction reversed, an announcement; a hand laid open until its owner's
# next turn (reveal_hand, reveal_end), a card taken from the next player, a draw.
LIVELY = [
    {"description": "every play clears, draws and skips the next", "when": {"event": "play"},
     "then": [{"effect": "clear_pile"}, {"effect": "draw", "target": "actor", "count": 3},
              {"effect": "skip_next_turn", "target": "next_player"}]},
    {"description": "turns start upside down", "when": {"event": "turn_start"},
     "then": [{"effect": "return_cleared", "target": "actor"}, {"effect": "reverse_direction"},
              {"effect": "announce"}]},
    {"description": "show your hand", "when": {"event": "turn_start", "timing": "before"},
     "then": [{"effect": "reveal_hand", "target": "actor"}, {"effect": "give_card", "target": "next_player", "which": "lowest"},
              {"effect": "draw", "target": "actor"}]},
]


def _at_turn_start(rng, rule: dict) -> dict:
    """A random rule's effects at every turn's start, where they surely fire (most random
    triggers, filters and conditions rarely meet)."""
    out = {**rule, "when": {"event": "turn_start", "timing": rng.choice(["before", "after"])}}
    out.pop("if", None)
    if any(e["effect"] == "clear_pile" for e in out["then"]) and len(out["then"]) == 1:
        out["then"] = [*out["then"], {"effect": "announce"}]
    return out


def _low(move: dict, chain: bool) -> tuple:
    """The lowest rank, with all its cards; a single card in a chain of extra plays (so that a
    rule clearing after every play reaches the turn's limit)."""
    count = len(move["cards"])
    return (lopti.RANK_VALUE[cards.rank_of(move["cards"][0])], count if chain else -count)


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
        out += [(winner, {"type": "write_rule", "rule": random_rule(rng)})]
        out += [(winner, {"type": "write_rule", "rule": _at_turn_start(rng, random_rule(rng))}) for _ in range(2)]
        written = {r["rule"]["description"] for r in st["house_rules"] if r["status"] == "active"}
        unwritten = [rule for rule in LIVELY if rule["description"] not in written]
        if unwritten:  # the first first: its rounds are short, so more windows follow
            lively = unwritten[0] if unwritten[0] is LIVELY[0] else rng.choice(unwritten)
            out += [(winner, {"type": "write_rule", "rule": lively})] * 6
        out.append((winner, {"type": "decline_rule"}))  # beside the listed one (rule_declined)
        if rng.random() < 0.15:  # (it ends the session's rules: not too often)
            out += [(None, {"type": "new_session"})] * 4
    if not st["open_vote"] and not st["vote_used"] and st["phase"] in ("swap", "play") and rng.random() < 0.3:
        # one vote a round (L-12.1); proposals on the table's own rules are the likelier
        proposal = random_proposal(rng, st)
        if st["house_rules"] and rng.random() < 0.7:
            record = rng.choice(st["house_rules"])
            kind = rng.choice(["remove", "modify", "restore"])
            applies = "next_round" if rng.random() < 0.7 else "now"  # a pending change (L-12.2)
            proposal = {"type": "propose_vote", "kind": kind, "rule_id": record["id"], "applies": applies}
            if kind == "modify":
                proposal["rule"] = random_rule(rng)
        # the author proposing faces nobody on a tie: mostly someone else
        out += [(rng.randrange(n), proposal)] * 3
    vote = st["votes"][st["open_vote"] - 1] if st["open_vote"] else None
    if vote is not None and vote["stage"] == "ballots" and vote["kind"] != "base_rule":
        # a yes beside the listed yes, no and abstain: house-rule changes pass more often, so
        # that some wait for the next deal and meet their rule deleted (change_void)
        out += [(seat, {"type": "ballot", "vote_id": vote["id"], "yes": True}) for seat in game.to_act(st)]
    if st["phase"] == "play" and not st["open_vote"]:
        # Rounds must end for windows, rules and sessions: a uniform pick from legal_moves
        # plays a round in over a thousand moves, always the lowest play in about 140 (as
        # players mostly do), so the lowest play is made most of the time.
        seat = st["turn"]
        listed = game.legal_moves(st, seat)
        plays = [m for m in listed if m["type"] in ("play", "play_face_down")]
        if plays:
            best = min(plays, key=lambda m: _low(m, st["extra_plays"] > 0)) if plays[0]["type"] == "play" else rng.choice(plays)
            out += [(seat, best)] * (8 * len(listed))
    for change in st["pending_changes"]:
        # the author deleting a rule whose change waits for the next deal voids it (L-11.6)
        out += [(r["author"], {"type": "delete_rule", "rule_id": r["id"]}) for r in st["house_rules"] if r["id"] == change["rule_id"]] * 4
    acting = [k["rule_id"] for k in st["skips"] + st["revealed"]]
    if acting and rng.random() < 0.03:
        # a rule deleted while its skip waits or its hand lies open stops them (L-12.2)
        rule_id = rng.choice(acting)
        out += [(r["author"], {"type": "delete_rule", "rule_id": rule_id}) for r in st["house_rules"] if r["id"] == rule_id]
    if st["house_rules"] and rng.random() < 0.08:
        record = rng.choice(st["house_rules"])
        out.append((record["author"], {"type": "delete_rule", "rule_id": record["id"]}))
    editable = [r for r in st["house_rules"] if r["status"] != "deleted" and r["edit_round"] == st["round"]
                and not st["round_started"]]
    if editable:  # (with no swap phase, only until the first play: at once)
        # reworded, mostly: a random rule instead would undo the window's lively one
        record = rng.choice(editable)
        rule = dict(record["rule"], description=f"{record['rule']['description']}, edited")
        if rng.random() < 0.2:
            rule = random_rule(rng)
        out += [(record["author"], {"type": "edit_rule", "rule_id": record["id"], "rule": rule})] * 2
    if (st["house_rules"] or st["rule_history"]) and rng.random() < 0.04:
        record = rng.choice(st["house_rules"] + st["rule_history"])
        out.append((None, {"type": "moderate_rule", "rule_id": record["id"], "hidden": rng.random() < 0.7}))
    if st["phase"] in ("swap", "play") and not st["round_started"] and not st["open_vote"] and rng.random() < 0.05:
        out += [(None, {"type": "new_session"})] * 3
    return out
