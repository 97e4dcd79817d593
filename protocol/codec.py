"""Builders and readers for the protocol's tables: profile, deal, turn, field, move, exchange.

>>> hand = CardSet.parse("S3 D3 JK")
>>> view = TableState(counts=(11, 11, 11, 10, 10), seats=(0, 1, 2, 3, 4))
>>> deal = build_deal(hand, view, give=0)
>>> deal[4, 1], deal[5, 0], deal[5, 3], read_hand(deal) == hand
(2, 1, 6, True)
>>> str(decode_move_table(Table.zeros().with_cells({(0, 1): 1, (2, 1): 1})))
'S3 D3'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from daihinmin.values.cards import JOKER, JOKER2, CardSet
from daihinmin.values.moves import Move, move_from_cells, move_to_cells

from .errors import (
    BadCellError,
    BadCellValueError,
    CardNotHeldError,
    ExchangeCountError,
    JokerNotHeldError,
    TooManyJokersError,
)
from .table import COLS, PROTOCOL_20070, Table

NAME_CELLS = 15
NOBODY = 6  # [5][3] in a deal table


@dataclass(frozen=True, slots=True)
class TableState:
    """Rows 5 and 6 of a server table."""

    exchange_phase: int = 0
    give: int = 0
    my_turn: int = 0
    turn_player: int = 0
    field_empty: int = 0
    eleven_back: int = 0
    revolution: int = 0
    lock: int = 0
    counts: tuple[int, ...] = (0, 0, 0, 0, 0)
    classes: tuple[int, ...] = (0, 0, 0, 0, 0)
    seats: tuple[int, ...] = (0, 1, 2, 3, 4)

    def cells(self) -> dict[tuple[int, int], int]:
        out = {
            (5, 0): self.exchange_phase, (5, 1): self.give, (5, 2): self.my_turn,
            (5, 3): self.turn_player, (5, 4): self.field_empty, (5, 5): self.eleven_back,
            (5, 6): self.revolution, (5, 7): self.lock,
        }
        for i, v in enumerate(self.counts[:5]):
            out[(6, i)] = v
        for i, v in enumerate(self.classes[:5]):
            out[(6, 5 + i)] = v
        for i, v in enumerate(self.seats[:5]):
            out[(6, 10 + i)] = v
        return out


def read_state(t: Table) -> TableState:
    r5, r6 = t.row(5), t.row(6)
    return TableState(r5[0], r5[1], r5[2], r5[3], r5[4], r5[5], r5[6], r5[7],
                      tuple(r6[0:5]), tuple(r6[5:10]), tuple(r6[10:15]))


# --- profile ---------------------------------------------------------------------------
PERSON_CELL = (2, 0)  # 1: a person plays this seat (docs/PROTOCOL_EXTENSION.md, "People")


def build_profile(name: str, version: int = PROTOCOL_20070, person: bool = False) -> Table:
    """Profile table: version at [0][0], name one char code per cell of row 1 (<= 14 chars);
    ``person`` sets [2][0] = 1 (the seat asks for no move deadline; other servers ignore
    the cell, as the reference server ignores everything but [0][0] and row 1)."""
    codes = [ord(ch) for ch in name[: NAME_CELLS - 1]]
    cells = {(0, 0): version}
    cells.update({(1, i): c for i, c in enumerate(codes)})
    if person:
        cells[PERSON_CELL] = 1
    return Table.zeros().with_cells(cells)


def declares_person(t: Table) -> bool:
    """The profile says a person plays the seat ([2][0] = 1).

    >>> declares_person(build_profile("me", person=True)), declares_person(build_profile("b"))
    (True, False)
    """
    return t[PERSON_CELL] == 1


def read_profile(t: Table) -> tuple[int, str]:
    """(protocol version, name); the name stops at the first 0 and keeps printable chars."""
    chars = []
    for v in t.row(1):
        if v == 0:
            break
        chars.append(chr(v) if 32 <= v < 0x110000 and chr(v).isprintable() else "?")
    return t[0, 0], "".join(chars)


# --- hands -----------------------------------------------------------------------------
def hand_cells(hand: CardSet) -> dict[tuple[int, int], int]:
    cells = {(c & 3, c >> 2): 1 for c in hand.without_jokers}
    if hand.jokers >= 1:
        cells[(4, 1)] = 2
    if hand.jokers >= 2:
        cells[(4, 2)] = 2
    return cells


def read_hand(t: Table) -> CardSet:
    """The hand in a deal/turn table (1s in rows 0..3, a 2 in row 4 = joker)."""
    return hand_from_cells(t.nonzero())


def hand_from_cells(cells: Mapping[tuple[int, int], int]) -> CardSet:
    """:func:`read_hand` from the table's non-zero card cells (``Table.nonzero()``)."""
    mask, jokers = 0, 0
    for (row, col), v in cells.items():
        if v == 1 and row < 4 and 1 <= col <= 13:
            mask |= 1 << (4 * col + row)
        elif v == 2:
            jokers += 1
    if jokers:
        mask |= 1 << JOKER
    if jokers > 1:
        mask |= 1 << JOKER2
    return CardSet(mask)


