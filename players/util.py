"""Small card helpers shared by the bundled players."""

from __future__ import annotations

from daihinmin.protocol.cards import JOKER, CardSet


def weakest_cards(hand: CardSet, count: int, reversed_order: bool = False) -> CardSet:
    """The ``count`` weakest cards (by rank; the joker is never weakest).

    >>> str(weakest_cards(CardSet.parse("S2 H3 D4 JK"), 2))
    'H3 D4'
    """
    def key(c: int) -> tuple[int, int]:
        if c >= JOKER:
            return (1, 0)
        rank = c >> 2
        return (0, -rank if reversed_order else rank)

    return CardSet.of(sorted(hand, key=key)[:count])
