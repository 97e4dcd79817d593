"""Which cards the daifugo/fugo may return: a short list for the playouts to judge.

All subsets of the hand would be 78 pairs for the daifugo; the playouts only judge subsets
of the cards a simple value ranks weakest (rank, plus a bonus for cards that make a group or a
sequence, for 8s, and for the joker, which is never returned).

>>> from daihinmin.values.cards import CardSet
>>> hand = CardSet.parse("S3 H3 D4 C5 S6 H7 D8 C9 ST HJ DQ CK SA H2 JK")
>>> [str(CardSet(int(m))) for m in exchange_candidates(hand, 1)]
['S3', 'H3', 'D4', 'C5', 'S6', 'H7']
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from daihinmin.values.cards import CardSet

SHORTLIST = 6  # cards whose subsets are judged by playouts


def keep_value(hand: CardSet, c: int) -> float:
    """How much keeping card ``c`` is worth (higher = keep)."""
    rank, suit = c >> 2, c & 3
    value = float(rank)
    value += 2.5 * (hand.suits_of_rank(rank).bit_count() - 1)
    runs = hand.ranks_of_suit(suit)
    if any(lo >= 0 and (runs >> lo & 7) == 7 for lo in (rank - 2, rank - 1, rank)):
        value += 3.0
    if rank == 6:
        value += 3.0
    return value


def exchange_candidates(hand: CardSet, count: int) -> np.ndarray:
    """Card masks of the candidate returns (each ``count`` cards, no joker)."""
    real = [c for c in hand.without_jokers]
    ranked = sorted(real, key=lambda c: (keep_value(hand, c), c))
    short = ranked[:max(SHORTLIST, count)]
    masks = [sum(1 << c for c in combo) for combo in combinations(sorted(short), count)]
    return np.array(masks, dtype=np.int64)