def build_deal(hand: CardSet, state: TableState, give: int) -> Table:
    state = replace(state, exchange_phase=1, give=give, my_turn=0, turn_player=NOBODY,
                    field_empty=0, eleven_back=0, revolution=0, lock=0)
    return Table.zeros().with_cells(hand_cells(hand) | state.cells())


def build_turn(hand: CardSet, state: TableState) -> Table:
    return Table.zeros().with_cells(hand_cells(hand) | state.cells())


def build_field(move: Move | None, state: TableState) -> Table:
    cells = move_to_cells(move) if move is not None else {}
    return Table.zeros().with_cells(cells | state.cells())


def build_move(move: Move) -> Table:
    """A client's move table (all zeros for a pass)."""
    return Table.zeros().with_cells(move_to_cells(move))


def build_exchange(cards: CardSet) -> Table:
    return Table.zeros().with_cells(hand_cells(cards))


# --- reading what a client sends ---------------------------------------------------------
def decode_move_table(t: Table, max_jokers: int = 1) -> Move:
    """The move a client's table means, or a :class:`MoveTableError` saying what is wrong.

    Rows 5..7 are ignored, as the reference server ignores them.
    """
    return move_from_cells(t.nonzero(), max_jokers)


def check_ownership(move: Move, hand: CardSet) -> None:
    missing = move.cards - hand
    if missing:
        c = next(iter(missing))
        raise CardNotHeldError(f"card {missing} is not in the hand", (c & 3, c >> 2))
    if move.jokers > hand.jokers:
        raise JokerNotHeldError("a joker (2) was played but the hand holds "
                                f"{hand.jokers} joker(s)")


def read_card_cells(t: Table) -> tuple[int, int]:
    """(mask of the real cards, number of 2s) of a table that lists cards to hand over
    (exchange, choice answers): 1 = a card, a 2 anywhere in the card rows = a joker."""
    mask, jokers = 0, 0
    for (row, col), v in t.nonzero().items():
        if v == 1:
            if row >= 4 or col in (0, 14):
                raise BadCellError(f"a card (1) at [{row}][{col}]", (row, col))
            mask |= 1 << (4 * col + row)
        elif v == 2:
            jokers += 1
        else:
            raise BadCellValueError(f"cell [{row}][{col}] holds {v}", (row, col))
    return mask, jokers


def decode_exchange_table(t: Table, hand: CardSet, count: int) -> CardSet:
    """The cards given in an exchange table: exactly ``count`` held cards (2 = the joker)."""
    mask, jokers = read_card_cells(t)
    if jokers > hand.jokers:
        if hand.jokers == 0:
            raise JokerNotHeldError("the exchange gives a joker the hand does not hold")
        raise TooManyJokersError(f"{jokers} jokers given, {hand.jokers} held")
    given = CardSet(mask | (hand.mask & (((1 << JOKER) | (1 << JOKER2)) if jokers == 2 else
                                         (1 << JOKER) if jokers == 1 else 0)))
    missing = CardSet(mask) - hand
    if missing:
        c = next(iter(missing))
        raise CardNotHeldError(f"card {missing} is not in the hand", (c & 3, c >> 2))
    if len(given) != count:
        raise ExchangeCountError(f"the exchange gives {len(given)} card(s); {count} are owed")
    return given


__all__ = [
    "COLS",
    "NOBODY",
    "TableState",
    "build_deal",
    "build_exchange",
    "build_field",
    "build_move",
    "build_profile",
    "build_turn",
    "check_ownership",
    "declares_person",
    "decode_exchange_table",
    "decode_move_table",
    "hand_cells",
    "read_card_cells",
    "read_hand",
    "read_profile",
    "read_state",
]
