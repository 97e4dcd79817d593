"""The Trio match server: seat players in connection order, play the games, log the match.

Run it in a nursery with ``nursery.start`` to learn the bound port once it listens::

    server = MatchServer(config)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        ...  # connect players to port
    server.outcome  # totals, records, log path

Every task belongs to a nursery; connections and the log are closed whatever happens.
"""

from __future__ import annotations

import datetime
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio
from daihinmin.protocol.table import TABLE_BYTES
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import ruleset_to_dict

from .config import ServerConfig
from .connection import PlayerConnection, receive_exact, set_nodelay
from .errors import HandshakeError, PlayerDisconnectedError
from .game_play import play_game
from .handshake import profile_version
from .matchlog import GameRecord, MatchEnd, MatchHeader, MatchLogWriter, PlayerInfo

log = logging.getLogger("daihinmin.server")


class MatchObserver:
    """Hooks the server calls as the match goes on; the defaults do nothing."""

    def listening(self, host: str, port: int) -> None:
        """The server accepts connections on ``port``."""

    def player_joined(self, info: PlayerInfo) -> None:
        """A connection sent a valid profile and got its player number."""

    def game_finished(self, record: GameRecord) -> None:
        """A game ended (its record is already in the log)."""


@dataclass
class MatchOutcome:
    players: list[PlayerInfo]
    games: list[GameRecord] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    log_path: Path | None = None
    wall_seconds: float = 0.0


class MatchServer:
    """Serves one match of ``config.games`` games to ``config.rules.players`` players."""

    def __init__(self, config: ServerConfig, observer: MatchObserver | None = None) -> None:
        self.config = config.validate()
        self.observer = observer or MatchObserver()
        self.port: int | None = None
        self.players: list[PlayerInfo] = []
        self.outcome: MatchOutcome | None = None

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                  ) -> MatchOutcome:
        config = self.config
        listeners = await trio.open_tcp_listeners(config.port, host=config.host)
        self.port = listeners[0].socket.getsockname()[1]
        self.observer.listening(config.host, self.port)
        task_status.started(self.port)
        conns: list[PlayerConnection] = []
        writer: MatchLogWriter | None = None
        outcome = MatchOutcome(players=self.players, log_path=config.log_path)
        started = time.perf_counter()
        try:
            conns = await self._seat_players(listeners)
            started = time.perf_counter()  # the match clock starts when every seat is taken
            if config.log_path is not None:
                writer = MatchLogWriter.open(config.log_path)
                writer.write_header(self._header())
            match = MatchState(config.rules, seed=config.seed, games=config.games)
            while not match.finished:
                record = await play_game(match, conns, config)
                outcome.games.append(record)
                if writer is not None:
                    writer.write_game(record)
                self.observer.game_finished(record)
            outcome.totals = list(match.points)
            outcome.wall_seconds = time.perf_counter() - started
            if writer is not None:
                writer.write_end(MatchEnd(len(outcome.games), outcome.totals,
                                          wall_seconds=round(outcome.wall_seconds, 3)))
        except BaseException as exc:
            if writer is not None:
                totals = outcome.games[-1].totals if outcome.games else []
                writer.write_end(MatchEnd(len(outcome.games), totals, status="aborted",
                                          error=f"{type(exc).__name__}: {exc}",
                                          wall_seconds=round(time.perf_counter() - started, 3)))
            raise
        finally:
            if writer is not None:
                writer.close()
            for conn in conns:
                await conn.aclose()
            for listener in listeners:
                with trio.CancelScope(shield=True):
                    await listener.aclose()
        self.outcome = outcome
        return outcome

    def _header(self) -> MatchHeader:
        c = self.config
        started = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        return MatchHeader(rules=ruleset_to_dict(c.rules), seed=c.seed, games=c.games,
                           players=list(self.players), started=started,
                           write_mode="coalesced" if c.coalesce_writes else "exact")

    async def _seat_players(self, listeners: list[trio.SocketListener]
                            ) -> list[PlayerConnection]:
        """Accept until every seat is taken; player numbers follow the connection order."""
        conns: list[PlayerConnection] = []
        send, receive = trio.open_memory_channel[trio.SocketStream](math.inf)
        async with trio.open_nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(self._accept_loop, listener, send.clone())
            send.close()
            while len(conns) < self.config.rules.players:
                stream = await receive.receive()
                conn = await self._handshake(stream, len(conns))
                if conn is not None:
                    conns.append(conn)
            nursery.cancel_scope.cancel()
        receive.close()
        return conns

    async def _accept_loop(self, listener: trio.SocketListener,
                           send: trio.MemorySendChannel[trio.SocketStream]) -> None:
        async with send:
            while True:
                stream = await listener.accept()
                set_nodelay(stream)
                await send.send(stream)

    async def _handshake(self, stream: trio.SocketStream, number: int
                         ) -> PlayerConnection | None:
        """Profile in, player number out; a bad profile closes the connection unseated."""
        timeout = self.config.profile_timeout
        try:
            with trio.fail_after(timeout if timeout is not None else math.inf):
                raw = await receive_exact(stream, TABLE_BYTES)
            version, name = profile_version(raw)
        except (HandshakeError, EOFError, trio.TooSlowError, trio.BrokenResourceError) as exc:
            log.error("connection rejected before seating player %d: %s", number,
                      exc if str(exc) else type(exc).__name__)
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return None
        conn = PlayerConnection(stream, number, name or f"player{number}", version)
        try:
            await conn.send_int(number)
        except PlayerDisconnectedError as exc:
            log.error("connection lost before seating player %d: %s", number, exc)
            await conn.aclose()
            return None
        info = PlayerInfo(number, conn.name, version)
        self.players.append(info)
        log.info("player %d joined: %r (protocol %d)", number, conn.name, version)
        self.observer.player_joined(info)
        return conn


async def serve_match(config: ServerConfig, observer: MatchObserver | None = None, *,
                      task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                      ) -> MatchOutcome:
    """Run one match; ``nursery.start(serve_match, config)`` returns the bound port."""
    return await MatchServer(config, observer).run(task_status=task_status)
