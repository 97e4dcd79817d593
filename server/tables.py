"""The tables the server sends, built from the engine's state.

Row 7 is always 0.  The class cells hold the true classes of the deal (all 0 in the first
game of a class block), not the reference server's overwritten buffer.  The field table of
a turn shows the flags as they were right after the action and before a trick clear, as the
reference does: a clear shows up only in the next turn table (``[5][4] = 1``).
"""

from __future__ import annotations

import struct

from daihinmin.contract.engine_views import class_row
from daihinmin.protocol.codec import TableState, build_deal, hand_cells
from daihinmin.protocol.table import CELLS, COLS, Table
from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState, StepResult
from daihinmin.rules.match import GameSetup
from daihinmin.values.cards import JOKER_BITS, CardSet
from daihinmin.values.moves import JOKER_KIND, Cell


def deal_order(setup: GameSetup) -> list[int]:
    """Players in class order (daifugo first); player order in a block's first game."""
    classes = class_row(setup)
    return sorted(range(setup.rules.players), key=lambda p: (classes[p], p))


def deal_table(setup: GameSetup, player: int) -> Table:
    state = TableState(counts=tuple(len(h) for h in setup.dealt), classes=class_row(setup),
                       seats=setup.seats)
    return build_deal(setup.deal_hand(player), state, give=setup.give_count(player))


def turn_state(game: GameState, classes: tuple[int, ...]) -> TableState:
    """Rows 5 and 6 of this turn's tables (``my_turn`` is set per receiver)."""
    return TableState(turn_player=game.turn, field_empty=int(game.field is None),
                      eleven_back=int(game.eleven_back), revolution=int(game.revolution),
                      lock=int(game.lock), counts=game.counts(), classes=classes,
                      seats=game.seats)


def turn_table(game: GameState, state: TableState, player: int) -> Table:
    """The receiver's hand and the state; ``[5][2] = 1`` for the player who must move."""
    mine = int(player == game.turn)
    cells = hand_cells(game.hands[player]) | state.cells()
    if mine:
        cells[(5, 2)] = 1
    return Table.zeros().with_cells(cells)


_NO_CELLS = (0,) * COLS


def _five(values: tuple[int, ...]) -> tuple[int, ...]:
    return values if len(values) == 5 else (tuple(values[:5]) + _NO_CELLS)[:5]


def tail_cells(state: TableState) -> list[int]:
    """Rows 5..7 as :meth:`TableState.cells` lays them out (row 7 is all 0)."""
    s = state
    return [s.exchange_phase, s.give, s.my_turn, s.turn_player, s.field_empty,
            s.eleven_back, s.revolution, s.lock, *_NO_CELLS[:COLS - 8],
            *_five(s.counts), *_five(s.classes), *_five(s.seats), *_NO_CELLS]


_CARD_ROWS = struct.Struct(f">{5 * COLS}I")
_TAIL_ROWS = struct.Struct(f">{CELLS - 5 * COLS}I")
# Rows 5..7 with their zero runs as pad bytes: row 5's eight flags, 7 zeros, row 6, row 7.
_TAIL_PACKED = struct.Struct(f">8I{4 * (COLS - 8)}x{COLS}I{4 * COLS}x")
assert _TAIL_PACKED.size == _TAIL_ROWS.size
_ROW5 = struct.Struct(f">8I{4 * (COLS - 8)}x")  # _TAIL_PACKED's first row
_ROWS67 = struct.Struct(f">{COLS}I{4 * COLS}x")  # and its last two
assert _ROW5.size + _ROWS67.size == _TAIL_PACKED.size


def tail_bytes(my_turn: int, turn_player: int, field_empty: int, eleven_back: int,
               revolution: int, lock: int, row6: tuple[int, ...]) -> bytes:
    """Rows 5..7 of a play-phase table as 20070 bytes (no exchange flags), straight from
    the values: what ``_TAIL_ROWS.pack(*tail_cells(state))`` gives, with no
    :class:`TableState` built on the way (the server's hot path).  ``row6``:
    :func:`row6_of` of the counts, classes and seats."""
    return _TAIL_PACKED.pack(0, 0, my_turn, turn_player, field_empty, eleven_back,
                             revolution, lock, *row6)


