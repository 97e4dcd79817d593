"""Concrete move/exchange tables from docs/PROTOCOL.md §3 and §11, decoded exactly.

Tests named ``reference_differs`` pin a documented tndhms behaviour (§11) that is *not*
reproduced: the codec reports a typed error (the server then answers 8 and counts a pass),
or keeps every card, where tndhms does something else.
"""

from __future__ import annotations

import random

import pytest
from daihinmin.protocol.codec import (
    TableState,
    build_field,
    build_move,
    decode_exchange_table,
    decode_move_table,
)
from daihinmin.protocol.errors import (
    BadCellError,
    BadCellValueError,
    CardNotHeldError,
    ExchangeCountError,
    InvalidShapeError,
    JokerNotHeldError,
    MoveTableError,
    TooManyJokersError,
)
from daihinmin.protocol.table import Table
from daihinmin.rules.game import GameState
from daihinmin.rules.judge import Reject
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import LONE_JOKER, PASS, Move, MoveKind


def table(cells: dict[tuple[int, int], int]) -> Table:
    return Table.zeros().with_cells(cells)


def test_spec_examples_decode() -> None:
    group = decode_move_table(table({(0, 3): 1, (1, 3): 1, (2, 3): 1, (3, 3): 2}))
    assert group == Move.parse("S5 H5 D5 JK@C5") and group.suits == 15 and group.size == 4
    run = decode_move_table(table({(0, 7): 1, (0, 8): 1, (0, 9): 2}))
    assert run == Move.parse("S9 ST JK@SJ") and (run.low, run.high) == (7, 9)
    five = decode_move_table(table({(0, 3): 1, (1, 3): 1, (2, 3): 1, (3, 3): 1, (4, 3): 2}))
    assert five.kind is MoveKind.GROUP and five.size == 5 and five.suits == 31
    assert decode_move_table(Table.zeros()) is PASS


@pytest.mark.parametrize("cell", [(0, 0), (2, 7), (3, 14), (1, 13)])
def test_a_lone_2_anywhere_in_rows_0_to_3_is_the_lone_joker(cell: tuple[int, int]) -> None:
    assert decode_move_table(table({cell: 2})) is LONE_JOKER


@pytest.mark.parametrize(("cells", "error"), [
    ({(0, 0): 1}, BadCellError),  # a card in the joker-only column 0
    ({(2, 14): 1}, BadCellError),  # ... column 14
    ({(4, 5): 1}, BadCellError),  # ... row 4
    ({(0, 5): 3}, BadCellValueError),
    ({(0, 5): 1, (1, 5): 2**32 - 1}, BadCellValueError),
    ({(0, 5): 1, (1, 5): 2, (2, 5): 2}, TooManyJokersError),
    ({(0, 5): 1, (1, 6): 1}, InvalidShapeError),  # neither one rank nor one suit
    ({(0, 5): 1, (0, 6): 1}, InvalidShapeError),  # a run of two
    ({(0, 5): 1, (0, 7): 1, (0, 8): 1}, InvalidShapeError),  # a gap
    ({(0, 5): 1, (1, 5): 1, (4, 5): 2}, InvalidShapeError),  # row 4 only in a group of five
])
def test_cells_a_move_may_not_use(cells: dict[tuple[int, int], int],
                                  error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        decode_move_table(table(cells))
    assert isinstance(info.value, MoveTableError | MoveShapeError)
    assert info.value.cell is None or info.value.cell[0] in range(8)


def test_rows_5_to_7_of_a_move_are_ignored_and_never_echoed() -> None:
    """§3/§11: tndhms copies the submitted table (row 7 garbage too) into the field table."""
    sent = table({(0, 5): 1, (1, 5): 1, (5, 3): 99, (6, 0): 7, (7, 2): 12345})
    move = decode_move_table(sent)
    assert move == Move.parse("S7 H7")
    field = build_field(move, TableState(turn_player=2))
    assert field.row(7) == (0,) * 15 and field.nonzero() == {(0, 5): 1, (1, 5): 1}


def test_reference_differs_values_above_2_are_an_error_not_a_pass() -> None:
    """§11: tndhms treats a table whose only non-zero cell is e.g. 3 as a pass (answer 9 on
    an empty field).  Here it is a :class:`BadCellValueError`; the server answers 8."""
    with pytest.raises(BadCellValueError):
        decode_move_table(table({(1, 4): 3}))


def test_reference_differs_joker_written_twice_is_rejected() -> None:
    """§11: the C client sometimes writes the joker twice in a group; rejected every time."""
    with pytest.raises(TooManyJokersError):
        decode_move_table(table({(0, 9): 1, (1, 9): 2, (2, 9): 2}))


def test_reference_differs_spade3_with_extra_cards_on_a_lone_joker() -> None:
    """§11: over a lone joker tndhms accepts any move whose lowest card is a held ♠3, extra
    cards included.  Only the single ♠3 is accepted here."""
    hands = [CardSet.parse(h) for h in ["JK D9", "S3 H3 S4 S5 C9", "H4", "C4", "D4"]]
    g = GameState.start(UECDA, hands, (0, 1, 2, 3, 4), random.Random(0), first=0)
    g.step(LONE_JOKER)
    for move in ["S3 H3", "S3 S4 S5"]:
        assert g.judge(Move.parse(move)).reason is Reject.JOKER_ON_FIELD
    assert g.judge(Move.parse("S3")).accepted


# --- exchange tables --------------------------------------------------------------------------
HAND = CardSet.parse("S3 H3 D9 SK JK")


def test_exchange_table_gives_exactly_the_owed_held_cards() -> None:
    assert decode_exchange_table(table({(0, 1): 1, (1, 1): 1}), HAND, 2) == CardSet.parse(
        "S3 H3")
    assert decode_exchange_table(table({(4, 1): 2, (0, 11): 1}), HAND, 2) == CardSet.parse(
        "JK SK")


@pytest.mark.parametrize(("cells", "count", "error"), [
    ({(0, 1): 1}, 2, ExchangeCountError),
    ({(0, 1): 1, (1, 1): 1, (2, 7): 1}, 2, ExchangeCountError),
    ({(0, 1): 1, (3, 1): 1}, 2, CardNotHeldError),
    ({(0, 0): 1}, 1, BadCellError),
    ({(0, 1): 5}, 1, BadCellValueError),
    ({(4, 1): 2, (4, 2): 2}, 2, TooManyJokersError),
])
def test_invalid_exchange_tables(cells: dict[tuple[int, int], int], count: int,
                                 error: type[Exception]) -> None:
    with pytest.raises(error):
        decode_exchange_table(table(cells), HAND, count)


def test_reference_differs_a_2_over_a_held_card_never_makes_it_vanish() -> None:
    """§11: in tndhms a 2 written over a held card's cell removes that card from the game.
    Here a 2 always means the joker: without one it is an error (the server then picks the
    strongest cards), with one the joker is given and the card stays in the hand."""
    no_joker = CardSet.parse("S3 H3 D9")
    with pytest.raises(JokerNotHeldError):
        decode_exchange_table(table({(0, 1): 2}), no_joker, 1)
    assert decode_exchange_table(table({(0, 1): 2}), HAND, 1) == CardSet.parse("JK")


def test_build_move_writes_the_lone_joker_in_a_card_cell() -> None:
    cells = build_move(LONE_JOKER).nonzero()
    assert list(cells.values()) == [2] and decode_move_table(build_move(LONE_JOKER)) is LONE_JOKER
