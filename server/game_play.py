"""One game over the players' connections, in the exact message order of the protocol (§4).

The game itself is the game driver's (:mod:`daihinmin.driver.game`): this module turns its
requests and events into the protocol's messages.

Deal tables in class order; exchange tables from the daifugo, then the fugo; then per turn:
the turn table to players 0..n-1, the mover's move, the 9/8 answer to the mover, the field
table to all, the end flag to all.  The engine judges every move; the game's record (for the
match log) is built as it goes.  When the messages are written is the outbox's
(:mod:`daihinmin.server.outbox`): it is told before each wait whose reply is awaited, and
at the end of the game.

Seats work through :mod:`daihinmin.server.seats`: before every deal and every turn the
connections' health is checked (a dead one is handed to its stand-in at once); a seat played
by a stand-in gets no messages and its stand-in answers the requests
(:mod:`daihinmin.server.requests`).  A timeout or a table that is no move is a pass answered
8, exactly as a rejected move.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from daihinmin.driver.game import (
    REJECTED,
    ChoiceRequest,
    ExchangeDone,
    ExchangeRequest,
    GameDriver,
    GameOver,
    GameStarted,
    MoveRequest,
    TurnDone,
)
from daihinmin.driver.record import GameRecord, TurnRecord, raw_cells
from daihinmin.protocol.table import PROTOCOL_20070, encode_int
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.values.moves import PASS_KIND, Cell, Move, move_to_cells

from .config import ServerConfig
from .extension import ExtensionWire
from .outbox import Outbox
from .requests import GameRequests, read_exchange, read_move
from .seats import SeatTable
from .tables import (
    TurnTables,
    card_rows_bytes,
    class_row,
    deal_order,
    deal_table,
    field_table,
    turn_state,
)

log = logging.getLogger("daihinmin.server")

END_CONTINUE, END_GAME, END_MATCH = 0, 1, 2

#: Told the game after the exchange (turn None) and after every turn, e.g. to show it live;
#: it must not change the state.
TurnHook = Callable[[GameSetup, GameState, "TurnRecord | None"], None]


class GameSession:
    """One game on the wire: the game driver's requests and events as the protocol's
    messages (deal, exchange, then turns until the driver says the game is over)."""

    def __init__(self, match: MatchState, seats: SeatTable, config: ServerConfig,
                 on_turn: TurnHook | None = None) -> None:
        self.match = match
        self.on_turn = on_turn
        self.seats = seats
        self.config = config
        self.outbox = Outbox(seats, config.write_mode)
        self.driver = GameDriver(match)
        self.setup = self.driver.setup
        self.record = self.driver.record
        self.requests = GameRequests(seats, self.driver)
        self.wire = ExtensionWire(seats, match.rules)  # protocol 20260 cells and choices
        self.classes = class_row(self.setup)
        self.end_flag = END_MATCH if self.setup.game >= match.games else END_GAME
        self.turn_tables = TurnTables()
        self.shown: dict[Cell, int] | None = None  # the cells of the play on the field
        self._shown_rows: tuple[dict[Cell, int] | None, bytes] = (None, card_rows_bytes(None))
        # Every seated player speaks plain 20070: the tables go out as cached row bytes.
        # Seats only lose their connection during a game (to a stand-in), so once a game.
        self.plain = all(s.conn is None or s.conn.version == PROTOCOL_20070
                         for s in seats.seats)
        self._end_bytes = {flag: encode_int(flag) for flag in (END_CONTINUE, self.end_flag)}
        self._before: tuple[bool, bool, Move | None] = (False, False, None)  # lock, 11-back,
        # field before the turn's move (the field table shows what the move changed)
        self._cells: dict[Cell, int] | None = None  # the cells of the turn's move

    async def play(self) -> GameRecord:
        driver = self.driver
        while (out := driver.next()) is not None:
            if type(out) is MoveRequest:  # the two of every turn first
                await self.move(out)
            elif type(out) is TurnDone:
                await self.turn_done(out)
            elif isinstance(out, GameStarted):
                await self.deal()
            elif isinstance(out, ExchangeRequest):
                await self.exchange(out)
            elif isinstance(out, ExchangeDone):
                self.requests.exchange_done()
                if self.on_turn is not None:
                    assert driver.state is not None
                    self.on_turn(self.setup, driver.state, None)
            elif isinstance(out, ChoiceRequest):
                await self.wire.answer_choice(driver, self.classes, self.outbox,
                                              self.requests, out.choice)
            elif isinstance(out, GameOver):
                await self.outbox.flush()  # everyone: nothing is held from game to game
                self.requests.game_over(out.result.places)
        seats, record = self.seats, self.record
        record.events = seats.take_events()
        record.stand_in = [s.number for s in seats.seats if s.stand_in is not None]
        record.bank_ms = seats.banks_ms()
        record.reports = [r.copy() for r in seats.reports() if not r.pristine]
        return record

    async def deal(self) -> None:
        """The deal tables, in class order, after the connections' health is checked."""
        setup = self.setup
        self.seats.at(setup.game, 0)
        await self.seats.check()
        ext = self.wire.setup_cells(setup, self.classes)
        for player in deal_order(setup):
            await self.outbox.table(player, self.wire.for_player(player,
                                                                 deal_table(setup, player), ext))

    async def exchange(self, request: ExchangeRequest) -> None:
        """Read an upper class's exchange table; an invalid one makes the server pick."""
        player, count = request.player, request.count
        await self.outbox.flush(player)
        reply = await self.requests.exchange(player, count)
        if reply.error is not None:
            log.warning("game %d: player %d sent no valid exchange table (%s); the server "
                        "gives its strongest %d", self.setup.game, player, reply.error, count)
        self.driver.exchange(reply.cards, error=reply.error,
                             raw=raw_cells(reply.cells) if reply.cells is not None else None,
                             fault=str(reply.fault) if reply.fault is not None else None,
                             by=reply.by)

    async def move(self, request: MoveRequest) -> None:
        """Turn tables to all, the mover's move, its answer."""
        game = self.driver.state
        assert game is not None
        seats = self.seats
        seats.at(self.setup.game, game.turns + 1)
        if seats.troubled():
            await seats.check()
        outbox, mover = self.outbox, request.player
        if self.plain:  # nobody speaks 20260: no extension cells to work out
            tables = self.turn_tables.encode_turn(game, self.classes)
            if outbox.coalesce:
                outbox.hold_each(tables)  # (no await when only queued)
            else:
                await outbox.raw_each(tables)
        else:
            ext = self.wire.game_cells(game, self.classes)
            state = turn_state(game, self.classes)
            for player, table in enumerate(self.turn_tables.build(game, state)):
                await outbox.table(player, self.wire.for_player(player, table, ext))
        await outbox.flush(mover)
        reply = await self.requests.move(game, outbox.written_at[mover])
        self._before = (game.lock, game.eleven_back, game.field)
        self._cells = reply.cells
        if reply.move is None:
            log.warning("game %d turn %d: player %d: no move (%s); answered 8, counted as a "
                        "pass", self.setup.game, game.turns + 1, mover, reply.error)
        step = self.driver.move(
            reply.move, think_ms=reply.think_ms, error=reply.error,
            raw=raw_cells(reply.cells) if reply.error and reply.cells else None,
            fault=str(reply.fault) if reply.fault is not None else None, by=reply.by)
        if reply.move is not None and not step.judgement.accepted:
            await self.requests.judged(reply, step)
        if outbox.coalesce:
            outbox.hold_int(mover, self.record.turns[-1].answer)
        else:
            await outbox.int(mover, self.record.turns[-1].answer)

    async def turn_done(self, turn: TurnDone) -> None:
        """The field table and the end flag to all (after the play's choices)."""
        game, outbox, step = self.driver.state, self.outbox, turn.step
        assert game is not None
        lock_before, eleven_back_before, field_before = self._before
        if turn.accepted and turn.observed.move.kind is not PASS_KIND:  # (Move.is_pass)
            # A stand-in's play is shown as the cells a client would have sent for it.
            self.shown = self._cells if self._cells is not None else move_to_cells(step.move)
        elif field_before is None:
            self.shown = None
        end_flag = self.end_flag if game.over else END_CONTINUE
        if self.plain:  # nobody speaks 20260: no extension cells to work out
            if self._shown_rows[0] is not self.shown:  # the play on the field changed
                self._shown_rows = (self.shown, self.turn_tables.play_rows(self.shown))
            field = self.turn_tables.encode_field(
                self._shown_rows[1], self.shown is None, game, step, self.classes, lock_before,
                eleven_back_before)
            if outbox.coalesce:  # one chunk per player, only queued (no await)
                outbox.hold_each([field + self._end_bytes[end_flag]] * len(self.seats))
            else:
                await outbox.raw_to_all(field, self._end_bytes[end_flag])
        else:
            ext = self.wire.game_cells(game, self.classes)
            await self.wire.send_to_all(outbox, field_table(self.shown, game, step,
                                                            self.classes, lock_before,
                                                            eleven_back_before), ext)
            await outbox.int_to_all(end_flag)
        if game.field is None:
            self.shown = None  # the trick was cleared: the next field starts empty
        self.requests.observed(turn)
        if self.on_turn is not None:
            self.on_turn(self.setup, game, self.record.turns[-1])


async def play_game(match: MatchState, seats: SeatTable, config: ServerConfig,
                    on_turn: TurnHook | None = None) -> GameRecord:
    """Play the match's next game over ``seats`` (index = player number)."""
    return await GameSession(match, seats, config, on_turn).play()


__all__ = ["END_CONTINUE", "END_GAME", "END_MATCH", "REJECTED", "GameSession", "TurnHook",
           "play_game", "raw_cells", "read_exchange", "read_move"]
