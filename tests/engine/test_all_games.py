"""One engine test run over every registered game (the OpenSpiel habit). The
checks speak only the interface of `games.engine.base.Game`, so a fourth game gets them by
registering: seeded random playthroughs (bounded), replay equals the stored state, `step`
after `check_move` equals `apply` (and `advance`, in place, equals `step`), legal-listed-means-applies, rejected-means-unlisted, card
conservation (`cards`), hidden cards (`secret_cards` never in that seat's view or events),
determinize consistency and api.md's `turn` (the one seat to act, else null).

The per-rule scenarios stay in each game's own tests. A tiny two-player card game defined
here (`HighCard`, the whole interface) is registered for these tests only: it proves the
checks pass on a correct engine, and its broken variants prove each check can fail."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import random

import pytest

from games.engine import base, fairness, registry
from tests.services.helpers import pick

SEEDS = (1, 2)
MAX_MOVES = 160  # a bounded run: long enough for several tricks, deals and phases
PROBE_EVERY = 7  # the costly checks (every listed move, determinize) on every 7th state


# --- a tiny game implementing the whole interface ------------------------------------------
class HighCard(base.Game):
    """Two players, six cards 1-6, three each. The player to act plays a card; once both have
    played, the higher card wins the trick and its player leads. Three tricks; most wins."""

    slug = "highcard"
    name = "High card (test game)"
    min_players = 2
    max_players = 2
    options: dict = {}
    move_types = frozenset({"play"})

    def new_game(self, *, players, options, seed, deck=None, first_dealer=None):
        cards = list(deck) if deck else [str(i) for i in range(1, 7)]
        if not deck:
            random.Random(seed).shuffle(cards)
        return {"players": 2, "seed": seed, "hands": [sorted(cards[:3]), sorted(cards[3:6])], "trick": [],
                "won": [0, 0], "taken": [], "turn": 0 if first_dealer is None else 1 - first_dealer}

    def to_act(self, state):
        return [] if self.is_over(state) else [state["turn"]]

    def phase(self, state):
        return "over" if self.is_over(state) else "play"

    def is_over(self, state):
        return not state["hands"][0] and not state["hands"][1] and not state["trick"]

    def winners(self, state):
        if not self.is_over(state):
            return []
        best = max(state["won"])
        return [s for s in (0, 1) if state["won"][s] == best]

    def finishing_order(self, state):
        if not self.is_over(state):
            return []
        first = self.winners(state)
        rest = [s for s in (0, 1) if s not in first]
        return [first, rest] if rest else [first]

    def scores(self, state):
        return list(state["won"])

    def legal_moves(self, state, seat):
        if seat not in self.to_act(state):
            return []
        return [{"type": "play", "card": c} for c in state["hands"][seat]]

    def parse_move(self, state, seat, move):
        if not isinstance(move, dict) or move.get("type") != "play" or not isinstance(move.get("card"), str):
            raise base.InvalidMove("a move is {type: play, card}", fields={"card": ["required"]})
        if move["card"] not in state["hands"][seat]:
            raise base.InvalidMove("you do not hold that card", fields={"card": ["not in your hand"]})
        return {"type": "play", "card": move["card"]}

    def check_move(self, state, seat, move):
        return None  # every held card may be played

    def step(self, state, seat, move):
        st = copy.deepcopy(state)
        st["hands"][seat].remove(move["card"])
        st["trick"].append([seat, move["card"]])
        events = [{"type": "played", "seat": seat, "card": move["card"]}]
        if len(st["trick"]) == 2:
            winner = max(st["trick"], key=lambda p: int(p[1]))[0]
            st["won"][winner] += 1
            st["taken"] += [c for _, c in st["trick"]]
            st["trick"] = []
            st["turn"] = winner
            events.append({"type": "trick_won", "seat": winner})
        else:
            st["turn"] = 1 - seat
        return st, events

    def timeout_move(self, state, seat, rng=None):
        return self.legal_moves(state, seat)[0]

    def view(self, state, seat):
        return {
            "phase": self.phase(state), "turn": None if self.is_over(state) else state["turn"], "dealer": None,
            "round": 1, "you": None if seat is None else {"seat": seat, "hand": list(state["hands"][seat])},
            "seats": [{"card_count": len(h), "tricks_won": state["won"][s]} for s, h in enumerate(state["hands"])],
            "public": {"trick": copy.deepcopy(state["trick"]), "taken": list(state["taken"]),
                       **({"winners": self.winners(state)} if self.is_over(state) else {})},
            "scores": self.scores(state), "legal_moves": [] if seat is None else self.legal_moves(state, seat),
        }

    def determinize(self, view, rng, prior=None):
        seat = view["you"]["seat"]
        seen = set(view["you"]["hand"]) | {c for _, c in view["public"]["trick"]} | set(view["public"]["taken"])
        unseen = [c for c in (str(i) for i in range(1, 7)) if c not in seen]
        rng.shuffle(unseen)
        hands = [None, None]
        hands[seat] = list(view["you"]["hand"])
        hands[1 - seat] = sorted(unseen[: view["seats"][1 - seat]["card_count"]])
        return {"players": 2, "seed": 0, "hands": hands, "trick": copy.deepcopy(view["public"]["trick"]),
                "won": [s["tricks_won"] for s in view["seats"]], "taken": list(view["public"]["taken"]),
                "turn": view["turn"] if view["turn"] is not None else 0}

    def cards(self, state):
        return [*state["hands"][0], *state["hands"][1], *(c for _, c in state["trick"]), *state["taken"]]

    def secret_cards(self, state, seat):
        return {c for s, hand in enumerate(state["hands"]) if s != seat for c in hand}


class LeakyView(HighCard):
    """Broken: shows the other hand to everyone."""

    slug = "highcard-leaky"

    def view(self, state, seat):
        return {**super().view(state, seat), "all_hands": copy.deepcopy(state["hands"])}


class LeakySeed(HighCard):
    """Broken: shows the table's seed (every deal's secret comes from it)."""

    slug = "highcard-leaky-seed"

    def view(self, state, seat):
        return {**super().view(state, seat), "public": {"seed": state["seed"]}}


class ListsTooMuch(HighCard):
    """Broken: lists a card the mover does not hold (apply refuses it)."""

    slug = "highcard-lists-too-much"

    def legal_moves(self, state, seat):
        moves = super().legal_moves(state, seat)
        other = state["hands"][1 - seat] if seat in (0, 1) else []
        return moves + [{"type": "play", "card": c} for c in other[:1]] if moves else moves


class LosesCards(HighCard):
    """Broken: a won trick's cards vanish."""

    slug = "highcard-loses-cards"

    def cards(self, state):
        return [*state["hands"][0], *state["hands"][1], *(c for _, c in state["trick"])]


