"""The sample client's choices stay exactly what they were: ``lead_cells`` and
``follow_cells`` over 20,000 seeded positions (hands with and without the joker, singles,
groups and sequences on the field, with jokers in them, both orders, locked or not, both
builds), hashed.  Any change of a choice changes the digest; the positions are built here
from a seeded ``random.Random`` and plain cells, so nothing outside ``sample_tables``
moves them.

The digest was taken from the module as it was before its fast rewrite (commit e978e61);
if a choice is meant to change, say which in the commit and take the new digest."""

from __future__ import annotations

import hashlib
import random

from daihinmin.players.sample_tables import field_facts, follow_cells, hand_grid, lead_cells
from daihinmin.values.cards import JOKER, CardSet

POSITIONS = 20_000
DIGEST = "5166d6dad5e58774c17016be1135c7344c6a851cf33919444b62cd8e73ea7991"


def random_hand(rng: random.Random) -> CardSet:
    size = rng.randint(1, 20)
    cards = rng.sample(range(52), size)
    mask = sum(1 << (4 + c) for c in cards)  # bits 4..55: columns 1..13
    if rng.random() < 0.3:
        mask |= 1 << JOKER
    return CardSet(mask)


def random_field(rng: random.Random) -> dict[tuple[int, int], int]:
    """The card cells of a field table: a single, the lone joker, a group or a sequence,
    any of them with one card shown as the joker (2)."""
    kind = rng.random()
    if kind < 0.05:
        return {(0, 14): 2}
    if kind < 0.45:
        cells = {(rng.randrange(4), rng.randint(1, 13)): 1}
    elif kind < 0.75:
        col = rng.randint(1, 13)
        cells = {(r, col): 1 for r in rng.sample(range(4), rng.randint(2, 4))}
    else:
        length = rng.randint(3, 6)
        start, row = rng.randint(1, 14 - length), rng.randrange(4)
        cells = {(row, c): 1 for c in range(start, start + length)}
    if len(cells) > 1 and rng.random() < 0.3:
        cells[rng.choice(sorted(cells))] = 2
    return cells


def test_the_choices_over_seeded_positions_are_unchanged() -> None:
    rng = random.Random(19)
    digest = hashlib.sha256()
    for _ in range(POSITIONS):
        hand = hand_grid(random_hand(rng))
        reversed_order, lock, devkit = (rng.random() < 0.3, rng.random() < 0.3,
                                        rng.random() < 0.7)
        if rng.random() < 0.25:
            cells = lead_cells(hand, reversed_order, devkit)
        else:
            facts = field_facts(random_field(rng), rng.random() < 0.3)
            cells = follow_cells(hand, facts, reversed_order, lock, devkit)
        digest.update(repr(sorted(cells.items())).encode())
    assert digest.hexdigest() == DIGEST
