"""Table exports (`cardgames-table/1`, docs/schemas/cardgames-table-1.json) and their
verification: the one implementation behind `POST /api/v1/replays/verify`, `manage.py
verify_export` and the standalone `tools/verify_export.py`. Pure Python (the engines and the
standard library), so a player can check a game without the service.

`verify(document)` checks, in order: the document's shape (`DocumentError`, naming the field);
each deal's secret against its commitment; then it replays every move with the engine from the
deals the secrets give, comparing each deal's starting hands, each move's public events, the
final scores and the winners. The first mismatch is the `reason`, which starts with its kind:
"wrong secret", "wrong deal", "tampered move" or "wrong score".
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator

from . import fairness, registry
from .base import EngineError, Game

FORMAT = "cardgames-table/1"
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class DocumentError(Exception):
    """The document is not a `cardgames-table/1` export: `field` names where (`deals[2].secret`)."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


# --- replaying a log ---------------------------------------------------------------------------
def deal_of(state: dict) -> int | None:
    fair = state.get("fairness")
    return None if fair is None else fair["deal"]


def walk(game: Game, state: dict, moves: Iterable[tuple[int | None, dict]]) -> Iterator[tuple[dict, list[dict], bool]]:
    """Apply each (seat, move) in turn; yield (state after it, its events, whether it dealt a
    new deal). Raises the engine's error for a move that does not apply."""
    for seat, move in moves:
        before = deal_of(state)
        result = game.apply(state, seat, move)
        state = result.state
        # Deal numbers only grow: a new number is a new deal.
        yield state, result.events, deal_of(state) != before


def deals_dealt(game: Game, first: dict, moves: list[tuple[int | None, dict]]) -> tuple[dict, list[dict]]:
    """The final state and every deal's starting layout, by deal number, of a table's log
    replayed from its first state (the service's export)."""
    layouts = {0: fairness.dealt_hands(first)}
    state = first
    for state, _, dealt in walk(game, first, moves):
        if dealt:
            layouts[deal_of(state)] = fairness.dealt_hands(state)
    return state, [layouts.get(k) for k in range(max(layouts) + 1)]


def export_deals(game: Game, first: dict, moves: list[tuple[int | None, dict]], *, seed: int,
                 deck: list[str] | None, first_dealer_fixed: bool) -> tuple[dict, list[dict]]:
    """The final state and the export's `deals` of a table that started at `first` (its first
    state, from `seed`) and played `moves`: every deal's secret, commitment and starting hands,
    up to the last secret used (a Lopti session's dealer draw may use one no card came from)."""
    final, layouts = deals_dealt(game, first, moves)
    deals = []
    for k in range(final["fairness"]["drawn"] + 1):
        secret = fairness.deal_secret(seed, k)
        fixed = k == 0 and deck is not None
        deal = {
            "deal": k,
            "fixed_deck": fixed,
            "commitment": None if fixed else fairness.commitment(secret),
            # A fixed deck's secret only drew the first dealer (none when staff fixed it too).
            "secret": None if fixed and first_dealer_fixed else secret.hex(),
            "hands": layouts[k] if k < len(layouts) else None,
        }
        if fixed:
            deal["deck"] = list(deck)
        deals.append(deal)
    return final, deals


def public_events(game: Game, events: list[dict]) -> list[dict]:
    return [game.view_event(e, None) for e in events]


# --- the document's shape ----------------------------------------------------------------------
def _need(doc: dict, key: str, kinds, where: str = "", nullable: bool = False):
    field = f"{where}{key}"
    if key not in doc:
        raise DocumentError(field, "is required")
    value = doc[key]
    if value is None and nullable:
        return None
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise DocumentError(field, "has the wrong type")
    if not isinstance(value, kinds):
        raise DocumentError(field, "has the wrong type")
    return value


def _int_list(value, field: str, nullable_items: bool = False) -> list:
    if not isinstance(value, list) or not all(
        (v is None and nullable_items) or (isinstance(v, int) and not isinstance(v, bool)) for v in value
    ):
        raise DocumentError(field, "must be a list of integers")
    return value


