"""The Trio match server: seat players as their handshakes complete, play the games, log them.

Run it in a nursery with ``nursery.start`` to learn the bound port once it listens::

    server = MatchServer(config)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        ...  # connect players to port
    server.outcome  # games played, totals, seat reports, log path

Seating: handshakes run side by side, each within ``profile_timeout`` in total, so a
connection that never speaks (or trickles its profile) holds up nobody; players are numbered
in the order their profiles complete.  At most ``handshake_slack`` connections beyond the
free seats are in the handshake at once; when a new one comes and there is no room, the
*oldest* waiting handshake is closed to make room (a real player sends its profile at once,
so slow or idle connections cannot hold every slot), and once every seat is taken the
listener is closed (new connections are refused).  Failed handshakes are warned about at a
bounded rate (:mod:`daihinmin.server.ratelog`) and only counted, never stored one by one.
A ``host`` that is not a loopback address gets a warning naming the risk.  During play
each connection has a bounded buffer, read by the table's own task
(:mod:`daihinmin.server.connection`);
faults follow :mod:`daihinmin.driver.faults`, so the match always finishes.  Each finished
game is in the log (flushed and fsynced) before the next deal; ``config.resume`` continues a
logged match (:mod:`daihinmin.server.resume`).
Every task belongs to a nursery; connections and the log are closed whatever happens.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio
from daihinmin.driver.faults import OnFault, SeatReport, SeatStatus
from daihinmin.driver.record import GameRecord, TurnRecord
from daihinmin.protocol.errors import ProtocolError
from daihinmin.protocol.table import TABLE_BYTES, encode_int
from daihinmin.records.matchlog import (
    MatchEnd,
    MatchHeader,
    MatchLogWriter,
    PlayerInfo,
    ResumeRecord,
    drop_torn_tail,
    utc_now,
)
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState

from .config import ServerConfig
from .connection import (
    PlayerConnection,
    limit_send_buffer,
    receive_exact,
    seconds,
    set_nodelay,
)
from .errors import HandshakeError, ListenError, plain_reason
from .extension import refuse, wire_refusal
from .game_play import play_game
from .handshake import profile_person, profile_version
from .ratelog import RateLimitedLog
from .resume import ResumePoint, resume_point_for
from .seats import SeatTable

log = logging.getLogger("daihinmin.server")

ACCEPT_RETRY_SECONDS = 0.1  # after an accept error such as "too many open files"
EXPOSED_WARNING = ("listening on %s, which is not a loopback address: anyone who can reach "
                   "this machine can connect and take a seat (the protocol has no "
                   "authentication), and the match is only as fair as that network")


def is_loopback(host: str) -> bool:
    """``127.0.0.1``, ``::1`` and ``localhost`` are; ``0.0.0.0``, ``::`` and names are not.

    >>> [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "::", "")]
    [True, True, True, False, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class MatchObserver:
    """Hooks the server calls as the match goes on; the defaults do nothing."""

    def listening(self, host: str, port: int) -> None:
        """The server accepts connections on ``port``."""

    def player_joined(self, info: PlayerInfo) -> None:
        """A connection sent a valid profile and got its player number (or a stand-in took
        a seat nobody could fill: ``info.stand_in`` is set)."""

    def game_finished(self, record: GameRecord) -> None:
        """A game ended (its record is already in the log)."""

    def turn_played(self, setup: GameSetup, state: GameState, turn: TurnRecord | None) -> None:
        """The game after its exchange (``turn`` None) and after each turn (to show it live;
        the state must not be changed)."""


@dataclass
class MatchOutcome:
    """What a match came to.  Game records are only in the log (and passed one by one to
    :meth:`MatchObserver.game_finished`): memory stays flat however long the match."""

    players: list[PlayerInfo]
    games_played: int = 0  # games in the match so far, those before a resume included
    totals: list[int] = field(default_factory=list)  # after the last game
    log_path: Path | None = None
    wall_seconds: float = 0.0
    seats: list[SeatReport] = field(default_factory=list)  # each seat at the end
    resumed_after: int = 0  # games taken over from the log when resuming


@dataclass
class _Profile:
    """A connection whose profile arrived, waiting for its player number."""

    stream: trio.SocketStream
    version: int
    name: str
    person: bool = False  # the profile says a person plays (no move deadline)


@dataclass
class _StandInSeat:
    """A seat the headless runner could not fill with its player process."""

    status: SeatStatus
    detail: str


class MatchServer:
    """Serves one match of ``config.games`` games to ``config.rules.players`` players."""

    def __init__(self, config: ServerConfig, observer: MatchObserver | None = None) -> None:
        self.config = config.validate()
        self.observer = observer or MatchObserver()
        self.port: int | None = None
        self.players: list[PlayerInfo] = []
        self.outcome: MatchOutcome | None = None
        self.seats: SeatTable | None = None
        self.refused = 0  # handshakes closed to make room for a newer connection
        # Connections closed in the handshake: how many, and why the last one was (the
        # headless runner tells its player's fault from it).
        self.rejection_count = 0
        self.last_rejection: tuple[SeatStatus, str] | None = None
        self.warn = RateLimitedLog(log)
        self._waiting: dict[int, trio.CancelScope] = {}  # handshakes under way, oldest first
        self._ready: trio.MemorySendChannel[_Profile | _StandInSeat] | None = None
        self._stand_in_seats: dict[int, _StandInSeat] = {}
        self._watched: set[int] = set()  # players whose profile says a person plays
        # Listening sockets handed in (add_listener), and the seating's nursery while it
        # accepts; after seating (None, ``_seated``) a new one is closed at once.
        self._extra_listeners: list[trio.SocketListener] = []
        self._seating: trio.Nursery | None = None
        self._seated = False

    @property
    def in_handshake(self) -> int:
        """Connections accepted whose profile has not come yet."""
        return len(self._waiting)

    # --- what the headless runner may tell the server ------------------------------------
    def seat_stand_in(self, status: SeatStatus, detail: str) -> None:
        """While seating: give the next player number to a stand-in (the runner's process
        for it exited or never finished its handshake; ``REQUESTED``: it was asked for)."""
        if self._ready is None:
            raise RuntimeError("the server is not seating players")
        self._ready.send_nowait(_StandInSeat(status, detail))

    def add_listener(self, sock: socket.socket) -> None:
        """Also seat the connections that come to ``sock``, a listening TCP socket made
        elsewhere: a player's sandbox makes one in its own network namespace, where the
        player reaches nothing else.  Closed with the server's own once every seat is taken."""
        if self._seated:
            sock.close()
            return
        listener = trio.SocketListener(trio.socket.from_stdlib_socket(sock))
        self._extra_listeners.append(listener)
        if self._seating is not None and self._ready is not None:
            self._seating.start_soon(self._accept_loop, listener, self._seating, self._ready)

    def process_crashed(self, player: int, detail: str,
                        status: SeatStatus = SeatStatus.CRASHED) -> None:
        """The process of a seated player exited abnormally (``status``: TIMEOUT when a
        CPU or wall time limit stopped it)."""
        if self.seats is not None:
            self.seats.process_crashed(player, detail, status)

    # --- the match ------------------------------------------------------------------------
    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                  ) -> MatchOutcome:
        config = self.config
        # The log is claimed (created exclusively, locked) before anyone is seated, and
        # before a resumed log is read: a second writer is refused here.
        writer = self._claim_log()
        started_log = False
        try:
            point = resume_point_for(config)  # the command's, if the log is unchanged
            listeners = await self._listen()
        except BaseException:
            self._release_log(writer, started_log)
            raise
        if not is_loopback(config.host):
            log.warning(EXPOSED_WARNING, config.host or "every interface")
        self.port = listeners[0].socket.getsockname()[1]
        self.observer.listening(config.host, self.port)
        task_status.started(self.port)
        outcome = MatchOutcome(players=self.players, log_path=config.log_path)
        if point is not None:
            outcome.games_played = outcome.resumed_after = point.games_done
            outcome.totals = point.last_totals
        started = time.perf_counter()
        try:
            conns = await self._seat_players(listeners, point)
            await self._close_listeners(listeners)  # every seat is taken: refuse the rest
            started = time.perf_counter()  # the match clock starts when every seat is taken
            self.seats = seats = SeatTable.of(conns, config, point.banks if point else None,
                                              persons=[p.person for p in self.players],
                                              watched=[n in self._watched
                                                       for n in range(len(conns))])
            if point is not None:
                await seats.restore(point.reports)
            for number, why in self._stand_in_seats.items():
                seats.seat_stand_in(number, why.status, why.detail)
            self._start_log(writer, point)
            started_log = True
            match = point.match if point is not None else MatchState(
                config.rules, seed=config.seed, games=config.games)
            await self._play_games(match, seats, writer, outcome)
            outcome.totals = list(match.points)
            outcome.seats = seats.reports()
            outcome.wall_seconds = time.perf_counter() - started
            if writer is not None:
                writer.write_end(MatchEnd(outcome.games_played, outcome.totals,
                                          wall_seconds=round(outcome.wall_seconds, 3),
                                          seats=outcome.seats, events=seats.take_events()))
        except BaseException as exc:
            if writer is not None and started_log:
                writer.write_end(MatchEnd(outcome.games_played, outcome.totals,
                                          status="aborted", error=plain_reason(exc),
                                          wall_seconds=round(time.perf_counter() - started, 3),
                                          seats=self.seats.reports() if self.seats else []))
            raise
        finally:
            self._release_log(writer, started_log)
            if self.seats is not None:
                await self.seats.close_all()
            await self._close_listeners(listeners)
        self.outcome = outcome
        return outcome

    async def _listen(self) -> list[trio.SocketListener]:
        """The listeners on the configured host and port (ListenError)."""
        config = self.config
        try:
            return await trio.open_tcp_listeners(config.port, host=config.host)
        except OSError as exc:
            where = f"[{config.host}]" if ":" in (config.host or "") else config.host
            raise ListenError(f"cannot listen on {where or '*'}:{config.port}: "
                              f"{exc.strerror or exc}") from exc

    async def _play_games(self, match: MatchState, seats: SeatTable,
                          writer: MatchLogWriter | None, outcome: MatchOutcome) -> None:
        """Play the match's games to its end, each logged before the next deal, while every
        seat's connection is read and its sends watched."""
        config = self.config
        async with trio.open_nursery() as nursery:
            for seat in seats.seats:  # (a restored stand-in's connection is closed)
                if seat.conn is not None:
                    if seat.conn.sock is None:  # else the table's own task reads it
                        nursery.start_soon(seat.conn.read_loop)
                    nursery.start_soon(seat.conn.watch_sends)
            # (an observer that does not look at turns is not called at each turn)
            on_turn = (None if type(self.observer).turn_played is MatchObserver.turn_played
                       else self.observer.turn_played)
            while not match.finished:
                record = await play_game(match, seats, config, on_turn)
                if writer is not None:
                    writer.write_game(record)  # on disk before the next deal
                del match.results[:-1]  # the engine keeps every result; one is enough
                outcome.games_played += 1
                outcome.totals = list(record.totals)
                self.observer.game_finished(record)
            nursery.cancel_scope.cancel()

    async def _close_listeners(self, listeners: list[trio.SocketListener]) -> None:
        self._seated = True
        for listener in [*listeners, *self._extra_listeners]:
            with trio.CancelScope(shield=True):
                await listener.aclose()
        self._extra_listeners.clear()

    def _claim_log(self) -> MatchLogWriter | None:
        c = self.config
        if c.log_path is None:
            return None
        return MatchLogWriter.open(c.log_path, durable=c.durable, append=c.resume,
                                   overwrite=c.overwrite_log, make_folder=c.make_log_folder)

    def _release_log(self, writer: MatchLogWriter | None, started: bool) -> None:
        """Close the log; a new one that never got its header is removed again."""
        if writer is None:
            return
        writer.close()
        if not started and not self.config.resume and self.config.log_path is not None:
            self.config.log_path.unlink(missing_ok=True)

    def _start_log(self, writer: MatchLogWriter | None, point: ResumePoint | None) -> None:
        c = self.config
        if writer is None or c.log_path is None:
            return
        if point is None:
            writer.write_header(MatchHeader.starting_now(
                c.rules, c.seed, c.games, list(self.players), write_mode=str(c.write_mode),
                policy=c.policy(), lineup=[dict(p) for p in c.lineup] or None))
            return
        dropped = drop_torn_tail(c.log_path)
        if dropped:
            log.warning("%s: dropped a last line written only in part (%d bytes)", c.log_path,
                        dropped)
        named = [p.name for p in point.players]
        if [p.name for p in self.players] != named:
            log.warning("resuming with players %s; the match was played by %s",
                        [p.name for p in self.players], named)
        writer.write_resume(ResumeRecord(point.games_done, list(self.players), utc_now(),
                                         c.policy()))

    # --- seating --------------------------------------------------------------------------
    async def _seat_players(self, listeners: list[trio.SocketListener],
                            point: ResumePoint | None) -> list[PlayerConnection | None]:
        """Number players as their handshakes complete, until every seat is taken."""
        n = self.config.rules.players
        if point is not None and point.match.finished:
            return [None] * n  # every game is logged: only the end record is missing
        entries: list[PlayerConnection | None] = []
        send, receive = trio.open_memory_channel[_Profile | _StandInSeat](math.inf)
        self._ready = send
        try:
            async with trio.open_nursery() as nursery:
                self._seating = nursery
                for listener in [*listeners, *self._extra_listeners]:
                    nursery.start_soon(self._accept_loop, listener, nursery, send)
                while len(entries) < n:
                    item = await receive.receive()
                    if isinstance(item, _StandInSeat):
                        entries.append(None)
                        self._stand_in(len(entries) - 1, item)
                        continue
                    conn = await self._number(item, len(entries))
                    if conn is not None:
                        entries.append(conn)
                nursery.cancel_scope.cancel()
        finally:
            self._ready = None
            self._seating = None
            send.close()
            while True:  # handshakes that finished too late: nobody seats them
                try:
                    item = receive.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                if isinstance(item, _Profile):
                    with trio.CancelScope(shield=True):
                        await item.stream.aclose()
            receive.close()
        if self.warn.counts:
            log.warning("connections closed in the handshake while seating: %s",
                        self.warn.summary())
        return entries

    def _stand_in(self, number: int, why: _StandInSeat) -> None:
        self._stand_in_seats[number] = why
        info = PlayerInfo(number, f"stand-in{number}", 0, stand_in=str(OnFault(
            self.config.on_fault)))
        self.players.append(info)
        if why.status is SeatStatus.REQUESTED:
            log.info("player %d: a stand-in plays the seat, as asked (%s)", number, why.detail)
        else:
            log.warning("player %d: %s (%s); a stand-in plays the seat", number, why.status,
                        why.detail)
        self.observer.player_joined(info)

    def _free_seats(self) -> int:
        return self.config.rules.players - len(self.players)

    async def _accept_loop(self, listener: trio.SocketListener, nursery: trio.Nursery,
                           ready: trio.MemorySendChannel[_Profile | _StandInSeat]) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:  # e.g. out of file descriptors: wait, then go on
                log.error("accept failed: %s", exc)
                await trio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            if len(self._waiting) >= self._free_seats() + self.config.handshake_slack:
                _, oldest = next(iter(self._waiting.items()))
                self._waiting.pop(id(oldest))
                oldest.cancel()  # its task closes it (and says why)
            scope = trio.CancelScope()
            self._waiting[id(scope)] = scope
            nursery.start_soon(self._handshake, stream, ready, scope)

    def _rejected(self, kind: str, status: SeatStatus, why: str) -> None:
        self.rejection_count += 1
        self.last_rejection = (status, why)
        self.warn(kind, f"connection closed before seating: {why}")

    async def _handshake(self, stream: trio.SocketStream,
                         ready: trio.MemorySendChannel[_Profile | _StandInSeat],
                         scope: trio.CancelScope) -> None:
        """Read the profile within the deadline; a bad or late one closes the connection,
        and so does the server when it needs the room for a newer connection (``scope``)."""
        timeout = self.config.profile_timeout
        seated = False
        try:
            with scope:
                set_nodelay(stream)
                with trio.fail_after(seconds(timeout)):
                    raw = await receive_exact(stream, TABLE_BYTES)
                version, name = profile_version(raw)
                refusal = wire_refusal(version, self.config.rules)
                if refusal is not None:  # docs/PROTOCOL_EXTENSION.md §2: REFUSED, then close
                    self._rejected("refused", SeatStatus.MALFORMED, refusal)
                    await refuse(stream, version)
                    return
                ready.send_nowait(_Profile(stream, version, name, profile_person(raw)))
                seated = True
            if scope.cancelled_caught:
                self.refused += 1
                self._rejected("room", SeatStatus.TIMEOUT, "no profile yet and the handshake "
                               "room was needed for a newer connection")
        except trio.TooSlowError:
            self._rejected("timeout", SeatStatus.TIMEOUT, f"no profile within {timeout:g} s")
        except (HandshakeError, ProtocolError) as exc:
            self._rejected("bad profile", SeatStatus.MALFORMED, f"a bad profile: {exc}")
        except (EOFError, OSError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            why = str(exc) or type(exc).__name__
            self._rejected("lost", SeatStatus.DISCONNECTED, f"left in the handshake: {why}")
        finally:
            self._waiting.pop(id(scope), None)
            if not seated:
                with trio.CancelScope(shield=True):
                    await stream.aclose()

    async def _number(self, item: _Profile, number: int) -> PlayerConnection | None:
        """Send the player number; the connection is seated if that works."""
        c = self.config
        try:
            with trio.fail_after(seconds(c.send_timeout)):
                await item.stream.send_all(encode_int(number, item.version))
        except (trio.TooSlowError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            log.warning("connection lost before seating player %d: %s", number,
                        exc if str(exc) else type(exc).__name__)
            with trio.CancelScope(shield=True):
                await item.stream.aclose()
            return None
        limit_send_buffer(item.stream)
        conn = PlayerConnection(item.stream, number, item.name or f"player{number}",
                                item.version, send_timeout=c.send_timeout)
        person = item.person and c.human_seats
        if item.person:  # (with or without deadlines) a person sees each table at once
            self._watched.add(number)
        if item.person and not person:
            log.warning("player %d (%r) says a person plays it; this server gives people "
                        "the usual deadlines (--no-human-seats)", number, conn.name)
        info = PlayerInfo(number, conn.name, item.version, person=person)
        self.players.append(info)
        log.info("player %d joined: %r (protocol %d)", number, conn.name, item.version)
        self.observer.player_joined(info)
        return conn


async def serve_match(config: ServerConfig, observer: MatchObserver | None = None, *,
                      task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
                      ) -> MatchOutcome:
    """Run one match; ``nursery.start(serve_match, config)`` returns the bound port."""
    return await MatchServer(config, observer).run(task_status=task_status)
