"""Every play a hand can make, each distinct joker placement a distinct move.

>>> from daihinmin.values.cards import CardSet
>>> from daihinmin.rules.ruleset import UECDA
>>> plays = all_plays(CardSet.parse("S4 S5 S6 JK"), UECDA)
>>> seqs = sorted(str(m) for m in plays if m.kind.name == "SEQUENCE")
>>> len(seqs), seqs[:4]
(8, ['JK@S3 S4 S5', 'JK@S3 S4 S5 S6', 'JK@S4 S5 S6', 'S4 JK@S5 S6'])
"""

from __future__ import annotations

from itertools import combinations

from daihinmin.values.cards import DECK52, CardSet
from daihinmin.values.moves import (
    GROUP_KIND,
    JOKER_KIND,
    JOKER_PAIR,
    LONE_JOKER,
    SEQUENCE_KIND,
    SINGLE_KIND,
    STAIRS_KIND,
    Cell,
    Move,
)

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
    first, last = _columns(rules)
    for suit in range(4):
        ranks = hand.ranks_of_suit(suit)
        if ranks.bit_count() + jokers < max(rules.sequence_min, size):
            continue  # too few cards of this suit for any run
        for low in range(first, last + 1):
            missing: list[int] = []
            held: list[int] = []
            for high in range(low, last + 1):
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


def _columns(rules: RuleSet) -> tuple[int, int]:
    """Table columns a run may use: 0 and 14 hold only jokers (below the 3, above the 2)."""
    return (0, 14) if rules.sequence_edge_jokers else (1, 13)


_SUIT_SETS = [m for m in range(1, 16) if m.bit_count() >= 2]


def stairs(hand: CardSet, rules: RuleSet, size: int = 0, width: int = 0) -> list[Move]:
    """Double stairs: 2-4 suits side by side over ``sequence_min``+ ranks (``size``/``width``
    > 0: only that many cards / suits)."""
    if not (rules.double_stairs and rules.sequences):
        return []
    out: list[Move] = []
    jokers = min(hand.jokers, rules.jokers)
    first, last = _columns(rules)
    have = [hand.suits_of_rank(c) if 1 <= c <= 13 else 0 for c in range(15)]
    for suit_mask in _SUIT_SETS:
        w = suit_mask.bit_count()
        if width and w != width:
            continue
        miss = [w - (h & suit_mask).bit_count() for h in have]
        for low in range(first, last + 1):
            if miss[low] > jokers:
                continue
            missing = 0
            for high in range(low, last + 1):
                missing += miss[high]
                steps = high - low + 1
                if missing > jokers or (size and steps * w > size):
                    break
                if steps < rules.sequence_min or (size and steps * w != size):
                    continue
                if missing == steps * w:
                    continue  # stairs need at least one real card
                out += _stairs_placements(suit_mask, low, steps, have, jokers - missing)
    return out


def _stairs_placements(suit_mask: int, low: int, steps: int, have: list[int],
                       spare: int) -> list[Move]:
    """The stairs with jokers in the missing cells, and also in place of held ones."""
    holes: list[Cell] = []
    held: list[Cell] = []
    for col in range(low, low + steps):
        for r in range(4):
            if suit_mask >> r & 1:
                (held if have[col] >> r & 1 else holes).append((r, col))
    out = []
    for extra in range(spare + 1):
        for subst in combinations(held, extra):
            if extra < len(held):
                out.append(Move.stairs(suit_mask, low, steps, (*holes, *subst)))
    return out


def joker_pair(hand: CardSet, rules: RuleSet) -> list[Move]:
    return [JOKER_PAIR] if rules.joker_pair_clears and hand.jokers >= 2 else []


def specials(hand: CardSet, rules: RuleSet) -> list[Move]:
    """Plays that may answer any field: sandstorms (three 3s) and ambulances (two 9s)."""
    out: list[Move] = []
    if rules.sandstorm:
        out += [m for m in groups(hand, rules, 3) if m.low == 1]
    if rules.ambulance:
        out += [m for m in groups(hand, rules, 2) if m.low == 7]
    return out


def all_plays(hand: CardSet, rules: RuleSet) -> list[Move]:
    """All plays of a hand with no field constraint (passes not included)."""
    return (singles(hand) + groups(hand, rules) + joker_pair(hand, rules)
            + sequences(hand, rules) + stairs(hand, rules))


def candidate_plays(hand: CardSet, rules: RuleSet, field: Move | None) -> list[Move]:
    """A superset of the plays that may follow ``field``, for the judge to filter.

    On cards only plays of the field's kind and size can follow (a lone joker also answers
    a single), plus the plays that answer anything (sandstorm, ambulance).
    """
    if field is None:
        return all_plays(hand, rules)
    kind = field.kind  # (the kinds as module names: ``MoveKind.X`` is an enum lookup)
    if kind is SINGLE_KIND or kind is JOKER_KIND:
        out = singles(hand)
    elif kind is GROUP_KIND:
        out = groups(hand, rules, field.size)
        if field.size == 2:
            out += joker_pair(hand, rules)
    elif kind is SEQUENCE_KIND:
        out = sequences(hand, rules, field.size)
    elif kind is STAIRS_KIND:
        out = stairs(hand, rules, field.size, field.suits.bit_count())
    else:
        return all_plays(hand, rules)
    extra = specials(hand, rules)
    if extra:
        seen = set(out)
        out += [m for m in extra if m not in seen]
    return out
