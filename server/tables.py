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
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Cell, MoveKind


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


def card_rows_bytes(cells: dict[Cell, int] | None) -> bytes:
    """Rows 0..4 holding ``cells`` (the cards of a play) as 20070 bytes."""
    values = [0] * (5 * COLS)
    for (r, c), v in (cells or {}).items():
        values[r * COLS + c] = v
    return _CARD_ROWS.pack(*values)


class TurnTables:
    """The turn tables of every player for one turn, quickly: each hand's card rows are
    cached while the hand is unchanged (only the mover's hand changes in a turn).  Gives
    exactly what :func:`turn_table` gives; :meth:`encode` gives the same as protocol 20070
    bytes, from cached row bytes (the server's hot path)."""

    CARD_CELLS = 5 * COLS
    CACHE_LIMIT = 256

    def __init__(self) -> None:
        self._card_rows: dict[int, list[int]] = {}
        self._card_bytes: dict[int, bytes] = {}

    def card_bytes(self, hand: CardSet) -> bytes:
        data = self._card_bytes.get(hand.mask)
        if data is None:
            if len(self._card_bytes) >= self.CACHE_LIMIT:
                self._card_bytes.clear()
            data = self._card_bytes[hand.mask] = _CARD_ROWS.pack(*self.card_rows(hand))
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
        row6 = row6_of(game.counts(), classes, game.seats)
        turn, empty = game.turn, int(game.field is None)
        flags = (int(game.eleven_back), int(game.revolution), int(game.lock))
        others = tail_bytes(0, turn, empty, *flags, row6)
        mine = tail_bytes(1, turn, empty, *flags, row6)
        return self._with_hands(game, others, mine)

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


def shown_flags(step: StepResult, lock_before: bool, eleven_back_before: bool
                ) -> tuple[bool, bool]:
    """(lock, 11-back) right after the action, before any clear the action caused."""
    lock = lock_before
    eleven_back = eleven_back_before
    for event in step.events:
        if event.kind is EventKind.LOCK_ON:
            lock = True
        elif event.kind is EventKind.ELEVEN_BACK:
            eleven_back = bool(event.value)
    if step.judgement.accepted and step.move.kind is MoveKind.JOKER:
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
