"""The Lopti engine class: who acts, which moves are legal, `apply` for every move type of the
API (game moves, house-rule moves, vote and duel moves, the server's session and moderation
moves), timeouts and views. The rules themselves live in core.py (base rules), house_rules.py
(L-11) and votes.py (L-12)."""

from __future__ import annotations

import itertools

from ..base import Game, GameConflict, IllegalMove, InvalidMove, NotPermitted, NotYourTurn, Option
from ..cards import check_fixed_deck, deal_rng, shuffled, standard_deck
from . import core, house_rules, votes
from .core import BASE_RULES, MOVE_FIELDS, _Ctx, _rank, card_key

# Every move type and its fields. Game moves (MOVE_FIELDS) wait for `to_act`; the others are
# checked by their own handlers. propose_vote's fields depend on its kind (votes.KIND_FIELDS).
RULE_MOVE_FIELDS = {
    "write_rule": {"type", "rule"},
    "decline_rule": {"type"},
    "edit_rule": {"type", "rule_id", "rule"},
    "delete_rule": {"type", "rule_id"},
}
VOTE_MOVE_FIELDS = {
    "propose_vote": {"type", "kind", "rule_id", "rule", "key", "value", "applies"},
    "ballot": {"type", "vote_id", "yes"},
    "abstain": {"type", "vote_id"},
    "champion": {"type", "vote_id"},
    "no_champion": {"type", "vote_id"},
    "throw": {"type", "duel_id", "throw"},
}
SERVER_MOVE_FIELDS = {
    "moderate_rule": {"type", "rule_id", "hidden"},
    "new_session": {"type"},
    "start_session": {"type"},
}
ALL_MOVE_FIELDS = {**MOVE_FIELDS, **RULE_MOVE_FIELDS, **VOTE_MOVE_FIELDS, **SERVER_MOVE_FIELDS}


