"""Checked readers for the server's messages: each returns typed data or raises
:class:`UnexpectedMessageError` naming the cell and the value that do not fit the protocol.

The checks catch a desynchronised or garbage stream early (a random 480-byte block almost
never passes them) while accepting everything the reference server sends, quirks included
(the class cells of turn and field tables are not checked: the reference server fills them
wrongly once somebody has gone out).

>>> from daihinmin.protocol.codec import TableState, build_deal
>>> from daihinmin.values.cards import CardSet
>>> deal = read_deal(build_deal(CardSet.parse("S3 JK"), TableState(counts=(2,) * 5), 0), "deal")
>>> str(deal.hand), deal.give, deal.state.seats
('S3 JK', 0, (0, 1, 2, 3, 4))
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from daihinmin.protocol.codec import (
    TableState,
    hand_cells,
    hand_from_cells,
    read_hand,
    read_state,
)
from daihinmin.protocol.table import CELLS, COLS, Table
from daihinmin.values.cards import CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import Move, move_from_cells, move_to_cells

from .errors import UnexpectedMessageError

PLAYERS = 5  # the table layout has room for exactly five players
MAX_CARDS = 54  # 52 cards + up to two jokers
ANSWER_ACCEPTED, ANSWER_REJECTED = 9, 8
ANSWER_PASS_20071 = 7  # koganie/uecda_server protocol 20071 answers a deliberate pass with 7
END_CONTINUE, END_GAME, END_MATCH = 0, 1, 2


@dataclass(frozen=True, slots=True)
class HandTable:
    """A deal or turn table: the player's hand and the public state."""

    hand: CardSet
    state: TableState
    give: int = 0  # deal tables: cards this player must return


@dataclass(frozen=True, slots=True)
class FieldTable:
    """A field table: the cards on the field (exact cells) and the state after the action."""

    cells: dict[tuple[int, int], int]
    move: Move | None  # None when no cards are shown
    state: TableState


def _fail(where: str, problem: str, cell: tuple[int, int] | None = None,
          value: int | None = None) -> UnexpectedMessageError:
    return UnexpectedMessageError(where, problem, cell, value)


def _check_hand_cells(t: Table, where: str,
                      cells: dict[tuple[int, int], int] | None = None) -> None:
    """Rows 0..4 of a hand: 1 for a card in rows 0..3, columns 1..13; 2 (joker) in row 4."""
    for (row, col), v in (t.nonzero() if cells is None else cells).items():
        if v == 1 and row < 4 and 1 <= col <= 13:
            continue
        if v == 2 and row == 4:
            continue
        raise _fail(where, f"a hand cell holds {v}", (row, col), v)


def _check_flags(t: Table, where: str, cols: tuple[int, ...]) -> None:
    row = t.row(5)
    for col in cols:
        if row[col] not in (0, 1):
            raise _fail(where, f"flag cell holds {t[5, col]}, expected 0 or 1", (5, col),
                        t[5, col])


def _check_counts(t: Table, where: str) -> None:
    if max(t.row(6)[:PLAYERS]) <= MAX_CARDS:
        return
    for col in range(PLAYERS):
        if t[6, col] > MAX_CARDS:
            raise _fail(where, f"a card count of {t[6, col]}", (6, col), t[6, col])


def _check_player(t: Table, where: str, cell: tuple[int, int]) -> None:
    if t[cell] >= PLAYERS:
        raise _fail(where, f"player number {t[cell]}, expected 0..{PLAYERS - 1}", cell, t[cell])


def read_deal(t: Table, where: str) -> HandTable:
    """The deal table: hand, cards to give ([5][1]) and the state; [5][0] must be 1."""
    if t[5, 0] != 1:
        raise _fail(where, f"the exchange-phase flag is {t[5, 0]}; a deal table has 1",
                    (5, 0), t[5, 0])
    _check_hand_cells(t, where)
    _check_flags(t, where, (2,))
    _check_counts(t, where)
    hand = read_hand(t)
    give = t[5, 1]
    if give > len(hand):
        raise _fail(where, f"{give} cards to give from a hand of {len(hand)}", (5, 1), give)
    seats = t.row(6)[10:15]
    if sorted(seats) != list(range(PLAYERS)):
        raise _fail(where, f"the seats {list(seats)} are not an order of players 0..4", (6, 10))
    for col in range(5, 10):
        if t[6, col] >= PLAYERS:
            raise _fail(where, f"class {t[6, col]}, expected 0..4", (6, col), t[6, col])
    return HandTable(hand, read_state(t), give)


