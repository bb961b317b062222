"""The Lopti engine class: who acts, which moves are legal, the front door's parse / check /
step for every move type of the API (through the move table of moves.py), timeouts and views.
The rules themselves live in the base-rule modules (core.py gathers them), the house-rule
modules (house_rules.py gathers them, L-11) and votes.py / duels.py (L-12)."""

from __future__ import annotations

import itertools

from .. import fairness
from ..base import EngineError, Game, InvalidMove, Option, turn_of
from ..cards import check_fixed_deck, standard_deck
from . import core, duels, house_rules, moves, votes
from . import determinize as determinize_mod
from . import state as state_mod
from .core import BASE_RULES, _Ctx, _rank, card_key
from .types import TYPES

# Every move type and its fields (the move table, moves.py). propose_vote's fields depend on
# its kind (votes.KIND_FIELDS).
ALL_MOVE_FIELDS = moves.FIELDS


class Lopti(Game):
    slug = "lopti"
    over_message = "the session is over"
    name = "Lopti"
    move_types = frozenset(moves.MOVES)
    types = TYPES  # the typed contract of views, moves, events and the log (types.py)
    added_keys = ("round_results",)
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
            # and an unbounded integer was accepted up to 10^12.
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
    def new_game(
        self, *, players, options, seed, deck=None, first_dealer=None, shuffle=fairness.VERSION, replay=None
    ) -> dict:
        if not self.min_players <= players <= self.max_players:
            raise InvalidMove("Lopti is for 2 to 5 players (L-1.1)", fields={"seats": ["2 to 5"]})
        options = self.validate_table_options(options, players=players)
        if deck is not None:
            deck = check_fixed_deck(deck, standard_deck())
        fixed_dealer = first_dealer
        if first_dealer is not None and not 0 <= first_dealer < players:
            raise InvalidMove("first_dealer must be a seat", fields={"first_dealer": ["not a seat"]})
        fair = fairness.setup(seed, shuffle, replay)
        seeded = {"seed": seed} if fair is None else {"seed": seed, "fairness": fair}
        first_dealer = fairness.first_dealer(seeded, first_dealer, players)
        state = {
            "game": self.slug,
            "players": players,
            **seeded,
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
            "round_results": [],  # each ended round's places (the ratings' matches)
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
        deck, committed = fairness.deal_deck(state, standard_deck(), 0, deck)
        core._deal(_Ctx(state), deck, committed)
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
        plays, face_down, take = self.play_options(state, seat)
        moves = [{"type": "play", "cards": list(c)} for group, k in plays for c in itertools.combinations(group, k)]
        moves.extend({"type": "play_face_down", "index": i} for i in face_down)
        if take:
            moves.append({"type": "take_pile"})
        return moves

    def play_options(self, state: dict, seat: int) -> tuple[list[tuple[list[str], int]], list[int], bool]:
        """The play phase's `legal_moves` for the seat to play, in parts, for a caller that
        does not want every move built (the bots' playouts): the plays as (group, count), in
        the listed order (each group of one rank in hand order, each count from one up;
        every `count` cards of the group are a move, its first `count` the first listed), the
        face-down positions that may be played, and whether the pile may be taken."""
        plays: list[tuple[list[str], int]] = []
        face_down: list[int] = []
        hand = state["hands"][seat]
        if hand:
            pile = state["pile"]
            top = _rank(pile[-1]) if pile else None
            for rank, group in itertools.groupby(hand, key=_rank):
                group = list(group)
                if rank == top:  # L-5.4: how many count on the top rank
                    plays.extend((group, k) for k in range(1, len(group) + 1)
                                 if core._illegal_reason(state, seat, rank, k) is None)
                elif core._illegal_reason(state, seat, rank, 1) is None:  # L-5: else the rank alone decides
                    plays.extend((group, k) for k in range(1, len(group) + 1))
        elif core._face_down_phase(state, seat):
            face_down = [i for i, c in enumerate(state["face_down"][seat]) if c]
        return plays, face_down, bool(state["pile"])  # L-4.5, L-9.4: a pile, when there is one, may be taken

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


    # --- the front door (docs/architecture.md): who, parse, check, step (moves.py) ---------
    def may_act(self, state: dict, seat: int | None, move: object) -> bool:
        """Game moves wait for `to_act`; ballots, proposals, throws and the house-rule moves
        come from any member whatever the turn (their own checks say more); the server's
        moves only from the server (seat None)."""
        return moves.may_act(state, seat, move, self.to_act(state))

    def parse_move(self, state: dict, seat: int | None, move: object) -> dict:
        return moves.parse(state, seat, move)

    def seat_refusal(self, state: dict, seat: int | None, move: object) -> EngineError | None:
        return moves.seat_refusal(state, seat, move)

    def check_move(self, state: dict, seat: int | None, move: dict) -> None:
        moves.check(state, seat, move)

    def step(self, state: dict, seat: int | None, move: dict) -> tuple[dict, list[dict]]:
        ctx = moves.step(state, seat, move)
        return ctx.state, ctx.events

    def advance(self, state: dict, seat: int | None, move: dict) -> dict:
        return moves.step(state, seat, move, in_place=True).state

    def apply_in_context(self, state: dict, seat: int | None, move: dict) -> _Ctx:
        """`apply`'s checks, then the step returning its whole context: the new state, the
        events and the base events fired on the way (for the rule-order tests)."""
        self.apply(state, seat, move)  # the refusals, exactly as `apply` gives them
        return moves.step(state, seat, self.parse_move(state, seat, move))

    def phase(self, state: dict) -> str:
        return state["phase"]

    def winners(self, state: dict) -> list[int]:
        """L-2.2: the seats with most round wins over the table, once it is finished."""
        return list(state["winners"]) if state["status"] == "finished" else []

    def finishing_order(self, state: dict) -> list[list[int]]:
        """Ruling (docs/ratings.md): a table's places are by round wins over the whole table, most
        first, seats with equal wins tied (the winners are the first place, as L-2.2 names
        them). The places of a single round are `round_places`."""
        if state["status"] != "finished":
            return []
        wins = state["round_wins"]
        return [[s for s in range(state["players"]) if wins[s] == w] for w in sorted(set(wins), reverse=True)]

    def rating_matches(self, state: dict) -> list[list[list[int]]]:
        """Ruling (docs/ratings.md): a finished table is rated as one match per round, in round order,
        each by that round's places as its rules gave them (`round_places` at the round's end:
        with `play_for_places` every seat in the order it went out, L-10.3; else the winner
        first and the rest tied, L-10.1). The table still counts one game, and its win is the
        table's (`winners`, L-2.2). A state stored before rounds were recorded (no
        `round_results`) is rated as before, once by `finishing_order`."""
        if state["status"] != "finished":
            return []
        rounds = state.get("round_results")
        if rounds is None:
            return [self.finishing_order(state)]
        return [[list(group) for group in places] for places in rounds]

    def round_places(self, state: dict) -> list[list[int]]:
        """The places of the round that ended last (or is ending): with `play_for_places`
        every seat in the order it went out (L-10.3), else the winner first and the others
        tied (L-10.1). [] while no one of this round is out."""
        return state_mod.round_places(state)

    def round_winner(self, state: dict) -> int | None:
        """The winner of the current (or just ended) round: the first seat out (L-10.1)."""
        return state["places"][0] if state["places"] else None

    def cards_held(self, state: dict, seat: int) -> int:
        """Every card a seat holds: hand, face-up and face-down (public counts)."""
        return core.held(state, seat)

    def policy_view(self, state: dict, seat: int, *, moves: bool = True) -> dict:
        """The part of `view(state, seat)` a fast playout policy reads (the easy bot), built
        without copies: a playout never keeps or edits it. For simulations on full states.
        `moves=False` leaves out `legal_moves` (for a caller that reads `play_options`)."""
        pile = state["pile"]
        seats = [
            {
                "hand_count": len(state["hands"][s]),
                "face_up": state["face_up"][s],
                "face_down_positions": [i for i, c in enumerate(state["face_down"][s]) if c],
                "out": state["out"][s],
            }
            for s in range(state["players"])
        ]
        return {
            "phase": state["phase"],
            "you": {"seat": seat, "hand": state["hands"][seat]},
            "seats": seats,
            "public": {
                "pile": pile,
                "top_rank": _rank(pile[-1]) if pile else None,
                "run": core._run_length(state),
                "three_chain": state["three_chain"],
                "obligation": state["obligation"],
                "rules": state["rules"],
                "direction_reversed": state.get("reversed", False),
            },
            **({"legal_moves": self.legal_moves(state, seat)} if moves else {}),
        }

    def scores(self, state: dict) -> list[int]:
        """Round wins per seat (L-2.2), as views show them."""
        return list(state["round_wins"])

    def cards(self, state: dict) -> list[str]:
        return state_mod.all_cards(state)

    def secret_cards(self, state: dict, seat: int | None) -> set[str]:
        return state_mod.secret_cards(state, seat)

    def determinize(self, view: dict, rng, prior=None) -> dict:
        return determinize_mod.determinize(self, view, rng, prior)

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
            **fairness.public(st),
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
            "duel": duels.duel_view(st, vote["duel"]) if vote and vote["duel"] else None,
            "pause": {"ballots": "vote", "champions": "champion", "duel": "duel"}[open_vote["stage"]]
            if open_vote
            else None,
        }
        if st["status"] == "finished":
            public["winners"] = list(st["winners"])
        return {
            "phase": st["phase"],
            # api.md: the one seat with a decision due, else null: the last player still to swap
            # (L-3.3), the window's winner (L-11.1), the last ballot, champion or thrower of a
            # vote (L-12). Who has swapped, voted, answered or thrown is public (`swap_done`,
            # the vote's `waiting`, the duel's `waiting`); a throw's value is not (L-12.4).
            "turn": turn_of(self.to_act(st)),
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
        return duels.find_duel(st, vote["duel"])
