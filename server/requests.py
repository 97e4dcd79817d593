"""Asking a seat for its exchange or its move: over the wire with a deadline, or its stand-in.

A table is classified as it is read, by the error reading it raised
(:func:`~daihinmin.driver.faults.table_fault`): bytes that are no table of the protocol (a
card cell outside 0..2, a 20140 string that is not hex) are MALFORMED; a table of 0/1/2 that
is no move (any wrong shape, a 1 in column 0) or no valid exchange is ILLEGAL.  Either is
answered 8 and played as a pass (an exchange: the server picks), and the fault goes to the
seat table.  A timeout is played the same way; a lost connection hands the seat to its
stand-in, which then answers this very request.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import trio
from daihinmin.driver.faults import SeatStatus, table_fault
from daihinmin.driver.game import GameDriver, TurnDone
from daihinmin.protocol.codec import decode_exchange_table
from daihinmin.protocol.errors import TABLE_ERRORS
from daihinmin.protocol.table import PROTOCOL_20260, Table
from daihinmin.records.move_reading import describe, read_move_cells
from daihinmin.rules.game import GameState, StepResult
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Cell, Move

from .connection import PlayerConnection
from .errors import PlayerDisconnectedError, PlayerTimeoutError
from .seats import Seat, SeatTable
from .stand_in import StandIn, deal_view, exchange_facts


@dataclass(slots=True)
class MoveReply:
    move: Move | None  # None: no usable move (timeout, unreadable table): a pass, answered 8
    cells: dict[Cell, int] | None = None  # the cells sent (set for a table that is no move)
    error: str | None = None  # why there is no usable move
    fault: SeatStatus | None = None
    by: str | None = None  # None: the player; else the stand-in's kind
    think_ms: float = 0.0


@dataclass
class ExchangeReply:
    cards: CardSet | None  # None: the server picks
    cells: dict[Cell, int] | None = None
    error: str | None = None
    fault: SeatStatus | None = None
    by: str | None = None


MoveReading = tuple[Move | None, dict[Cell, int] | None, str | None, SeatStatus | None]
# Tables already read, by (bytes, version, jokers): players send the same few tables again
# and again (the pass above all), and reading one is a pure function of these three.
_READ_MOVES: dict[tuple[bytes, int, int], MoveReading] = {}
READ_MOVES_KEPT = 1024


def read_move(conn: PlayerConnection, raw: bytes, max_jokers: int) -> MoveReading:
    """(move, cells, None, None), or (None, cells, why, fault) for a table that is no move.

    Each answer is worked out once per table (:func:`read_move_table`) and kept; the cells
    are handed out as a fresh dict every time."""
    key = (raw, conn.version, max_jokers)
    known = _READ_MOVES.get(key)
    if known is None:
        if len(_READ_MOVES) >= READ_MOVES_KEPT:
            _READ_MOVES.clear()
        known = _READ_MOVES[key] = read_move_table(conn.version, raw, max_jokers)
    move, cells, error, fault = known
    return move, dict(cells) if cells is not None else None, error, fault


def read_move_table(version: int, raw: bytes, max_jokers: int) -> MoveReading:
    """:func:`read_move` worked out from the bytes."""
    try:
        table = Table.from_bytes(raw, version)
    except TABLE_ERRORS as exc:
        return None, None, describe(exc), table_fault(exc)
    cells = table.nonzero()
    # 20260 also reads the joker pair and double stairs (docs/PROTOCOL_EXTENSION.md).
    move, error, fault = read_move_cells(cells, max_jokers, version == PROTOCOL_20260)
    return move, cells, error, fault


def read_exchange(version: int, raw: bytes, hand: CardSet, count: int
                  ) -> tuple[CardSet | None, dict[Cell, int] | None, str | None,
                             SeatStatus | None]:
    """(cards, None, None, None), or (None, cells, why, fault) for a table that is no valid
    exchange of ``count`` cards of ``hand``."""
    try:
        table = Table.from_bytes(raw, version)
    except TABLE_ERRORS as exc:
        return None, None, describe(exc), table_fault(exc)
    try:
        return decode_exchange_table(table, hand, count), None, None, None
    except TABLE_ERRORS as exc:
        return None, table.nonzero(), describe(exc), table_fault(exc)


class GameRequests:
    """The requests of one game, and what its stand-ins need to know to answer them (their
    views are the game driver's, as every other way of playing gives them)."""

    def __init__(self, seats: SeatTable, driver: GameDriver) -> None:
        self.seats = seats
        self.config = seats.config
        self.driver = driver
        self.setup = driver.setup
        self.facts = exchange_facts(self.setup)
        self._clock: trio.abc.Clock | None = None

    def stand_in(self, seat: Seat) -> StandIn:
        """The seat's stand-in, told about this game's deal the first time it is asked."""
        stand_in = seat.stand_in
        assert stand_in is not None
        if seat.seen_game != self.setup.game:
            seat.seen_game = self.setup.game
            stand_in.game_start(deal_view(self.setup, seat.number, self.facts[seat.number]))
        return stand_in

    async def _receive(self, player: int, base: float | None) -> tuple[bytes | None, str | None]:
        """The player's next table within its deadline, charged to its clock: ``(raw, None)``;
        ``(None, message)`` after a timeout (a fault; the bank is spent); ``(None, None)`` when
        the connection is lost (the seat then goes to its stand-in)."""
        seat = self.seats.seats[player]
        assert seat.conn is not None
        clock = self._clock
        if clock is None:  # the run's clock, looked up once (trio.current_time() reads it)
            clock = self._clock = trio.lowlevel.current_clock()
        start = clock.current_time()  # the deadline's clock: the bank is spent by the same
        try:
            raw = await seat.conn.receive_table_bytes(seat.deadline(base))
        except PlayerTimeoutError as exc:
            seat.bank = 0.0
            await self.seats.fault(player, SeatStatus.TIMEOUT, exc.message)
            return None, exc.message
        except PlayerDisconnectedError as exc:
            await self.seats.lost(player, exc.message)
            return None, None
        seat.charge(base, clock.current_time() - start)
        return raw, None

    # --- exchange ----------------------------------------------------------------------
    async def exchange(self, player: int, count: int) -> ExchangeReply:
        seat = self.seats[player]
        if seat.conn is not None:
            conn = seat.conn
            raw, timed_out = await self._receive(player, self.config.exchange_timeout)
            if timed_out is not None:
                return ExchangeReply(None, None, timed_out, SeatStatus.TIMEOUT)
            if raw is not None:
                cards, cells, error, fault = read_exchange(conn.version, raw,
                                                           self.setup.hands[player], count)
                if fault is not None and error is not None:
                    await self.seats.fault(player, fault, f"exchange table: {error}")
                return ExchangeReply(cards, cells, error, fault)
        stand_in = self.stand_in(seat)
        view = deal_view(self.setup, player, self.facts[player])
        return ExchangeReply(stand_in.exchange(view, count), by=str(stand_in.kind))

    def exchange_done(self) -> None:
        self.facts = exchange_facts(self.setup)

    # --- moves -------------------------------------------------------------------------
    async def move(self, game: GameState, since: float) -> MoveReply:
        """The move of the player to move; ``since`` is when its turn table was written."""
        player = game.turn
        seat = self.seats.seats[player]
        if seat.conn is not None:
            conn = seat.conn
            raw, timed_out = await self._receive(player, self.config.move_timeout)
            if timed_out is not None:
                return MoveReply(None, None, timed_out, SeatStatus.TIMEOUT, think_ms=_ms(since))
            if raw is not None:
                think = _ms(since)
                move, cells, error, fault = read_move(conn, raw, game.rules.jokers)
                if fault is not None and error is not None:
                    await self.seats.fault(player, fault, f"move table: {error}")
                return MoveReply(move, cells, error, fault, think_ms=think)
        stand_in = self.stand_in(seat)
        start = time.perf_counter()
        move = stand_in.play(self.driver.view(player))
        return MoveReply(move, by=str(stand_in.kind), think_ms=_ms(start))

    async def judged(self, reply: MoveReply, step: StepResult) -> None:
        """A player's readable move the rules rejected is an ILLEGAL fault."""
        if reply.by is None and reply.move is not None and not step.judgement.accepted:
            reply.fault = SeatStatus.ILLEGAL
            reason = step.judgement.reason
            await self.seats.fault(step.player, SeatStatus.ILLEGAL,
                                   f"{reply.move} rejected"
                                   + (f": {reason}" if reason is not None else ""))

    def observed(self, turn: TurnDone) -> None:
        """Tell the stand-ins about the turn."""
        if self.seats.all_live:
            return  # no stand-in plays (the usual case, every turn)
        for seat in self.seats.seats:
            if seat.stand_in is not None and seat.stand_in.bot is not None:
                self.stand_in(seat).turn_seen(self.driver.view(seat.number), turn.observed,
                                              turn.accepted)

    def game_over(self, places: tuple[int, ...]) -> None:
        for seat in self.seats.seats:
            if seat.stand_in is not None:
                self.stand_in(seat).game_end(self.driver.view(seat.number), places)


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000.0


__all__ = ["ExchangeReply", "GameRequests", "MoveReading", "MoveReply", "read_exchange",
           "read_move", "read_move_table"]
