"""Errors in forming a move from cards: each says exactly what is wrong, and where."""

from __future__ import annotations


class MoveShapeError(ValueError):
    """Cells (``(row, column)``: suit, rank) that form no move; ``cell`` is the culprit or None."""

    def __init__(self, message: str, cell: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.cell = cell


class BadCellValueError(MoveShapeError):
    """A card cell holds something other than 0, 1 or 2."""


class BadCellError(MoveShapeError):
    """A 1 in column 0, column 14 or row 4 (only a joker may stand there)."""


class TooManyJokersError(MoveShapeError):
    """More 2s (jokers) than the rules allow in one move."""


class InvalidShapeError(MoveShapeError):
    """The cards form neither a single, a group of one rank, nor a sequence of one suit."""
