"""House rules' closed vocabulary (L-11.7): events and their filters, timings, conditions,
targets (game roles, never people, L-11.4), effects and their fields, and the bounds."""

from __future__ import annotations

DESCRIPTION_MAX = 280
HIDDEN_DESCRIPTION = "[hidden by a moderator]"
# L-11.3 / L-11.7: the most house-rule firings in one turn (round_start counts with the first
# turn). It bounds the work of every turn, even when rules hand out extra plays or cards.
MAX_RULE_FIRINGS_PER_TURN = 20

# L-11.7: event -> its filters
EVENTS: dict[str, tuple[str, ...]] = {
    "round_start": (),
    "turn_start": (),
    "play": ("ranks", "min_cards", "max_cards", "source"),
    "clear": ("causes",),
    "take_pile": (),
    "draw": (),
    "face_up_pickup": (),
    "face_down_reveal": ("legal",),
    "go_out": (),
}
TIMINGS = ("before", "after")
SOURCES = ("hand", "face_down")
CAUSES = ("ten", "four_of_a_kind", "four_threes", "house_rule")
CONDITIONS = ("actor_phase", "pile_at_least", "draw_pile_empty", "actor_hand_at_most")
ACTOR_PHASES = ("hand", "face_down")
TARGETS = (
    "actor",
    "next_player",
    "previous_player",
    "all_other_players",
    "all_players",
    "most_cards",
    "fewest_cards",
    "last_round_winner",
)
# effect -> (target required, its other fields)
EFFECTS: dict[str, tuple[bool, tuple[str, ...]]] = {
    "draw": (True, ("count",)),
    "skip_next_turn": (True, ()),
    "reverse_direction": (False, ()),
    "clear_pile": (False, ()),
    "give_card": (True, ("which",)),
    "return_cleared": (True, ("count",)),
    "reveal_hand": (True, ()),
    "announce": (False, ()),
}
WHICH = ("lowest", "highest")
MAX_CARDS_IN_PLAY = 4  # a play holds at most the four cards of one rank
