"""The UECda sample client (``default``, the devkit's build) as a Numba opponent model, on
bitboards.

The same choices as :mod:`daihinmin.players.sample_tables` (the table-by-table original),
computed from card masks so that the sampler can score thousands of worlds per decision.  A
differential test holds the two together.  ``sample_table`` returns the table the client
sends as ``(cards, info)``, or ``(0, 0)`` for a pass or a table no play reads from; whether
the rules allow it is the caller's to judge (``models.sample_choice_read``).
``sample_move`` judges it by the uecda rules: a table the server would reject comes to
``(0, 0)`` too.

One fact the bitboard state does not keep: the client reads the field in the order of the
turn *before* the play on it, so right after a revolution by a sequence it reads that
sequence's top where it should read its bottom.  The caller passes the order it believes the
field was read in (``read_rev``); the model in playouts uses the current order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import JOKER_BIT, REAL_CARDS, int64, nibble, popcount
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

COLS = 15
FIRST_JOKER_RUN = 1  # where the devkit client starts each suit's joker-run count
TABLE = 4 * COLS + 8  # rows 0..3 of a helper table, plus zeros that overflowing reads find


@njit(cache=True)
def _held(cards: int, row: int, col: int) -> bool:
    """Is the real card at (row, col) in ``cards``?  Out-of-row positions wrap (flat)."""
    if col < 0 or col >= COLS:  # (within a row the flat index is the position itself)
        i = row * COLS + col
        row, col = i // COLS, i % COLS
    if row < 0 or row > 3 or col < 1 or col > 13:
        return False
    return (cards >> int64(4 * col + row)) & int64(1) != 0


@njit(cache=True)
def _hand_cell(hand: int, row: int, col: int) -> int:
    """The value of the client's hand table at (row, col): 1 card, 2 the joker mark."""
    i = row * COLS + col
    r, c = i // COLS, i % COLS
    if r == 4 and c == 1:
        return 2 if hand & JOKER_BIT else 0
    return 1 if _held(hand, r, c) else 0


@njit(cache=True)
def _run_table(cards: int, joker: bool, out: np.ndarray) -> int:
    """Fill ``out`` with the run lengths (joker runs when ``joker``); return the largest."""
    out[:] = 0
    best = 0
    if joker:
        for r in range(4):
            count = FIRST_JOKER_RUN
            plain = 0
            for c in range(13, -1, -1):
                if _held(cards, r, c):
                    count += 1
                    plain += 1
                else:
                    count = plain + 1
                    plain = 0
                if count > 2:
                    out[r * COLS + c] = count
                    best = max(best, count)
        return best
    for r in range(4):
        length = 0
        for c in range(13, 0, -1):
            length = length + 1 if _held(cards, r, c) else 0
            if length > 2:
                out[r * COLS + c] = length
                best = max(best, length)
    return best


@njit(cache=True)
def _keep_only(table: np.ndarray, value: int) -> bool:
    found = False
    for i in range(4 * COLS):
        if table[i] == value:
            found = True
        else:
            table[i] = 0
    return found


@njit(cache=True)
def _run_move(hand: int, line: int, start: int, length: int) -> tuple[int, int]:
    """The run the client writes from (line, start): held cells are cards, others jokers;
    ``(0, 0)`` when the table is not a valid sequence."""
    if length < 3 or start + length - 1 > 14:
        return 0, 0  # too short, or it runs into the next row: malformed
    cards = int64(0)
    jokers = 0
    jcol = 0
    for c in range(start, start + length):
        if _held(hand, line, c):
            cards |= int64(1) << int64(4 * c + line)
        else:
            jokers += 1
            jcol = c
    if jokers > 1 or (jokers == 1 and not hand & JOKER_BIT) or cards == 0:
        return 0, 0
    if jokers:
        return cards | JOKER_BIT, pack(K_SEQUENCE, length, start, start + length - 1,
                                       1 << line, line, jcol)
    return cards, pack(K_SEQUENCE, length, start, start + length - 1, 1 << line,
                       NO_JOKER_ROW, 0)


@njit(cache=True)
def _pick_low_run(hand: int, table: np.ndarray) -> tuple[int, int]:
    for col in range(COLS):
        for r in range(4):
            v = table[r * COLS + col]
            if v > 0:
                return _run_move(hand, r, col, v)
    return 0, 0