def row6_of(counts: tuple[int, ...], classes: tuple[int, ...], seats: tuple[int, ...]
            ) -> tuple[int, ...]:
    """Row 6: five counts, five classes, five seats (cut or padded to five each)."""
    return _five(counts) + _five(classes) + _five(seats)


_CELL = struct.Struct(">I")


def card_rows_bytes(cells: dict[Cell, int] | None) -> bytes:
    """Rows 0..4 holding ``cells`` (the cards of a play) as 20070 bytes: zeros with each
    cell's 4 bytes written in (a value below 256 is its last byte alone)."""
    rows = bytearray(_CARD_ROWS.size)
    for (r, c), v in (cells or {}).items():
        if 0 <= v < 256:
            rows[(r * COLS + c) * 4 + 3] = v
        else:
            _CELL.pack_into(rows, (r * COLS + c) * 4, v)
    return bytes(rows)


_JOKER_CELLS = ((4 * COLS + 1) * 4 + 3, (4 * COLS + 2) * 4 + 3)  # [4][1], [4][2]: low bytes


def hand_rows_bytes(hand: CardSet) -> bytes:
    """``card_rows_bytes(hand_cells(hand))``, straight from the hand's bit mask: a 1 at
    [suit][rank] for each card, a 2 at [4][1] (and [4][2]) for each joker (a changed hand's
    rows, once a play).

    >>> hand = CardSet.parse("S3 H4 JK")
    >>> hand_rows_bytes(hand) == card_rows_bytes(hand_cells(hand))
    True
    """
    rows = bytearray(_CARD_ROWS.size)
    m = hand.mask & ~JOKER_BITS
    while m:
        low = m & -m
        card = low.bit_length() - 1
        rows[((card & 3) * COLS + (card >> 2)) * 4 + 3] = 1
        m ^= low
    for cell in _JOKER_CELLS[:(hand.mask & JOKER_BITS).bit_count()]:
        rows[cell] = 2
    return bytes(rows)