class BadDeterminize(HighCard):
    """Broken: a determinized state forgets the tricks won."""

    slug = "highcard-bad-determinize"

    def determinize(self, view, rng, prior=None):
        return {**super().determinize(view, rng, prior), "won": [0, 0]}


class SilentTurn(HighCard):
    """Broken: `turn` is null although one seat is to act."""

    slug = "highcard-silent-turn"

    def view(self, state, seat):
        return {**super().view(state, seat), "turn": None}


class NotReplayable(HighCard):
    """Broken: each new game deals differently whatever the seed."""

    slug = "highcard-not-replayable"
    dealt = {"n": 0}

    def new_game(self, *, players, options, seed, deck=None, first_dealer=None):
        self.dealt["n"] += 1
        return super().new_game(players=players, options=options, seed=seed + self.dealt["n"])


FAKES = [HighCard()]


@contextlib.contextmanager
def registered(game: base.Game):
    """`game` in the registry for the duration (the fakes never stay there)."""
    games = registry._GAMES
    had = game.slug in games
    previous = games.get(game.slug)
    registry.register(game)
    try:
        yield game
    finally:
        if had:
            games[game.slug] = previous
        else:
            games.pop(game.slug, None)


def slugs() -> list[str]:
    return [g.slug for g in registry.all_games()] + [g.slug for g in FAKES]


