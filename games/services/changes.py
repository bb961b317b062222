"""The one hook after a table changes (docs/architecture.md, "One command path"): every
service change ends in `bump`, which publishes one `Change` here; features that react to
changes subscribe instead of patching a service (wake-ups, the deadline and bot step, webhooks
today; ratings, event streams later).

Two moments, one fan-out:
- `subscribe(fn, during=True)`: `fn(change)` runs inside the change's transaction, under the
  table lock, for work that must commit (or roll back) with the change itself (the webhook
  delivery rows: a committed change never loses its events). These must not block.
- `subscribe(fn)`: `fn(change)` runs once the change commits (never when it rolls back), from a
  single `transaction.on_commit` per change, in subscription order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import transaction


@dataclass(frozen=True)
class Change:
    """One committed (or committing) change of a table: the platform facts subscribers need,
    computed once by the command path, so that no subscriber asks the engine again."""

    table_id: str
    game: str
    version: int
    status: str
    deadline: object  # datetime | None
    turn_timeout: int
    bot_delay: float
    to_act: tuple[int, ...] = ()  # current seats that must act now (empty unless in play)
    bot_to_act: bool = False  # a bot-controlled seat must act
    human_to_act: bool = False  # a human-controlled seat must act
    move: dict | None = None  # the move, for a change made by a move
    events: tuple = ()  # the move's engine events (with their secret parts: never publish raw)
    extra: dict = field(default_factory=dict)  # the table and seat rows, for in-transaction subscribers


Subscriber = Callable[[Change], None]
_during: list[Subscriber] = []
_after: list[Subscriber] = []


def subscribe(fn: Subscriber, *, during: bool = False) -> Callable[[], None]:
    """Register `fn`; returns a function that unregisters it (tests)."""
    target = _during if during else _after
    target.append(fn)

    def unsubscribe() -> None:
        if fn in target:
            target.remove(fn)

    return unsubscribe


def publish(change: Change) -> None:
    """Called by `common.bump` under the table lock, once per change."""
    for fn in list(_during):
        fn(change)
    subscribers = list(_after)

    def fan_out() -> None:
        for fn in subscribers:
            fn(change)

    transaction.on_commit(fan_out)
