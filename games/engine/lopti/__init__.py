"""Lopti: a Palace/Shithead-style shedding game played in sessions (rules: docs/rules/lopti.md).

Base rules (core.py):

- L-1: 2-5 players, 52 cards, ranks 2 < 3 < ... < K < A; 2 resets, 3 redirects, 7 plays low,
  10 clears. "Next player" is seat + 1 (seat - 1 with `direction` counterclockwise, L-13),
  skipping players who are out.
- L-2: a table plays sessions of rounds. A session's first dealer is fixed or drawn from the
  seed (and the session number), the dealer then moves one seat clockwise per round; the dealer
  plays first in a session's round 1, the previous round's winner afterwards. After a round the
  winner's window opens (L-11.1) and the next round is dealt when it closes, until the `rounds`
  option (rounds per session, 0 = no limit) is reached; `public.winners` are then the seats with
  most round wins over the whole table. Deal n of the table is shuffled from (seed, n).
- L-3: one card at a time from dealer + 1: face-down rounds, face-up rounds (face-up i lies on
  face-down i), hand rounds; the rest is the draw pile in order. Face-down cards are hidden from
  everybody, their owner included. Swap phase (simultaneous): each player swaps up to
  `swaps_allowed` times a hand card with a face-up card, or keeps; the timeout keeps.
- L-4: a turn is one play (cards of one rank from the hand, or one face-down card) or taking the
  non-empty pile (allowed even with a legal play; it ends the turn, extra plays included). After
  the first legal play of a turn, one draw if the hand holds fewer than `hand_size` cards.
- L-5: legality, first test that applies: 3-obligation -> only 3s; a 3 is legal anywhere; empty
  pile -> anything; same rank -> more cards than the top play or completing four; after a 7 ->
  lower than 7; 2, 7 and 10 on anything; otherwise a higher rank (anything after a 2). Rank before
  count. A special rank whose power is off (L-13) is an ordinary card.
- L-6: 3s are discarded into the visible 3-chain (emptied by a non-3 play, a take or a clear);
  on a non-empty pile they put a 3-obligation on the next player; four 3s in the chain clear.
  A 7 sets the low lock for the next play; a 10 clears (not on a 7).
- L-7: a clear (10, four of a rank at the top, four 3s) removes the pile and every pending 3/7
  effect and gives one extra play on the empty pile (none to a player who went out with it).
  Order in a turn: first play -> its effects -> the draw -> the face-up pickup -> extra plays.
- L-8: when the hand is empty after the draw opportunity, the face-up cards become the hand.
- L-9: with no hand and no face-up cards, play a face-down card blind by position; it is revealed
  to all; an illegal one goes onto the pile and the player takes the pile (turn over).
- L-10: the first player to play their last card wins the round (settled before the draw; the
  last card's effect still happens); with `play_for_places` the others play on for places.
- L-13: every base rule lives in `state["rules"]`; `set_base_rule` changes one (deal-touching keys
  wait in `state["next_rules"]` for the next deal).
- L-14: views show only what a seat may see: the draw pile's size, never its order; no face-down
  card before it is played; a drawn card only to the drawer.

House rules (house_rules.py, L-11):

- L-11.1: after a round (not the table's last) the phase is `house_rule` and only the winner
  acts: `write_rule` (`rule` in the machine form) or `decline_rule` (also the timeout); the next
  round is dealt at once either way.
- L-11.5 / L-11.6: the author edits a new rule until the next round's first card play
  (`edit_rule`), and deletes their own rule any time (`delete_rule`).
- L-11.7: `validate_rule` checks the closed vocabulary and names every bad field; every base
  event runs the matching active rules (trigger, filters, conditions; effects in order). Effects
  never trigger rules, a turn runs at most MAX_RULE_FIRINGS_PER_TURN rules, no rule gives a card
  to a player going out or takes a last card, and a custom clear is a clear of L-7 with its
  extra play. The server's `moderate_rule` hides a description, not the effect. `reveal_hand`
  lays a hand open until its owner's next turn: the log shows it, and every card drawn into it
  or given to or from it while it is open, to all (18.11 ruling, `_Ctx.log_cards_moved`).

The Rule Vote (votes.py, L-12):

- L-12.1 / L-12.2: one `propose_vote` per round from the deal to the round's end (not in the
  window); the proposal is the proposer's yes; `ballot` / `abstain` once per member; passes with
  yes > n/2 of all seats, ties at yes = n/2, fails otherwise. Play pauses while a vote or its
  duel is open (`to_act` = the members who still owe it something). A passed change applies now
  or from the next deal.
- L-12.3 / L-12.4: a tie is settled by a Rock-Paper-Scissors duel (first to 16 decisive throws)
  between the proposer and the rule's author (the earliest no-voter for a base rule), or by a
  knockout of champions when the author's seat is gone; throws stay hidden until both threw.
- L-12.5 / L-2.1: the server's `new_session` (between rounds) resets the rules into phase
  `setup`, where `restore` votes may bring earlier sessions' rules back; `start_session` deals.

Every base event of L-11.7 goes through `_fire`; house_rules.fire is its hook.

Modules, split by job: game.py (the Game class, thin), moves.py (the move table:
type -> fields, who may send it, parse, check, handler), state.py (the typed state layout, card
order, the move context), legality.py, turn.py, deal.py (the base rules; core.py keeps their
old names), vocabulary.py, validation.py, effects.py (house rules; house_rules.py keeps the
lookups and views), votes.py and duels.py (L-12), determinize.py (the search's samples).
"""

from ..registry import register
from .core import (
    BASE_RULES,
    DECK_SIZE,
    MOVE_FIELDS,
    NEXT_ROUND_RULES,
    RANK_VALUE,
    SUIT_VALUE,
    card_key,
    set_base_rule,
)
from .duels import duel_view
from .game import ALL_MOVE_FIELDS, Lopti
from .house_rules import (
    HIDDEN_DESCRIPTION,
    MAX_RULE_FIRINGS_PER_TURN,
    house_rules_view,
    redact_moderated,
    validate_rule,
)
from .votes import vote_view

__all__ = [
    "ALL_MOVE_FIELDS",
    "BASE_RULES",
    "DECK_SIZE",
    "GAME",
    "HIDDEN_DESCRIPTION",
    "MAX_RULE_FIRINGS_PER_TURN",
    "MOVE_FIELDS",
    "NEXT_ROUND_RULES",
    "RANK_VALUE",
    "SUIT_VALUE",
    "Lopti",
    "card_key",
    "duel_view",
    "house_rules_view",
    "redact_moderated",
    "set_base_rule",
    "validate_rule",
    "vote_view",
]

GAME = register(Lopti())