def read_turn(t: Table, where: str, hand: CardSet | None = None) -> HandTable:
    """A turn table: hand and state; [5][2] says whether this player must move now.

    ``hand`` is what an earlier turn table with the very same card rows gave (the caller
    compared them): those rows were checked then and are not read again."""
    if hand is None:
        cells = t.nonzero()  # one scan serves the check and the hand
        _check_hand_cells(t, where, cells)
        hand = hand_from_cells(cells)
    _check_flags(t, where, (2, 4, 5, 6, 7))
    _check_player(t, where, (5, 3))
    _check_counts(t, where)
    return HandTable(hand, read_state(t))


def read_field(t: Table, where: str, max_jokers: int = 2,
               play: tuple[dict[tuple[int, int], int], Move | None] | None = None) -> FieldTable:
    """A field table: the play shown (as the exact cells sent) and the acting player [5][3].

    ``play`` is what :func:`read_play` gave for the same card rows, when the caller knows
    them unchanged (the field stays while players pass): they are not read again."""
    _check_player(t, where, (5, 3))
    _check_flags(t, where, (4, 5, 6, 7))
    _check_counts(t, where)
    cells, move = read_play(t, where, max_jokers) if play is None else play
    return FieldTable(cells, move, read_state(t))


def read_play(t: Table, where: str, max_jokers: int = 2
              ) -> tuple[dict[tuple[int, int], int], Move | None]:
    """The cells of rows 0..4 and the play they show (None for no cards)."""
    cells = t.nonzero()
    try:
        return cells, move_from_cells(cells, max_jokers) if cells else None
    except MoveShapeError as exc:
        raise _fail(where, f"the field is not a play: {exc}", exc.cell) from exc


# --- the same readers straight from the 20070 bytes (the client's every table) ----------
# Rows 5 and 6 (the state) are 30 big-endian ints from byte 300; a table whose card rows
# the caller already knows is read from those alone, with no Table built.
_STATE_ROWS = struct.Struct(">30I")
_STATE_OFFSET = 5 * COLS * 4


def _state_of(r: tuple[int, ...]) -> TableState:
    """:func:`read_state` of the table whose rows 5 and 6 are ``r``."""
    return TableState(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                      r[15:20], r[20:25], r[25:30])


def read_turn_bytes(data: bytes, where: str, hand: CardSet | None = None) -> HandTable:
    """``read_turn(Table.from_bytes(data), where, hand)`` for a 20070 table of 480 bytes:
    with ``hand`` known and every check passed, only rows 5 and 6 are read.  Anything else
    (a new hand, a cell that fails a check) takes :func:`read_turn` itself, which says
    what is wrong."""
    r = _STATE_ROWS.unpack_from(data, _STATE_OFFSET)
    if (hand is None or r[2] > 1 or r[4] > 1 or r[5] > 1 or r[6] > 1 or r[7] > 1
            or r[3] >= PLAYERS or max(r[15:20]) > MAX_CARDS):
        return read_turn(Table.from_bytes(data), where, hand)
    return HandTable(hand, _state_of(r))


def read_field_bytes(data: bytes, where: str, max_jokers: int = 2,
                     play: tuple[dict[tuple[int, int], int], Move | None] | None = None
                     ) -> FieldTable:
    """``read_field(Table.from_bytes(data), where, max_jokers, play)`` for a 20070 table of
    480 bytes: with ``play`` known and every check passed, only rows 5 and 6 are read."""
    r = _STATE_ROWS.unpack_from(data, _STATE_OFFSET)
    if (play is None or r[3] >= PLAYERS or r[4] > 1 or r[5] > 1 or r[6] > 1 or r[7] > 1
            or max(r[15:20]) > MAX_CARDS):
        return read_field(Table.from_bytes(data), where, max_jokers, play)
    return FieldTable(play[0], play[1], _state_of(r))


# The cells a client follows the game by, [5][2..7] and [6][0..4] (my turn, the player,
# field empty, 11-back, revolution, lock, the five counts): one unpack, no table.
_FLAGS_AND_COUNTS = struct.Struct(">8x6I28x5I")
# The same cells of a turn table and of the field table right after it (960 bytes on).
_TURN_AND_FIELD = struct.Struct(">8x6I28x5I400x8x6I28x5I")


