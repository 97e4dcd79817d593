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

from daihinmin.protocol.cards import DECK52, CardSet
from daihinmin.protocol.moves import LONE_JOKER, Move, MoveKind

from .ruleset import RuleSet

# Moves are immutable, so the 52 single-card plays are built once and shared.
_SINGLES = {c: Move.single(c) for c in CardSet(DECK52)}


def singles(hand: CardSet) -> list[Move]:
    out = [_SINGLES[c] for c in hand.without_jokers]
    if hand.jokers:
        out.append(LONE_JOKER)
    return out


def groups(hand: CardSet, rules: RuleSet, size: int = 0) -> list[Move]:
    """Groups of one rank (``size`` > 0: only groups of that many cards)."""
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
                n = n_real + j
                if n < 2 or n > rules.group_max or (size and n != size):
                    continue
                if j <= len(free_rows):
                    for rows in combinations(free_rows, j):
                        out.append(Move.group(rank, subset, rows))
                elif n == 5:  # all four suit rows filled, the last joker goes in row 4
                    out.append(Move.group(rank, subset, (*free_rows, 4)))
            subset = (subset - 1) & held
    return out


def sequences(hand: CardSet, rules: RuleSet, size: int = 0) -> list[Move]:
    """Runs of one suit (``size`` > 0: only runs of that length)."""
    if not rules.sequences:
        return []
    out: list[Move] = []
    jokers = min(hand.jokers, rules.jokers)
    for suit in range(4):
        ranks = hand.ranks_of_suit(suit)
        if ranks.bit_count() + jokers < max(rules.sequence_min, size):
            continue  # too few cards of this suit for any run
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
                if size and length > size:
                    break
                if length < rules.sequence_min or not held or (size and length != size):
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


def candidate_plays(hand: CardSet, rules: RuleSet, field: Move | None) -> list[Move]:
    """A superset of the plays that may follow ``field``, for the judge to filter.

    On cards only plays of the field's kind and size can follow (a lone joker also answers
    a single), so the rest is not generated.  Rules with plays that cross kinds (sandstorm,
    ambulance) get every play.
    """
    if field is None or rules.sandstorm or rules.ambulance:
        return all_plays(hand, rules)
    if field.kind is MoveKind.SINGLE or field.kind is MoveKind.JOKER:
        return singles(hand)
    if field.kind is MoveKind.GROUP:
        return groups(hand, rules, field.size)
    if field.kind is MoveKind.SEQUENCE:
        return sequences(hand, rules, field.size)
    return all_plays(hand, rules)
