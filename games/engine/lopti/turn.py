"""Lopti's turn state machine (L-4 to L-10): plays and their effects (3s, 7s, clears), going
out, the draw, the face-up pickup, face-down plays, taking the pile, the end of a round. Every
base event of L-11.7 goes through `_fire`."""

from __future__ import annotations

from .. import fairness
from .legality import _illegal_reason
from .state import _Ctx, _fire, _has_cards, _next_active, _rank, _run_length, card_key, held, round_places

# --- pending effects (each change is logged) ---------------------------------------------------


def _set_chain_empty(ctx: _Ctx) -> None:
    """L-6.2: the 3-chain's 3s stay out of the round; only the visible chain is emptied."""
    st = ctx.state
    if st["three_chain"]:
        st["discarded"].extend(st["three_chain"])
        st["three_chain"] = []
        ctx.log({"type": "three_chain", "cards": []})


def _set_obligation(ctx: _Ctx, seat: int | None) -> None:
    if ctx.state["obligation"] != seat:
        ctx.state["obligation"] = seat
        ctx.log({"type": "obligation", "seat": seat})


def _set_lock(ctx: _Ctx, on: bool) -> None:
    if ctx.state["low_lock"] != on:
        ctx.state["low_lock"] = on
        ctx.log({"type": "low_lock", "on": on})


# --- the turn state machine --------------------------------------------------------------------


def _end_reveal(ctx: _Ctx, seat: int) -> None:
    """L-11.7 reveal_hand: a hand is public until its owner's next turn."""
    st = ctx.state
    if any(r["seat"] == seat for r in st["revealed"]):
        st["revealed"] = [r for r in st["revealed"] if r["seat"] != seat]
        ctx.log({"type": "reveal_end", "seat": seat})


def _start_turn(ctx: _Ctx, seat: int, keep_extra: bool = False) -> None:
    """A new turn for `seat`, or for the next seat that has no skip pending (L-11.7
    skip_next_turn: each skip is used up by one turn of its seat, so this ends). `keep_extra`
    keeps the extra plays that house-rule clears gave the first player at the round's start.

    Ruling (L-11.3, no rule may prevent winning): a seat never loses two turns in a row; a skip
    that would take its second is void. Otherwise a rule skipping everyone else at every turn
    would lock players out of the round."""
    st = ctx.state
    for _ in range(len(st["skips"]) + 1):
        _end_reveal(ctx, seat)
        skip = next((k for k in st["skips"] if k["seat"] == seat), None)
        if skip is None:
            break
        st["skips"].remove(skip)
        if seat in st["skipped"]:
            ctx.log({"type": "skip_void", "seat": seat, "rule_id": skip["rule_id"]})
            break
        st["skipped"].append(seat)
        nxt = _next_active(st, seat)
        ctx.log({"type": "turn_skipped", "seat": seat, "rule_id": skip["rule_id"]})
        if st["obligation"] == seat:
            # Ruling: a 3-obligation binds the next player who plays (L-6.2), so it passes
            # on with a skipped turn; the low lock binds the next play anyway.
            _set_obligation(ctx, nxt)
        seat = nxt
    if seat in st["skipped"]:
        st["skipped"].remove(seat)
    st["turn"] = seat
    st["played"] = False
    if not keep_extra:
        st["extra_plays"] = 0
    st["rule_firings"] = 0
    _fire(ctx, "turn_start", "before", seat=seat)
    _fire(ctx, "turn_start", "after", seat=seat)


def _clear(ctx: _Ctx, seat: int, cause: str) -> None:
    """L-7.2: the pile leaves the round with every pending 3/7 effect; one extra play."""
    st = ctx.state
    _fire(ctx, "clear", "before", seat=seat, cause=cause)
    cards = st["pile"]
    st["cleared"].extend(cards)
    st["pile"] = []
    st["top_count"] = 0
    _set_chain_empty(ctx)
    _set_obligation(ctx, None)
    _set_lock(ctx, False)
    ctx.log(
        {"type": "clear", "seat": seat, "cause": cause, "cards": cards, "cleared_count": len(st["cleared"])}
    )
    if st["rules"]["extra_play_on_clear"]:
        st["extra_plays"] += 1
        if cause == "house_rule":
            ctx.rule_extra += 1
    _fire(ctx, "clear", "after", seat=seat, cause=cause)