def _fit(r: tuple[int, ...], i: int) -> bool:
    """The 11 cells from ``r[i]`` pass the checks of :func:`quick_state`."""
    return not (r[i] > 1 or r[i + 1] >= PLAYERS or r[i + 2] > 1 or r[i + 3] > 1
                or r[i + 4] > 1 or r[i + 5] > 1 or max(r[i + 6:i + 11]) > MAX_CARDS)


def quick_state(data: bytes, offset: int = 0) -> tuple[int, ...] | None:
    """The cells above of the 20070 table at ``offset`` of ``data``, when every check that
    :func:`read_turn` and :func:`read_field` make of them passes (flags 0 or 1, a player
    0..4, counts up to 54); else None: the caller then takes those readers, which name
    what is wrong.

    >>> from daihinmin.protocol.codec import TableState, build_turn
    >>> raw = build_turn(CardSet.parse("S3"), TableState(turn_player=3, counts=(1,) * 5))
    >>> quick_state(raw.to_bytes())
    (0, 3, 0, 0, 0, 0, 1, 1, 1, 1, 1)
    >>> quick_state(raw.with_cells({(6, 2): 55}).to_bytes()) is None
    True
    """
    r = _FLAGS_AND_COUNTS.unpack_from(data, offset + _STATE_OFFSET)
    return r if _fit(r, 0) else None


def quick_turn_and_field(data: bytes, offset: int = 0) -> tuple[int, ...] | None:
    """:func:`quick_state` of the table at ``offset`` and of the one after it, in one
    tuple of 22 cells (one unpack for a turn table and its field table), when both pass.

    >>> from daihinmin.protocol.codec import TableState, build_turn
    >>> turn = build_turn(CardSet.parse("S3"), TableState(turn_player=3, counts=(1,) * 5))
    >>> field = turn.with_cells({(6, 3): 0})
    >>> quick_turn_and_field(turn.to_bytes() + field.to_bytes())[17:]  # the field's counts
    (1, 1, 1, 0, 1)
    >>> quick_turn_and_field(turn.to_bytes() + field.with_cells({(5, 3): 5}).to_bytes())
    """
    r = _TURN_AND_FIELD.unpack_from(data, offset + _STATE_OFFSET)
    # _fit(r, 0) and _fit(r, 11) written out: the flags ORed, the indices constant
    if ((r[0] | r[2] | r[3] | r[4] | r[5] | r[11] | r[13] | r[14] | r[15] | r[16]) > 1
            or r[1] >= PLAYERS or r[12] >= PLAYERS
            or max(r[6:11]) > MAX_CARDS or max(r[17:]) > MAX_CARDS):
        return None
    return r


_INT_BYTES = 4  # a big-endian cell on the wire: a card's 1 or 2 is its last byte


def move_bytes(move: Move) -> bytes:
    """The 20070 move table of ``move`` on the wire: the bytes of
    ``build_move(move).to_bytes()``, written straight from the move's cells (each is 1 or 2,
    the last byte of its big-endian int; every other byte is 0)."""
    table = bytearray(CELLS * _INT_BYTES)
    for (row, col), value in move_to_cells(move).items():
        table[(row * COLS + col) * _INT_BYTES + _INT_BYTES - 1] = value
    return bytes(table)


def hand_rows(hand: CardSet) -> bytes:
    """Rows 0..4 of a 20070 deal or turn table showing ``hand``, as the server writes them
    (:func:`daihinmin.protocol.codec.hand_cells`).

    >>> from daihinmin.protocol.codec import TableState, build_turn
    >>> hand = CardSet.parse("S3 HA JK")
    >>> hand_rows(hand) == build_turn(hand, TableState()).to_bytes()[:300]
    True
    """
    rows = bytearray(5 * COLS * _INT_BYTES)
    for (row, col), value in hand_cells(hand).items():
        rows[(row * COLS + col) * _INT_BYTES + _INT_BYTES - 1] = value
    return bytes(rows)


def check_int(value: int, allowed: tuple[int, ...], where: str) -> int:
    if value not in allowed:
        want = ", ".join(str(a) for a in allowed)
        raise _fail(where, f"got {value}, expected one of {want}", None, value)
    return value


__all__ = [
    "ANSWER_ACCEPTED",
    "ANSWER_PASS_20071",
    "ANSWER_REJECTED",
    "END_CONTINUE",
    "END_GAME",
    "END_MATCH",
    "PLAYERS",
    "FieldTable",
    "HandTable",
    "check_int",
    "hand_rows",
    "move_bytes",
    "quick_state",
    "quick_turn_and_field",
    "read_deal",
    "read_field",
    "read_field_bytes",
    "read_turn",
    "read_turn_bytes",
]
