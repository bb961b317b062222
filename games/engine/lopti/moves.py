"""Lopti's move table: every move type of the API -> its fields, who may send it,
how it is parsed, what the rules refuse, and its handler.

`Lopti.apply` (the base class's door) refuses a type that is not in the table (InvalidMove,
from any seat: api.md), then runs `may_act` (who), `parse_move` (InvalidMove only),
`check_move` (the rules' refusals) and `step` (the handler, unchecked). The refusals keep the
order they had when each move type had its own checked branch: for some moves a refusal of
another class comes before a malformed field (the winner's window is checked before the rule
is read, L-11.1; a Rule Vote's state conflicts before its rule id is looked up, L-12.2). There
`parse` leaves the move as it is when an earlier refusal applies (`check` then raises it), and
the few InvalidMoves that follow a conflict (an unknown rule id in a proposal) stay in `check`.

Who may send a move (`who`):
- "turn": a seat of `to_act` (the game moves; while a Rule Vote is open they are refused with
  GameConflict, L-12.2, before the turn is looked at, as before);
- "member": any seat of the session, whatever the turn (ballots, proposals, duel throws);
- "winner": the latest round's winner (write/decline a house rule, L-11.1: 403 for others);
- "author": the rule's author (edit/delete, L-11.5/L-11.6: 403 for others);
- "server": the server only (seat None: moderation and sessions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import fairness
from ..base import EngineError, GameConflict, IllegalMove, InvalidMove, NotPermitted, NotYourTurn
from ..cards import standard_deck
from . import core, duels, effects, house_rules, votes
from .core import BASE_RULES, MOVE_FIELDS, _Ctx, card_key


@dataclass(frozen=True)
class Move:
    fields: frozenset[str]
    who: str  # "turn", "member", "winner", "author" or "server" (module docstring)
    parse: Callable[[dict, int | None, dict], dict]  # (state, seat, move) -> parsed move
    check: Callable[[dict, int | None, dict], None]  # (state, seat, parsed) -> raises a refusal
    handler: Callable[[_Ctx, int | None, dict], None]  # (ctx, seat, parsed): the effect
    fires: bool = True  # house rules react to its base events (not to the server's bookkeeping)


def _int_field(move: dict, field: str) -> int:
    value = move[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidMove(f"{field} must be an integer", fields={field: ["must be an integer"]})
    return value


def _bool_field(move: dict, field: str) -> bool:
    if not isinstance(move[field], bool):
        raise InvalidMove(f"{field} must be true or false", fields={field: ["must be a boolean"]})
    return move[field]


def _fields(move: dict) -> None:
    core.parse_fields(move, FIELDS)


def _between_rounds(st: dict) -> bool:
    """Ruling (for new_session): "between rounds" is the winner's window, or a dealt round
    before its first card play (its swap phase, or the play phase with no card played yet),
    the same moment before which L-11.5 lets an author edit a new rule."""
    return st["phase"] == "house_rule" or (st["phase"] in ("swap", "play") and not st["round_started"])


# --- game moves (L-3 to L-10) ---------------------------------------------------------------


def _parse_game(st: dict, seat, move: dict) -> dict:
    if st["open_vote"]:
        return move  # L-12.2: refused by `check` whatever its shape
    move = core._parse(move)
    core._check_holdings(st, seat, move)
    return move


def _check_game(st: dict, seat, move: dict) -> None:
    if st["open_vote"]:
        raise GameConflict("play is paused while a Rule Vote or its duel is open (L-12.2)")
    core._check_forbidden(st, seat, move)


def _swap(ctx: _Ctx, seat: int, move: dict) -> None:
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


def _take(ctx: _Ctx, seat: int, move: dict) -> None:
    core._take_pile(ctx, seat)


def _play(ctx: _Ctx, seat: int, move: dict) -> None:
    st = ctx.state
    st["round_started"] = True  # L-11.5 ruling: the round begins at its first card play
    cards = sorted(move["cards"], key=card_key)
    st["hands"][seat] = [c for c in st["hands"][seat] if c not in cards]
    core._play(ctx, seat, cards, "hand")


def _play_face_down(ctx: _Ctx, seat: int, move: dict) -> None:
    ctx.state["round_started"] = True
    core._play_face_down(ctx, seat, move["index"])


# --- house rules (L-11) ----------------------------------------------------------------------


def _round_winner(st: dict) -> int | None:
    # Ruling: "the round's winner" is the winner of the round that ended last in this table:
    # the latest window's, or once the table has finished, its last round's (which opens no
    # window); nobody before the first round ends.
    if st["status"] == "finished":
        return st["last_round_winner"]
    return None if st["window"] is None else st["window"]["winner"]


def _not_the_winner(st: dict, seat) -> EngineError | None:
    if seat is None or seat != _round_winner(st):
        return NotPermitted("L-11.1: only the round's winner writes a house rule")
    return None


def _window_refusal(st: dict, seat) -> EngineError | None:
    # api.md: anyone but the round's winner -> 403 whenever it comes; the winner outside the
    # window -> 409.
    refusal = _not_the_winner(st, seat)
    if refusal is not None:
        return refusal
    if st["phase"] != "house_rule":
        return GameConflict("L-11.1: the winner writes a rule only in the window after the round", rule="L-11.1")
    return None


def _parse_window(st: dict, seat, move: dict) -> dict:
    if _window_refusal(st, seat) is not None:
        return move  # refused by `check` before its fields are read
    _fields(move)
    if move["type"] == "write_rule":
        return {"type": "write_rule", "rule": house_rules.validate_rule(move["rule"])}
    return move


def _check_window(st: dict, seat, move: dict) -> None:
    refusal = _window_refusal(st, seat)
    if refusal is not None:
        raise refusal


def _window_move(ctx: _Ctx, seat: int, move: dict) -> None:
    st = ctx.state
    if move["type"] == "decline_rule":
        ctx.log({"type": "rule_declined", "seat": seat})
    else:
        record = {
            "id": st["next_rule_id"],
            "author": seat,
            "rule": core._clone(move["rule"]),
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


def _author_refusal(st: dict, seat, record: dict) -> EngineError | None:
    if record["author"] != seat:
        return NotPermitted("only the rule's author may do this without a vote (L-11.5, L-11.6)")
    if record["status"] == "deleted":
        return IllegalMove("the rule is deleted", rule="L-11.6")
    return None


def _parse_authored(st: dict, seat, move: dict) -> dict:
    _fields(move)
    rule_id = _int_field(move, "rule_id")
    record = house_rules.find(st, rule_id)
    if record is None:
        raise InvalidMove(f"this session has no rule {rule_id}", fields={"rule_id": ["no such rule"]})
    if move["type"] == "edit_rule" and _author_refusal(st, seat, record) is None:
        return {"type": "edit_rule", "rule_id": rule_id, "rule": house_rules.validate_rule(move["rule"])}
    return move


def _check_authored(st: dict, seat, move: dict) -> None:
    record = house_rules.find(st, move["rule_id"])
    refusal = _author_refusal(st, seat, record)
    if refusal is not None:
        raise refusal
    if move["type"] == "edit_rule" and not house_rules.editable(st, record):
        raise IllegalMove(
            "the author may not rewrite a rule after the round begins; larger changes need a vote",
            rule="L-11.5",
        )


def _edit_rule(ctx: _Ctx, seat: int, move: dict) -> None:
    record = house_rules.find(ctx.state, move["rule_id"])
    record["rule"] = core._clone(move["rule"])
    ctx.log({"type": "rule_edited", "rule": house_rules.rule_view(ctx.state, record, current=False)})


def _delete_rule(ctx: _Ctx, seat: int, move: dict) -> None:
    # L-11.6: any time, without a vote, and without a replacement rule
    rule_id = move["rule_id"]
    house_rules.find(ctx.state, rule_id)["status"] = "deleted"
    effects.stop_pending(ctx, rule_id)
    ctx.log({"type": "rule_deleted", "rule_id": rule_id, "seat": seat})


# --- the Rule Vote and duels (L-12) -------------------------------------------------------------


def _propose(ctx: _Ctx, seat: int, move: dict) -> None:
    votes.propose(ctx, seat, votes.proposal_of(move))
    duels.settle_if_tied(ctx, ctx.state["votes"][-1])  # the proposal just made


def _parse_throw(st: dict, seat, move: dict) -> dict:
    _fields(move)
    duel_id = _int_field(move, "duel_id")
    if move["throw"] not in duels.THROWS:
        raise InvalidMove(
            f"throw must be one of {list(duels.THROWS)}", fields={"throw": [f"one of {list(duels.THROWS)}"]}
        )
    if duels.find_duel(st, duel_id) is None:
        raise InvalidMove(f"no duel {duel_id}", fields={"duel_id": ["no such duel"]})
    return move


def _check_throw(st: dict, seat, move: dict) -> None:
    duel = duels.find_duel(st, move["duel_id"])
    if duel["status"] != "open":
        raise GameConflict("the duel is over")
    if seat not in duel["players"]:
        raise NotYourTurn("only the duel's two representatives throw")
    if duel["pending"][duel["players"].index(seat)] is not None:
        raise GameConflict("you have thrown already; waiting for the other throw")


def _throw(ctx: _Ctx, seat: int, move: dict) -> None:
    duel = duels.find_duel(ctx.state, move["duel_id"])
    duels.throw(ctx, votes.find_vote(ctx.state, duel["vote_id"]), duel, seat, move["throw"])


def _parse_vote_move(st: dict, seat, move: dict) -> dict:
    _fields(move)
    vote_id = _int_field(move, "vote_id")
    if move["type"] == "ballot":
        _bool_field(move, "yes")
    if votes.find_vote(st, vote_id) is None:
        raise InvalidMove(f"no vote {vote_id}", fields={"vote_id": ["no such vote"]})
    return move


def _check_ballot(st: dict, seat, move: dict) -> None:
    vote = votes.find_vote(st, move["vote_id"])
    if vote["stage"] != "ballots":
        raise GameConflict("the vote is closed")
    if vote["ballots"][seat] is not None:
        raise GameConflict("you have voted already: one ballot per member (L-12.2)")


def _check_champion(st: dict, seat, move: dict) -> None:
    vote = votes.find_vote(st, move["vote_id"])
    if vote["stage"] != "champions":
        raise GameConflict("no champion is called for in this vote")
    if seat not in vote["champion_pending"]:
        if seat in vote["champions"] or vote["ballots"][seat] == "no":
            raise GameConflict("you have decided already")
        raise NotYourTurn("only members who voted no may champion the rule (L-12.3)")


def _ballot(ctx: _Ctx, seat: int, move: dict) -> None:
    vote = votes.find_vote(ctx.state, move["vote_id"])
    if move["type"] == "ballot":
        votes.cast(ctx, vote, seat, "yes" if move["yes"] else "no")
    else:
        votes.cast(ctx, vote, seat, "abstain")
    duels.settle_if_tied(ctx, vote)


def _champion(ctx: _Ctx, seat: int, move: dict) -> None:
    duels.champion(ctx, votes.find_vote(ctx.state, move["vote_id"]), seat, move["type"] == "champion")


# --- the server's moves: moderation and sessions (L-2.1, L-12.5) -----------------------------------


def _parse_moderate(st: dict, seat, move: dict) -> dict:
    _fields(move)
    rule_id = _int_field(move, "rule_id")
    _bool_field(move, "hidden")
    if not any(r["id"] == rule_id for r in st["house_rules"] + st["rule_history"]):
        raise InvalidMove(f"no rule {rule_id}", fields={"rule_id": ["no such rule"]})
    return move


def _moderate(ctx: _Ctx, seat, move: dict) -> None:
    rule_id, hidden = move["rule_id"], move["hidden"]
    st = ctx.state
    # the description only: the rule's effect stays as voted
    for record in st["house_rules"] + st["rule_history"]:
        if record["id"] == rule_id:
            record["hidden"] = hidden
    ctx.log({"type": "rule_moderated", "rule_id": rule_id, "hidden": hidden})


def _parse_plain(st: dict, seat, move: dict) -> dict:
    _fields(move)
    return move


def _no_check(st: dict, seat, move: dict) -> None:
    return None


def _check_new_session(st: dict, seat, move: dict) -> None:
    if st["open_vote"]:
        raise GameConflict("a Rule Vote or its duel is open")
    if not _between_rounds(st):
        raise GameConflict("a new session starts only between rounds")


def _check_start_session(st: dict, seat, move: dict) -> None:
    if st["open_vote"]:
        raise GameConflict("a Rule Vote or its duel is open")
    if st["phase"] != "setup":
        raise GameConflict("start_session follows new_session")


def _new_session(ctx: _Ctx, seat, move: dict) -> None:
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
    # L-2.3: the session's first dealer, fixed by the table or drawn (fairness.session_dealer)
    dealer = st["fixed_dealer"]
    if dealer is None:
        dealer = fairness.session_dealer(st, n)
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


def _start_session(ctx: _Ctx, seat, move: dict) -> None:
    ctx.log({"type": "session_start", "session": ctx.state["session"]})
    votes.apply_pending(ctx)
    core.deal_from_seed(ctx)


def _game(kind: str, handler) -> Move:
    return Move(frozenset(MOVE_FIELDS[kind]), "turn", _parse_game, _check_game, handler)


# propose_vote's fields depend on its kind (votes.KIND_FIELDS); the set here is every field.
MOVES: dict[str, Move] = {
    "swap": _game("swap", _swap),
    "keep": _game("keep", _swap),
    "play": _game("play", _play),
    "play_face_down": _game("play_face_down", _play_face_down),
    "take_pile": _game("take_pile", _take),
    "write_rule": Move(frozenset({"type", "rule"}), "winner", _parse_window, _check_window, _window_move),
    "decline_rule": Move(frozenset({"type"}), "winner", _parse_window, _check_window, _window_move),
    "edit_rule": Move(frozenset({"type", "rule_id", "rule"}), "author", _parse_authored, _check_authored, _edit_rule),
    "delete_rule": Move(frozenset({"type", "rule_id"}), "author", _parse_authored, _check_authored, _delete_rule),
    "propose_vote": Move(
        frozenset({"type", "kind", "rule_id", "rule", "key", "value", "applies"}),
        "member",
        lambda st, seat, move: votes.parse_proposal(st, move),
        lambda st, seat, move: votes.check_proposal(st, move),
        _propose,
    ),
    "ballot": Move(frozenset({"type", "vote_id", "yes"}), "member", _parse_vote_move, _check_ballot, _ballot),
    "abstain": Move(frozenset({"type", "vote_id"}), "member", _parse_vote_move, _check_ballot, _ballot),
    "champion": Move(frozenset({"type", "vote_id"}), "member", _parse_vote_move, _check_champion, _champion),
    "no_champion": Move(frozenset({"type", "vote_id"}), "member", _parse_vote_move, _check_champion, _champion),
    "throw": Move(frozenset({"type", "duel_id", "throw"}), "member", _parse_throw, _check_throw, _throw),
    "moderate_rule": Move(
        frozenset({"type", "rule_id", "hidden"}), "server", _parse_moderate, _no_check, _moderate, fires=False
    ),
    "new_session": Move(frozenset({"type"}), "server", _parse_plain, _check_new_session, _new_session, fires=False),
    "start_session": Move(frozenset({"type"}), "server", _parse_plain, _check_start_session, _start_session),
}
FIELDS: dict[str, set[str]] = {kind: set(spec.fields) for kind, spec in MOVES.items()}


def kind_of(move: object) -> str | None:
    kind = move.get("type") if isinstance(move, dict) else None
    return kind if isinstance(kind, str) else None


def seat_refusal(st: dict, seat, move: object) -> EngineError | None:
    """The refusal that holds for `seat` whatever the moment, the table's end included: a
    house-rule move by anyone but the round's winner (api.md: 403 "whenever it comes")."""
    spec = MOVES.get(kind_of(move))
    if spec is None or spec.who != "winner":
        return None
    return _not_the_winner(st, seat)