def _take_pile(ctx: _Ctx, seat: int) -> None:
    """L-4.5: the whole pile goes to the hand (3s never: they are not on it); the turn ends,
    extra plays of earlier clears included.

    Ruling: the extra plays that house-rule clears give during this very call (after the take,
    or after the reveal of an illegal face-down card) are kept, and the taker plays them before
    the turn ends: no house rule may cost the clearer its extra play (L-7.4). (A clear just
    before a take is refused by validate_rule: it would cancel the take, L-11.2.)"""
    st = ctx.state
    st["extra_plays"] = min(st["extra_plays"], ctx.rule_extra)
    _fire(ctx, "take_pile", "before", seat=seat)
    cards = st["pile"]
    st["hands"][seat] = sorted(st["hands"][seat] + cards, key=card_key)
    st["pile"] = []
    st["top_count"] = 0
    _set_chain_empty(ctx)  # L-6.2
    _set_obligation(ctx, None)
    _set_lock(ctx, False)
    ctx.log({"type": "take_pile", "seat": seat, "cards": cards})
    _fire(ctx, "take_pile", "after", seat=seat, count=len(cards))
    if st["extra_plays"] > 0:
        st["played"] = True  # L-7.3: an extra play is no new turn and gives no draw
    else:
        _start_turn(ctx, _next_active(st, seat))


def _lay(ctx: _Ctx, seat: int, cards: list[str]) -> None:
    """A play that lies on the pile: every rank but a 3 with its power (L-6.2)."""
    st = ctx.state
    rules = st["rules"]
    rank = _rank(cards[0])
    _set_chain_empty(ctx)  # L-6.2: a non-3 play empties the chain
    st["pile"].extend(cards)
    st["top_count"] = len(cards)
    _set_lock(ctx, rank == "7" and rules["seven_plays_low"])  # L-6.3: each 7 restarts it
    if rank == "10" and rules["ten_clears"]:  # L-6.4
        _clear(ctx, seat, "ten")
    elif rules["four_of_a_kind_clears"] and _run_length(st) >= 4:  # L-5.4, L-7.1 (four 7s included)
        _clear(ctx, seat, "four_of_a_kind")


def _redirect(ctx: _Ctx, seat: int, cards: list[str]) -> None:
    """L-6.2: 3s are discarded into the chain; the top of the pile is unchanged."""
    st = ctx.state
    st["three_chain"].extend(cards)
    ctx.log({"type": "three_chain", "cards": list(st["three_chain"])})
    if len(st["three_chain"]) >= 4:
        # Ruling: the chain of four 3s belongs to the 3's power (L-6.2), not to
        # `four_of_a_kind_clears`, which L-7.1 lists separately.
        _clear(ctx, seat, "four_threes")
    elif st["pile"]:
        # One play moves one obligation one player on, even from a player going out (L-10.2).
        _set_obligation(ctx, _next_active(st, seat))


def _settle_out(ctx: _Ctx, seat: int) -> bool:
    """L-10.1: out at once after a legal play of the last card."""
    st = ctx.state
    if _has_cards(st, seat):
        return False
    ctx.protected.add(seat)
    _fire(ctx, "go_out", "before", seat=seat)
    st["out"][seat] = True
    st["places"].append(seat)
    ctx.log({"type": "go_out", "seat": seat, "place": len(st["places"])})
    _fire(ctx, "go_out", "after", seat=seat, place=len(st["places"]))
    return True


def _draw(ctx: _Ctx, seat: int) -> None:
    """L-4.4 (and L-13 `draw_rule`): after the first legal play of the turn."""
    st = ctx.state
    rules = st["rules"]
    hand = st["hands"][seat]
    if rules["draw_rule"] == "none" or not st["draw_pile"] or len(hand) >= rules["hand_size"]:
        return
    want = 1 if rules["draw_rule"] == "one_per_turn" else rules["hand_size"] - len(hand)
    _fire(ctx, "draw", "before", seat=seat)
    # the draw decided above happens (L-11.2); `before` effects may have changed the hand
    drawn = st["draw_pile"][:want]
    del st["draw_pile"][:want]
    st["hands"][seat] = sorted(st["hands"][seat] + drawn, key=card_key)
    ctx.log_cards_moved(
        {
            "type": "draw",
            "seat": seat,
            "count": len(drawn),
            "draw_pile_count": len(st["draw_pile"]),
            "secret": {"cards": drawn},
            "secret_to": [seat],
        }
    )
    _fire(ctx, "draw", "after", seat=seat, count=len(drawn))


def _face_up_pickup(ctx: _Ctx, seat: int) -> None:
    """L-8.1: an empty hand takes all the face-up cards once the draw opportunity has passed."""
    st = ctx.state
    if st["hands"][seat] or not any(st["face_up"][seat]):
        return
    _fire(ctx, "face_up_pickup", "before", seat=seat)
    cards = [c for c in st["face_up"][seat] if c]
    st["face_up"][seat] = [None] * len(st["face_up"][seat])
    # the hand is empty unless a `before` house-rule effect has just given it cards
    st["hands"][seat] = sorted(st["hands"][seat] + cards, key=card_key)
    ctx.log({"type": "face_up_pickup", "seat": seat, "cards": cards})
    _fire(ctx, "face_up_pickup", "after", seat=seat, count=len(cards))


