"""Moves inside Numba code: a card mask plus one packed ``int64`` of shape facts.

A move is ``(cards, info)``.  ``cards`` holds the real cards that leave the hand and bit 60
when a joker is used (bits 60 and 61 when two are).  ``info`` packs the kind (the reference
server's codes, and :data:`K_STAIRS` as ``values.moves.MoveKind.STAIRS``), size, lowest and
highest rank column, the suit bitmask (row 4 = 16) and the table cell of each joker (the
second joker's row is stored plus one, 0 = none, so one-joker moves pack as they always did).
The size is the cards of a single, group or sequence, and the *steps* (ranks spanned) of a
double stairs, whose width is the number of suits in its bitmask: a stairs answers one of the
same steps and width, so the size field compares as it does for the other kinds, and a
revolution counts stairs in steps as it counts sequences.  The empty field and the pass are
``info == 0``.
"""

from __future__ import annotations

from numba import njit

from .bits import int64

K_PASS, K_SINGLE, K_GROUP, K_SEQUENCE, K_JOKER, K_STAIRS = 0, 1, 2, 3, 4, 5
NO_JOKER_ROW = 7
#: Capacity of a move buffer: every joker placement of an 18-card hand (three players) with
#: both jokers, e.g. all 13 spades and 3 hearts: 2,192 plays.  With double stairs the densest
#: hands a hill-climbing search found stay near that: all 13 spades, ♣7 ♣8 ♣9 and both
#: jokers 2,252; ♠♥ 4..J and both jokers 2,132 (1,141 of them stairs).
MAX_MOVES = 4096


@njit(cache=True)
def pack(kind: int, size: int, low: int, high: int, suits: int, jrow: int, jcol: int) -> int:
    return (int64(kind) | (int64(size) << 3) | (int64(low) << 8)
            | (int64(high) << 12) | (int64(suits) << 16) | (int64(jrow) << 21)
            | (int64(jcol) << 24))


@njit(cache=True)
def kind_of(info: int) -> int:
    return info & 7


@njit(cache=True)
def size_of(info: int) -> int:
    return (info >> 3) & 15


@njit(cache=True)
def low_of(info: int) -> int:
    return (info >> 8) & 15


@njit(cache=True)
def high_of(info: int) -> int:
    return (info >> 12) & 15


@njit(cache=True)
def suits_of(info: int) -> int:
    return (info >> 16) & 31


@njit(cache=True)
def joker_row_of(info: int) -> int:
    return (info >> 21) & 7


@njit(cache=True)
def joker_col_of(info: int) -> int:
    return (info >> 24) & 15


LONE_JOKER_INFO = int(pack(K_JOKER, 1, 14, 14, 0, NO_JOKER_ROW, 0))


@njit(cache=True)
def with_second_joker(info: int, row: int, col: int) -> int:
    """``info`` with a second joker in cell (``row``, ``col``) (after the first in order)."""
    return info | (int64(row + 1) << 28) | (int64(col) << 31)


@njit(cache=True)
def joker2_row_of(info: int) -> int:
    """Row of the second joker, or -1 when the move holds at most one."""
    return ((info >> 28) & 7) - 1


@njit(cache=True)
def joker2_col_of(info: int) -> int:
    return (info >> 31) & 15