def _int_field(move: dict, field: str) -> int:
    value = move[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidMove(f"{field} must be an integer", fields={field: ["must be an integer"]})
    return value


def _bool_field(move: dict, field: str) -> bool:
    if not isinstance(move[field], bool):
        raise InvalidMove(f"{field} must be true or false", fields={field: ["must be a boolean"]})
    return move[field]


def _between_rounds(st: dict) -> bool:
    """Ruling (for new_session): "between rounds" is the winner's window, or a dealt round
    before its first card play (its swap phase, or the play phase with no card played yet),
    the same moment before which L-11.5 lets an author edit a new rule."""
    return st["phase"] == "house_rule" or (st["phase"] in ("swap", "play") and not st["round_started"])


class Lopti(Game):
    slug = "lopti"
    over_message = "the session is over"
    name = "Lopti"
    min_players = 2
    max_players = 5
    options = {
        **BASE_RULES,
        "rounds": Option(
            "int",
            0,
            "Rounds in the session; 0 plays round after round with no limit. The seats with most "
            "round wins win the table.",
            # No spec bound; 100 rounds is more than any session plays (0 already means no limit),
            # and an unbounded integer was accepted up to 10^12 (issue 18.6).
            minimum=0,
            maximum=100,
        ),
    }

    def validate_options(self, options: dict | None) -> dict:
        """The options alone, with no seat count: the deal must fit the deck for the smallest
        table (L-13). A table checks its own seat count with validate_table_options."""
        return self.validate_table_options(options, players=self.min_players)

    def validate_table_options(self, options: dict | None, *, players: int) -> dict:
        """L-13: "the total dealt must fit the deck" for this table's number of seats (5 + 3 + 3
        cards each fit two seats, not five)."""
        opts = super().validate_options(options)
        core.check_deal_fits(opts, players)
        return opts

    # --- lifecycle ------------------------------------------------------------------------------
    def new_game(self, *, players, options, seed, deck=None, first_dealer=None) -> dict:
        if not self.min_players <= players <= self.max_players:
            raise InvalidMove("Lopti is for 2 to 5 players (L-1.1)", fields={"seats": ["2 to 5"]})
        options = self.validate_table_options(options, players=players)
        if deck is not None:
            deck = check_fixed_deck(deck, standard_deck())
        else:
            deck = shuffled(standard_deck(), seed, 0)
        fixed_dealer = first_dealer
        if first_dealer is None:
            first_dealer = deal_rng(seed, -1).randrange(players)
        elif not 0 <= first_dealer < players:
            raise InvalidMove("first_dealer must be a seat", fields={"first_dealer": ["not a seat"]})
        state = {
            "game": self.slug,
            "players": players,
            "seed": seed,
            "status": "active",
            "options": options,
            "rules": {key: options[key] for key in BASE_RULES},  # L-2.1: defaults or table options
            "next_rules": {},
            "session": 1,
            "fixed_dealer": fixed_dealer,
            "deal_number": 0,
            "round": 1,
            "dealer": first_dealer,
            "round_wins": [0] * players,
            "last_round_winner": None,
            "winners": [],
            "window": None,
            # L-11: this session's rules; earlier sessions' copies (L-12.5); ids count per table
            "house_rules": [],
            "rule_history": [],
            "next_rule_id": 1,
            # L-12: every vote and duel of the table, the open one, and the changes waiting for
            # the next deal; rule ids voted on in this setup (L-12.5)
            "votes": [],
            "duels": [],
            "open_vote": None,
            "pending_changes": [],
            "setup_votes": [],
        }
        core._deal(_Ctx(state), deck)
        return state

    def to_act(self, state: dict) -> list[int]:
        if state["status"] == "finished":
            return []
        if state["open_vote"]:
            # L-12.2 ruling: play pauses while a vote or its duel is open
            return votes.to_act(state, votes.open_vote(state))
        phase = state["phase"]
        if phase == "swap":
            return [s for s in range(state["players"]) if not state["swap_done"][s]]
        if phase == "house_rule":
            return [state["window"]["winner"]]
        if phase == "setup":
            return []  # waiting for the host's start_session (a server move)
        return [state["turn"]]

    def is_over(self, state: dict) -> bool:
        return state["status"] == "finished"

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        """The moves of the decision the table waits for. Not listed because they cannot be
        enumerated or do not wait for a turn, yet accepted by `apply` when their own rules allow:
        `write_rule` (the winner, with `decline_rule`, in the window), `edit_rule`,
        `delete_rule` (the author) and `propose_vote` (any member)."""
        if seat not in self.to_act(state):
            return []
        if state["open_vote"]:
            return votes.legal_moves(state, votes.open_vote(state), seat)
        if state["phase"] == "house_rule":
            return [{"type": "decline_rule"}]
        if state["phase"] == "swap":
            moves = [
                {"type": "swap", "hand_card": h, "face_up_card": f}
                for h in state["hands"][seat]
                for f in state["face_up"][seat]
                if f
            ]
            return moves + [{"type": "keep"}]
        moves = []
        hand = state["hands"][seat]
        if hand:
            for rank, group in itertools.groupby(hand, key=_rank):
                group = list(group)
                for k in range(1, len(group) + 1):
                    if core._illegal_reason(state, seat, rank, k) is None:
                        moves.extend(
                            {"type": "play", "cards": list(c)} for c in itertools.combinations(group, k)
                        )
        elif core._face_down_phase(state, seat):
            moves.extend(
                {"type": "play_face_down", "index": i} for i, c in enumerate(state["face_down"][seat]) if c
            )
        if state["pile"]:  # L-4.5, L-9.4
            moves.append({"type": "take_pile"})
        return moves

    def timeout_move(self, state: dict, seat: int, rng=None) -> dict:
        """L-12.2-12.4 for a vote or duel (abstain, no champion, a random throw from `rng`);
        L-11.1: decline in the winner's window (no rule); L-3.3: keep in the swap phase.
        Otherwise take the pile if allowed, else the lowest legal single card, else the first
        face-down card."""
        if state["open_vote"]:
            return votes.timeout_move(state, votes.open_vote(state), seat, rng)
        moves = self.legal_moves(state, seat)
        for kind in ("decline_rule", "keep", "take_pile"):
            if {"type": kind} in moves:
                return {"type": kind}
        singles = [m for m in moves if m["type"] == "play" and len(m["cards"]) == 1]
        if singles:
            return min(singles, key=lambda m: card_key(m["cards"][0]))
        return next(m for m in moves if m["type"] == "play_face_down")


    # --- the front door (issue 11), transitional: the engine's own checked apply is `step`
    # until the engine is split into parse_move / check_move / step.
    def may_act(self, state, seat, move):
        return True

    def parse_move(self, state, seat, move):
        return move

    def check_move(self, state, seat, move):
        return None

    def phase(self, state):
        return state["phase"]

    def winners(self, state):
        return list(self.view(state, None)["public"].get("winners", []))

    def finishing_order(self, state):
        winners = self.winners(state)
        rest = [s for s in range(len(self.seat_players(state))) if s not in winners]
        return [winners, rest] if rest else [winners]

    def scores(self, state):
        return self.view(state, None)["scores"]

    def determinize(self, view, rng, prior=None):
        raise NotImplementedError("issue 11: the engine's determinize")

    def cards(self, state):
        raise NotImplementedError("issue 11: the engine's card list")

    def secret_cards(self, state, seat):
        raise NotImplementedError("issue 11: the engine's secret cards")

    def step(self, state: dict, seat: int, move: dict) -> tuple[dict, list[dict]]:
        ctx = self.apply_in_context(state, seat, move)
        return ctx.state, ctx.events

    def apply_in_context(self, state: dict, seat: int | None, move: dict) -> _Ctx:
        """`apply`, returning the whole context: the new state, the events and the base events
        fired on the way. Every check runs on the untouched input; only a move that passes them
        is applied to a copy."""
        if state["status"] == "finished":
            raise GameConflict("the session is over")
        kind = move.get("type") if isinstance(move, dict) else None
        if not isinstance(kind, str):
            kind = None
        if kind in SERVER_MOVE_FIELDS:
            if seat is not None:
                raise NotYourTurn("only the server makes this move")
            return self._server_move(state, move)
        if kind in RULE_MOVE_FIELDS or kind in VOTE_MOVE_FIELDS:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state["players"]:
                raise NotYourTurn("only a member of the session makes this move")
            if kind in RULE_MOVE_FIELDS:
                return self._rule_move(state, seat, move)
            return self._vote_move(state, seat, move)
        if state["open_vote"] and kind in MOVE_FIELDS:
            raise GameConflict("play is paused while a Rule Vote or its duel is open (L-12.2)")
        if seat not in self.to_act(state):
            raise NotYourTurn("it is not your turn")
        if kind not in MOVE_FIELDS:
            core.parse_fields(move, ALL_MOVE_FIELDS)  # raises InvalidMove naming the types
        move = core._parse(move)
        core._check_holdings(state, seat, move)
        core._check_forbidden(state, seat, move)
        ctx = _Ctx(core._clone(state), house_rules.fire)
        st = ctx.state
        if kind in ("swap", "keep"):
            self._swap_phase(ctx, seat, move)
        elif kind == "take_pile":
            core._take_pile(ctx, seat)
        else:
            st["round_started"] = True  # L-11.5 ruling: the round begins at its first card play
            if kind == "play":
                cards = sorted(move["cards"], key=card_key)
                st["hands"][seat] = [c for c in st["hands"][seat] if c not in cards]
                core._play(ctx, seat, cards, "hand")
            else:
                core._play_face_down(ctx, seat, move["index"])
        return ctx

    def _swap_phase(self, ctx: _Ctx, seat: int, move: dict) -> None:
        """L-3.3: simultaneous; each player swaps up to `swaps_allowed` times or keeps."""
        st = ctx.state
        if move["type"] == "keep":
            st["swap_done"][seat] = True
            ctx.log({"type": "keep", "seat": seat})
        else:
            hand = st["hands"][seat]
            position = st["face_up"][seat].index(move["face_up_card"])
            hand.remove(move["hand_card"])
            st["hands"][seat] = sorted(hand + [move["face_up_card"]], key=card_key)
            st["face_up"][seat][position] = move["hand_card"]
            st["swaps_left"][seat] -= 1
            st["swap_done"][seat] = st["swaps_left"][seat] == 0
            ctx.log(
                {
                    "type": "swap",
                    "seat": seat,
                    "hand_card": move["hand_card"],
                    "face_up_card": move["face_up_card"],
                    "position": position,
                }
            )
        if all(st["swap_done"]):
            st["phase"] = "play"
            ctx.log({"type": "play_start", "first_player": st["first_player"]})
            core._start_turn(ctx, st["first_player"], keep_extra=True)

    # --- house rules (L-11) ---------------------------------------------------------------------------
    def _rule_move(self, state: dict, seat: int, move: dict) -> _Ctx:
        kind = move["type"]
        if kind in ("write_rule", "decline_rule"):
            # api.md: anyone but the round's winner -> 403 whenever it comes; the winner outside
            # the window -> 409. Ruling: "the round's winner" is the winner of the latest
            # window (the round that ended last in this table), or nobody before the first
            # round ends.
            window = state["window"]
            if window is None or window["winner"] != seat:
                raise NotPermitted("L-11.1: only the round's winner writes a house rule")
            if state["phase"] != "house_rule":
                raise GameConflict(
                    "L-11.1: the winner writes a rule only in the window after the round", rule="L-11.1"
                )
            core.parse_fields(move, RULE_MOVE_FIELDS)
            rule = house_rules.validate_rule(move["rule"]) if kind == "write_rule" else None
            ctx = _Ctx(core._clone(state), house_rules.fire)
            st = ctx.state
            if rule is None:
                ctx.log({"type": "rule_declined", "seat": seat})
            else:
                record = {
                    "id": st["next_rule_id"],
                    "author": seat,
                    "rule": rule,
                    "status": "active",
                    "session": st["session"],
                    "created_session": st["session"],
                    "created_round": st["round"],
                    "hidden": False,
                    "edit_round": st["round"] + 1,
                }
                st["next_rule_id"] += 1
                st["house_rules"].append(record)
                st["window"]["rule_id"] = record["id"]
                ctx.log({"type": "rule_written", "rule": house_rules.rule_view(st, record, current=False)})
            # L-11.1 ruling: the next round is dealt as soon as the winner submits or declines
            st["window"]["open"] = False
            votes.apply_pending(ctx)
            core.next_round(ctx)
            return ctx
        core.parse_fields(move, RULE_MOVE_FIELDS)
        rule_id = _int_field(move, "rule_id")
        record = house_rules.find(state, rule_id)
        if record is None:
            raise InvalidMove(f"this session has no rule {rule_id}", fields={"rule_id": ["no such rule"]})
        if record["author"] != seat:
            raise NotPermitted("only the rule's author may do this without a vote (L-11.5, L-11.6)")
        if record["status"] == "deleted":
            raise IllegalMove("the rule is deleted", rule="L-11.6")
        if kind == "edit_rule":
            rule = house_rules.validate_rule(move["rule"])
            if not house_rules.editable(state, record):
                raise IllegalMove(
                    "the author may not rewrite a rule after the round begins; larger changes need a vote",
                    rule="L-11.5",
                )
        ctx = _Ctx(core._clone(state), house_rules.fire)
        record = house_rules.find(ctx.state, rule_id)
        if kind == "edit_rule":
            record["rule"] = rule
            ctx.log({"type": "rule_edited", "rule": house_rules.rule_view(ctx.state, record, current=False)})
        else:
            # L-11.6: any time, without a vote, and without a replacement rule
            record["status"] = "deleted"
            house_rules.stop_pending(ctx, rule_id)
            ctx.log({"type": "rule_deleted", "rule_id": rule_id, "seat": seat})
        return ctx

    # --- the Rule Vote and duels (L-12) ------------------------------------------------------------------
    def _vote_move(self, state: dict, seat: int, move: dict) -> _Ctx:
        kind = move["type"]
        if kind == "propose_vote":
            proposal = votes.check_proposal(state, move)
            ctx = _Ctx(core._clone(state), house_rules.fire)
            votes.propose(ctx, seat, proposal)
            return ctx
        core.parse_fields(move, VOTE_MOVE_FIELDS)
        if kind == "throw":
            duel_id = _int_field(move, "duel_id")
            if move["throw"] not in votes.THROWS:
                raise InvalidMove(
                    f"throw must be one of {list(votes.THROWS)}",
                    fields={"throw": [f"one of {list(votes.THROWS)}"]},
                )
            duel = votes.find_duel(state, duel_id)
            if duel is None:
                raise InvalidMove(f"no duel {duel_id}", fields={"duel_id": ["no such duel"]})
            if duel["status"] != "open":
                raise GameConflict("the duel is over")
            if seat not in duel["players"]:
                raise NotYourTurn("only the duel's two representatives throw")
            if duel["pending"][duel["players"].index(seat)] is not None:
                raise GameConflict("you have thrown already; waiting for the other throw")
            ctx = _Ctx(core._clone(state), house_rules.fire)
            duel = votes.find_duel(ctx.state, duel_id)
            votes.throw(ctx, votes.find_vote(ctx.state, duel["vote_id"]), duel, seat, move["throw"])
            return ctx
        vote_id = _int_field(move, "vote_id")
        if kind == "ballot":
            _bool_field(move, "yes")
        vote = votes.find_vote(state, vote_id)
        if vote is None:
            raise InvalidMove(f"no vote {vote_id}", fields={"vote_id": ["no such vote"]})
        if kind in ("ballot", "abstain"):
            if vote["stage"] != "ballots":
                raise GameConflict("the vote is closed")
            if vote["ballots"][seat] is not None:
                raise GameConflict("you have voted already: one ballot per member (L-12.2)")
        else:
            if vote["stage"] != "champions":
                raise GameConflict("no champion is called for in this vote")
            if seat not in vote["champion_pending"]:
                if seat in vote["champions"] or vote["ballots"][seat] == "no":
                    raise GameConflict("you have decided already")
                raise NotYourTurn("only members who voted no may champion the rule (L-12.3)")
        ctx = _Ctx(core._clone(state), house_rules.fire)
        vote = votes.find_vote(ctx.state, vote_id)
        if kind == "ballot":
            votes.cast(ctx, vote, seat, "yes" if move["yes"] else "no")
        elif kind == "abstain":
            votes.cast(ctx, vote, seat, "abstain")
        else:
            votes.champion(ctx, vote, seat, kind == "champion")
        return ctx

    # --- the server's moves: moderation and sessions (L-2.1, L-12.5) ------------------------------------
    def _server_move(self, state: dict, move: dict) -> _Ctx:
        kind = core.parse_fields(move, SERVER_MOVE_FIELDS)
        if kind == "moderate_rule":
            rule_id = _int_field(move, "rule_id")
            hidden = _bool_field(move, "hidden")
            copies = [r for r in state["house_rules"] + state["rule_history"] if r["id"] == rule_id]
            if not copies:
                raise InvalidMove(f"no rule {rule_id}", fields={"rule_id": ["no such rule"]})
            ctx = _Ctx(core._clone(state))
            st = ctx.state
            # the description only: the rule's effect stays as voted
            for record in st["house_rules"] + st["rule_history"]:
                if record["id"] == rule_id:
                    record["hidden"] = hidden
            ctx.log({"type": "rule_moderated", "rule_id": rule_id, "hidden": hidden})
            return ctx
        if state["open_vote"]:
            raise GameConflict("a Rule Vote or its duel is open")
        if kind == "new_session":
            if not _between_rounds(state):
                raise GameConflict("a new session starts only between rounds")
            ctx = _Ctx(core._clone(state))
            self._new_session(ctx)
            return ctx
        if state["phase"] != "setup":
            raise GameConflict("start_session follows new_session")
        ctx = _Ctx(core._clone(state), house_rules.fire)
        ctx.log({"type": "session_start", "session": ctx.state["session"]})
        votes.apply_pending(ctx)
        core.deal_from_seed(ctx)
        return ctx

    def _new_session(self, ctx: _Ctx) -> None:
        """L-2.1 / L-12.5: a fresh session: no house rules (this session's are kept in the
        history, where setup votes may bring them back), base rules as the table set them, the
        cards gathered up, and the table waits in `setup` for the host's start_session."""
        st = ctx.state
        n = st["players"]
        st["rule_history"].extend(core._clone(st["house_rules"]))
        st["house_rules"] = []
        st["session"] += 1
        st["rules"] = {key: st["options"][key] for key in BASE_RULES}
        st["next_rules"] = {}
        st["pending_changes"] = []
        st["setup_votes"] = []
        if st["window"] is not None:
            st["window"]["open"] = False  # a window still open closes with no rule
        # L-2.3: the session's first dealer, fixed by the table or drawn from the seed and the
        # session number (session 1 used deal_rng(seed, -1))
        dealer = st["fixed_dealer"]
        if dealer is None:
            dealer = deal_rng(st["seed"], -st["session"]).randrange(n)
        rules = st["rules"]
        st.update(
            phase="setup",
            round=1,
            dealer=dealer,
            first_player=dealer,
            last_round_winner=None,
            draw_pile=standard_deck(),  # every card back in the undealt deck
            hands=[[] for _ in range(n)],
            face_up=[[None] * rules["face_up_count"] for _ in range(n)],
            face_down=[[None] * rules["face_down_count"] for _ in range(n)],
            **core.fresh_round_fields(n),
        )
        ctx.log({"type": "session_new", "session": st["session"], "dealer": dealer})

    # --- views ----------------------------------------------------------------------------------------
    def view_log_entry(self, entry: dict, state: dict) -> dict:
        return house_rules.redact_moderated(entry, state)

    def view_move(self, move: dict, mover: int | None, events: list[dict], seat: int | None) -> dict:
        """L-12.4 / L-14: a throw is seen only by its thrower in the log; the pair is revealed
        by the public `throws_revealed` event once both have thrown."""
        if isinstance(move, dict) and move.get("type") == "throw" and (seat is None or seat != mover):
            return {k: v for k, v in move.items() if k != "throw"}
        return super().view_move(move, mover, events, seat)

    def view(self, state: dict, seat: int | None) -> dict:
        st = state
        n = st["players"]
        swapping = st["phase"] == "swap"
        revealed = {r["seat"] for r in st["revealed"]}
        seats = []
        for s in range(n):
            info = {
                "hand_count": len(st["hands"][s]),
                "face_up": list(st["face_up"][s]),
                "face_down_positions": [i for i, c in enumerate(st["face_down"][s]) if c],
                "out": st["out"][s],
                "place": st["places"].index(s) + 1 if s in st["places"] else None,
                "round_wins": st["round_wins"][s],
                # L-11.7 reveal_hand: public until the owner's next turn
                "revealed_hand": sorted(st["hands"][s], key=card_key) if s in revealed else None,
                "skips": sum(1 for k in st["skips"] if k["seat"] == s),
            }
            if swapping:
                info["swap_done"] = st["swap_done"][s]
            seats.append(info)
        you = None
        if seat is not None:
            you = {
                "seat": seat,
                "hand": sorted(st["hands"][seat], key=card_key),
                "face_down_positions": seats[seat]["face_down_positions"],
            }
            if swapping:
                you["swaps_left"] = st["swaps_left"][seat]
            duel = self._open_duel(st)
            if duel is not None and seat in duel["players"]:
                pending = duel["pending"][duel["players"].index(seat)]
                if pending is not None:
                    you["throw"] = {"duel_id": duel["id"], "throw": pending}  # your own, only
        pile = st["pile"]
        vote_id = votes.current_vote_id(st)
        vote = votes.vote_view(st, vote_id) if vote_id else None
        open_vote = votes.open_vote(st)
        public = {
            "pile": list(pile),
            "top_rank": _rank(pile[-1]) if pile else None,
            "top_count": st["top_count"] if pile else 0,
            "run": core._run_length(st),
            "three_chain": list(st["three_chain"]),
            "low_lock": st["low_lock"],
            "obligation": st["obligation"],
            "extra_plays": st["extra_plays"],
            "draw_pile_count": len(st["draw_pile"]),
            "cleared_count": len(st["cleared"]),
            "discarded_count": len(st["discarded"]),
            "rules": dict(st["rules"]),
            "next_rules": dict(st["next_rules"]),
            "rounds": st["options"]["rounds"],
            "round": st["round"],
            "dealer": st["dealer"],
            "first_player": st["first_player"],
            "last_round_winner": st["last_round_winner"],
            "round_wins": list(st["round_wins"]),
            "out": [s for s in range(n) if st["out"][s]],
            "places": list(st["places"]),
            "direction_reversed": st["reversed"],
            "session": st["session"],
            "window": dict(st["window"]) if st["window"] else None,
            "house_rules": house_rules.house_rules_view(st),
            "rule_history": house_rules.rule_history_view(st),
            "pending_changes": [
                {k: c[k] for k in ("vote_id", "kind", "rule_id")} for c in st["pending_changes"]
            ],
            "vote_used": st["vote_used"],
            "vote": vote,
            "duel": votes.duel_view(st, vote["duel"]) if vote and vote["duel"] else None,
            "pause": {"ballots": "vote", "champions": "champion", "duel": "duel"}[open_vote["stage"]]
            if open_vote
            else None,
        }
        if st["status"] == "finished":
            public["winners"] = list(st["winners"])
        to_act = self.to_act(st)
        return {
            "phase": st["phase"],
            "turn": to_act[0] if len(to_act) == 1 and (open_vote or not swapping) else None,
            "dealer": st["dealer"],
            "round": st["round"],
            "you": you,
            "seats": seats,
            "public": public,
            "scores": list(st["round_wins"]),
            "legal_moves": self.legal_moves(state, seat) if seat is not None else [],
        }

    @staticmethod
    def _open_duel(st: dict) -> dict | None:
        vote = votes.open_vote(st)
        if vote is None or vote["stage"] != "duel":
            return None
        return votes.find_duel(st, vote["duel"])
