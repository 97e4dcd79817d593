"""Typed moves: pass, single, group, sequence, lone joker; jokers placed in table cells.

A move holds the real cards it plays and, for every joker, the table cell ``(row, column)``
the joker stands in.  The kind codes equal the reference server's move types.

>>> m = Move.parse("S9 ST JK@SJ")
>>> m.kind.name, m.low, m.high, m.size, m.suits
('SEQUENCE', 7, 9, 3, 1)
>>> str(m)
'S9 ST JK@SJ'
>>> Move.parse("H5 D5 JK@C5").suits, Move.parse("pass").kind.name
(14, 'PASS')

A move table's cells are read as a move shape as the reference server reads them
(:func:`move_from_cells`; :func:`move_to_cells` writes them back):

>>> move_from_cells({(0, 7): 1, (0, 8): 1, (0, 9): 2}).kind.name
'SEQUENCE'
>>> move_from_cells({(0, 3): 1, (1, 3): 1, (2, 3): 1, (3, 3): 1, (4, 3): 2}).size
5
>>> move_from_cells({(0, 3): 1, (1, 4): 1})
Traceback (most recent call last):
...
daihinmin.values.errors.InvalidShapeError: cards are neither one rank nor a run of one suit
"""

from __future__ import annotations

from enum import IntEnum

from .cards import (
    EMPTY,
    JOKER_BITS,
    MAX_RANK,
    MIN_RANK,
    RANK_CHARS,
    SUITS,
    CardParseError,
    CardSet,
    card,
    card_name,
    rank_of,
    suit_of,
)
from .errors import BadCellError, BadCellValueError, InvalidShapeError, TooManyJokersError

Cell = tuple[int, int]  # (row, column) of the 8x15 table


class MoveKind(IntEnum):
    PASS = 0
    SINGLE = 1
    GROUP = 2
    SEQUENCE = 3
    JOKER = 4  # the joker played alone
    STAIRS = 5  # double stairs: 2-4 suits in step over 3+ ranks (not a reference-server type)


# The kinds as plain module names, for the code that reads them on every move (these
# methods, the judge, the server's tables): in Python 3.11 ``MoveKind.PASS`` goes through
# the enum metaclass's ``__getattr__`` hook, about ten times the cost of a global name.
PASS_KIND = MoveKind.PASS
SINGLE_KIND = MoveKind.SINGLE
GROUP_KIND = MoveKind.GROUP
SEQUENCE_KIND = MoveKind.SEQUENCE
JOKER_KIND = MoveKind.JOKER
STAIRS_KIND = MoveKind.STAIRS


def cell_name(cell: Cell) -> str:
    """A joker cell as ``SJ`` style (row 4 is ``X``, columns 0/14 are ``x``/``y``)."""
    row, col = cell
    suit = SUITS[row] if row < 4 else "X"
    rank = {0: "x", 14: "y"}.get(col, RANK_CHARS[col])
    return suit + rank


def parse_cell(text: str) -> Cell:
    text = text.strip().upper()
    if len(text) != 2:
        raise CardParseError(f"bad joker cell {text!r}")
    row = 4 if text[0] == "X" else SUITS.index(text[0]) if text[0] in SUITS else -1
    col = {"X": 0, "Y": 14}.get(text[1], -1)
    if col < 0 and text[1] in RANK_CHARS[1:14]:
        col = RANK_CHARS.index(text[1], 1)
    if row < 0 or col < 0:
        raise CardParseError(f"bad joker cell {text!r}")
    return (row, col)