@pytest.fixture(params=slugs())
def game(request):
    fake = next((g for g in FAKES if g.slug == request.param), None)
    if fake is None:
        yield registry.get(request.param)
        return
    with registered(fake):
        yield registry.get(fake.slug)


# --- the playthrough every check reads --------------------------------------------------------
def start(game: base.Game, seed: int) -> dict:
    players = game.min_players
    return game.new_game(players=players, options=game.validate_table_options({}, players=players), seed=seed)


def playthrough(game: base.Game, seed: int) -> list[tuple[dict, int, dict, base.Result]]:
    """A seeded random game, bounded: [(state, seat, move, result)]; each step's result.state
    is the next step's state."""
    rng = random.Random(seed)
    state = start(game, seed)
    steps = []
    for _ in range(MAX_MOVES):
        if game.is_over(state):
            break
        seat = rng.choice(game.to_act(state))
        move = pick(game.legal_moves(state, seat), rng)
        result = game.apply(state, seat, move)
        steps.append((state, seat, move, result))
        state = result.state
    return steps


@functools.cache
def _cached(slug: str, seed: int) -> str:
    return json.dumps([[s, seat, m, r.state, r.events] for s, seat, m, r in playthrough(registry.get(slug), seed)])


def states(game: base.Game, seed: int):
    """The playthrough's steps (state, seat, move, next state, events), computed once per game
    and seed for all the checks (fakes are not cached: their slugs are reused by variants)."""
    if any(game is f for f in FAKES) or type(game) is not type(registry.get(game.slug)):
        raw = [[s, seat, m, r.state, r.events] for s, seat, m, r in playthrough(game, seed)]
    else:
        raw = json.loads(_cached(game.slug, seed))
    return [tuple(step) for step in raw]


def probed(steps: list) -> list:
    """The steps the costly checks look at: every PROBE_EVERY-th and the last."""
    return [step for i, step in enumerate(steps) if i % PROBE_EVERY == 0 or i == len(steps) - 1]


def last_state(game: base.Game, seed: int) -> dict:
    steps = states(game, seed)
    return steps[-1][3] if steps else start(game, seed)


