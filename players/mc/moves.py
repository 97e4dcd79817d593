"""Moves inside Numba code: a card mask plus one packed ``int64`` of shape facts.

A move is ``(cards, info)``.  ``cards`` holds the real cards that leave the hand and bit 60
when the joker is used.  ``info`` packs the kind (the reference server's codes), size, lowest
and highest rank column, the suit bitmask (row 4 = 16) and the joker's table cell.  The empty
field and the pass are ``info == 0``.
"""

from __future__ import annotations

from numba import njit

from .bits import int64

K_PASS, K_SINGLE, K_GROUP, K_SEQUENCE, K_JOKER = 0, 1, 2, 3, 4
NO_JOKER_ROW = 7
#: Capacity of a move buffer (a 14-card hand with the joker has fewer than 700 plays).
MAX_MOVES = 1024


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
