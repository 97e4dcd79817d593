"""Errors in forming a move from cards: each says exactly what is wrong, and where.

Every error a peer's table can raise says which fault it is, by one of two bases (never
both): :class:`MalformedTableError`, what was sent is no table of the protocol (a card cell
outside 0..2, bytes of the wrong size or form), and :class:`IllegalTableError`, a table of
0/1/2 cells the rules reject (no move shape, too many jokers, cards not held, a wrong
exchange or choice).  The server classifies by the base alone, so a new error cannot fall
through to the wrong side.
"""

from __future__ import annotations


class MalformedTableError(Exception):
    """What was sent is no table of the protocol: the seat status MALFORMED (counted)."""


class IllegalTableError(Exception):
    """A table of 0/1/2 cells the rules reject: the seat status ILLEGAL (answered 8, as the
    reference server does; counted only when asked)."""


class MoveShapeError(ValueError):
    """Cells (``(row, column)``: suit, rank) that form no move; ``cell`` is the culprit or None."""

    def __init__(self, message: str, cell: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.cell = cell


class BadCellValueError(MoveShapeError, MalformedTableError):
    """A card cell holds something other than 0, 1 or 2."""


class BadCellError(MoveShapeError, IllegalTableError):
    """A 1 in column 0, column 14 or row 4 (only a joker may stand there)."""


class TooManyJokersError(MoveShapeError, IllegalTableError):
    """More 2s (jokers) than the rules allow in one move."""


class InvalidShapeError(MoveShapeError, IllegalTableError):
    """The cards form neither a single, a group of one rank, nor a sequence of one suit."""
