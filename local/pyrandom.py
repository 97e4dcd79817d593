"""Python's ``random.Random`` inside Numba code: the same numbers for the same seed.

The engine draws every game's randomness from ``random.Random(seed)`` (the seat draw, the
dealer, the shuffle, the random places after the pass limit: :func:`daihinmin.rules.match.
game_rng`).  To play the engine's games at Numba's speed, the simulator draws from the same
generator: CPython's Mersenne Twister (MT19937), seeded from an integer as CPython seeds it
(``init_by_array`` over the integer's 32-bit words), and ``randrange``/``shuffle`` as
CPython makes them from ``getrandbits`` (rejection sampling on ``bit_length`` bits).

A generator is one ``int64`` array of :data:`STATE_SIZE`: the 624 words, the index, then how
many words of the current block are twisted.  A game draws only a hundred words or so, so the
twist is done as the draws reach it, in CPython's order (the same words), and seeding starts
from the fixed state ``init_genrand(19650218)`` made once.
``shuffle(mt, deck, 10)`` after ``seed(mt, np.uint64(s))`` leaves ``deck`` as
``random.Random(s).shuffle`` would (tests/local/test_numba_match.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

N = 624
M = 397
STATE_SIZE = N + 2  # the words, the index of the next word, the words twisted so far
_TWISTED = N + 1
_CHUNK = 32  # words twisted at a time (a draw past them twists the next ones)
_MATRIX_A = 0x9908B0DF
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_MASK32 = 0xFFFFFFFF


@njit(cache=True)
def new_generator() -> np.ndarray:
    """A generator's state (``int64`` words holding 32 bits each: no conversions)."""
    mt = np.zeros(STATE_SIZE, dtype=np.int64)
    mt[_TWISTED] = N
    return mt


def _init_genrand(s: int) -> np.ndarray:
    """``init_genrand(s)``'s words (the start of every seeding, made once at import)."""
    mt = [s & _MASK32]
    for i in range(1, N):
        prev = mt[i - 1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & _MASK32)
    return np.array(mt, dtype=np.int64)


_INIT = _init_genrand(19650218)  # (a global array: a constant of the compiled code)
_BIT_LENGTHS = 64  # n.bit_length() looked up for the small n of deals and seats
_BIT_LENGTH = np.array([n.bit_length() for n in range(_BIT_LENGTHS)], dtype=np.int64)


@njit(cache=True)
def seed(mt: np.ndarray, value: np.uint64) -> None:
    """Seed as ``random.Random(value)`` does, for ``0 <= value < 2**64`` (a ``np.uint64``:
    Numba takes a Python int as a signed 64-bit one)."""
    v = np.uint64(value)
    low = np.int64(v & np.uint64(_MASK32))
    high = np.int64(v >> np.uint64(32))
    key_length = 2 if high != 0 else 1
    mt[:N] = _INIT
    i, j = 1, 0
    k = N if key_length < N else key_length
    prev = mt[0]  # (mt[i - 1], kept in a register)
    while k > 0:
        key = low if j == 0 else high
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & _MASK32)) + key + j) & _MASK32
        mt[i] = prev
        i += 1
        j += 1
        if i >= N:
            mt[0] = prev
            i = 1
        if j >= key_length:
            j = 0
        k -= 1
    k = N - 1
    while k > 0:
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & _MASK32)) - i) & _MASK32
        mt[i] = prev
        i += 1
        if i >= N:
            mt[0] = prev
            i = 1
        k -= 1
    mt[0] = _UPPER
    mt[N] = N
    mt[_TWISTED] = N


@njit(cache=True)
def _mix(mt: np.ndarray, kk: int, nxt: int, far: int) -> None:
    y = (mt[kk] & _UPPER) | (mt[nxt] & _LOWER)
    value = mt[far] ^ (y >> 1)
    if y & 1:
        value ^= _MATRIX_A
    mt[kk] = value


@njit(cache=True)
def _twist_to(mt: np.ndarray, end: int) -> None:
    """Twist the current block's words up to ``end`` (CPython's order: a word's new value
    reads the next word's old one and, past ``N - M``, an earlier word's new one)."""
    for kk in range(mt[_TWISTED], min(end, N - M)):
        _mix(mt, kk, kk + 1, kk + M)
    for kk in range(max(mt[_TWISTED], N - M), min(end, N - 1)):
        _mix(mt, kk, kk + 1, kk + M - N)
    if end >= N:
        _mix(mt, N - 1, 0, M - 1)
        end = N
    mt[_TWISTED] = end


@njit(cache=True)
def next_uint32(mt: np.ndarray) -> int:
    """``genrand_uint32``: the next 32 random bits."""
    if mt[N] >= N:  # a new block
        mt[N] = 0
        mt[_TWISTED] = 0
    if mt[N] >= mt[_TWISTED]:
        _twist_to(mt, mt[N] + _CHUNK)
    y = mt[mt[N]]
    mt[N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@njit(cache=True)
def below(mt: np.ndarray, n: int) -> int:
    """``randrange(n)`` (``_randbelow``) for ``0 < n < 2**32``."""
    k = _BIT_LENGTH[n] if n < _BIT_LENGTHS else 0
    while (n >> k) != 0:
        k += 1
    while True:
        r = next_uint32(mt) >> (32 - k)
        if r < n:
            return r


@njit(cache=True)
def shuffle(mt: np.ndarray, x: np.ndarray, length: int) -> None:
    """``shuffle`` of the first ``length`` entries of ``x``."""
    for i in range(length - 1, 0, -1):
        j = below(mt, i + 1)
        x[i], x[j] = x[j], x[i]


__all__ = ["STATE_SIZE", "below", "new_generator", "next_uint32", "seed", "shuffle"]
