"""Typed errors for tables and moves: each says exactly what is wrong."""

from __future__ import annotations


class ProtocolError(Exception):
    """Base class of everything a peer can get wrong on the wire."""


class TableSizeError(ProtocolError):
    """A table did not have 480 bytes / 120 cells."""


class UnsupportedVersionError(ProtocolError):
    """A profile named a protocol version this side does not speak."""


class MoveTableError(ProtocolError):
    """A move or exchange table that cannot be read as a move.  ``cell`` is (row, col) or None."""

    def __init__(self, message: str, cell: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.cell = cell


class BadCellValueError(MoveTableError):
    """A card cell holds something other than 0, 1 or 2."""


class BadCellError(MoveTableError):
    """A 1 in column 0, column 14 or row 4 (only a joker may stand there)."""


class TooManyJokersError(MoveTableError):
    """More 2s (jokers) than the rules allow in one move."""


class InvalidShapeError(MoveTableError):
    """The cards form neither a single, a group of one rank, nor a sequence of one suit."""


class CardNotHeldError(MoveTableError):
    """A card of the move is not in the player's hand."""


class JokerNotHeldError(MoveTableError):
    """A 2 (joker) was written but the player holds no joker."""


class ExchangeCountError(MoveTableError):
    """An exchange table gives the wrong number of cards."""