def leaves(obj) -> set[str]:
    """Every string in a JSON value (keys too): where a card code could appear."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set(obj) | {s for v in obj.values() for s in leaves(v)}
    if isinstance(obj, list):
        return {s for v in obj for s in leaves(v)}
    return set()


def seats(game: base.Game, state: dict) -> range:
    return range(len(game.seat_players(state)))


def viewers(game: base.Game, state: dict) -> list[int | None]:
    return [None, *seats(game, state)]


# --- the checks (plain functions, so the broken fakes can show that each one can fail) -----------
def check_replay(game: base.Game, seed: int) -> None:
    """Replaying the logged moves from the first deal gives the stored state (verify_tables)."""
    state = start(game, seed)
    for _, seat, move, after, events in states(game, seed):
        result = game.apply(state, seat, move)
        assert result.state == after and result.events == events
        state = result.state
    assert state == last_state(game, seed)


def check_result(game: base.Game, seed: int) -> None:
    """The Result holds what the separate calls say, and the state stays JSON."""
    for _, _, _, after, _ in states(game, seed):
        result = game.result(after, [])
        assert json.loads(json.dumps(after)) == after
        assert result.to_act == tuple(game.to_act(after)) and result.phase == game.phase(after)
        assert result.over == game.is_over(after)
        assert result.seat_players == tuple(game.seat_players(after))
        assert sorted(result.seat_players) == list(seats(game, after))
        assert result.rating_matches == tuple(tuple(map(tuple, m)) for m in game.rating_matches(after))
        if result.over:
            assert set(result.winners) <= {s for place in result.finishing_order for s in place}
            assert result.rating_matches  # a finished game is rated as at least one match
        else:
            assert result.rating_matches == ()


def check_step_equals_apply(game: base.Game, seed: int) -> None:
    """`step` after `parse_move` + `check_move` (the search's path) gives what `apply` gives."""
    for state, seat, move, after, events in states(game, seed):
        frozen = copy.deepcopy(state)
        parsed = game.parse_move(state, seat, move)
        game.check_move(state, seat, parsed)
        assert game.step(state, seat, parsed) == (after, events)
        assert state == frozen  # engines never mutate the state they are given


def check_advance_equals_step(game: base.Game, seed: int) -> None:
    """`advance` (the playouts' step in place) gives the state `step` gives, and advancing the
    state a `step` returned, move after move, never changes the state that step was given (the
    search plays every candidate from one sample)."""
    steps = states(game, seed)
    for state, seat, move, after, _ in steps:
        assert game.advance(copy.deepcopy(state), seat, game.parse_move(state, seat, move)) == after
    first, seat, move, _, _ = steps[0]
    frozen = copy.deepcopy(first)
    playing = game.step(first, seat, game.parse_move(first, seat, move))[0]
    for _, seat, move, after, _ in steps[1:]:
        playing = game.advance(playing, seat, game.parse_move(playing, seat, move))
        assert playing == after
    assert first == frozen


def check_listed_moves_apply(game: base.Game, seed: int) -> None:
    """Every move `legal_moves` lists for a seat that may act is accepted by `apply`."""
    for state, _, _, _, _ in probed(states(game, seed)):
        for seat in game.to_act(state):
            for move in game.legal_moves(state, seat):
                game.apply(state, seat, move)


def check_rejected_unlisted(game: base.Game, seed: int) -> None:
    """A move `apply` refuses is never one `legal_moves` lists: probed with moves listed at
    other moments or for other seats, and malformed ones."""
    steps = states(game, seed)
    rng = random.Random(seed)
    pool = [m for state, _, _, _, _ in probed(steps) for s in game.to_act(state) for m in game.legal_moves(state, s)]
    junk = [{}, {"type": "no-such-move"}, {"type": "play"}, None, "play", {"type": "play", "cards": ["ZZ"]}]
    refused = 0
    for state, _, _, _, _ in probed(steps):
        for seat in seats(game, state):
            listed = game.legal_moves(state, seat)
            for move in junk + rng.sample(pool, min(len(pool), 12)):
                try:
                    game.apply(state, seat, move)
                except base.EngineError:
                    refused += 1
                    assert move not in listed, f"seat {seat}: {move} is listed but refused"
    assert refused  # the probes did reach refusals


def check_cards_conserved(game: base.Game, seed: int) -> None:
    """The cards in play never change: none appears, none vanishes, none doubles."""
    first = sorted(game.cards(start(game, seed)))
    assert first
    for _, _, _, after, _ in states(game, seed):
        assert sorted(game.cards(after)) == first


# Records of hands that are over (Pitch's `public.last_hand`, A-8: the cards each side took,
# now public): their card codes may have been dealt again, hidden, in the next hand.
RECORDS = ("last_hand",)


def current(view: dict) -> dict:
    """The view without its records of finished hands."""
    public = {k: v for k, v in (view.get("public") or {}).items() if k not in RECORDS}
    return {**view, "public": public}


def check_hidden_cards(game: base.Game, seed: int) -> None:
    """No view or event shown to a seat (or a spectator) names a card that seat may not see."""
    for before, _, move, after, events in states(game, seed):
        for seat in viewers(game, after):
            secret = game.secret_cards(after, seat)
            seen = leaves(current(game.view(after, seat)))
            assert not secret & seen, f"seat {seat} sees {secret & seen}"
            shown = [game.view_event(e, seat) for e in events]
            # An event may make a card public (the card played, a face-down card turned, a
            # finished hand's record): its public part says so to everyone. What stays secret
            # must not reach this seat through another seat's secret part.
            public = leaves([{k: v for k, v in e.items() if k not in ("secret", "secret_to")} for e in events])
            kept = (secret & game.secret_cards(before, seat)) - leaves(move) - public
            assert not kept & leaves(shown), f"seat {seat}'s events name {kept & leaves(shown)}"


def check_turn(game: base.Game, seed: int) -> None:
    """api.md's ruling: every view's `turn` is the seat when exactly one seat is to act, else
    None; only seats to act are offered moves, so with a `turn` no other seat has any."""
    for _, _, _, after, _ in states(game, seed):
        acting = game.to_act(after)
        expected = acting[0] if len(acting) == 1 else None
        for seat in viewers(game, after):
            view = game.view(after, seat)
            assert view["turn"] == expected, f"seat {seat} sees turn {view['turn']}, to act {acting}"
            assert not view["legal_moves"] or seat in acting


BIG_SEED = 2**62  # seeds of 19 digits: finding one in a view means it leaked, not chance


def check_deal_secrets_hidden(game: base.Game, seed: int) -> None:
    """No view or event shown to a seat (or a spectator) holds the table's seed, the secret of
    the deal in play before its `deal_revealed`, or a later deal's secret (fair deals)."""
    seed = BIG_SEED + seed
    for _, _, _, after, events in states(game, seed):
        hidden = [str(seed)]
        fair = after.get("fairness")
        if fair is not None:
            first = fair["deal"] + (1 if fair["revealed"] else 0)
            hidden += [fairness.deal_secret(seed, k).hex() for k in range(first, first + 3)]
        for seat in viewers(game, after):
            shown = json.dumps([game.view(after, seat), [game.view_event(e, seat) for e in events]])
            leaked = [h for h in hidden if h in shown]
            assert not leaked, f"seat {seat} sees {leaked}"


def table_fields(view: dict) -> dict:
    """What a view says about the table (everything the seat sees)."""
    return json.loads(json.dumps(view))


def check_determinize(game: base.Game, seed: int) -> None:
    """From a seat's view, `determinize` gives a full state that shows that seat the same view
    and plays on with `apply` (and `step`) to the end or the bound."""
    rng = random.Random(seed)
    for state, seat, _, _, _ in probed(states(game, seed)):
        view = game.view(state, seat)
        sampled = game.determinize(copy.deepcopy(view), rng)
        assert table_fields(game.view(sampled, seat)) == table_fields(view)
        assert sorted(game.cards(sampled)) == sorted(game.cards(state))
        for _ in range(20):
            if game.is_over(sampled):
                break
            mover = rng.choice(game.to_act(sampled))
            move = pick(game.legal_moves(sampled, mover), rng)
            parsed = game.parse_move(sampled, mover, move)
            assert game.step(sampled, mover, parsed) == tuple(game.apply(sampled, mover, move))
            sampled = game.apply(sampled, mover, move).state


CHECKS = [
    check_replay,
    check_result,
    check_step_equals_apply,
    check_advance_equals_step,
    check_listed_moves_apply,
    check_rejected_unlisted,
    check_cards_conserved,
    check_hidden_cards,
    check_deal_secrets_hidden,
    check_determinize,
    check_turn,
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
def test_every_game(game, check, seed):
    check(game, seed)


def test_the_fake_reaches_the_end_and_the_real_games_play_on():
    with registered(HighCard()) as fake:
        assert fake.is_over(last_state(fake, 1))
    for game in registry.all_games():
        assert len(states(game, SEEDS[0])) >= 30, game.slug


# --- the checks can fail -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("broken", "check"),
    [
        (LeakyView(), check_hidden_cards),
        (LeakySeed(), check_deal_secrets_hidden),
        (ListsTooMuch(), check_listed_moves_apply),
        (LosesCards(), check_cards_conserved),
        (BadDeterminize(), check_determinize),
        (NotReplayable(), check_replay),
        (SilentTurn(), check_turn),
    ],
    ids=lambda x: getattr(x, "slug", getattr(x, "__name__", "")),
)
def test_a_broken_engine_fails_its_check(broken, check):
    with registered(broken):
        with pytest.raises((AssertionError, base.EngineError)):
            check(broken, 1)
