"""Legal-move generation on bitboards for the ``uecda`` rules (one joker).

``generate`` writes every play the mover may make on the current field into two buffers.
With ``canonical=False`` it lists exactly the plays of :func:`daihinmin.rules.movegen.all_plays`
that the reference judge accepts (every joker placement is its own move).  With
``canonical=True`` it keeps one placement per set of cards: a joker in a group takes the
lowest free suit row (or, under a lock, the row the lock demands), and a joker never stands in
for a card the sequence already holds.  The pass is not listed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import JOKER_BIT, REAL_CARDS, S3_BIT, SUIT_ROWS, int64, lowest_bit, popcount, suit_ranks
from .moves import (
    K_GROUP,
    K_JOKER,
    K_SEQUENCE,
    K_SINGLE,
    LONE_JOKER_INFO,
    NO_JOKER_ROW,
    high_of,
    kind_of,
    low_of,
    pack,
    size_of,
    suits_of,
)


@njit(cache=True)
def _stronger(rank: int, field_rank: int, rev: int) -> bool:
    if rev:
        return rank < field_rank
    return rank > field_rank


@njit(cache=True)
def _singles(hand: int, field_info: int, rev: int, lock: int, oc: np.ndarray, oi: np.ndarray,
             n: int) -> int:
    m = hand & REAL_CARDS
    field_low = low_of(field_info)
    req = suits_of(field_info) if lock else -1
    while m:
        b = lowest_bit(m)
        m &= m - int64(1)
        r, s = b >> 2, b & 3
        if field_info != 0:
            if not _stronger(r, field_low, rev):
                continue
            if req >= 0 and (1 << s) != req:
                continue
        if n < oc.shape[0]:
            oc[n] = int64(1) << int64(b)
            oi[n] = pack(K_SINGLE, 1, r, r, 1 << s, NO_JOKER_ROW, 0)
            n += 1
    return n


@njit(cache=True)
def _groups(hand: int, size: int, field_info: int, rev: int, lock: int, canonical: bool,
            oc: np.ndarray, oi: np.ndarray, n: int) -> int:
    """Groups of ``size`` cards (0: any size 2..5) stronger than the field."""
    has_joker = (hand & JOKER_BIT) != 0
    req = suits_of(field_info) if (lock and field_info != 0) else -1
    field_low = low_of(field_info)
    for r in range(1, 14):
        if field_info != 0 and not _stronger(r, field_low, rev):
            continue
        held = (hand >> int64(4 * r)) & int64(15)
        if held == 0:
            continue
        base = int64(4 * r)
        sub = held
        while sub:
            nr = popcount(sub)
            cards = sub << base
            if (nr >= 2 and (size == 0 or nr == size) and (req < 0 or sub == req)
                    and n < oc.shape[0]):
                oc[n] = cards
                oi[n] = pack(K_GROUP, nr, r, r, sub, NO_JOKER_ROW, 0)
                n += 1
            if has_joker and (size == 0 or nr + 1 == size):
                free = 15 & ~sub
                if free == 0:
                    free = 16  # all four suits held: the joker stands in row 4
                while free:
                    row = lowest_bit(free)
                    free &= free - 1
                    suits = sub | (1 << row)
                    if req >= 0 and suits != req:
                        continue
                    if n < oc.shape[0]:
                        oc[n] = cards | JOKER_BIT
                        oi[n] = pack(K_GROUP, nr + 1, r, r, suits, row, r)
                        n += 1
                    if canonical:
                        break
            sub = (sub - 1) & held
    return n


@njit(cache=True)
def _sequences(hand: int, size: int, field_info: int, rev: int, lock: int, canonical: bool,
               oc: np.ndarray, oi: np.ndarray, n: int) -> int:
    """Sequences of ``size`` cards (0: any length >= 3) stronger than the field."""
    jokers = 1 if (hand & JOKER_BIT) != 0 else 0
    req = suits_of(field_info) if (lock and field_info != 0) else -1
    f_low = low_of(field_info)
    f_high = high_of(field_info)
    for s in range(4):
        if req >= 0 and req != (1 << s):
            continue
        ranks = suit_ranks(hand, s)
        if ranks == 0:
            continue
        row_cards = hand & SUIT_ROWS[s] & REAL_CARDS
        for low in range(0, 13):
            high_min = low + 2 if size == 0 else low + size - 1
            high_max = 14 if size == 0 else low + size - 1
            if high_max > 14:
                break
            for high in range(low + 2, high_max + 1):
                window = ((int64(1) << int64(high + 1)) - int64(1)) ^ (
                    (int64(1) << int64(low)) - int64(1))
                missing = window & ~ranks
                n_missing = popcount(missing)
                if n_missing > jokers:
                    break
                if high < high_min:
                    continue
                if field_info != 0:
                    if rev:
                        if not high < f_low:
                            continue
                    elif not low > f_high:
                        continue
                length = high - low + 1
                span = ((int64(1) << int64(4 * high + 4)) - int64(1)) ^ (
                    (int64(1) << int64(4 * low)) - int64(1))
                cards = row_cards & span
                if n_missing == 1:
                    col = lowest_bit(missing)
                    if n < oc.shape[0]:
                        oc[n] = cards | JOKER_BIT
                        oi[n] = pack(K_SEQUENCE, length, low, high, 1 << s, s, col)
                        n += 1
                    continue
                if n < oc.shape[0]:
                    oc[n] = cards
                    oi[n] = pack(K_SEQUENCE, length, low, high, 1 << s, NO_JOKER_ROW, 0)
                    n += 1
                if jokers and not canonical:
                    held = window
                    while held:
                        col = lowest_bit(held)
                        held &= held - 1
                        if n < oc.shape[0]:
                            oc[n] = (cards & ~(int64(1) << int64(4 * col + s))) | JOKER_BIT
                            oi[n] = pack(K_SEQUENCE, length, low, high, 1 << s, s, col)
                            n += 1
    return n


@njit(cache=True)
def generate(hand: int, field_info: int, rev: int, lock: int, canonical: bool,
             oc: np.ndarray, oi: np.ndarray) -> int:
    """Write the legal plays (not the pass) into ``oc``/``oi``; return how many."""
    kind = kind_of(field_info)
    n = 0
    if field_info == 0:
        n = _singles(hand, 0, rev, 0, oc, oi, n)
        if hand & JOKER_BIT and n < oc.shape[0]:
            oc[n] = JOKER_BIT
            oi[n] = LONE_JOKER_INFO
            n += 1
        n = _groups(hand, 0, 0, rev, 0, canonical, oc, oi, n)
        n = _sequences(hand, 0, 0, rev, 0, canonical, oc, oi, n)
    elif kind == K_JOKER:
        if hand & S3_BIT:
            oc[0] = S3_BIT
            oi[0] = pack(K_SINGLE, 1, 1, 1, 1, NO_JOKER_ROW, 0)
            n = 1
    elif kind == K_SINGLE:
        n = _singles(hand, field_info, rev, lock, oc, oi, n)
        if hand & JOKER_BIT and n < oc.shape[0]:
            oc[n] = JOKER_BIT
            oi[n] = LONE_JOKER_INFO
            n += 1
    elif kind == K_GROUP:
        n = _groups(hand, size_of(field_info), field_info, rev, lock, canonical, oc, oi, n)
    elif kind == K_SEQUENCE:
        n = _sequences(hand, size_of(field_info), field_info, rev, lock, canonical, oc, oi, n)
    return n
