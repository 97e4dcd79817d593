"""Reading the move a table's card cells mean, or why they are none.

The server reads its players' tables so (:mod:`daihinmin.server.requests`), and the kifu
reader the tables a kifu lists (:mod:`daihinmin.records.kifu_log`): cells that form no move
are played as a pass answered 8, with the reason and the kind of fault for the record
(:func:`~daihinmin.driver.faults.table_fault`).
"""

from __future__ import annotations

from daihinmin.driver.faults import SeatStatus, table_fault
from daihinmin.protocol.errors import TABLE_ERRORS
from daihinmin.values.moves import Cell, Move, move_from_cells


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def read_move_cells(cells: dict[Cell, int], max_jokers: int, extended: bool = False
                    ) -> tuple[Move | None, str | None, SeatStatus | None]:
    """``(move, None, None)``, or ``(None, why, fault)`` for cells that are no move."""
    try:
        return move_from_cells(cells, max_jokers, extended=extended), None, None
    except TABLE_ERRORS as exc:
        return None, describe(exc), table_fault(exc)


__all__ = ["describe", "read_move_cells"]
