"""One game over the players' connections, in the exact message order of the protocol (§4).

Deal tables in class order; exchange tables from the daifugo, then the fugo; then per turn:
the turn table to players 0..n-1, the mover's move, the 9/8 answer to the mover, the field
table to all, the end flag to all.  The engine judges every move; the game's record (for the
match log) is built as it goes.

Seats work through :mod:`daihinmin.server.seats`: before every deal and every turn the
connections' health is checked (a dead one is handed to its stand-in at once); a seat played
by a stand-in gets no messages and its stand-in answers the requests
(:mod:`daihinmin.server.requests`).  A timeout or a table that is no move is a pass answered
8, exactly as a rejected move.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from daihinmin.protocol.table import PROTOCOL_20070
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.values.moves import PASS, Cell, MoveKind
from daihinmin.values.shapes import move_to_cells

from .config import ServerConfig
from .extension import ExtensionWire
from .matchlog import GameRecord, RawCells, TransferRecord, TurnRecord
from .outbox import Outbox
from .requests import ExchangeReply, GameRequests, read_exchange, read_move
from .seats import SeatTable
from .tables import (
    TurnTables,
    card_rows_bytes,
    class_row,
    deal_order,
    deal_table,
    field_bytes,
    field_state,
    field_table,
    turn_state,
)

log = logging.getLogger("daihinmin.server")

REJECTED = 8  # the answer to a move table that is not a legal move

END_CONTINUE, END_GAME, END_MATCH = 0, 1, 2

#: Told the game after the exchange (turn None) and after every turn, e.g. to show it live;
#: it must not change the state.
TurnHook = Callable[[GameSetup, GameState, "TurnRecord | None"], None]


def raw_cells(cells: dict[Cell, int]) -> RawCells:
    return [[r, c, v] for (r, c), v in sorted(cells.items())]


async def run_exchange(setup: GameSetup, outbox: Outbox, requests: GameRequests
                       ) -> list[TransferRecord]:
    """Read the upper classes' exchange tables; an invalid one makes the server pick."""
    replies: dict[int, ExchangeReply] = {}
    for player in setup.exchange_order():
        count = setup.give_count(player)
        await outbox.flush()
        reply = await requests.exchange(player, count)
        if reply.error is not None:
            log.warning("game %d: player %d sent no valid exchange table (%s); the server "
                        "gives its strongest %d", setup.game, player, reply.error, count)
        transfer = setup.give_back(player, reply.cards)
        if transfer.substituted and reply.error is None and reply.by is None:
            reply.error = "the chosen cards are not a valid exchange"
        replies[player] = reply
    requests.exchange_done()
    records = []
    for t in setup.transfers:
        r = replies.get(t.giver) if not t.automatic else None
        records.append(TransferRecord(
            t.giver, t.receiver, str(t.cards), t.automatic, t.substituted,
            r.error if r else None,
            raw_cells(r.cells) if r is not None and r.cells is not None else None,
            str(r.fault) if r is not None and r.fault is not None else None,
            r.by if r else None))
    return records