def may_act(st: dict, seat, move: object, to_act: list[int]) -> bool:
    """Who may send the move now, before its fields are read (NotYourTurn otherwise)."""
    spec = MOVES.get(kind_of(move))
    if spec is None or spec.who == "turn":
        # L-12.2: a game move during an open vote is refused as a conflict by `check`
        return (spec is not None and bool(st["open_vote"])) or seat in to_act
    if spec.who == "server":
        return seat is None
    return not isinstance(seat, bool) and isinstance(seat, int) and 0 <= seat < st["players"]


def parse(st: dict, seat, move: object) -> dict:
    spec = MOVES.get(kind_of(move))
    if spec is None:
        core.parse_fields(move, FIELDS)  # raises InvalidMove naming the types
    return spec.parse(st, seat, move)


def check(st: dict, seat, move: dict) -> None:
    MOVES[move["type"]].check(st, seat, move)


def step(st: dict, seat, move: dict, *, in_place: bool = False) -> _Ctx:
    """The move's effect on a copy of `st` (on `st` itself with `in_place`, which keeps no
    record of the base events fired), unchecked; the context holds state and events."""
    spec = MOVES[move["type"]]
    ctx = _Ctx(st if in_place else core._clone(st), effects.fire if spec.fires else None, record=not in_place)
    spec.handler(ctx, seat, move)
    return ctx
