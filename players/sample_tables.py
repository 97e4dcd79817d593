"""The official UECda sample client's choice of cards, table by table.

The UECda devkit's standard client (the "default" client every competition ships) picks its
cards by building helper tables over the 8 x 15 card grid and scanning them.  This module
reproduces that behaviour exactly, including its quirks, because bots are benchmarked
against *that* client (``devkit=True``, the devkit package ``tndhm_devkit_c-20180826``) and
the transcript was recorded with its 2013 build (``devkit=False``):

- it leads the longest sequence, else the biggest group, else its lowest single; holding the
  joker, every rank counts one card more and every suit gap of one card can be bridged, so a
  pair is led as a triple with the joker and a lone card as a pair;
- it follows a single only with a card that is in no pair and no run of three of its suit
  (else with the joker alone), and a group or sequence only with one of exactly the field's
  size (adding the joker only when there is none);
- under a revolution it scans from the top; it leads its strongest sequence there, where the
  2013 build scans the runs with its group routine and writes a malformed group (the server
  rejects it, which counts as a pass);
- it gives its lowest cards in the exchange (what every bot does by default:
  :func:`daihinmin.players.util.weakest_cards`).

The grid is flat (row-major, 15 columns), and reads and writes past the end of a row go on
into the next row, as they do in the C original's arrays.  The joker-run counter starts at 1
in every suit in the devkit build; the 2013 build never resets it, so it carries from one suit
into the next (its undefined value before the first suit is taken as 1 here).

Only the choices that depend on those quirks (leads holding the joker, sequences on the
field) build the tables; the others read the same cells off the hand's bit mask
(:class:`HandGrid`), a few int operations instead of a scan of the grid per table.

>>> from daihinmin.values.cards import CardSet
>>> lead_cells(hand_grid(CardSet.parse("S3 S4 S5 H9 D9 CK")), reversed_order=False)
{(0, 1): 1, (0, 2): 1, (0, 3): 1}
>>> lead_cells(hand_grid(CardSet.parse("H9 D9 CK JK")), reversed_order=False)
{(0, 7): 2, (1, 7): 1, (2, 7): 1}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from daihinmin.values.cards import DECK52, JOKER_BITS, CardSet

ROWS, COLS = 8, 15
SIZE = ROWS * COLS
SLACK = 2 * COLS  # room for the original's writes past the last row (never read back as cards)
CELLS = SIZE + SLACK  # every grid's length
JOKER_ROW, JOKER_COL = 4, 1  # where a hand table marks the joker
FIRST_JOKER_RUN = 1  # see the module docstring


class Grid:
    """An 8 x 15 table of ints, flat so that a column past 14 is the next row's column 0."""

    __slots__ = ("cells",)

    def __init__(self) -> None:
        self.cells = [0] * CELLS

    def get(self, row: int, col: int) -> int:
        i = row * COLS + col
        return self.cells[i] if 0 <= i < CELLS else 0

    def put(self, row: int, col: int, value: int) -> None:
        i = row * COLS + col
        if 0 <= i < CELLS:
            self.cells[i] = value

    def copy(self) -> Grid:
        g = Grid()
        g.cells = self.cells.copy()
        return g

    def card_cells(self) -> dict[tuple[int, int], int]:
        """The non-zero cells of rows 0..4 (what the server reads from a move table)."""
        return {(i // COLS, i % COLS): v for i, v in enumerate(self.cells[:5 * COLS]) if v}


class HandGrid(Grid):
    """A hand table (:func:`hand_grid`), which also keeps the hand's real cards as a mask
    (bit ``4 * column + row``, as in :class:`CardSet`) and whether it holds the joker: the
    choices that need no quirk of the tables are read from the mask, and the cells are
    written only when a table is built from them (the first read of ``cells``)."""

    __slots__ = ("joker", "mask")

    def __init__(self, mask: int, joker: bool) -> None:  # no cells yet: see __getattr__
        self.mask, self.joker = mask, joker

    def __getattr__(self, name: str) -> list[int]:
        # Called only for an attribute not set: the ``cells`` slot before its first read.
        if name != "cells":
            raise AttributeError(name)
        cells = [0] * CELLS
        mask = self.mask
        while mask:
            low = mask & -mask
            c = low.bit_length() - 1
            cells[(c & 3) * COLS + (c >> 2)] = 1
            mask ^= low
        if self.joker:
            cells[JOKER_ROW * COLS + JOKER_COL] = 2
        self.cells = cells
        return cells

    def get(self, row: int, col: int) -> int:
        """:meth:`Grid.get` from the mask (a hand table holds 1s in rows 0..3, columns
        1..13, and the joker's 2 at [4][1])."""
        i = row * COLS + col
        row, col = divmod(i, COLS)
        if 0 <= row < 4:
            return 1 if 1 <= col <= 13 and self.mask >> 4 * col + row & 1 else 0
        return 2 if row == JOKER_ROW and col == JOKER_COL and self.joker else 0


def hand_grid(hand: CardSet) -> HandGrid:
    """A hand as the server sends it: 1 per card, 2 at [4][1] for the joker."""
    return HandGrid(hand.mask & DECK52, bool(hand.mask & JOKER_BITS))


class FieldFacts(NamedTuple):
    """What the client remembers of the cards on the field: count, order key, shape, suits
    (a named tuple: the bot reads one at every answer, and a frozen dataclass takes a few
    microseconds to build)."""

    qty: int
    ord: int
    sequence: bool
    suits: tuple[int, int, int, int, int]


def _suit_flags(suits: list[int]) -> tuple[int, int, int, int, int]:
    s0, s1, s2, s3, s4 = suits
    return s0, s1, s2, s3, s4


def field_facts(cells: dict[tuple[int, int], int], reversed_order: bool) -> FieldFacts:
    """Read the field's cards as the client does: the first card cell by column then row
    decides the shape; ``reversed_order`` is the revolution the client believed in when it
    read the table (the order key of a sequence is its top, or its bottom when reversed)."""
    # the first card cell by column, then row (rows 0..3); a loop: min() over a generator
    # costs three times as much for the one or few cells of a field
    first = None
    for (r, c), v in cells.items():
        if v and 0 <= r < 4 and 0 <= c < COLS and (first is None or (c, r) < first):
            first = (c, r)
    if first is None:
        return FieldFacts(0, 0, False, (0, 0, 0, 0, 0))
    col, row = first
    suits = [0] * 5
    if col + 1 < COLS and cells.get((row, col + 1), 0) > 0:
        length = 0
        while col + length < COLS and cells.get((row, col + length), 0) > 0:
            length += 1
        suits[row] = 1
        order = col if reversed_order else col + length - 1
        return FieldFacts(length, order, True, _suit_flags(suits))
    qty = 0
    for r in range(row, 5):
        if cells.get((r, col), 0) > 0:
            qty += 1
            suits[r] = 1
    lone_joker = qty == 1 and cells[row, col] == 2  # above everything
    order = (0 if reversed_order else 14) if lone_joker else col
    return FieldFacts(qty, order, False, _suit_flags(suits))


# --- helper tables -----------------------------------------------------------------------
def runs(cards: Grid) -> Grid:
    """At each card: the length of its suit's run going up from there, when 3 or more."""
    out = Grid()
    src, dst = cards.cells, out.cells  # rows 0..3 are always inside the grid
    for r in range(4):
        length = 0
        base = r * COLS
        for c in range(13, 0, -1):
            length = length + 1 if src[base + c] == 1 else 0
            dst[base + c] = length if length > 2 else 0
    return out


def joker_runs(cards: Grid, per_suit: bool = True) -> Grid:
    """:func:`runs` where one missing card per run may be the joker (for a hand that holds
    it).  The counter starts afresh in each suit (``per_suit``, the devkit build) or carries
    over from the suit before (the 2013 build)."""
    out = Grid()
    src, dst = cards.cells, out.cells
    length = FIRST_JOKER_RUN
    for r in range(4):
        if per_suit:
            length = FIRST_JOKER_RUN
        plain = 0
        base = r * COLS
        for c in range(13, -1, -1):
            if src[base + c] == 1:
                length += 1
                plain += 1
            else:
                length = plain + 1
                plain = 0
            dst[base + c] = length if length > 2 else 0
    return out


def _groups(cards: Grid, cols: int, jokers: int) -> Grid:
    out = Grid()
    src, dst = cards.cells, out.cells
    for c in range(cols):
        column = (src[c], src[COLS + c], src[2 * COLS + c], src[3 * COLS + c])
        n = column[0] + column[1] + column[2] + column[3] + jokers
        if n > 1:
            for r in range(4):
                if column[r] == 1:
                    dst[r * COLS + c] = n
    return out


def joker_groups(cards: Grid) -> Grid:
    """At each card: how many of its rank are held counting the joker as one more, when two
    or more (for a hand that holds the joker)."""
    return _groups(cards, 14, 1)


def only(table: Grid, value: int) -> tuple[Grid, bool]:
    """The cells of rows 0..3 equal to ``value`` (the rest 0), and whether there are any."""
    out = Grid()
    src, dst = table.cells, out.cells
    found = False
    for i in range(4 * COLS):
        if src[i] == value:
            dst[i] = value
            found = True
    return out, found


def above(cards: Grid, order: int) -> Grid:
    """The cards of columns above ``order`` (rows 0..3 filtered, the rest copied)."""
    out = cards.copy()
    cells, n = out.cells, len(out.cells)
    for c in range(order + 1):
        for r in range(4):
            i = r * COLS + c  # Grid.put inlined, bounds check and all
            if 0 <= i < n:
                cells[i] = 0
    return out


def below(cards: Grid, order: int) -> Grid:
    """The cards of columns below ``order``."""
    out = cards.copy()
    cells, n = out.cells, len(out.cells)
    for c in range(order, COLS):
        for r in range(4):
            i = r * COLS + c  # Grid.put inlined, bounds check and all
            if 0 <= i < n:
                cells[i] = 0
    return out


def locked(cards: Grid, suits: Sequence[int]) -> Grid:
    out = cards.copy()
    src, dst = cards.cells, out.cells
    for r in range(4):
        keep = suits[r]
        for i in range(r * COLS, (r + 1) * COLS):
            dst[i] = src[i] * keep
    return out


# --- picking cards -----------------------------------------------------------------------
def _fill_group(out: Grid, hand: Grid, col: int, have: int, want: int, lock: bool,
                suits: Sequence[int]) -> None:
    # the missing cards are jokers (2), in the first free rows the lock allows
    row = 0
    while have < want and row < ROWS:
        if hand.get(row, col) == 0 and (not lock or (row < 5 and suits[row] == 1)):
            out.put(row, col, 2)
            have += 1
        row += 1


def pick_group(hand: Grid, table: Grid, lowest: bool, lock: bool = False,
               suits: Sequence[int] = (0, 0, 0, 0, 0)) -> Grid:
    """The group of the lowest (or highest) column with a marked cell, jokers added up to
    the marked size."""
    out = Grid()
    cols = range(1, 14) if lowest else range(13, 0, -1)
    have = want = 0
    col = 14 if lowest else 0
    marks, dst = table.cells, out.cells  # rows 0..3, columns 1..13: always inside
    for col in cols:
        for i in range(col, 4 * COLS, COLS):
            if marks[i] > 1:
                dst[i] = 1
                have += 1
                want = marks[i]
        if have:
            break
    else:
        col = 14 if lowest else 0
    _fill_group(out, hand, col, have, want, lock, suits)
    return out


def pick_low_run(hand: Grid, table: Grid) -> Grid:
    """The marked run starting lowest (the longest of that column); gaps are jokers."""
    out = Grid()
    best = line = start = 0
    for col in range(COLS):
        for r in range(4):
            v = table.get(r, col)
            if v != 0 and v > best:
                best, line, start = v, r, col
        if best:
            break
    for c in range(start, start + best):
        out.put(line, c, 1 if hand.get(line, c) == 1 else 2)
    return out


def pick_high_run(hand: Grid, table: Grid) -> Grid:
    """The marked run the reverse scan finds first (the original's walk down a column of
    marks, taking the last mark of a chain)."""
    out = Grid()
    best = line = start = 0
    col = 14
    while col > 0 and best == 0:
        for r in range(4):
            if table.get(r, col) != 0 and hand.get(r, col) != 0:
                k = -1
                while True:
                    v = table.get(r, col - k)
                    if v >= best:
                        best, line, start = v, r, col - k
                    previous = v
                    k += 1
                    if not (col - k >= 0 and previous <= table.get(r, col - k)):
                        break
        if best == 0:
            col -= 1
    for c in range(start, start + best):
        out.put(line, c, 1 if hand.get(line, c) == 1 else 2)
    return out


def pick_single(cards: Grid, joker: bool, lowest: bool) -> Grid:
    """The lowest (highest) card; else, when ``joker``, the joker alone."""
    out = Grid()
    src = cards.cells  # rows 0..3, columns 0..14: always inside
    for c in range(1, 14) if lowest else range(13, 0, -1):
        for i in range(c, 4 * COLS, COLS):
            if src[i] == 1:
                out.cells[i] = 1
                return out
    if joker:
        out.cells[14 if lowest else 0] = 2
    return out


# --- the same scans on the hand's mask (bit 4 * column + row) -----------------------------
# Where a choice needs none of the tables' quirks (joker runs, the reverse run walk), it is
# read from the mask: the same cells, a few int operations instead of a grid scan each.
_LOW_ROWS = sum(1 << 4 * c for c in range(COLS))  # row 0 of every column


def _column_of(bit: int) -> tuple[int, int]:
    """The (row, column) of a single bit."""
    i = bit.bit_length() - 1
    return i & 3, i >> 2


def _top_column(mask: int) -> int:
    return (mask.bit_length() - 1) >> 2


def _loose_mask(mask: int) -> int:
    """The cards in no run of three of their suit and no group of their rank (what the
    client follows a single with)."""
    start = mask & mask >> 4 & mask >> 8  # the first card of three in a row of a suit
    runs = start | start << 4 | start << 8
    r0, r1, r2, r3 = (mask & _LOW_ROWS, mask >> 1 & _LOW_ROWS, mask >> 2 & _LOW_ROWS,
                      mask >> 3 & _LOW_ROWS)
    pairs = r0 & r1 | r2 & r3 | (r0 | r1) & (r2 | r3)  # columns holding two or more
    return mask & ~(runs | pairs * 15)


def _beyond(order: int, reversed_order: bool) -> int:
    """The columns :func:`above` (``below`` when reversed) keeps, as a mask."""
    if reversed_order:
        return (1 << 4 * order) - 1
    return ~((1 << 4 * (order + 1)) - 1)


def _suits_mask(suits: Sequence[int]) -> int:
    """The rows :func:`locked` keeps, in every column."""
    return (suits[0] | suits[1] << 1 | suits[2] << 2 | suits[3] << 3) * _LOW_ROWS


def _single_cells(cards: int, joker: bool, lowest: bool) -> dict[tuple[int, int], int]:
    """:func:`pick_single`'s cells: the scan goes by column, then row 0 up."""
    if cards:
        if lowest:
            return {_column_of(cards & -cards): 1}
        col = _top_column(cards)
        rows = cards >> 4 * col & 15
        return {(_column_of(rows & -rows)[0], col): 1}
    if joker:
        return {(0, 14 if lowest else 0): 2}
    return {}


def _group_column(cards: int, count: int, lowest: bool) -> tuple[int, int] | None:
    """The first column (1..13 up, or down) holding exactly ``count`` of ``cards``, and
    its rows (a bit each)."""
    for col in range(1, 14) if lowest else range(13, 0, -1):
        rows = cards >> 4 * col & 15
        if rows and rows.bit_count() == count:
            return col, rows
    return None


def _group_cells(hand: Grid, col: int, rows: int, want: int, lock: bool,
                 suits: Sequence[int]) -> dict[tuple[int, int], int]:
    """:func:`pick_group`'s cells for the group of ``rows`` at ``col``: the missing cards
    are jokers, in the first free rows the lock allows (rows past 4 count but are no cells)."""
    cells = {(r, col): 1 for r in range(4) if rows >> r & 1}
    have = len(cells)
    row = 0
    while have < want and row < ROWS:
        if hand.get(row, col) == 0 and (not lock or (row < 5 and suits[row] == 1)):
            if row < 5:
                cells[(row, col)] = 2
            have += 1
        row += 1
    return cells


def _plain_lead(hand: HandGrid, reversed_order: bool,
                devkit: bool) -> dict[tuple[int, int], int]:
    """:func:`lead_cells` of a hand without the joker."""
    mask, lowest = hand.mask, not reversed_order
    start = mask & mask >> 4 & mask >> 8
    if start:  # the longest runs: where they start, and their length
        length = 3
        while longer := start & mask >> 4 * length:
            start, length = longer, length + 1
        if lowest:  # pick_low_run: the first start by column, then row
            row, col = _column_of(start & -start)
        else:
            col = _top_column(start)
            rows = start >> 4 * col & 15
            if not devkit:  # the 2013 build's group routine over the run table
                return _group_cells(hand, col, rows, length, False, (0, 0, 0, 0, 0))
            row = rows.bit_length() - 1  # pick_high_run keeps the last row it walks
        return {(row, c): 1 for c in range(col, col + length)}
    r0, r1, r2, r3 = (mask & _LOW_ROWS, mask >> 1 & _LOW_ROWS, mask >> 2 & _LOW_ROWS,
                      mask >> 3 & _LOW_ROWS)
    for count in (4, 3, 2):  # the biggest group
        if count == 4:
            found = r0 & r1 & r2 & r3
        elif count == 3:
            found = r0 & r1 & (r2 | r3) | r2 & r3 & (r0 | r1)
        else:
            found = r0 & r1 | r2 & r3 | (r0 | r1) & (r2 | r3)
        if found:
            at = _group_column(mask, count, lowest)
            assert at is not None  # found says a column holds ``count``
            return _group_cells(hand, at[0], at[1], count, False, (0, 0, 0, 0, 0))
    return _single_cells(mask, False, lowest)


# --- the decisions -------------------------------------------------------------------------
def lead_cells(hand: HandGrid, reversed_order: bool,
               devkit: bool = True) -> dict[tuple[int, int], int]:
    """The cards the client leads with (cells; empty = pass)."""
    joker = hand.joker
    if not joker:
        return _plain_lead(hand, reversed_order, devkit)
    group_table = joker_groups(hand)
    run_table = joker_runs(hand, per_suit=devkit)
    runs_held = set(run_table.cells[:4 * COLS])  # sizes absent here are never found
    for size in range(15, 2, -1):
        if size not in runs_held:
            continue
        marked, found = only(run_table, size)
        if found:
            if not reversed_order:
                pick = pick_low_run(hand, marked)
            elif devkit:
                pick = pick_high_run(hand, marked)
            else:  # the 2013 build scans runs with its group routine
                pick = pick_group(hand, marked, lowest=False)
            return pick.card_cells()
    groups_held = set(group_table.cells[:4 * COLS])
    for size in range(5, 1, -1):
        if size not in groups_held:
            continue
        marked, found = only(group_table, size)
        if found:
            return pick_group(hand, marked, lowest=not reversed_order).card_cells()
    return pick_single(hand, joker, lowest=not reversed_order).card_cells()


def follow_cells(hand: HandGrid, field: FieldFacts, reversed_order: bool, lock: bool,
                 devkit: bool = True) -> dict[tuple[int, int], int]:
    """The cards the client answers ``field`` with (cells; empty = pass)."""
    joker, lowest = hand.joker, not reversed_order
    keep = _beyond(field.ord, reversed_order)
    if lock:
        keep &= _suits_mask(field.suits)
    if field.qty == 1:
        return _single_cells(_loose_mask(hand.mask) & keep, joker, lowest)
    if not field.sequence:
        if field.qty < 2:  # no cards read on the field: nothing is marked
            return {}
        cards = hand.mask & keep
        at = _group_column(cards, field.qty, lowest)
        if at is None and joker:  # one card fewer and the joker
            at = _group_column(cards, field.qty - 1, lowest)
        if at is None:
            return {}
        return _group_cells(hand, at[0], at[1], field.qty, lock, field.suits)
    usable = below(hand, field.ord) if reversed_order else above(hand, field.ord)
    if lock:
        usable = locked(usable, field.suits)
    marked, found = only(runs(usable), field.qty)
    if not found and joker:
        marked, _ = only(joker_runs(usable, per_suit=devkit), field.qty)
    pick = pick_high_run(hand, marked) if reversed_order else pick_low_run(hand, marked)
    return pick.card_cells()
