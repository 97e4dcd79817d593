"""Legal-move generation on bitboards for the ``uecda`` play rules (one or two jokers).

``generate`` writes every play the mover may make on the current field into two buffers.
With ``canonical=False`` it lists exactly the plays of :func:`daihinmin.rules.movegen.all_plays`
that the reference judge accepts (every joker placement is its own move).  With
``canonical=True`` it keeps one placement per set of cards: jokers in a group take the
lowest free suit rows (or, under a lock, the rows the lock demands), and a joker never stands
in for a card the sequence (or double stairs) already holds.  The pass is not listed.  How
many jokers the mover may use is how many its hand holds (bits 60 and 61).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import (
    C3_BIT,
    JOKER_BIT,
    JOKER_BITS,
    REAL_CARDS,
    S3_BIT,
    SUIT_ROWS,
    SUIT_SET_ROWS,
    columns,
    int64,
    lowest_bit,
    nibble,
    popcount,
    suit_ranks,
)
from .moves import (
    K_GROUP,
    K_JOKER,
    K_SEQUENCE,
    K_SINGLE,
    K_STAIRS,
    LONE_JOKER_INFO,
    NO_JOKER_ROW,
    high_of,
    kind_of,
    low_of,
    pack,
    size_of,
    suits_of,
    with_second_joker,
)
from .plays import GEKI, NINE, is_forbidden_finish
from .rulebits import (
    AMBULANCE,
    DOUBLE_STAIRS,
    FORBIDDEN_REJECT,
    GROUP_MAX_3,
    GROUP_MAX_4,
    JOKER_BEATS_JOKER,
    JOKER_PAIR,
    LEAD_HOLDS_CLUB3,
    NO_EDGE_JOKERS,
    NO_JOKER_EFFECTS,
    NO_SEQUENCES,
    NO_SPADE3_RETURN,
    SANDSTORM,
    SEQUENCE_ABOVE_LOW,
    SEQUENCE_MIN_SHIFT,
    SEQUENCE_NEXT_LOW,
)

GROUP_MAX = 5  # uecda: a group holds at most five cards (four suits and a joker)
#: The joker pair (joker_pair_clears): both jokers, in cells (0, 14) and (1, 14) as
#: ``values.moves.JOKER_PAIR``.
JOKER_PAIR_INFO = int(with_second_joker(pack(K_GROUP, 2, 14, 14, 3, 0, 14), 1, 14))


@njit(cache=True)
def group_max_of(rw: int) -> int:
    """The largest group the rules word allows (rulebits.group_max_bits)."""
    if rw & GROUP_MAX_3:
        return 3
    return 4 if rw & GROUP_MAX_4 else GROUP_MAX


@njit(cache=True)
def sequence_min_of(rw: int) -> int:
    """The shortest run (and fewest stairs steps) of the rules word (2..5; uecda 3)."""
    return (((rw >> SEQUENCE_MIN_SHIFT) + 1) & 3) + 2


@njit(cache=True)
def _stronger(rank: int, field_rank: int, rev: int) -> bool:
    if rev:
        return rank < field_rank
    return rank > field_rank


@njit(cache=True)
def _next_rank(field_low: int, rev: int) -> int:
    """The one rank a single or group may take under geki-shibari (one step stronger)."""
    return field_low - 1 if rev else field_low + 1


@njit(cache=True)
def _singles(hand: int, field_info: int, rev: int, lock: int, oc: np.ndarray, oi: np.ndarray,
             n: int) -> int:
    m = hand & REAL_CARDS
    field_low = low_of(field_info)
    req = suits_of(field_info) if lock else -1
    step = _next_rank(field_low, rev) if lock & GEKI else -1
    while m:
        b = lowest_bit(m)
        m &= m - int64(1)
        r, s = b >> 2, b & 3
        if field_info != 0:
            if not _stronger(r, field_low, rev):
                continue
            if req >= 0 and (1 << s) != req:
                continue
            if step >= 0 and r != step:
                continue
        if n < oc.shape[0]:
            oc[n] = int64(1) << int64(b)
            oi[n] = pack(K_SINGLE, 1, r, r, 1 << s, NO_JOKER_ROW, 0)
            n += 1
    return n


@njit(cache=True)
def _joker_cards(jokers: int) -> int:
    return JOKER_BITS if jokers == 2 else JOKER_BIT


@njit(cache=True)
def _groups(hand: int, size: int, field_info: int, rev: int, lock: int, canonical: bool,
            oc: np.ndarray, oi: np.ndarray, n: int, rw: int) -> int:
    """Groups of ``size`` cards (0: any size 2..group_max) stronger than the field."""
    group_max = group_max_of(rw)
    jokers = popcount(hand & JOKER_BITS)
    req = suits_of(field_info) if (lock and field_info != 0) else -1
    field_low = low_of(field_info)
    step = _next_rank(field_low, rev) if field_info != 0 and lock & GEKI else -1
    for r in range(1, 14):
        if field_info != 0 and not _stronger(r, field_low, rev):
            continue
        if step >= 0 and r != step:
            continue
        held = (hand >> int64(4 * r)) & int64(15)
        if held == 0:
            continue
        base = int64(4 * r)
        sub = held
        while sub:
            nr = popcount(sub)
            cards = sub << base
            if (nr >= 2 and nr <= group_max and (size == 0 or nr == size)
                    and (req < 0 or sub == req) and n < oc.shape[0]):
                oc[n] = cards
                oi[n] = pack(K_GROUP, nr, r, r, sub, NO_JOKER_ROW, 0)
                n += 1
            free = 15 & ~sub
            n_free = popcount(free)
            for j in range(1, jokers + 1):
                total = nr + j
                if total > group_max or (size != 0 and total != size):
                    continue
                jc = cards | _joker_cards(j)
                if j > n_free:  # every suit row filled: the last joker stands in row 4
                    if j != n_free + 1:
                        continue
                    suits = sub | free | 16
                    if (req < 0 or suits == req) and n < oc.shape[0]:
                        row = lowest_bit(free | 16)
                        oc[n] = jc
                        info = pack(K_GROUP, total, r, r, suits, row, r)
                        if j == 2:
                            info = with_second_joker(info, 4, r)
                        oi[n] = info
                        n += 1
                    continue
                if j == 1:
                    rows = free
                    while rows:
                        row = lowest_bit(rows)
                        rows &= rows - 1
                        suits = sub | (1 << row)
                        if req >= 0 and suits != req:
                            continue
                        if n < oc.shape[0]:
                            oc[n] = jc
                            oi[n] = pack(K_GROUP, total, r, r, suits, row, r)
                            n += 1
                        if canonical:
                            break
                    continue
                done = False
                first_rows = free
                while first_rows and not done:
                    row = lowest_bit(first_rows)
                    first_rows &= first_rows - 1
                    rows = first_rows
                    while rows:
                        row2 = lowest_bit(rows)
                        rows &= rows - 1
                        suits = sub | (1 << row) | (1 << row2)
                        if req >= 0 and suits != req:
                            continue
                        if n < oc.shape[0]:
                            oc[n] = jc
                            oi[n] = with_second_joker(pack(K_GROUP, total, r, r, suits, row, r),
                                                      row2, r)
                            n += 1
                        if canonical:
                            done = True
                            break
            sub = (sub - 1) & held
    return n


@njit(cache=True)
def _emit_sequence(cards: int, length: int, low: int, high: int, s: int, cols: int,
                   oc: np.ndarray, oi: np.ndarray, n: int) -> int:
    """One run with jokers at the rank columns of ``cols`` (a bitmask, at most two)."""
    if n >= oc.shape[0]:
        return n
    n_jokers = popcount(cols)
    if n_jokers == 0:
        oc[n] = cards
        oi[n] = pack(K_SEQUENCE, length, low, high, 1 << s, NO_JOKER_ROW, 0)
        return n + 1
    col = lowest_bit(cols)
    info = pack(K_SEQUENCE, length, low, high, 1 << s, s, col)
    if n_jokers == 2:
        info = with_second_joker(info, s, lowest_bit(cols & (cols - 1)))
    oc[n] = cards | _joker_cards(n_jokers)
    oi[n] = info
    return n + 1


@njit(cache=True)
def _run_beats(low: int, high: int, f_low: int, f_high: int, rev: int, rw: int,
               lock: int) -> bool:
    """Does a sequence or stairs over ``low..high`` beat the field's over ``f_low..f_high``
    (the same kind and size)?  Above its highest rank, or with SEQUENCE_ABOVE_LOW by the
    lowest rank (the runs may overlap), with SEQUENCE_NEXT_LOW by a lowest rank exactly one
    step stronger; ``rev`` turns the order.  Under geki-shibari (GEKI in ``lock``) only the
    next step up beats it (rules.judge.is_next_step)."""
    geki = lock & GEKI != 0
    if rw & SEQUENCE_NEXT_LOW:
        return low == _next_rank(f_low, rev)
    if rw & SEQUENCE_ABOVE_LOW:
        if not (low < f_low if rev else low > f_low):
            return False
        return not geki or low == _next_rank(f_low, rev)
    if rev:
        return high < f_low and (not geki or high == f_low - 1)
    return low > f_high and (not geki or low == f_high + 1)


@njit(cache=True)
def _sequences(hand: int, size: int, field_info: int, rev: int, lock: int, canonical: bool,
               oc: np.ndarray, oi: np.ndarray, n: int, rw: int) -> int:
    """Sequences of ``size`` cards (0: any length >= sequence_min) stronger than the field;
    jokers may stand below the 3 and above the 2 (columns 0 and 14) unless the rules word
    says not."""
    first_col, last_col = (1, 13) if rw & NO_EDGE_JOKERS else (0, 14)
    least = sequence_min_of(rw)
    jokers = popcount(hand & JOKER_BITS)
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
        for low in range(first_col, last_col):
            high_min = low + least - 1 if size == 0 else low + size - 1
            high_max = last_col if size == 0 else low + size - 1
            if high_max > last_col or high_min > last_col:
                break
            for high in range(low + 1, high_max + 1):
                window = ((int64(1) << int64(high + 1)) - int64(1)) ^ (
                    (int64(1) << int64(low)) - int64(1))
                missing = window & ~ranks
                n_missing = popcount(missing)
                if n_missing > jokers:
                    break
                if high < high_min or n_missing == high - low + 1:
                    continue  # (a run of jokers alone: two of them, at sequence_min=2)
                if field_info != 0 and not _run_beats(low, high, f_low, f_high, rev, rw,
                                                      lock):
                    continue
                length = high - low + 1
                cards = row_cards & columns(low, high)
                n = _emit_sequence(cards, length, low, high, s, missing, oc, oi, n)
                spare = jokers - n_missing
                if canonical or spare == 0:
                    continue
                # jokers standing in for held cards: one, or (with two spare) two of them
                held = window & ranks
                n_held = popcount(held)
                first = held
                while first:
                    col = lowest_bit(first)
                    first &= first - 1
                    if n_held > 1:
                        one = int64(1) << int64(col)
                        n = _emit_sequence(cards & ~(int64(1) << int64(4 * col + s)),
                                           length, low, high, s, missing | one, oc, oi, n)
                    if spare < 2 or n_held < 3:
                        continue
                    rest = first
                    while rest:
                        col2 = lowest_bit(rest)
                        rest &= rest - 1
                        two = (int64(1) << int64(col)) | (int64(1) << int64(col2))
                        out = cards & ~(int64(1) << int64(4 * col + s)) & ~(
                            int64(1) << int64(4 * col2 + s))
                        n = _emit_sequence(out, length, low, high, s, two, oc, oi, n)
    return n


#: The suit sets of a double stairs (two to four rows), in the order the engine lists them.
STAIRS_SUITS = np.array([m for m in range(16) if m.bit_count() >= 2], dtype=np.int64)


@njit(cache=True)
def _emit_stairs(cards: int, joker_cells: int, steps: int, low: int, high: int, suits: int,
                 oc: np.ndarray, oi: np.ndarray, n: int) -> int:
    """One double stairs: the real ``cards``, jokers in the cells of ``joker_cells`` (card
    bits, at most two; the first in the engine's order, by column then row, is the lower
    bit)."""
    if n >= oc.shape[0]:
        return n
    n_jokers = popcount(joker_cells)
    if n_jokers == 0:
        oc[n] = cards
        oi[n] = pack(K_STAIRS, steps, low, high, suits, NO_JOKER_ROW, 0)
        return n + 1
    b = lowest_bit(joker_cells)
    info = pack(K_STAIRS, steps, low, high, suits, b & 3, b >> 2)
    if n_jokers == 2:
        b2 = lowest_bit(joker_cells & (joker_cells - 1))
        info = with_second_joker(info, b2 & 3, b2 >> 2)
    oc[n] = cards | _joker_cards(n_jokers)
    oi[n] = info
    return n + 1


@njit(cache=True)
def _stairs(hand: int, steps: int, width: int, field_info: int, rev: int, lock: int,
            canonical: bool, oc: np.ndarray, oi: np.ndarray, n: int, rw: int) -> int:
    """Double stairs of ``steps`` ranks and ``width`` suits (0, 0: any of 3+ ranks and 2-4
    suits) stronger than the field, in the engine's order (rules.movegen.stairs): suit set,
    lowest rank, highest rank, then the jokers in the holes, and (unless ``canonical``) one
    or two more standing in for held cards."""
    first_col, last_col = (1, 13) if rw & NO_EDGE_JOKERS else (0, 14)
    least = sequence_min_of(rw)
    jokers = popcount(hand & JOKER_BITS)
    real = hand & REAL_CARDS
    req = suits_of(field_info) if (lock and field_info != 0) else -1
    f_low = low_of(field_info)
    f_high = high_of(field_info)
    for k in range(STAIRS_SUITS.shape[0]):
        mask = STAIRS_SUITS[k]
        w = popcount(mask)
        if (width != 0 and w != width) or (req >= 0 and mask != req):
            continue
        rows = SUIT_SET_ROWS[mask]
        for low in range(first_col, last_col):
            missing = 0
            for high in range(low, last_col + 1):
                missing += w - popcount(nibble(real, high) & mask)
                n_steps = high - low + 1
                if missing > jokers or (steps != 0 and n_steps > steps):
                    break
                # at least 2 x 2 cells and at most two jokers: a real card is always in it
                if n_steps < least or (steps != 0 and n_steps != steps):
                    continue
                if field_info != 0 and not _run_beats(low, high, f_low, f_high, rev, rw, lock):
                    continue
                cells = rows & columns(low, high)
                held = real & cells
                holes = cells & ~held
                n = _emit_stairs(held, holes, n_steps, low, high, mask, oc, oi, n)
                spare = jokers - missing
                if canonical or spare == 0:
                    continue
                first = held
                while first:  # one joker in place of a held card
                    one = first & -first
                    first ^= one
                    n = _emit_stairs(held ^ one, holes | one, n_steps, low, high, mask, oc,
                                     oi, n)
                if spare < 2:
                    continue
                first = held
                while first:  # two of them
                    one = first & -first
                    first ^= one
                    rest = first
                    while rest:
                        two = one | (rest & -rest)
                        rest &= rest - 1
                        n = _emit_stairs(held ^ two, holes | two, n_steps, low, high, mask,
                                         oc, oi, n)
    return n


@njit(cache=True)
def _answers_to_anything(hand: int, rank: int, size: int, canonical: bool, oc: np.ndarray,
                         oi: np.ndarray, n: int, rw: int) -> int:
    """Add the groups of ``size`` cards of rank column ``rank`` that answer any field (the
    sandstorm: three 3s; the ambulance: two 9s; jokers standing in with joker effects) to
    the ``n`` plays listed; a group the field's own rules allowed is not listed twice."""
    held = hand & (int64(15) << int64(4 * rank))
    if held == 0:
        return n
    jokers = int64(0) if rw & NO_JOKER_EFFECTS else hand & JOKER_BITS
    start = n
    end = _groups(held | jokers, size, 0, 0, 0, canonical, oc, oi, n, rw)
    k = start
    for i in range(start, end):
        listed = False
        for j in range(start):
            if oc[j] == oc[i] and oi[j] == oi[i]:
                listed = True
                break
        if not listed:
            oc[k] = oc[i]
            oi[k] = oi[i]
            k += 1
    return k


