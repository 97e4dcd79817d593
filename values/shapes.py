"""Reading the cells of a move table as a move shape, as the reference server does.

>>> move_from_cells({(0, 7): 1, (0, 8): 1, (0, 9): 2}).kind.name
'SEQUENCE'
>>> move_from_cells({(0, 3): 1, (1, 3): 1, (2, 3): 1, (3, 3): 1, (4, 3): 2}).size
5
>>> move_from_cells({(0, 3): 1, (1, 4): 1})
Traceback (most recent call last):
...
daihinmin.values.errors.InvalidShapeError: cards are neither one rank nor a run of one suit
"""

from __future__ import annotations

from .errors import BadCellError, BadCellValueError, InvalidShapeError, TooManyJokersError
from .moves import JOKER_KIND, JOKER_PAIR, LONE_JOKER, PASS, Cell, Move


def check_cells(cells: dict[Cell, int], max_jokers: int = 2) -> None:
    """Reject values other than 1/2, 1s outside the card area, and too many 2s."""
    jokers = 0
    for (row, col), value in cells.items():
        if value not in (1, 2):
            raise BadCellValueError(f"cell [{row}][{col}] holds {value}; only 0, 1, 2 are allowed",
                                    (row, col))
        if not (0 <= row <= 4 and 0 <= col <= 14):
            raise BadCellError(f"cell [{row}][{col}] is outside the card rows", (row, col))
        if value == 1 and (row == 4 or col in (0, 14)):
            raise BadCellError(f"a card (1) at [{row}][{col}]: only a joker may stand there",
                               (row, col))
        if value == 2:
            jokers += 1
    if jokers > max_jokers:
        raise TooManyJokersError(f"{jokers} jokers (2s) in one move; at most {max_jokers}")


def move_from_cells(cells: dict[Cell, int], max_jokers: int = 2, extended: bool = False) -> Move:
    """Turn non-zero cells (value 1 = card, 2 = joker standing there) into a typed move.

    ``extended`` also reads the shapes only other rule sets have: two 2s and nothing else
    (the joker pair) and double stairs (a full block of 2-4 suit rows by 3+ columns).
    """
    cells = {k: v for k, v in cells.items() if v}
    check_cells(cells, max_jokers)
    if not cells:
        return PASS
    if extended and len(cells) == 2 and set(cells.values()) == {2}:
        return JOKER_PAIR
    if len(cells) == 1:
        ((row, col), value), = cells.items()
        if value == 2:
            if row == 4:  # the reference server's suit mask 16 is no shape: answered 8
                raise InvalidShapeError("row 4 holds only the joker of a five-card group",
                                        (row, col))
            return LONE_JOKER
        return Move.single(4 * col + row)
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    if len(rows) == 1:
        (row,) = rows
        low, high = min(cols), max(cols)
        if high - low + 1 != len(cells):
            raise InvalidShapeError("a run of one suit must be consecutive", (row, low))
        if len(cells) < 3:
            raise InvalidShapeError("a sequence needs at least 3 cards", (row, low))
        if row == 4:
            raise InvalidShapeError("row 4 holds only the joker of a five-card group", (row, low))
        jokers = tuple(c for (_, c), v in cells.items() if v == 2)
        return Move.sequence(row, low, len(cells), jokers)
    if len(cols) == 1:
        (col,) = cols
        if col in (0, 14):
            raise InvalidShapeError("a group cannot stand in a joker-only column", (0, col))
        suit_mask = sum(1 << r for (r, _), v in cells.items() if v == 1)
        joker_rows = tuple(r for (r, _), v in cells.items() if v == 2)
        all_rows = suit_mask | sum(1 << r for r in joker_rows)
        if all_rows & 16 and all_rows != 31:
            raise InvalidShapeError("row 4 may be used only by a five-card group", (4, col))
        move = Move.group(col, suit_mask, joker_rows)
        if move.size == len(joker_rows):
            raise InvalidShapeError("a group needs at least one real card", (0, col))
        return move
    if extended:
        return _stairs(cells, rows, cols)
    raise InvalidShapeError("cards are neither one rank nor a run of one suit")


def _stairs(cells: dict[Cell, int], rows: set[int], cols: set[int]) -> Move:
    low, high = min(cols), max(cols)
    if (4 in rows or high - low + 1 != len(cols) or len(cols) < 3
            or len(cells) != len(rows) * len(cols)):
        raise InvalidShapeError("cards are neither one rank, a run of one suit, nor stairs")
    jokers = tuple(cell for cell, v in cells.items() if v == 2)
    if len(jokers) == len(cells):
        raise InvalidShapeError("stairs need at least one real card", (min(rows), low))
    return Move.stairs(sum(1 << r for r in rows), low, len(cols), jokers)




def move_to_cells(move: Move) -> dict[Cell, int]:
    """The table cells of a move; a lone joker is written in the slot above the 2."""
    cells: dict[Cell, int] = {}
    if move.kind is JOKER_KIND:
        return {(0, 14): 2}
    mask = move.cards.mask  # the cards' bits in order, as iterating the set gives them
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        cells[(c & 3, c >> 2)] = 1
        mask ^= low
    for cell in move.joker_cells:
        cells[cell] = 2
    return cells
