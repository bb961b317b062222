"""The hard bots' search, shared by every game: determinized Monte Carlo.

A seat sees only its view. The search samples full states consistent with that view (the
engine's `determinize`), plays each candidate move in each sample with the engine's unchecked
`step` (on a copy: the sample serves every candidate), finishes the sample with a fast playout
policy for every seat (`advance`: the unchecked step in place on the playout's own state), and
scores the end for the searching seat. The candidate with the best total wins; ties go to the earlier candidate
(callers put their default first), so the search never does worse than its own ordering when
it learns nothing.

Everything here goes through the engine's public interface (`determinize`, `step`, `advance`,
`to_act`, `is_over`); the games supply only what differs: which candidates to try, the playout policy,
the score, and how many samples a decision deserves."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from games.engine.base import Game

# policy(state, seat, rng) -> a legal move for `seat` in the full state (fast, may use the
# state's hidden cards: inside a sample everything is "known")
Policy = Callable[[dict, int, random.Random], dict]
# score(state, me) -> how good the sample's end (or cut-off) is for `me`, higher is better
Score = Callable[[dict, int], float]
# stop(state) -> True when the playout may end here, before the game is over, because the
# score already knows what it needs (President: the searching seat's place in the hand)
Stop = Callable[[dict], bool]


@dataclass(frozen=True)
class Budget:
    """How much searching one decision gets: `samples` determinizations, each candidate played
    in each; a playout stops after `max_steps` steps (then the score judges the cut-off state)."""

    samples: int
    max_steps: int = 10_000


def playout(
    engine: Game, state: dict, policy: Policy, rng: random.Random, max_steps: int, stop: Stop | None = None
) -> dict:
    """Play `state` on with `policy` for every seat until the game is over, the step budget
    runs out or `stop` (when given) says the state is far enough (President: the searching
    seat's place is known; Lopti: the round is decided); returns the final state. The playout
    owns `state`: it is changed in place (`Game.advance`)."""
    steps = 0
    while not engine.is_over(state) and steps < max_steps and not (stop and stop(state)):
        seats = engine.to_act(state)
        if not seats:
            break
        seat = seats[0]
        state = engine.advance(state, seat, policy(state, seat, rng))
        steps += 1
    return state


def best_move(
    engine: Game,
    view: dict,
    candidates: list[dict],
    *,
    policy: Policy,
    score: Score,
    budget: Budget,
    rng: random.Random,
    prior=None,
    stop: Stop | None = None,
    select=None,
    refine: Callable[[dict, random.Random], dict] | None = None,
) -> dict:
    """The candidate with the best total score over `budget.samples` determinizations of
    `view` (the searching seat is `view["you"]["seat"]`). Each sample plays every candidate
    with the same playout randomness, so candidates are compared on equal terms.

    Optional: `stop(state)` ends a playout early (see `playout`); `select(scores)` picks the
    candidate's index from the per-sample scores (`scores[i][k]`: candidate i on sample k),
    e.g. to keep the default unless another is clearly better; by default the best total.
    `refine(sample, rng)` (inference): turns each determinization into one that also agrees
    with what the other seats' play revealed (President: re-deals their hands)."""
    if len(candidates) == 1:
        return candidates[0]
    me = view["you"]["seat"]
    scores: list[list[float]] = [[] for _ in candidates]
    for _ in range(budget.samples):
        sample = engine.determinize(view, rng, prior)
        if refine is not None:
            sample = refine(sample, rng)
        seed = rng.randrange(1 << 30)
        for i, move in enumerate(candidates):
            after, _ = engine.step(sample, me, move)
            end = playout(engine, after, policy, random.Random(seed), budget.max_steps, stop)
            scores[i].append(score(end, me))
    return candidates[(select or best_total)(scores)]


def best_total(scores: list[list[float]]) -> int:
    """`best_move`'s default `select`: the candidate with the best total score, the earlier on
    a tie."""
    totals = [sum(s) for s in scores]
    return max(range(len(scores)), key=lambda i: (round(totals[i], 9), -i))


def keep_default_unless(margin: float, confidence: float) -> Callable[[list[list[float]]], int]:
    """A `select` for `best_move`: `candidates[0]` (the caller's default, e.g. easy's choice)
    unless another beats it clearly: by `margin` on average and by `confidence` standard errors
    of the paired differences (the same deals for every candidate), so that sampling noise
    alone does not pick a worse move."""

    def select(scores: list[list[float]]) -> int:
        best, best_mean = 0, 0.0
        for i in range(1, len(scores)):
            diffs = [a - b for a, b in zip(scores[i], scores[0], strict=True)]
            mean = sum(diffs) / len(diffs)
            var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
            if mean > max(margin, best_mean) and mean > confidence * (var / len(diffs)) ** 0.5:
                best, best_mean = i, mean
        return best

    return select