class GameSession:
    """One game on the wire: deal, exchange, then turns until the engine says it is over."""

    def __init__(self, match: MatchState, seats: SeatTable, config: ServerConfig,
                 on_turn: TurnHook | None = None) -> None:
        self.match = match
        self.on_turn = on_turn
        self.seats = seats
        self.config = config
        self.outbox = Outbox(seats, config.coalesce_writes)
        self.setup = match.setup_game()
        self.requests = GameRequests(seats, self.setup)
        self.wire = ExtensionWire(seats, match.rules)  # protocol 20260 cells and choices
        self.classes = class_row(self.setup)
        self.end_flag = END_MATCH if self.setup.game >= match.games else END_GAME
        self.turn_tables = TurnTables()
        self.shown: dict[Cell, int] | None = None  # the cells of the play on the field
        self._shown_rows: tuple[dict[Cell, int] | None, bytes] = (None, card_rows_bytes(None))
        setup = self.setup
        self.record = GameRecord(game=setup.game, seats=list(setup.seats), dealer=setup.dealer,
                                 classes=None if setup.classes is None else list(setup.classes),
                                 dealt=[str(h) for h in setup.dealt])

    async def play(self) -> GameRecord:
        setup, record, seats = self.setup, self.record, self.seats
        seats.at(setup.game, 0)
        await seats.check()
        ext = self.wire.setup_cells(setup, self.classes)
        for player in deal_order(setup):
            await self.outbox.table(player, self.wire.for_player(player,
                                                                 deal_table(setup, player), ext))
        record.transfers = await run_exchange(setup, self.outbox, self.requests)
        game = setup.start()
        record.hands = [str(h) for h in game.hands]
        record.first = game.turn
        if self.on_turn is not None:
            self.on_turn(setup, game, None)
        while not game.over:
            seats.at(setup.game, game.turns + 1)
            await seats.check()
            record.turns.append(await self.turn(game))
            if self.on_turn is not None:
                self.on_turn(setup, game, record.turns[-1])
        await self.outbox.flush()
        result = self.match.finish_game(game)
        self.requests.game_over(game, result.places)
        record.places = list(result.places)
        record.points = list(result.points)
        record.totals = list(self.match.points)
        record.events = seats.take_events()
        record.stand_in = [s.number for s in seats.seats if s.stand_in is not None]
        record.bank_ms = seats.banks_ms()
        record.reports = [r.copy() for r in seats.reports() if not r.pristine]
        return record

    async def turn(self, game: GameState) -> TurnRecord:
        """Turn tables to all, the mover's move, its answer, the field table and end flag."""
        outbox, mover = self.outbox, game.turn
        state = turn_state(game, self.classes)
        ext = self.wire.game_cells(game, self.classes)
        # Every seated player speaks plain 20070: the tables go out as cached row bytes.
        plain = all(s.conn is None or s.conn.version == PROTOCOL_20070 for s in self.seats.seats)
        if ext is None and plain:
            for player, data in enumerate(self.turn_tables.encode(game, state)):
                await outbox.raw(player, data)
        else:
            for player, table in enumerate(self.turn_tables.build(game, state)):
                await outbox.table(player, self.wire.for_player(player, table, ext))
        await outbox.flush()
        reply = await self.requests.move(game, outbox.written_at[mover])
        move, cells, error = reply.move, reply.cells, reply.error
        lock_before, eleven_back_before, field_before = (game.lock, game.eleven_back,
                                                         game.field)
        if move is None:
            log.warning("game %d turn %d: player %d: no move (%s); answered 8, counted as a "
                        "pass", self.setup.game, game.turns + 1, mover, error)
            step = game.step(PASS)
            answer = REJECTED
        else:
            step = game.step(move)
            answer = step.answer
            await self.requests.judged(reply, step)
        await outbox.int(mover, answer)
        choices = await self.wire.run_choices(game, self.classes, outbox, self.requests)
        if move is not None and step.judgement.accepted and move.kind is not MoveKind.PASS:
            # A stand-in's play is shown as the cells a client would have sent for it.
            self.shown = cells if cells is not None else move_to_cells(move)
        elif field_before is None:
            self.shown = None
        ext = self.wire.game_cells(game, self.classes)
        if ext is None and plain:
            if self._shown_rows[0] is not self.shown:  # the play on the field changed
                self._shown_rows = (self.shown, card_rows_bytes(self.shown))
            await outbox.raw_to_all(field_bytes(self._shown_rows[1], field_state(
                self.shown is None, game, step, self.classes, lock_before, eleven_back_before)))
        else:
            await self.wire.send_to_all(outbox, field_table(self.shown, game, step,
                                                            self.classes, lock_before,
                                                            eleven_back_before), ext)
        await outbox.int_to_all(self.end_flag if game.over else END_CONTINUE)
        if game.field is None:
            self.shown = None  # the trick was cleared: the next field starts empty
        self.requests.observed(game, step, field_before is None)
        return TurnRecord(mover, str(move) if move is not None else str(PASS), answer,
                          round(reply.think_ms, 3), error,
                          raw_cells(cells) if error and cells else None,
                          str(reply.fault) if reply.fault is not None else None, reply.by,
                          choices=choices)


async def play_game(match: MatchState, seats: SeatTable, config: ServerConfig,
                    on_turn: TurnHook | None = None) -> GameRecord:
    """Play the match's next game over ``seats`` (index = player number)."""
    return await GameSession(match, seats, config, on_turn).play()


__all__ = ["END_CONTINUE", "END_GAME", "END_MATCH", "REJECTED", "GameSession", "TurnHook",
           "play_game",
           "raw_cells", "read_exchange", "read_move", "run_exchange"]
