"""Protocol extension 20260: the 8x15 tables for 3-6 players, follow-up choices and the
state of the other rule sets (``docs/PROTOCOL_EXTENSION.md`` is the specification).

The tables keep the 20070 layout and its byte form (480 bytes, big-endian); the extension
uses the cells 20070 leaves at 0: ``[5][8..14]`` and row 7.

>>> ext = ExtState(players=6, preset=1, digest=7, jokers=2, counts=(9,) * 6,
...                classes=(0, 1, 2, 3, 4, 5), seats=(5, 4, 3, 2, 1, 0), pile=0, passed=0b10)
>>> cells = ext_cells(ext)
>>> cells[(7, 0)], cells[(7, 4)], cells[(7, 6)], cells[(6, 14)], cells[(7, 7)]
(6, 9, 0, 1, 2)
>>> from daihinmin.protocol.table import Table
>>> read_ext(Table.zeros().with_cells(cells)) == ext
True
>>> str(read_choice_answer(build_choice_answer(CardSet.parse("S3 JK")), max_cards=2))
'S3 JK'
"""

from __future__ import annotations

from dataclasses import dataclass

from daihinmin.values.cards import JOKER, JOKER2, CardSet
from daihinmin.values.moves import Cell

from .codec import hand_cells, read_card_cells
from .errors import MoveTableError, TooManyJokersError
from .table import PROTOCOL_20070, PROTOCOL_20260, Table

# Sent instead of a player number to a client whose protocol cannot follow the table's rules
# (then the server closes the connection).  No player number is ever this large.
REFUSED = PROTOCOL_20260
MAX_PLAYERS = 6
NOBODY = 6  # a seat slot, receiver or mover that holds no player (as [5][3] in a deal table)
WIRE_BYTES_VERSION = PROTOCOL_20070  # 20260 tables and ints are encoded as in 20070

# Row 5 cells of the extension.
CHOICE_KIND, CHOICE_COUNT, CHOICE_RECEIVER = (5, 8), (5, 9), (5, 10)
GEKI, PILE, DIRECTION, FLAGS = (5, 11), (5, 12), (5, 13), (5, 14)
# Bits of [5][14].
FLAG_OPENING_C3 = 1  # the next lead must hold the club 3 (``original``'s first lead)
FLAG_AFTER_DRAW = 2  # the mover drew on a pass and may now play, or pass again to decline
FLAG_REVOLUTION_PENDING = 4  # a delayed revolution flips the order when this trick clears
# Row 7 cells.
PLAYERS, PRESET, DIGEST, JOKERS = (7, 0), (7, 1), (7, 2), (7, 3)
SIXTH_COUNT, SIXTH_CLASS, SIXTH_SEAT = (7, 4), (7, 5), (7, 6)  # player 5 / seat 5
PASSED = (7, 7)  # bit p: player p has passed in this trick
PLACES = 8  # [7][8..13]: place + 1 of players 0..5 once known (0 = still playing)

CHOICE_NONE, CHOICE_GIVE, CHOICE_DISCARD = 0, 1, 2


@dataclass(frozen=True, slots=True)
class ExtState:
    """Every value the extension adds to a server table (besides the 20070 cells)."""

    players: int
    preset: int
    digest: int
    jokers: int
    counts: tuple[int, ...]
    classes: tuple[int, ...]
    seats: tuple[int, ...]
    pile: int = 0
    passed: int = 0
    direction: int = 0  # 0 = increasing seat order, 1 = decreasing
    geki: int = 0
    flags: int = 0
    places: tuple[int, ...] = ()  # place + 1 per player, 0 = not known yet; () = none known
    choice_kind: int = CHOICE_NONE
    choice_count: int = 0
    choice_receiver: int = 0

    @property
    def is_choice(self) -> bool:
        return self.choice_kind != CHOICE_NONE


def _slot(values: tuple[int, ...], i: int, empty: int) -> int:
    return values[i] if i < len(values) else empty