class Move:
    """One play: the real cards it plays and the table cell of each joker in it.

    Moves are values: equal when kind, cards and joker cells are equal, hashable, immutable.
    Build them with :meth:`parse` (the inverse of ``str``; ``repr`` is the ``parse`` call
    that gives the move back) or the constructors :meth:`single`, :meth:`group`,
    :meth:`sequence`, :meth:`stairs`, and the constants ``PASS``, ``LONE_JOKER`` and
    ``JOKER_PAIR``.  ``Move(...)`` itself is refused: the constructors compute the derived
    fields ``size``, ``low``, ``high`` and ``suits`` from the cards, so a move can never hold
    fields that disagree with its cards.

    >>> Move.parse("S9 ST JK@SJ")
    Move.parse('S9 ST JK@SJ')
    >>> Move.single(card("H5")) == Move.parse("H5"), Move.single(card("H5")).size
    (True, 1)
    """

    __slots__ = ("cards", "high", "joker_cells", "kind", "low", "size", "suits")
    kind: MoveKind
    cards: CardSet
    joker_cells: tuple[Cell, ...]
    size: int  # cards including jokers
    low: int  # lowest and highest table column the play covers (14 for jokers alone)
    high: int
    suits: int  # bit per table row the play uses (jokers count as the row they stand in)

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError("build a Move with Move.parse(text) or Move.single/group/sequence/"
                        "stairs (or use PASS, LONE_JOKER, JOKER_PAIR)")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_new, (self.kind, self.cards, self.joker_cells, self.size, self.low,
                       self.high, self.suits))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (self.kind is other.kind and self.cards == other.cards
                and self.joker_cells == other.joker_cells)

    def __hash__(self) -> int:
        return hash((self.kind, self.cards, self.joker_cells))

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    # --- constructors -------------------------------------------------------------------
    @staticmethod
    def pass_() -> Move:
        return PASS

    @staticmethod
    def joker() -> Move:
        return LONE_JOKER

    @staticmethod
    def single(c: int) -> Move:
        r, s = rank_of(c), suit_of(c)
        if not MIN_RANK <= r <= MAX_RANK:
            raise CardParseError(f"a single is one real card, not {c}")
        return _new(SINGLE_KIND, CardSet(1 << c), (), 1, r, r, 1 << s)

    @staticmethod
    def group(rank: int, suit_mask: int, joker_rows: tuple[int, ...] = ()) -> Move:
        """Cards of ``suit_mask`` at ``rank`` plus jokers standing in ``joker_rows``."""
        if not (MIN_RANK <= rank <= MAX_RANK and 0 <= suit_mask < 16):
            raise CardParseError(f"no group of suits {suit_mask:#x} at rank column {rank}")
        mask = 0
        for s in range(4):
            if suit_mask >> s & 1:
                mask |= 1 << (4 * rank + s)
        suits = suit_mask
        for row in joker_rows:
            if not 0 <= row <= 4 or suits >> row & 1:
                raise CardParseError(f"a joker cannot stand in row {row} of this group")
            suits |= 1 << row
        size = suit_mask.bit_count() + len(joker_rows)
        cells = tuple(sorted((row, rank) for row in joker_rows))
        return _new(GROUP_KIND, CardSet(mask), cells, size, rank, rank, suits)

    @staticmethod
    def sequence(suit: int, low: int, length: int, joker_cols: tuple[int, ...] = ()) -> Move:
        """A run of ``length`` cells of one suit from column ``low``; jokers at ``joker_cols``."""
        high = low + length - 1
        if not (0 <= suit <= 3 and 0 <= low <= high <= 14
                and all(low <= col <= high for col in joker_cols)):
            raise CardParseError(f"no run of {length} from column {low} in row {suit}")
        mask = 0
        for col in range(low, low + length):
            if col not in joker_cols:
                mask |= 1 << (4 * col + suit)
        cells = tuple(sorted((suit, col) for col in set(joker_cols)))
        return _new(SEQUENCE_KIND, CardSet(mask), cells, length, low, high, 1 << suit)

    @staticmethod
    def stairs(suit_mask: int, low: int, steps: int, joker_cells: tuple[Cell, ...] = ()) -> Move:
        """Runs of every suit in ``suit_mask`` side by side over ``steps`` columns from ``low``
        (e.g. ♠3♥3 ♠4♥4 ♠5♥5); jokers stand in ``joker_cells``."""
        high = low + steps - 1
        if not (0 < suit_mask < 16 and 0 <= low <= high <= 14 and all(
                suit_mask >> row & 1 and low <= col <= high for row, col in joker_cells)):
            raise CardParseError(f"no stairs of suits {suit_mask:#x} over columns {low}..{high}")
        mask = 0
        free = set(joker_cells)
        for col in range(low, low + steps):
            for s in range(4):
                if suit_mask >> s & 1 and (s, col) not in free:
                    mask |= 1 << (4 * col + s)
        cells = tuple(sorted(free, key=lambda rc: (rc[1], rc[0])))
        return _new(STAIRS_KIND, CardSet(mask), cells, suit_mask.bit_count() * steps, low,
                    high, suit_mask)

    @staticmethod
    def parse(text: str) -> Move:
        """Parse ``pass``, ``JK``, ``JK JK`` (the joker pair), or card names with jokers as
        ``JK@<cell>`` (e.g. ``JK@S2``); double stairs are read too."""
        tokens = text.replace(",", " ").split()
        if not tokens or [t.lower() for t in tokens] == ["pass"]:
            return PASS
        if [t.upper() for t in tokens] in (["JK", "JK"], ["JOKER", "JOKER"]):
            return JOKER_PAIR
        cells: dict[Cell, int] = {}
        for token in tokens:
            if token.upper().startswith("JK@"):
                cells[parse_cell(token[3:])] = 2
            elif token.upper() in ("JK", "JOKER") and len(tokens) == 1:
                return LONE_JOKER
            else:
                c = card(token)
                if c >= 60:
                    raise CardParseError("a joker in a combination needs a cell: JK@<cell>")
                cells[(suit_of(c), rank_of(c))] = 1
        return move_from_cells(cells, extended=True)

    # --- queries ------------------------------------------------------------------------
    @property
    def is_pass(self) -> bool:
        return self.kind is PASS_KIND

    @property
    def jokers(self) -> int:
        return 1 if self.kind is JOKER_KIND else len(self.joker_cells)

    @property
    def steps(self) -> int:
        """Ranks a sequence or double stairs spans (1 for other plays)."""
        if self.kind is SEQUENCE_KIND:
            return self.size
        if self.kind is STAIRS_KIND:
            return self.high - self.low + 1
        return 1

    @property
    def is_joker_pair(self) -> bool:
        """Two jokers played as a pair (no real card)."""
        return self.kind is GROUP_KIND and not self.cards

    def ranks(self) -> range:
        return range(self.low, self.high + 1)

    def holds_rank(self, rank: int) -> bool:
        """True when the move plays ``rank`` with a real card or a joker standing for it."""
        if self.kind in (PASS_KIND, JOKER_KIND):
            return False
        return self.low <= rank <= self.high

    def holds_real_rank(self, rank: int) -> bool:
        return bool(self.cards.suits_of_rank(rank))

    def hand_cards(self) -> CardSet:
        """The cards that leave the hand (jokers as the joker bits)."""
        n = self.jokers
        jokers = 0 if n == 0 else (1 << 60) if n == 1 else JOKER_BITS
        return CardSet(self.cards.mask | jokers)

    def __str__(self) -> str:
        if self.kind is PASS_KIND:
            return "pass"
        if self.kind is JOKER_KIND:
            return "JK"
        if self.is_joker_pair:
            return "JK JK"
        parts = [(rank_of(c), suit_of(c), card_name(c)) for c in self.cards]
        parts += [(col, row, "JK@" + cell_name((row, col))) for row, col in self.joker_cells]
        return " ".join(name for _, _, name in sorted(parts))