@njit(cache=True)
def generate(hand: int, field_info: int, rev: int, lock: int, canonical: bool,
             oc: np.ndarray, oi: np.ndarray, rw: int) -> int:
    """Write the legal plays (not the pass) into ``oc``/``oi``; return how many.  ``rev``:
    the order answers follow (revolution and 11-back), ``lock``: the state's LOCK value
    (suits locked, and with plays.GEKI the ranks too), ``rw``: the rules word."""
    kind = kind_of(field_info)
    n = 0
    if field_info == 0:
        n = _singles(hand, 0, rev, 0, oc, oi, n)
        if hand & JOKER_BIT and n < oc.shape[0]:
            oc[n] = JOKER_BIT
            oi[n] = LONE_JOKER_INFO
            n += 1
        n = _groups(hand, 0, 0, rev, 0, canonical, oc, oi, n, rw)
        n = _joker_pair(hand, rw, oc, oi, n)
        if not rw & NO_SEQUENCES:
            n = _sequences(hand, 0, 0, rev, 0, canonical, oc, oi, n, rw)
            if rw & DOUBLE_STAIRS:  # (double stairs are runs: off with them)
                n = _stairs(hand, 0, 0, 0, rev, 0, canonical, oc, oi, n, rw)
    elif kind == K_JOKER:
        if hand & S3_BIT and not rw & NO_SPADE3_RETURN:
            oc[0] = S3_BIT
            oi[0] = pack(K_SINGLE, 1, 1, 1, 1, NO_JOKER_ROW, 0)
            n = 1
        if hand & JOKER_BIT and rw & JOKER_BEATS_JOKER:  # the other joker answers
            oc[n] = JOKER_BIT
            oi[n] = LONE_JOKER_INFO
            n += 1
    elif kind == K_SINGLE:
        n = _singles(hand, field_info, rev, lock, oc, oi, n)
        if hand & JOKER_BIT and n < oc.shape[0]:
            oc[n] = JOKER_BIT
            oi[n] = LONE_JOKER_INFO
            n += 1
    elif kind == K_GROUP:
        n = _groups(hand, size_of(field_info), field_info, rev, lock, canonical, oc, oi, n,
                    rw)
        if size_of(field_info) == 2:  # the joker pair beats any pair, lock or not
            n = _joker_pair(hand, rw, oc, oi, n)
    elif kind == K_SEQUENCE:
        n = _sequences(hand, size_of(field_info), field_info, rev, lock, canonical, oc, oi, n,
                       rw)
    elif kind == K_STAIRS:
        n = _stairs(hand, size_of(field_info), popcount(suits_of(field_info)), field_info, rev,
                    lock, canonical, oc, oi, n, rw)
    if field_info != 0 and rw & SANDSTORM:
        n = _answers_to_anything(hand, 1, 3, canonical, oc, oi, n, rw)
    if field_info != 0 and rw & AMBULANCE:
        n = _answers_to_anything(hand, NINE, 2, canonical, oc, oi, n, rw)
    if rw & (FORBIDDEN_REJECT | LEAD_HOLDS_CLUB3):
        n = keep_plays(hand, field_info, rev, rw, field_info == 0 and rw & LEAD_HOLDS_CLUB3 != 0,
                       rw & FORBIDDEN_REJECT != 0, oc, oi, n)
    return n


@njit(cache=True)
def _joker_pair(hand: int, rw: int, oc: np.ndarray, oi: np.ndarray, n: int) -> int:
    if rw & JOKER_PAIR and (hand & JOKER_BITS) == JOKER_BITS and n < oc.shape[0]:
        oc[n] = JOKER_BITS
        oi[n] = JOKER_PAIR_INFO
        n += 1
    return n


@njit(cache=True)
def keep_plays(hand: int, field_info: int, rev: int, rw: int, club3: bool, finishes: bool,
               oc: np.ndarray, oi: np.ndarray, n: int) -> int:
    """Drop from the ``n`` listed plays those the rules word forbids beyond their shape:
    with ``club3`` a lead without the ♣3 (LEAD_HOLDS_CLUB3), with ``finishes`` a forbidden
    finish (illegal under FORBIDDEN_REJECT; under FORBIDDEN_LAST legal but a sure lowest
    place, which the playout policy and the solver leave out).  Return how many are left."""
    k = 0
    for i in range(n):
        c = oc[i]
        if club3 and not c & C3_BIT:
            continue
        if finishes and c == hand and is_forbidden_finish(c, oi[i], field_info, rev, rw):
            continue
        oc[k] = c
        oi[k] = oi[i]
        k += 1
    return k
