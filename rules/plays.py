"""What a play is under a rule set: its special kinds and the rank effects it carries.

Pure functions of (rules, move); the judge, the game and the forbidden-finish lists use them.

>>> from daihinmin.values.moves import Move
>>> from daihinmin.rules.ruleset import APP, THIRTEENTH_FLOOR
>>> rank_count(Move.parse("S5 H5 JK@D5"), RANK_5, THIRTEENTH_FLOOR)
3
>>> rank_count(Move.parse("S5 H5 JK@D5"), RANK_5, APP)
2
>>> is_sandstorm(Move.parse("S3 H3 D3"), THIRTEENTH_FLOOR), is_sandstorm(Move.parse("S3 H3"),
... THIRTEENTH_FLOOR)
(True, False)
>>> holds_role_card(Move.parse("S3"), THIRTEENTH_FLOOR), holds_role_card(Move.parse("H3"),
... THIRTEENTH_FLOOR)
(True, False)
"""

from __future__ import annotations

from daihinmin.values.cards import JOKER, RANK_3, SPADE, CardSet
from daihinmin.values.moves import (
    GROUP_KIND,
    JOKER_KIND,
    PASS_KIND,
    SEQUENCE_KIND,
    SINGLE_KIND,
    STAIRS_KIND,
    Move,
)

from .ruleset import RuleSet

RANK_5, RANK_6, RANK_7, RANK_8, RANK_9, RANK_10, RANK_J = 3, 4, 5, 6, 7, 8, 9
TOP_RANK, BOTTOM_RANK = 13, 1  # the 2 and the 3


def rank_count(move: Move, rank: int, rules: RuleSet) -> int:
    """Cards of ``rank`` in the play: real ones, plus jokers standing there when
    ``joker_effects`` is on."""
    if move.kind in (PASS_KIND, JOKER_KIND) or not move.low <= rank <= move.high:
        return 0
    count = move.cards.suits_of_rank(rank).bit_count()
    if rules.joker_effects:
        count += sum(1 for _, col in move.joker_cells if col == rank)
    return count


def is_spade3(move: Move) -> bool:
    return move.kind is SINGLE_KIND and move.low == RANK_3 and move.suits == 1 << SPADE


def _is_group_of(move: Move, rank: int, size: int, rules: RuleSet) -> bool:
    return (move.kind is GROUP_KIND and move.low == rank and move.size == size
            and (rules.joker_effects or not move.joker_cells))


def is_sandstorm(move: Move, rules: RuleSet) -> bool:
    """Three 3s with ``sandstorm`` on (a joker standing as a 3 only with ``joker_effects``)."""
    return rules.sandstorm and _is_group_of(move, RANK_3, 3, rules)


def is_ambulance(move: Move, rules: RuleSet) -> bool:
    """Two 9s that beat anything (``ambulance``)."""
    return rules.ambulance and _is_group_of(move, RANK_9, 2, rules)


def clears_as_ambulance(move: Move, rules: RuleSet) -> bool:
    """Two 9s that clear the trick (``ambulance`` or ``ambulance_clears``)."""
    return (rules.ambulance or rules.ambulance_clears) and _is_group_of(move, RANK_9, 2, rules)


def beats_anything(move: Move, rules: RuleSet) -> bool:
    return is_sandstorm(move, rules) or is_ambulance(move, rules)


def revolts(move: Move, rules: RuleSet) -> bool:
    """Does the play start (or undo) a revolution?  (Ignores ``rules.revolution``.)"""
    if move.kind is GROUP_KIND and not move.is_joker_pair:
        size = move.size if rules.revolution_joker_counts else len(move.cards)
        return size >= rules.revolution_group_min
    if move.kind in (SEQUENCE_KIND, STAIRS_KIND):
        return 0 < rules.revolution_sequence_min <= move.steps
    return False


def eight_cuts(move: Move, rules: RuleSet) -> bool:
    """An 8 in the play clears the trick (``eight_cut``)."""
    if not rules.eight_cut or move.kind in (PASS_KIND, JOKER_KIND):
        return False
    if move.holds_real_rank(RANK_8):
        return True
    return rules.eight_cut_by_joker and move.holds_rank(RANK_8)


def holds_role_card(move: Move, rules: RuleSet) -> bool:
    """13th floor role cards (役札): ♠3, a sandstorm, any 5, 8 or 9, a joker."""
    if move.jokers:
        return True
    if is_spade3(move) or (move.cards.suits_of_rank(RANK_3) & 1 << SPADE):
        return True
    if move.kind is GROUP_KIND and move.low == RANK_3 and move.size == 3:
        return True  # three 3s are always a sandstorm
    return any(move.holds_real_rank(r) for r in (RANK_5, RANK_8, RANK_9))


# --- card values for the 13th floor scores -------------------------------------------------------
ROLE_RANKS = (RANK_5, RANK_8, RANK_9)


def face_value(c: int) -> int:
    """The number printed on a card: A = 1, 2 = 2, J/Q/K = 11/12/13 (a joker has none)."""
    if c >= JOKER:
        return 0
    rank = c >> 2
    return {12: 1, 13: 2}.get(rank, rank + 2)


def card_penalty(c: int) -> int:
    """A card left in hand: joker 50, other role cards (♠3, 5, 8, 9) 20, else its number."""
    if c >= JOKER:
        return 50
    if c >> 2 in ROLE_RANKS or (c >> 2 == RANK_3 and c & 3 == SPADE):
        return 20
    return face_value(c)


def hand_penalty(hand: CardSet) -> int:
    return sum(card_penalty(c) for c in hand)


__all__ = [
    "BOTTOM_RANK",
    "RANK_5",
    "RANK_6",
    "RANK_7",
    "RANK_8",
    "RANK_9",
    "RANK_10",
    "RANK_J",
    "TOP_RANK",
    "beats_anything",
    "card_penalty",
    "clears_as_ambulance",
    "eight_cuts",
    "face_value",
    "hand_penalty",
    "holds_role_card",
    "is_ambulance",
    "is_sandstorm",
    "is_spade3",
    "rank_count",
    "revolts",
]