@njit(cache=True)
def _pick_high_run(hand: int, table: np.ndarray) -> tuple[int, int]:
    best = line = start = 0
    col = 14
    while col > 0 and best == 0:
        for r in range(4):
            if table[r * COLS + col] != 0 and _hand_cell(hand, r, col) != 0:
                k = -1
                while True:
                    v = table[r * COLS + col - k]
                    if v >= best:
                        best, line, start = v, r, col - k
                    previous = v
                    k += 1
                    if not (col - k >= 0 and previous <= table[r * COLS + col - k]):
                        break
        if best == 0:
            col -= 1
    if best == 0:
        return 0, 0
    return _run_move(hand, line, start, best)


@njit(cache=True)
def _group_move(hand: int, col: int, real_rows: int, want: int, lock: int,
                suits: int) -> tuple[int, int]:
    """The group of ``real_rows`` at ``col`` filled with jokers up to ``want`` cells, in the
    first free rows the lock allows; ``(0, 0)`` when the server would reject it."""
    if real_rows & ~nibble(hand, col):
        return 0, 0  # a marked cell the hand does not hold
    have = popcount(real_rows)
    jrow = NO_JOKER_ROW
    jokers = 0
    row = 0
    while have < want and row < 8:
        if _hand_cell(hand, row, col) == 0 and (not lock or (row < 5 and (suits >> row) & 1)):
            have += 1
            if row < 5:  # rows 5..7 are not read as cards
                jokers += 1
                jrow = row
        row += 1
    n_cards = popcount(real_rows) + jokers
    if jokers > 1 or (jokers == 1 and not hand & JOKER_BIT) or n_cards == 0:
        return 0, 0
    if jrow == 4 and real_rows != 15:
        return 0, 0  # row 4 only completes a five-card group
    cards = int64(real_rows) << int64(4 * col)
    if n_cards == 1:
        return cards, pack(K_SINGLE, 1, col, col, real_rows, NO_JOKER_ROW, 0)
    if jokers:
        return cards | JOKER_BIT, pack(K_GROUP, n_cards, col, col, real_rows | (1 << jrow),
                                       jrow, col)
    return cards, pack(K_GROUP, n_cards, col, col, real_rows, NO_JOKER_ROW, 0)


@njit(cache=True)
def _pick_group(hand: int, usable: int, size: int, joker_counts: bool, lowest: bool,
                lock: int, suits: int) -> tuple[int, int]:
    """The group of the lowest (highest) rank holding exactly ``size`` usable cards (one
    fewer plus the joker when ``joker_counts``)."""
    need = size - 1 if joker_counts else size
    if need < 1:
        return 0, 0
    for i in range(1, 14):
        col = i if lowest else 14 - i
        rows = nibble(usable, col)
        if rows != 0 and popcount(rows) == need:
            return _group_move(hand, col, rows, size, lock, suits)
    return 0, 0


@njit(cache=True)
def _largest_group(cards: int) -> int:
    best = 0
    for col in range(1, 14):
        best = max(best, popcount(nibble(cards, col)))
    return best


@njit(cache=True)
def _single(cards: int, joker: bool, lowest: bool) -> tuple[int, int]:
    for i in range(1, 14):
        col = i if lowest else 14 - i
        rows = nibble(cards, col)
        if rows:
            row = 0
            while not (rows >> row) & 1:
                row += 1
            return (int64(1) << int64(4 * col + row),
                    pack(K_SINGLE, 1, col, col, 1 << row, NO_JOKER_ROW, 0))
    if joker:
        return JOKER_BIT, LONE_JOKER_INFO
    return 0, 0


@njit(cache=True)
def _loose(hand: int) -> int:
    """The real cards in no run of three of their suit and no group of their rank."""
    real = hand & REAL_CARDS
    runs = real & (real >> int64(4)) & (real >> int64(8))  # where a suit's run of 3 starts
    out = real & ~(runs | (runs << int64(4)) | (runs << int64(8)))
    for col in range(1, 14):
        rows = nibble(hand, col)
        if popcount(rows) >= 2:
            out &= ~(int64(rows) << int64(4 * col))
    return out