def ext_cells(ext: ExtState) -> dict[Cell, int]:
    """The cells of ``[5][8..14]``, row 6 and row 7 for ``ext`` (row 6 fully rewritten, so
    slots of missing players are 0 / 0 / 6 whatever the 20070 builder put there)."""
    cells: dict[Cell, int] = {
        CHOICE_KIND: ext.choice_kind, CHOICE_COUNT: ext.choice_count,
        CHOICE_RECEIVER: ext.choice_receiver, GEKI: ext.geki, PILE: ext.pile,
        DIRECTION: ext.direction, FLAGS: ext.flags,
        PLAYERS: ext.players, PRESET: ext.preset, DIGEST: ext.digest, JOKERS: ext.jokers,
        SIXTH_COUNT: _slot(ext.counts, 5, 0), SIXTH_CLASS: _slot(ext.classes, 5, 0),
        SIXTH_SEAT: _slot(ext.seats, 5, NOBODY), PASSED: ext.passed, (7, 14): 0,
    }
    for i in range(5):
        cells[(6, i)] = _slot(ext.counts, i, 0)
        cells[(6, 5 + i)] = _slot(ext.classes, i, 0)
        cells[(6, 10 + i)] = _slot(ext.seats, i, NOBODY)
    for i in range(MAX_PLAYERS):
        cells[(7, PLACES + i)] = _slot(ext.places, i, 0)
    return cells


def read_ext(t: Table) -> ExtState:
    """The extension values of a server table (no range checks: see the client readers)."""
    n = t[PLAYERS]
    r6, r7 = t.row(6), t.row(7)
    counts = (*r6[0:5], r7[4])[:n]
    classes = (*r6[5:10], r7[5])[:n]
    seats = (*r6[10:15], r7[6])[:n]
    places = tuple(r7[PLACES:PLACES + MAX_PLAYERS])[:n]
    return ExtState(players=n, preset=t[PRESET], digest=t[DIGEST], jokers=t[JOKERS],
                    counts=counts, classes=classes, seats=seats, pile=t[PILE],
                    passed=t[PASSED], direction=t[DIRECTION], geki=t[GEKI], flags=t[FLAGS],
                    places=places if any(places) else (), choice_kind=t[CHOICE_KIND],
                    choice_count=t[CHOICE_COUNT], choice_receiver=t[CHOICE_RECEIVER])


def is_choice_table(t: Table) -> bool:
    """A CHOICE table (sent to the mover after its play) rather than the field table."""
    return t[CHOICE_KIND] != CHOICE_NONE


# --- the answer to a choice ----------------------------------------------------------------
def build_choice_answer(cards: CardSet) -> Table:
    """The client's answer: a 1 on each chosen card, the jokers as 2s in row 4 (as in an
    exchange table); all zeros = no cards."""
    return Table.zeros().with_cells(hand_cells(cards))


def read_choice_answer(t: Table, max_cards: int) -> CardSet:
    """The cards of a choice answer (ownership is the engine's to check).  A 2 anywhere in
    the card rows is one joker; at most ``max_cards`` cards."""
    mask, jokers = read_card_cells(t)
    if jokers > 2:
        raise TooManyJokersError(f"{jokers} jokers (2s) in a choice answer")
    if jokers:
        mask |= 1 << JOKER
    if jokers == 2:
        mask |= 1 << JOKER2
    cards = CardSet(mask)
    if len(cards) > max_cards:
        raise ChoiceCountError(f"{len(cards)} cards chosen; at most {max_cards} are allowed")
    return cards


class ChoiceCountError(MoveTableError):
    """A choice answer holds more cards than the choice allows."""


__all__ = [
    "CHOICE_DISCARD",
    "CHOICE_GIVE",
    "CHOICE_NONE",
    "FLAG_AFTER_DRAW",
    "FLAG_OPENING_C3",
    "FLAG_REVOLUTION_PENDING",
    "MAX_PLAYERS",
    "NOBODY",
    "PROTOCOL_20260",
    "REFUSED",
    "ChoiceCountError",
    "ExtState",
    "build_choice_answer",
    "ext_cells",
    "is_choice_table",
    "read_choice_answer",
    "read_ext",
]
