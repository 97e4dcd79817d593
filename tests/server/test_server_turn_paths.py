"""A changed hand's card rows straight from its bit mask (the server's turn tables): exactly
the rows of its cells."""

from __future__ import annotations

from daihinmin.protocol.codec import hand_cells
from daihinmin.server.tables import card_rows_bytes, hand_rows_bytes
from daihinmin.values.cards import DECK52, JOKER, JOKER2, CardSet
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(st.integers(0, DECK52), st.integers(0, 2))
def test_hand_rows_from_the_mask_are_the_hand_cells_rows(cards: int, jokers: int) -> None:
    mask = cards & DECK52 | (0, 1 << JOKER, 1 << JOKER | 1 << JOKER2)[jokers]
    hand = CardSet(mask)
    assert hand_rows_bytes(hand) == card_rows_bytes(hand_cells(hand))