@njit(cache=True)
def _filter(cards: int, order: int, rev: int, lock: int, suits: int) -> int:
    """The cards strictly beyond ``order`` in play order, in the locked suits."""
    out = int64(0)
    for col in range(1, 14):
        if (col < order) if rev else (col > order):
            rows = nibble(cards, col)
            if lock:
                rows &= suits & 15
            out |= int64(rows) << int64(4 * col)
    return out


@njit(cache=True)
def _beats(info: int, field: int, rev: int, lock: int) -> bool:
    """Does the play beat the field under the uecda rules (what the rules engine allows
    there: a run above the field's highest rank)?"""
    kind, fkind = kind_of(info), kind_of(field)
    if fkind == K_JOKER:
        return False  # the client never answers a lone joker
    if kind == K_JOKER:
        return fkind == K_SINGLE
    if kind != fkind or size_of(info) != size_of(field):
        return False
    if lock and suits_of(info) != suits_of(field):
        return False
    if kind == K_SEQUENCE:
        return high_of(info) < low_of(field) if rev else low_of(info) > high_of(field)
    return low_of(info) < low_of(field) if rev else low_of(info) > low_of(field)


@njit(cache=True)
def sample_lead(hand: int, rev: int) -> tuple[int, int]:
    joker = (hand & JOKER_BIT) != 0
    table = np.zeros(TABLE, dtype=np.int64)
    longest = _run_table(hand, joker, table)
    if longest >= 3:
        _keep_only(table, longest)
        return _pick_high_run(hand, table) if rev else _pick_low_run(hand, table)
    biggest = _largest_group(hand)
    if joker and biggest >= 1:
        return _pick_group(hand, hand, biggest + 1, True, not rev, 0, 0)
    if biggest >= 2:
        return _pick_group(hand, hand, biggest, False, not rev, 0, 0)
    return _single(hand & REAL_CARDS, joker, not rev)


@njit(cache=True)
def sample_follow(hand: int, field: int, rev: int, read_rev: int,
                  lock: int) -> tuple[int, int]:
    joker = (hand & JOKER_BIT) != 0
    kind = kind_of(field)
    suits = suits_of(field)
    if kind == K_JOKER:
        order = 0 if read_rev else 14
    elif kind == K_SEQUENCE:
        order = low_of(field) if read_rev else high_of(field)
    else:
        order = low_of(field)
    if kind in (K_SINGLE, K_JOKER):
        cards, info = _single(_filter(_loose(hand), order, rev, lock, suits), joker, not rev)
    else:
        usable = _filter(hand, order, rev, lock, suits)
        if kind == K_GROUP:
            size = size_of(field)
            cards, info = _pick_group(hand, usable, size, False, not rev, lock, suits)
            if info == 0 and joker:
                cards, info = _pick_group(hand, usable, size, True, not rev, lock, suits)
        else:
            size = size_of(field)
            table = np.zeros(TABLE, dtype=np.int64)
            _run_table(usable, False, table)
            found = _keep_only(table, size)
            if not found and joker:
                _run_table(usable, True, table)
                _keep_only(table, size)
            cards, info = _pick_high_run(hand, table) if rev else _pick_low_run(hand, table)
    return cards, info


@njit(cache=True)
def sample_table(hand: int, field: int, rev: int, read_rev: int,
                 lock: int) -> tuple[int, int]:
    """The table the sample client sends, as ``(cards, info)``, before the server judges it
    (``(0, 0)``: a pass, or a table no play reads from).  Whether the rules allow it is the
    caller's to check: the client answers a run above the field's highest rank as it reads
    it, the joker standing in for a missing card even at that rank, so under
    ``sequence_order=above_low`` a run overlapping the field's top may be allowed."""
    if field == 0:
        return sample_lead(hand, rev)
    return sample_follow(hand, field, rev, read_rev, lock)


@njit(cache=True)
def sample_move(hand: int, field: int, rev: int, read_rev: int, lock: int) -> tuple[int, int]:
    """The sample client's play under the uecda rules as ``(cards, info)``; ``(0, 0)`` =
    pass (or a table the server rejects)."""
    cards, info = sample_table(hand, field, rev, read_rev, lock)
    if field != 0 and info != 0 and not _beats(info, field, rev, lock):
        return 0, 0
    return cards, info
