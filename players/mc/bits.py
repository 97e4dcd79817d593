"""Bit tricks for card masks inside Numba code.

Cards use the layout of :mod:`daihinmin.values.cards`: the card in suit row ``s`` and rank
column ``r`` (1 = 3 ... 13 = 2) is bit ``4 * r + s``; the jokers are bits 60 and 61 (one
joker is always bit 60).  Every mask
is an ``int64`` (bit 63 is never used, so shifts stay well defined).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

if TYPE_CHECKING:
    # An int64 scalar behaves as an int in this code (Numba compiles both to int64), but
    # numpy's stubs make ``np.int64(1) & mask`` a ``signedinteger``: the checker sees int.
    def int64(x: int, /) -> int: ...
else:
    int64 = np.int64

JOKER_BIT = int64(1) << int64(60)
JOKER2_BIT = int64(1) << int64(61)
JOKER_BITS = JOKER_BIT | JOKER2_BIT
#: Every real card (rank columns 1..13).
REAL_CARDS = ((int64(1) << int64(56)) - int64(1)) ^ int64(15)
ALL_CARDS = REAL_CARDS | JOKER_BIT
#: The deck of a rule set with two jokers.
ALL_CARDS_2 = REAL_CARDS | JOKER_BITS
#: Bits of one suit row across all rank columns 0..14.
SUIT_ROWS = np.array([sum(1 << (4 * r + s) for r in range(15)) for s in range(4)],
                     dtype=np.int64)
#: Bits of the suit rows of each suit set (index: a bitmask of rows 0..3), columns 0..14.
SUIT_SET_ROWS = np.array([sum(int(SUIT_ROWS[s]) for s in range(4) if m >> s & 1)
                          for m in range(16)], dtype=np.int64)
S3_BIT = int64(1) << int64(4)  # ♠3: rank column 1, suit row 0
D3_BIT = int64(1) << int64(6)  # ♦3: rank column 1, suit row 2
C3_BIT = int64(1) << int64(7)  # ♣3: rank column 1, suit row 3
RANK_8 = 6


if TYPE_CHECKING:
    # What the intrinsics are to Python code and to mypy: ``@intrinsic`` hides the signature
    # Numba sees (``typingctx`` is supplied by Numba's typer, not by the caller).
    def popcount(x: int) -> int: ...
    def lowest_bit(x: int) -> int: ...
    def highest_bit(x: int) -> int: ...
else:
    @intrinsic
    def popcount(typingctx, x):
        """Number of set bits of an int64 (LLVM ``ctpop``)."""
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
            return builder.call(fn, args)

        return sig, codegen

    @intrinsic
    def lowest_bit(typingctx, x):
        """Index of the lowest set bit of a non-zero int64 (LLVM ``cttz``)."""
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            fn = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
            return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

        return sig, codegen

    @intrinsic
    def highest_bit(typingctx, x):
        """Index of the highest set bit of a non-zero int64 (63 - LLVM ``ctlz``)."""
        sig = types.int64(types.int64)

        def codegen(context, builder, signature, args):
            fn = builder.module.declare_intrinsic("llvm.ctlz", [ir.IntType(64), ir.IntType(1)])
            lz = builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])
            return builder.sub(ir.Constant(ir.IntType(64), 63), lz)

        return sig, codegen


@njit(cache=True)
def cards_above(rank: int) -> int:
    """Real cards of rank columns strictly above ``rank`` (0..14)."""
    if rank >= 13:
        return int64(0)
    return REAL_CARDS & ~((int64(1) << int64(4 * rank + 4)) - int64(1))


@njit(cache=True)
def cards_below(rank: int) -> int:
    """Real cards of rank columns strictly below ``rank`` (0..14)."""
    if rank <= 1:
        return int64(0)
    return REAL_CARDS & ((int64(1) << int64(4 * rank)) - int64(1))


@njit(cache=True)
def columns(low: int, high: int) -> int:
    """Every card bit of the rank columns ``low..high`` (0..14), all four suit rows."""
    return ((int64(1) << int64(4 * high + 4)) - int64(1)) ^ (
        (int64(1) << int64(4 * low)) - int64(1))


@njit(cache=True)
def suit_ranks(hand: int, suit: int) -> int:
    """Bitmask over rank columns (bit r) of the real cards of one suit."""
    out = int64(0)
    m = hand & SUIT_ROWS[suit] & REAL_CARDS
    while m:
        b = lowest_bit(m)
        out |= int64(1) << int64(b >> 2)
        m &= m - int64(1)
    return out


@njit(cache=True)
def rank_presence(hand: int) -> int:
    """Bitmask over rank columns (bit r) holding at least one real card."""
    m = hand & REAL_CARDS
    m = (m | (m >> int64(1)) | (m >> int64(2)) | (m >> int64(3))) & SUIT_ROWS[0]
    out = int64(0)
    while m:
        b = lowest_bit(m)
        out |= int64(1) << int64(b >> 2)
        m &= m - int64(1)
    return out


@njit(cache=True)
def nibble(hand: int, rank: int) -> int:
    """Suit rows (bit s) held at one rank column."""
    return (hand >> int64(4 * rank)) & int64(15)