def check_document(doc: object) -> dict:
    """The parts of an export that verification reads, checked; DocumentError otherwise."""
    if not isinstance(doc, dict):
        raise DocumentError("document", "must be a JSON object")
    if doc.get("format") != FORMAT:
        raise DocumentError("format", f"must be {FORMAT!r}")
    slug = _need(doc, "game", str)
    try:
        game = registry.get(slug)
    except KeyError as exc:
        raise DocumentError("game", "is not a game of this service") from exc
    seats = _need(doc, "seats", int)
    if not game.min_players <= seats <= game.max_players:
        raise DocumentError("seats", f"must be {game.min_players} to {game.max_players}")
    options = _need(doc, "options", dict)
    shuffle = _need(doc, "shuffle", int)
    first_dealer = _need(doc, "first_dealer", int)
    if not 0 <= first_dealer < seats:
        raise DocumentError("first_dealer", "must be a seat")
    fixed_dealer = _need(doc, "first_dealer_fixed", bool)
    aborted = _need(doc, "aborted", bool)
    deals = _need(doc, "deals", list)
    if not deals:
        raise DocumentError("deals", "must list the first deal")
    clean_deals = []
    for k, deal in enumerate(deals):
        where = f"deals[{k}]."
        if not isinstance(deal, dict):
            raise DocumentError(f"deals[{k}]", "must be an object")
        if _need(deal, "deal", int, where) != k:
            raise DocumentError(f"{where}deal", f"must be {k} (deals are listed in order)")
        fixed = _need(deal, "fixed_deck", bool, where)
        if fixed and k != 0:
            raise DocumentError(f"{where}fixed_deck", "only the first deal may be a fixed deck")
        secret = _need(deal, "secret", str, where, nullable=fixed)
        if secret is not None and not _HEX64.match(secret):
            raise DocumentError(f"{where}secret", "must be 64 lower-case hex digits")
        committed = _need(deal, "commitment", str, where, nullable=fixed)
        if committed is not None and not _HEX64.match(committed):
            raise DocumentError(f"{where}commitment", "must be 64 lower-case hex digits")
        deck = None
        if fixed:
            deck = _need(deal, "deck", list, where)
            if not all(isinstance(c, str) for c in deck):
                raise DocumentError(f"{where}deck", "must be a list of card codes")
        elif "deck" in deal:
            # A deal shuffled from its secret lists no deck (the export writes none): one that
            # does claims cards the replay would never read, so the document is refused rather
            # than verified with the claim unchecked.
            raise DocumentError(f"{where}deck", "only a fixed deck lists its cards; a shuffled deal comes from its secret")
        hands = _need(deal, "hands", dict, where, nullable=True)
        clean_deals.append({"deal": k, "fixed_deck": fixed, "secret": secret, "commitment": committed, "deck": deck,
                            "hands": hands})
    moves = _need(doc, "moves", list)
    clean_moves = []
    for i, entry in enumerate(moves):
        where = f"moves[{i}]."
        if not isinstance(entry, dict):
            raise DocumentError(f"moves[{i}]", "must be an object")
        seq = _need(entry, "seq", int, where)
        if seq != i + 1:
            raise DocumentError(f"{where}seq", f"must be {i + 1} (moves are listed in order)")
        seat = _need(entry, "seat", int, where, nullable=True)
        if seat is not None and not 0 <= seat < seats:
            raise DocumentError(f"{where}seat", "must be a seat or null")
        move = _need(entry, "move", dict, where)
        events = _need(entry, "events", list, where)
        clean_moves.append({"seq": seq, "seat": seat, "move": move, "events": events})
    scores = doc.get("scores")
    if scores is not None:
        _int_list(scores, "scores")
    elif "scores" not in doc:
        raise DocumentError("scores", "is required")
    winners = _int_list(_need(doc, "winners", list), "winners")
    return {"game": game, "seats": seats, "options": options, "shuffle": shuffle, "first_dealer": first_dealer,
            "first_dealer_fixed": fixed_dealer, "aborted": aborted, "deals": clean_deals, "moves": clean_moves,
            "scores": scores, "winners": winners}


def load(path: str) -> object:
    """A document from a file, or from standard input for "-"."""
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# --- verification ------------------------------------------------------------------------------
def _outcome(valid: bool, reason: str | None, scores) -> dict:
    out: dict = {"valid": valid, "final_scores": scores}
    if reason is not None:
        out["reason"] = reason
    return out