class TurnTables:
    """The turn tables of every player for one turn, quickly: each hand's card rows are
    cached while the hand is unchanged (only the mover's hand changes in a turn).  Gives
    exactly what :func:`turn_table` gives; :meth:`encode` gives the same as protocol 20070
    bytes, from cached row bytes, and :meth:`encode_turn` / :meth:`encode_field` (the
    server's hot path) join cached pieces: the hand's card rows, row 5 (a handful of flag
    values) and rows 6..7 (the counts, classes and seats: they change only when a count
    does)."""

    CARD_CELLS = 5 * COLS
    CACHE_LIMIT = 256

    def __init__(self) -> None:
        self._card_rows: dict[int, list[int]] = {}
        self._card_bytes: dict[int, bytes] = {}
        self._hands: dict[int, tuple[bytes, int]] = {}  # mask: (card rows, card count)
        self._rows67: dict[tuple[int, ...], bytes] = {}  # counts: rows 6..7 (this game's)
        # (masks, card rows, rows 6..7, classes, seats) of the last look at the hands
        self._last: tuple[list[int], list[bytes], bytes, tuple[int, ...], tuple[int, ...]] = (
            [], [], b"", (), ())
        # row 5 of the turn tables (others', mover's) and of the field table, by its values
        # (a few dozen: rows 6..7 change with every play, so they are joined to it each time)
        self._turn_row5: dict[tuple[int, bool, bool, bool, bool], tuple[bytes, bytes]] = {}
        self._field_row5: dict[tuple[int, bool, bool, bool, bool], bytes] = {}
        self._plays: dict[tuple[tuple[Cell, int], ...], bytes] = {}  # a play's cells: rows

    def card_bytes(self, hand: CardSet) -> bytes:
        data = self._card_bytes.get(hand.mask)
        if data is None:
            if len(self._card_bytes) >= self.CACHE_LIMIT:
                self._card_bytes.clear()
            data = self._card_bytes[hand.mask] = hand_rows_bytes(hand)
        return data

    def encode(self, game: GameState, state: TableState) -> list[bytes]:
        """Each player's turn table as big-endian 20070 bytes (no negative cells here)."""
        tail = tail_cells(state)
        others = _TAIL_ROWS.pack(*tail)
        tail[2] = 1  # [5][2]: you must move
        mine = _TAIL_ROWS.pack(*tail)
        return self._with_hands(game, others, mine)

    def encode_turn(self, game: GameState, classes: tuple[int, ...]) -> list[bytes]:
        """:meth:`encode` of :func:`turn_state` ``(game, classes)``, with no state built."""
        cards, rows67 = self._hands_now(game.hands, classes, game.seats)
        turn = game.turn
        key = (turn, game.field is None, game.eleven_back, game.revolution, game.lock)
        row5 = self._turn_row5.get(key)
        if row5 is None:
            values = (turn, int(key[1]), int(key[2]), int(key[3]), int(key[4]))
            row5 = self._turn_row5[key] = (self._row_5(0, *values), self._row_5(1, *values))
        others = row5[0] + rows67
        tables = [rows + others for rows in cards]
        tables[turn] = cards[turn] + row5[1] + rows67  # [5][2] = 1: you must move
        return tables

    def encode_field(self, card_rows: bytes, empty: bool, game: GameState, step: StepResult,
                     classes: tuple[int, ...], lock_before: bool, eleven_back_before: bool
                     ) -> bytes:
        """:func:`field_bytes_now` (the same arguments) from the cached rows."""
        lock, eleven_back = shown_flags(step, lock_before, eleven_back_before)
        rows67 = self._hands_now(game.hands, classes, game.seats)[1]
        key = (step.player, empty, eleven_back, game.revolution, lock)
        row5 = self._field_row5.get(key)
        if row5 is None:
            row5 = self._field_row5[key] = self._row_5(
                0, step.player, int(empty), int(eleven_back), int(game.revolution), int(lock))
        return card_rows + row5 + rows67

    def play_rows(self, cells: dict[Cell, int] | None) -> bytes:
        """:func:`card_rows_bytes` of a play's cells, remembered (the same plays recur)."""
        key = tuple(cells.items()) if cells else ()
        data = self._plays.get(key)
        if data is None:
            if len(self._plays) >= self.CACHE_LIMIT:
                self._plays.clear()
            data = self._plays[key] = card_rows_bytes(cells)
        return data

    def _hands_now(self, hands: list[CardSet], classes: tuple[int, ...],
                   seats: tuple[int, ...]) -> tuple[list[bytes], bytes]:
        """Each hand's card rows as 20070 bytes, and rows 6..7 (the counts, classes and
        seats): the last answer again while no hand changed (from a field table to the
        next turn's tables)."""
        masks = [hand.mask for hand in hands]
        last = self._last
        if masks == last[0] and classes is last[3] and seats is last[4]:
            return last[1], last[2]
        if classes is not last[3] or seats is not last[4]:
            self._rows67.clear()  # a new game (or caller): other rows 6
        known = self._hands
        if len(known) >= self.CACHE_LIMIT:
            known.clear()
        rows = []
        for hand in hands:
            entry = known.get(hand.mask)
            if entry is None:
                entry = known[hand.mask] = (self.card_bytes(hand), len(hand))
            rows.append(entry)
        counts = tuple([count for _, count in rows])
        rows67 = self._rows67.get(counts)
        if rows67 is None:
            if len(self._rows67) >= self.CACHE_LIMIT:
                self._rows67.clear()
            rows67 = self._rows67[counts] = _ROWS67.pack(*row6_of(counts, classes, seats))
        cards = [data for data, _ in rows]
        self._last = (masks, cards, rows67, classes, seats)
        return cards, rows67

    def _row_5(self, my_turn: int, turn_player: int, field_empty: int, eleven_back: int,
               revolution: int, lock: int) -> bytes:
        """Row 5 of a play-phase table (no exchange flags)."""
        return _ROW5.pack(0, 0, my_turn, turn_player, field_empty, eleven_back, revolution,
                          lock)

    def _with_hands(self, game: GameState, others: bytes, mine: bytes) -> list[bytes]:
        turn = game.turn
        return [self.card_bytes(hand) + (mine if player == turn else others)
                for player, hand in enumerate(game.hands)]

    def card_rows(self, hand: CardSet) -> list[int]:
        rows = self._card_rows.get(hand.mask)
        if rows is None:
            if len(self._card_rows) >= self.CACHE_LIMIT:
                self._card_rows.clear()
            rows = [0] * self.CARD_CELLS
            for (r, c), v in hand_cells(hand).items():
                rows[r * COLS + c] = v
            self._card_rows[hand.mask] = rows
        return rows

    def build(self, game: GameState, state: TableState) -> list[Table]:
        tail = tail_cells(state)
        tables = []
        for player, hand in enumerate(game.hands):
            cells = self.card_rows(hand) + tail
            if player == game.turn:
                cells[self.CARD_CELLS + 2] = 1  # [5][2]: you must move
            tables.append(Table(cells))
        return tables


