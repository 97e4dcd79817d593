"""daihinmin.values: cards and moves, the exact immutable values every other package uses.

They sit below the rules; the 8x15 table and its codec (the wire) are in
:mod:`daihinmin.protocol`.  Modules: ``cards`` (:class:`CardSet`, card numbers and names),
``moves`` (:class:`Move`, its kinds, and how a move table's cells read as a move),
``errors`` (what is wrong with cells that form no move).

>>> from daihinmin.values import CardSet, Move
>>> Move.parse("S9 ST JK@SJ").size, len(CardSet.parse("S3 H3 JK"))
(3, 3)
"""

from daihinmin.values.cards import EMPTY, CardParseError, CardSet, card, card_name
from daihinmin.values.errors import (
    BadCellError,
    BadCellValueError,
    InvalidShapeError,
    MoveShapeError,
    TooManyJokersError,
)
from daihinmin.values.moves import (
    JOKER_PAIR,
    LONE_JOKER,
    PASS,
    Cell,
    Move,
    MoveKind,
    move_from_cells,
    move_to_cells,
)

__all__ = ["EMPTY", "JOKER_PAIR", "LONE_JOKER", "PASS", "BadCellError", "BadCellValueError",
           "CardParseError", "CardSet", "Cell", "InvalidShapeError", "Move", "MoveKind",
           "MoveShapeError", "TooManyJokersError", "card", "card_name", "move_from_cells",
           "move_to_cells"]