def _new(kind: MoveKind, cards: CardSet, joker_cells: tuple[Cell, ...], size: int, low: int,
         high: int, suits: int) -> Move:
    """A move from fields its constructor has computed (the one way a Move is made)."""
    move = _object_new(Move)
    _set_kind(move, kind)
    _set_cards(move, cards)
    _set_joker_cells(move, joker_cells)
    _set_size(move, size)
    _set_low(move, low)
    _set_high(move, high)
    _set_suits(move, suits)
    return move


# The slots' own setters: a Move is written once, here, past its __setattr__.
_object_new = object.__new__
_set_kind, _set_cards, _set_joker_cells, _set_size, _set_low, _set_high, _set_suits = (
    vars(Move)[name].__set__
    for name in ("kind", "cards", "joker_cells", "size", "low", "high", "suits"))


PASS = _new(MoveKind.PASS, EMPTY, (), 0, 0, 0, 0)
LONE_JOKER = _new(MoveKind.JOKER, EMPTY, (), 1, 14, 14, 0)
# Both jokers as a pair (the ``app`` rules' strongest pair); written above the 2s.
JOKER_PAIR = _new(MoveKind.GROUP, EMPTY, ((0, 14), (1, 14)), 2, 14, 14, 0b11)


# --- the shapes of a move table's cells -----------------------------------------------

