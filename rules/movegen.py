"""Every play a hand can make, each distinct joker placement a distinct move.

>>> from daihinmin.protocol.cards import CardSet
>>> from daihinmin.rules.ruleset import UECDA
>>> plays = all_plays(CardSet.parse("S4 S5 S6 JK"), UECDA)
>>> seqs = sorted(str(m) for m in plays if m.kind.name == "SEQUENCE")
>>> len(seqs), seqs[:4]
(8, ['JK@S3 S4 S5', 'JK@S3 S4 S5 S6', 'JK@S4 S5 S6', 'S4 JK@S5 S6'])
"""

from __future__ import annotations

from itertools import combinations

from daihinmin.protocol.cards import CardSet
from daihinmin.protocol.moves import LONE_JOKER, Move

from .ruleset import RuleSet


def singles(hand: CardSet) -> list[Move]:
    out = [Move.single(c) for c in hand.without_jokers]
    if hand.jokers:
        out.append(LONE_JOKER)
    return out


def groups(hand: CardSet, rules: RuleSet) -> list[Move]:
    out: list[Move] = []
    jokers = min(hand.jokers, rules.jokers)
    for rank in range(1, 14):
        held = hand.suits_of_rank(rank)
        if not held:
            continue
        subset = held
        while subset:  # every non-empty subset of the held suits
            n_real = subset.bit_count()
            free_rows = [r for r in range(4) if not subset >> r & 1]
            for j in range(jokers + 1):
                size = n_real + j
                if size < 2 or size > rules.group_max:
                    continue
                if j <= len(free_rows):
                    for rows in combinations(free_rows, j):
                        out.append(Move.group(rank, subset, rows))
                elif size == 5:  # all four suit rows filled, the last joker goes in row 4
                    out.append(Move.group(rank, subset, (*free_rows, 4)))
            subset = (subset - 1) & held
    return out


def sequences(hand: CardSet, rules: RuleSet) -> list[Move]:
    if not rules.sequences:
        return []
    out: list[Move] = []
    jokers = min(hand.jokers, rules.jokers)
    for suit in range(4):
        ranks = hand.ranks_of_suit(suit)
        for low in range(0, 15):
            missing: list[int] = []
            held: list[int] = []
            for high in range(low, 15):
                if ranks >> high & 1:
                    held.append(high)
                else:
                    missing.append(high)
                    if len(missing) > jokers:
                        break
                length = high - low + 1
                if length < rules.sequence_min or not held:
                    continue
                spare = jokers - len(missing)
                for extra in range(spare + 1):
                    for subst in combinations(held, extra):
                        if extra == len(held):
                            continue  # a run needs at least one real card
                        out.append(Move.sequence(suit, low, length, (*missing, *subst)))
    return out


def all_plays(hand: CardSet, rules: RuleSet) -> list[Move]:
    """All plays of a hand with no field constraint (passes not included)."""
    return singles(hand) + groups(hand, rules) + sequences(hand, rules)