def verify(doc: object) -> dict:
    """`{valid, reason?, final_scores}` for an export (see the module's docstring). Raises
    DocumentError for a document that is not an export."""
    d = check_document(doc)
    game: Game = d["game"]
    if d["shuffle"] != fairness.VERSION:
        return _outcome(False, f"wrong secret: shuffle {d['shuffle']} has no deal secrets to check "
                               f"(this verifier checks shuffle {fairness.VERSION})", None)
    deals = d["deals"]
    for deal in deals:
        if deal["secret"] is not None and deal["commitment"] is not None:
            if fairness.commitment(bytes.fromhex(deal["secret"])) != deal["commitment"]:
                return _outcome(False, f"wrong secret: deal {deal['deal']}'s secret does not hash to its commitment", None)
    committed = {deal["deal"]: deal["commitment"] for deal in deals}
    for entry in d["moves"]:
        for event in entry["events"]:
            if isinstance(event, dict) and event.get("type") == "deal" and "deal_commitment" in event:
                k = event.get("deal")
                if committed.get(k) != event["deal_commitment"]:
                    return _outcome(False, f"wrong secret: move {entry['seq']} committed deal {k} to "
                                           f"{event['deal_commitment']}, the deals list says {committed.get(k)}", None)
    first = deals[0]
    try:
        options = game.validate_table_options(d["options"], players=d["seats"])
        state = game.new_game(
            players=d["seats"], options=options, seed=None, deck=first["deck"],
            first_dealer=d["first_dealer"] if d["first_dealer_fixed"] else None,
            shuffle=fairness.VERSION, replay=[deal["secret"] for deal in deals],
        )
    except fairness.SecretMissing as exc:
        return _outcome(False, f"wrong secret: deal {exc.deal} is dealt but the document gives no secret", None)
    except EngineError as exc:
        raise DocumentError("options" if "option" in exc.message else "deals[0]", exc.message) from exc
    except (TypeError, KeyError, ValueError, IndexError, AttributeError) as exc:
        raise DocumentError("options", "are not this game's options") from exc
    if state["dealer"] != d["first_dealer"]:
        return _outcome(False, f"wrong deal: the first dealer drawn from deal 0's secret is seat {state['dealer']}, "
                               f"the document says {d['first_dealer']}", None)
    problem = _check_hands(deals[0], state)
    if problem:
        return _outcome(False, problem, None)
    dealt = {0}
    steps = walk(game, state, ((m["seat"], m["move"]) for m in d["moves"]))
    for entry in d["moves"]:
        try:
            state, events, new_deal = next(steps)
        except fairness.SecretMissing as exc:
            return _outcome(False, f"wrong secret: deal {exc.deal} is dealt but the document gives no secret", None)
        except EngineError as exc:
            return _outcome(False, f"tampered move: move {entry['seq']} does not apply ({exc.message})", None)
        except (TypeError, KeyError, ValueError, IndexError, AttributeError):
            # A hostile document's move an engine does not expect at all: still a tampered move.
            return _outcome(False, f"tampered move: move {entry['seq']} is malformed", None)
        if public_events(game, events) != entry["events"]:
            return _outcome(False, f"tampered move: move {entry['seq']}'s events are not what the move does", None)
        if new_deal:
            k = deal_of(state)
            dealt.add(k)
            problem = _check_hands(deals[k], state) if k < len(deals) else f"wrong deal: deal {k} is not listed"
            if problem:
                return _outcome(False, problem, None)
    scores = game.scores(state)
    extra = [deal["deal"] for deal in deals if deal["deal"] not in dealt and deal["hands"] is not None]
    if extra:
        return _outcome(False, f"wrong deal: deal {extra[0]} has hands but the log never deals it", scores)
    if not d["aborted"] and not game.is_over(state):
        return _outcome(False, "tampered move: the log ends before the game is over", scores)
    if scores != d["scores"]:
        return _outcome(False, f"wrong score: the replay scores {scores}, the document says {d['scores']}", scores)
    winners = list(game.winners(state)) if game.is_over(state) and not d["aborted"] else []
    if winners != d["winners"]:
        return _outcome(False, f"wrong score: the replay's winners are {winners}, the document says {d['winners']}",
                        scores)
    return _outcome(True, None, scores)


def _check_hands(deal: dict, state: dict) -> str | None:
    if deal["hands"] != fairness.dealt_hands(state):
        return f"wrong deal: deal {deal['deal']}'s starting hands are not the cards its secret deals"
    return None