def check_cells(cells: dict[Cell, int], max_jokers: int = 2) -> None:
    """Reject values other than 1/2, 1s outside the card area, and too many 2s."""
    jokers = 0
    for (row, col), value in cells.items():
        if value not in (1, 2):
            raise BadCellValueError(f"cell [{row}][{col}] holds {value}; only 0, 1, 2 are allowed",
                                    (row, col))
        if not (0 <= row <= 4 and 0 <= col <= 14):
            raise BadCellError(f"cell [{row}][{col}] is outside the card rows", (row, col))
        if value == 1 and (row == 4 or col in (0, 14)):
            raise BadCellError(f"a card (1) at [{row}][{col}]: only a joker may stand there",
                               (row, col))
        if value == 2:
            jokers += 1
    if jokers > max_jokers:
        raise TooManyJokersError(f"{jokers} jokers (2s) in one move; at most {max_jokers}")


def move_from_cells(cells: dict[Cell, int], max_jokers: int = 2, extended: bool = False) -> Move:
    """Turn non-zero cells (value 1 = card, 2 = joker standing there) into a typed move.

    ``extended`` also reads the shapes only other rule sets have: two 2s and nothing else
    (the joker pair) and double stairs (a full block of 2-4 suit rows by 3+ columns).
    """
    cells = {k: v for k, v in cells.items() if v}
    check_cells(cells, max_jokers)
    if not cells:
        return PASS
    if extended and len(cells) == 2 and set(cells.values()) == {2}:
        return JOKER_PAIR
    if len(cells) == 1:
        ((row, col), value), = cells.items()
        if value == 2:
            if row == 4:  # the reference server's suit mask 16 is no shape: answered 8
                raise InvalidShapeError("row 4 holds only the joker of a five-card group",
                                        (row, col))
            return LONE_JOKER
        return Move.single(4 * col + row)
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    if len(rows) == 1:
        (row,) = rows
        low, high = min(cols), max(cols)
        if high - low + 1 != len(cells):
            raise InvalidShapeError("a run of one suit must be consecutive", (row, low))
        if len(cells) < 3:
            raise InvalidShapeError("a sequence needs at least 3 cards", (row, low))
        if row == 4:
            raise InvalidShapeError("row 4 holds only the joker of a five-card group", (row, low))
        jokers = tuple(c for (_, c), v in cells.items() if v == 2)
        return Move.sequence(row, low, len(cells), jokers)
    if len(cols) == 1:
        (col,) = cols
        if col in (0, 14):
            raise InvalidShapeError("a group cannot stand in a joker-only column", (0, col))
        suit_mask = sum(1 << r for (r, _), v in cells.items() if v == 1)
        joker_rows = tuple(r for (r, _), v in cells.items() if v == 2)
        all_rows = suit_mask | sum(1 << r for r in joker_rows)
        if all_rows & 16 and all_rows != 31:
            raise InvalidShapeError("row 4 may be used only by a five-card group", (4, col))
        move = Move.group(col, suit_mask, joker_rows)
        if move.size == len(joker_rows):
            raise InvalidShapeError("a group needs at least one real card", (0, col))
        return move
    if extended:
        return _stairs(cells, rows, cols)
    raise InvalidShapeError("cards are neither one rank nor a run of one suit")


def _stairs(cells: dict[Cell, int], rows: set[int], cols: set[int]) -> Move:
    low, high = min(cols), max(cols)
    if (4 in rows or high - low + 1 != len(cols) or len(cols) < 3
            or len(cells) != len(rows) * len(cols)):
        raise InvalidShapeError("cards are neither one rank, a run of one suit, nor stairs")
    jokers = tuple(cell for cell, v in cells.items() if v == 2)
    if len(jokers) == len(cells):
        raise InvalidShapeError("stairs need at least one real card", (min(rows), low))
    return Move.stairs(sum(1 << r for r in rows), low, len(cols), jokers)




def move_to_cells(move: Move) -> dict[Cell, int]:
    """The table cells of a move; a lone joker is written in the slot above the 2."""
    cells: dict[Cell, int] = {}
    if move.kind is JOKER_KIND:
        return {(0, 14): 2}
    mask = move.cards.mask  # the cards' bits in order, as iterating the set gives them
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        cells[(c & 3, c >> 2)] = 1
        mask ^= low
    for cell in move.joker_cells:
        cells[cell] = 2
    return cells
