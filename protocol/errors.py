"""Typed errors for tables and moves: each says exactly what is wrong."""

from __future__ import annotations

# The shape errors belong to the values (which cards form a move); the wire reports them too.
from daihinmin.values.errors import (
    BadCellError as BadCellError,
)
from daihinmin.values.errors import (
    BadCellValueError as BadCellValueError,
)
from daihinmin.values.errors import (
    IllegalTableError as IllegalTableError,
)
from daihinmin.values.errors import (
    InvalidShapeError as InvalidShapeError,
)
from daihinmin.values.errors import (
    MalformedTableError as MalformedTableError,
)
from daihinmin.values.errors import (
    MoveShapeError as MoveShapeError,
)
from daihinmin.values.errors import (
    TooManyJokersError as TooManyJokersError,
)


class ProtocolError(Exception):
    """Base class of everything a peer can get wrong on the wire."""


class TableSizeError(ProtocolError, MalformedTableError):
    """A table did not have 480 bytes / 120 cells (or a 20140 table is not its hex form)."""


class UnsupportedVersionError(ProtocolError):
    """A profile named a protocol version this side does not speak."""


class MoveTableError(ProtocolError, IllegalTableError):
    """A table of 0/1/2 cells that is no valid answer (cards not held, a wrong count).
    ``cell`` is (row, col) or None."""

    def __init__(self, message: str, cell: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.cell = cell


class CardNotHeldError(MoveTableError):
    """A card of the move is not in the player's hand."""


class JokerNotHeldError(MoveTableError):
    """A 2 (joker) was written but the player holds no joker."""


class ExchangeCountError(MoveTableError):
    """An exchange table gives the wrong number of cards."""


# What reading a peer's table can raise: no table (MALFORMED), or a table the rules reject
# (ILLEGAL).  Every such error is a subclass of exactly one of the two.
TABLE_ERRORS: tuple[type[MalformedTableError], type[IllegalTableError]] = (
    MalformedTableError, IllegalTableError)