# Read on every turn, bound once: on Python 3.11 ``Kind.MEMBER`` goes through the enum
# metaclass's ``__getattr__`` hook.
_LOCK_ON, _ELEVEN_BACK = EventKind.LOCK_ON, EventKind.ELEVEN_BACK


def shown_flags(step: StepResult, lock_before: bool, eleven_back_before: bool
                ) -> tuple[bool, bool]:
    """(lock, 11-back) right after the action, before any clear the action caused."""
    lock = lock_before
    eleven_back = eleven_back_before
    for event in step.events:
        if event.kind is _LOCK_ON:
            lock = True
        elif event.kind is _ELEVEN_BACK:
            eleven_back = bool(event.value)
    if step.judgement.accepted and step.move.kind is JOKER_KIND:
        lock = False  # a lone joker always lifts the lock
    return lock, eleven_back


def field_state(empty: bool, game: GameState, step: StepResult, classes: tuple[int, ...],
                lock_before: bool, eleven_back_before: bool) -> TableState:
    """Rows 5 and 6 of the field table: the flags right after the action."""
    lock, eleven_back = shown_flags(step, lock_before, eleven_back_before)
    return TableState(turn_player=step.player, field_empty=int(empty),
                      eleven_back=int(eleven_back), revolution=int(game.revolution),
                      lock=int(lock), counts=game.counts(), classes=classes, seats=game.seats)


def field_table(cells: dict[Cell, int] | None, game: GameState, step: StepResult,
                classes: tuple[int, ...], lock_before: bool, eleven_back_before: bool) -> Table:
    """The cards on the field after the action (still shown if the action cleared them)."""
    state = field_state(cells is None, game, step, classes, lock_before, eleven_back_before)
    return Table.zeros().with_cells((cells or {}) | state.cells())


def field_bytes(card_rows: bytes, state: TableState) -> bytes:
    """:func:`field_table` as 20070 bytes, from the play's rows (:func:`card_rows_bytes`)."""
    return card_rows + _TAIL_ROWS.pack(*tail_cells(state))


def field_bytes_now(card_rows: bytes, empty: bool, game: GameState, step: StepResult,
                    classes: tuple[int, ...], lock_before: bool, eleven_back_before: bool
                    ) -> bytes:
    """:func:`field_bytes` of :func:`field_state` (the same arguments), with no state
    built (the server's hot path)."""
    lock, eleven_back = shown_flags(step, lock_before, eleven_back_before)
    return card_rows + tail_bytes(0, step.player, int(empty), int(eleven_back),
                                  int(game.revolution), int(lock),
                                  row6_of(game.counts(), classes, game.seats))


__all__ = ["TurnTables", "card_rows_bytes", "class_row", "deal_order", "deal_table",
           "field_bytes", "field_bytes_now", "field_state", "field_table", "row6_of",
           "shown_flags", "tail_bytes", "tail_cells", "turn_state", "turn_table"]
