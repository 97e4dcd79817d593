"""One game over the players' connections, in the exact message order of the protocol (§4).

Deal tables in class order; exchange tables from the daifugo, then the fugo; then per turn:
the turn table to players 0..n-1, the mover's move, the 9/8 answer to the mover, the field
table to all, the end flag to all.  The engine judges every move; the game's record (for the
match log) is built as it goes.
"""

from __future__ import annotations

import logging
import time

from daihinmin.protocol.cards import CardSet
from daihinmin.protocol.codec import decode_exchange_table, decode_move_table
from daihinmin.protocol.errors import ProtocolError
from daihinmin.protocol.moves import PASS, Cell, Move, MoveKind
from daihinmin.protocol.table import Table
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState

from .config import ServerConfig
from .connection import PlayerConnection
from .matchlog import GameRecord, RawCells, TransferRecord, TurnRecord
from .outbox import Outbox
from .tables import TurnTables, class_row, deal_order, deal_table, field_table, turn_state

log = logging.getLogger("daihinmin.server")

REJECTED = 8  # the answer to a move table that is not a legal move

END_CONTINUE, END_GAME, END_MATCH = 0, 1, 2


def raw_cells(cells: dict[Cell, int]) -> RawCells:
    return [[r, c, v] for (r, c), v in sorted(cells.items())]


def read_move(conn: PlayerConnection, raw: bytes, max_jokers: int
              ) -> tuple[Move | None, dict[Cell, int] | None, str | None]:
    """(move, its cells, None), or (None, cells, why) for a table that is not a move."""
    try:
        table = Table.from_bytes(raw, conn.version)
    except ProtocolError as exc:
        return None, None, f"{type(exc).__name__}: {exc}"
    cells = table.nonzero()
    try:
        return decode_move_table(table, max_jokers), cells, None
    except ProtocolError as exc:
        return None, cells, f"{type(exc).__name__}: {exc}"


def read_exchange(conn: PlayerConnection, raw: bytes, hand: CardSet, count: int
                  ) -> tuple[CardSet | None, dict[Cell, int] | None, str | None]:
    try:
        table = Table.from_bytes(raw, conn.version)
    except ProtocolError as exc:
        return None, None, f"{type(exc).__name__}: {exc}"
    try:
        return decode_exchange_table(table, hand, count), None, None
    except ProtocolError as exc:
        return None, table.nonzero(), f"{type(exc).__name__}: {exc}"


async def run_exchange(setup: GameSetup, outbox: Outbox,
                       config: ServerConfig) -> list[TransferRecord]:
    """Read the upper classes' exchange tables; an invalid one makes the server pick."""
    conns = outbox.conns
    faults: dict[int, tuple[str, dict[Cell, int] | None]] = {}
    for player in setup.exchange_order():
        count = setup.give_count(player)
        await outbox.flush()
        raw = await conns[player].receive_table_bytes(config.move_timeout)
        choice, cells, error = read_exchange(conns[player], raw, setup.hands[player], count)
        if error is not None:
            log.warning("game %d: player %d sent an invalid exchange table (%s); the server "
                        "gives its strongest %d", setup.game, player, error, count)
            faults[player] = (error, cells)
        transfer = setup.give_back(player, choice)
        if transfer.substituted and player not in faults:
            faults[player] = ("the chosen cards are not a valid exchange", cells)
    records = []
    for t in setup.transfers:
        error, cells = faults.get(t.giver, (None, None)) if not t.automatic else (None, None)
        records.append(TransferRecord(t.giver, t.receiver, str(t.cards), t.automatic,
                                      t.substituted, error,
                                      raw_cells(cells) if cells is not None else None))
    return records


class GameSession:
    """One game on the wire: deal, exchange, then turns until the engine says it is over."""

    def __init__(self, match: MatchState, conns: list[PlayerConnection],
                 config: ServerConfig) -> None:
        self.match = match
        self.conns = conns
        self.config = config
        self.outbox = Outbox(conns, config.coalesce_writes)
        self.setup = match.setup_game()
        self.classes = class_row(self.setup)
        self.end_flag = END_MATCH if self.setup.game >= match.games else END_GAME
        self.turn_tables = TurnTables()
        self.shown: dict[Cell, int] | None = None  # the cells of the play on the field
        setup = self.setup
        self.record = GameRecord(game=setup.game, seats=list(setup.seats), dealer=setup.dealer,
                                 classes=None if setup.classes is None else list(setup.classes),
                                 dealt=[str(h) for h in setup.dealt])

    async def play(self) -> GameRecord:
        setup, record = self.setup, self.record
        for player in deal_order(setup):
            await self.outbox.table(player, deal_table(setup, player))
        record.transfers = await run_exchange(setup, self.outbox, self.config)
        game = setup.start()
        record.hands = [str(h) for h in game.hands]
        record.first = game.turn
        while not game.over:
            record.turns.append(await self.turn(game))
        await self.outbox.flush()
        result = self.match.finish_game(game)
        record.places = list(result.places)
        record.points = list(result.points)
        record.totals = list(self.match.points)
        return record

    async def turn(self, game: GameState) -> TurnRecord:
        """Turn tables to all, the mover's move, its answer, the field table and end flag."""
        outbox, mover = self.outbox, game.turn
        state = turn_state(game, self.classes)
        for player, table in enumerate(self.turn_tables.build(game, state)):
            await outbox.table(player, table)
        await outbox.flush()
        raw = await self.conns[mover].receive_table_bytes(self.config.move_timeout)
        think_ms = (time.perf_counter() - outbox.written_at[mover]) * 1000.0
        move, cells, error = read_move(self.conns[mover], raw, game.rules.jokers)
        lock_before, eleven_back_before, field_before = (game.lock, game.eleven_back,
                                                         game.field)
        if move is None:
            log.warning("game %d turn %d: player %d sent a malformed move table (%s); "
                        "answered 8, counted as a pass", self.setup.game, game.turns + 1,
                        mover, error)
            step = game.step(PASS)
            answer = REJECTED
        else:
            step = game.step(move)
            answer = step.answer
        await outbox.int(mover, answer)
        if move is not None and step.judgement.accepted and move.kind is not MoveKind.PASS:
            self.shown = cells
        elif field_before is None:
            self.shown = None
        await outbox.table_to_all(field_table(self.shown, game, step, self.classes,
                                              lock_before, eleven_back_before))
        await outbox.int_to_all(self.end_flag if game.over else END_CONTINUE)
        if game.field is None:
            self.shown = None  # the trick was cleared: the next field starts empty
        return TurnRecord(mover, str(move) if move is not None else str(PASS), answer,
                          round(think_ms, 3), error,
                          raw_cells(cells) if error and cells else None)


async def play_game(match: MatchState, conns: list[PlayerConnection],
                    config: ServerConfig) -> GameRecord:
    """Play the match's next game over ``conns`` (index = player number)."""
    return await GameSession(match, conns, config).play()
