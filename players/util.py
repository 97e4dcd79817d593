"""Small card helpers shared by the bundled players."""

from __future__ import annotations

from daihinmin.contract.view import weakest_cards as weakest_cards  # re-exported for the players
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import JOKER_KIND, Move


def weakness(move: Move, reversed_order: bool = False) -> int:
    """Sort key of a play, weakest first: how strong its rank is under the current order.

    The rank of its weakest card under the current order (the lowest one, or the highest
    in a revolution); the lone joker is the strongest of all.

    >>> from daihinmin.values.moves import LONE_JOKER
    >>> [weakness(Move.parse(t)) for t in ("S3", "H5 H6 H7", "D2")], weakness(LONE_JOKER)
    ([1, 3, 13], 99)
    >>> weakness(Move.parse("S3"), reversed_order=True) > weakness(Move.parse("D2"), True)
    True
    """
    if move.kind is JOKER_KIND:
        return 99
    if reversed_order:
        return -move.high
    return move.low


def rank_counts(hand: CardSet) -> dict[int, int]:
    """How many real cards of each rank column the hand holds."""
    return {r: n for r in range(1, 14) if (n := hand.suits_of_rank(r).bit_count())}