def _play(ctx: _Ctx, seat: int, cards: list[str], source: str) -> None:
    """A legal play, from the hand or a face-down position already revealed.

    Order of L-7: the play and its effects (clear, chain, lock) -> going out (L-10.1) -> the
    draw (first play only, L-4.4) -> the face-up pickup (L-8) -> an extra play or the next turn."""
    st = ctx.state
    rank = _rank(cards[0])
    first = not st["played"]
    if not first:
        st["extra_plays"] -= 1
    st["played"] = True
    facts = {"seat": seat, "rank": rank, "count": len(cards), "source": source}
    if not _has_cards(st, seat):
        ctx.protected.add(seat)  # L-11.3: the last card's play goes out, whatever rules add
    _fire(ctx, "play", "before", **facts)
    ctx.log({"type": "play", **facts, "cards": cards})
    if rank == "3" and st["rules"]["three_redirects"]:
        _redirect(ctx, seat, cards)
    else:
        _lay(ctx, seat, cards)
    out = _settle_out(ctx, seat)
    ctx.protected.discard(seat)
    _fire(ctx, "play", "after", **facts)
    if not out:
        if first:
            _draw(ctx, seat)
        _face_up_pickup(ctx, seat)
    if _round_over(st):
        _end_round(ctx)
    elif out or st["extra_plays"] <= 0:  # L-7.5: a player who is out gets no extra play
        _start_turn(ctx, _next_active(st, seat))


def _play_face_down(ctx: _Ctx, seat: int, index: int) -> None:
    """L-9: turned blind and shown to all; legal -> an ordinary play, else onto the pile and
    the player takes the pile."""
    st = ctx.state
    if held(st, seat) == 1:
        # L-11.3: a last face-down card may win; the protection depends on public counts
        # only, so it tells nothing about the hidden card.
        ctx.protected.add(seat)
    _fire(ctx, "face_down_reveal", "before", seat=seat, index=index)
    card = st["face_down"][seat][index]
    st["face_down"][seat][index] = None
    legal = _illegal_reason(st, seat, _rank(card), 1) is None  # L-9.2, L-9.3
    ctx.log({"type": "face_down_reveal", "seat": seat, "index": index, "card": card, "legal": legal})
    _fire(ctx, "face_down_reveal", "after", seat=seat, index=index, card=card, legal=legal)
    if legal:
        _play(ctx, seat, [card], "face_down")  # L-9.5: a first legal play, with its draw
    else:
        ctx.protected.discard(seat)
        st["pile"].append(card)
        _take_pile(ctx, seat)


def _round_over(st: dict) -> bool:
    """L-10.3: the first player out ends the round, or the last place with play_for_places."""
    if not st["rules"]["play_for_places"]:
        return bool(st["places"])
    return st["out"].count(False) <= 1


def _end_round(ctx: _Ctx) -> None:
    """L-2.2: score the round; then the winner's window of L-11.1 opens (phase `house_rule`),
    unless `rounds` is reached."""
    st = ctx.state
    if st["rules"]["play_for_places"]:
        st["places"].extend(s for s in range(st["players"]) if not st["out"][s])
    winner = st["places"][0]  # L-10.1: the first out is the only winner
    st["round_wins"][winner] += 1
    if "round_results" in st:
        # Ruling (docs/ratings.md): the table is rated round by round, each round by the places its
        # own rules gave (play_for_places may change between rounds, so they are kept now).
        # A state stored before the key existed never gains it: its replay stays the stored one.
        st["round_results"].append(round_places(st))
    st["last_round_winner"] = winner
    st["turn"] = None
    st["revealed"] = []  # the round's hands are dead: nothing stays public (L-11.7 reveal_hand)
    st["skips"] = []
    st["skipped"] = []
    ctx.log(
        {
            "type": "round_end",
            "round": st["round"],
            "winner": winner,
            "places": list(st["places"]),
            "round_wins": list(st["round_wins"]),
        }
    )
    for event in fairness.reveal(st):
        ctx.log(event)
    limit = st["options"]["rounds"]
    if limit and st["round"] >= limit:
        best = max(st["round_wins"])
        st["winners"] = [s for s in range(st["players"]) if st["round_wins"][s] == best]
        st["status"] = "finished"
        st["phase"] = "finished"
        # Ruling: the last round of the table opens no window: a house rule lasts for the
        # session (L-11.1), and the session has no round left for it to act in.
        ctx.log({"type": "game_end", "winners": st["winners"], "round_wins": list(st["round_wins"])})
        return
    st["phase"] = "house_rule"
    st["window"] = {"winner": winner, "open": True, "rule_id": None}
    ctx.log({"type": "house_rule_window", "winner": winner})
