"""The seats of a match: who plays each (its connection or a stand-in), its faults, its time.

:class:`SeatTable` applies the fault policy of :mod:`daihinmin.driver.faults`: it counts
faults, hands a seat to its stand-in (closing the connection) at the fault limit or when the
connection is gone, checks the connections' health before each request, and records every
hand-over as a :class:`~daihinmin.driver.faults.SeatEvent` for the game record.

Time: each request gets its own deadline (``move_timeout`` or ``exchange_timeout``) plus
whatever is left of the seat's time bank (``time_bank`` seconds per match); the part of a
reply's time beyond its own deadline is taken from the bank, and a timeout empties it.
"""

from __future__ import annotations

import logging
import select
from dataclasses import dataclass
from typing import Protocol

from daihinmin.driver.faults import OnFault, SeatEvent, SeatReport, SeatStatus

from .config import ServerConfig
from .connection import PlayerConnection
from .stand_in import StandIn

log = logging.getLogger("daihinmin.server")

NOTED = "noted"  # the action of an event about a seat that was already handed over
FAULT = "fault"  # the action of an event for a fault outside any turn (bytes nobody asked for)


class HeldWrites(Protocol):
    """What a game's outbox still holds for the players (deferred writes)."""

    async def release(self, player: int) -> None:
        """Write what is held for ``player`` (with the send deadline)."""

    def release_now(self, player: int) -> None:
        """Write what is held for ``player`` if the socket takes it now (no waiting)."""


@dataclass
class Seat:
    number: int
    conn: PlayerConnection | None  # None once a stand-in plays (or from the start)
    report: SeatReport
    bank: float = 0.0  # seconds of extra time left this match
    stand_in: StandIn | None = None
    counted: int = 0  # faults counted towards the limit
    crashed: str | None = None  # set when the player's process is known to have crashed
    crashed_as: SeatStatus = SeatStatus.CRASHED  # TIMEOUT if a CPU or wall limit stopped it
    restored: bool = False  # handed over before a restart: the server closed this connection
    seen_game: int = 0  # the last game the stand-in was told about (games only go up)
    person: bool = False  # a person plays (its profile said so): no move/exchange deadline
    # A person watches this seat's tables as they come (its profile said so, whatever the
    # deadlines): deferred writes never hold them back.
    watched: bool = False

    @property
    def live(self) -> bool:
        return self.conn is not None

    def deadline(self, base: float | None) -> float | None:
        """Seconds the player has for this request (None: no deadline)."""
        if self.person:
            return None
        return base + self.bank if base else None

    def charge(self, base: float | None, elapsed: float) -> None:
        """Take the time used beyond ``base`` from the bank."""
        if base and elapsed > base:
            self.bank = max(0.0, self.bank - (elapsed - base))


class SeatTable:
    """The match's seats (index = player number) and the fault policy applied to them."""

    def __init__(self, seats: list[Seat], config: ServerConfig) -> None:
        self.seats = seats
        self.config = config
        # No stand-in plays any seat (the usual case): whatever tells the stand-ins about
        # each turn has nothing to do.  Goes False for good when a stand-in takes a seat.
        self.all_live = all(s.stand_in is None for s in seats)
        self.on_fault = OnFault(config.on_fault)
        self.events: list[SeatEvent] = []  # since the last take_events()
        self.game = 0  # where the match is, for the events
        self.turn = 0
        # The connections read without a read task, their poll object and them by fd.
        self._polled: tuple[tuple[object, ...], select.poll | None,
                            dict[int, PlayerConnection]] = ((), None, {})
        # The game's outbox: what it still holds for a player is written before the
        # player's connection is closed (deferred writes), as it would have been at once.
        self.held: HeldWrites | None = None

    @classmethod
    def of(cls, conns: list[PlayerConnection | None], config: ServerConfig,
           banks: list[float] | None = None, persons: list[bool] | None = None,
           watched: list[bool] | None = None) -> SeatTable:
        seats = [Seat(p, conn, SeatReport(p),
                      bank=banks[p] if banks is not None else config.time_bank,
                      person=bool(persons and p < len(persons) and persons[p]),
                      watched=bool(watched and p < len(watched) and watched[p]))
                 for p, conn in enumerate(conns)]
        return cls(seats, config)

    def __getitem__(self, player: int) -> Seat:
        return self.seats[player]

    def __len__(self) -> int:
        return len(self.seats)

    def at(self, game: int, turn: int) -> None:
        self.game, self.turn = game, turn

    def take_events(self) -> list[SeatEvent]:
        events, self.events = self.events, []
        return events

    def reports(self) -> list[SeatReport]:
        return [s.report for s in self.seats]

    def banks_ms(self) -> list[int]:
        return [round(s.bank * 1000) for s in self.seats]

    async def restore(self, reports: list[SeatReport]) -> None:
        """Take over the seats' reports from before a restart (``--resume``): the counts go
        on towards the fault limit, and a seat that was handed over keeps its stand-in (the
        connection it came back with is closed)."""
        for old in reports:
            seat = self.seats[old.player]
            seat.report = old.copy()
            seat.counted = sum(n for kind, n in old.faults.items()
                               if self.counts_against(SeatStatus(kind)))
            if old.stand_in is None:
                continue
            seat.stand_in = self._new_stand_in(old.player, OnFault(old.stand_in))
            self.all_live = False
            seat.restored = True
            if seat.conn is not None:
                conn, seat.conn = seat.conn, None
                await conn.aclose()
            log.warning("player %d was handed to its %s stand-in in game %s before the "
                        "restart; the stand-in keeps the seat", old.player, old.stand_in,
                        old.since_game)

    def _new_stand_in(self, player: int, kind: OnFault) -> StandIn:
        """The stand-in of ``player``'s seat (seeded per match and seat)."""
        return StandIn.make(player, kind, self.config.fallback,
                            seed=self.config.seed * 8 + player)

    # --- the policy ---------------------------------------------------------------------
    def counts_against(self, kind: SeatStatus) -> bool:
        return kind in (SeatStatus.TIMEOUT, SeatStatus.MALFORMED) or (
            kind is SeatStatus.ILLEGAL and self.config.illegal_counts)

    async def fault(self, player: int, kind: SeatStatus, detail: str) -> None:
        """A fault that costs the seat its move (or its exchange choice)."""
        seat = self.seats[player]
        seat.report.count(kind)
        seat.report.detail = detail
        log.warning("game %d turn %d: player %d %s: %s", self.game, self.turn, player,
                    kind, detail)
        if seat.stand_in is not None or not self.counts_against(kind):
            return
        seat.counted += 1
        limit = self.config.fault_limit
        if limit and seat.counted >= limit:
            await self.hand_over(player, kind, f"{seat.counted} faults (limit {limit}); "
                                               f"last: {detail}", counted=True)

    async def lost(self, player: int, detail: str) -> None:
        """The connection is gone: the stand-in plays from now on."""
        seat = self.seats[player]
        status = seat.crashed_as if seat.crashed else SeatStatus.DISCONNECTED
        await self.hand_over(player, status, seat.crashed or detail)

    async def hand_over(self, player: int, status: SeatStatus, detail: str,
                        counted: bool = False) -> None:
        """The stand-in plays the seat from now on (``counted``: the fault is counted)."""
        seat = self.seats[player]
        report = seat.report
        if seat.stand_in is not None:
            return
        if not counted:
            report.count(status)
        report.status, report.detail = status, detail
        report.stand_in = str(self.on_fault)
        report.since_game, report.since_turn = self.game, self.turn
        # The stand-in first: if the release below fails to write, it hands this seat over
        # again, and that call returns at once.
        seat.stand_in = self._new_stand_in(player, self.on_fault)
        self.all_live = False
        if seat.conn is not None and self.held is not None:
            await self.held.release(player)
        if seat.conn is not None:
            conn, seat.conn = seat.conn, None
            await conn.aclose()
        self.events.append(SeatEvent(player, self.game, self.turn, status, str(self.on_fault),
                                     detail))
        log.warning("game %d turn %d: player %d %s (%s): the %s stand-in plays the seat from "
                    "now on", self.game, self.turn, player, status, detail, self.on_fault)

    def seat_stand_in(self, player: int, status: SeatStatus, detail: str) -> None:
        """A seat that never got a working player (or whose stand-in was asked for:
        ``REQUESTED``, no fault): the stand-in plays it from the start."""
        seat = self.seats[player]
        if seat.stand_in is not None:  # restored from before a restart
            return
        if status is not SeatStatus.REQUESTED:
            seat.report.count(status)
        seat.report.status, seat.report.detail = status, detail
        seat.report.stand_in = str(self.on_fault)
        seat.report.since_game, seat.report.since_turn = 1, 0
        seat.stand_in = self._new_stand_in(player, self.on_fault)
        self.all_live = False

    def process_crashed(self, player: int, detail: str,
                        status: SeatStatus = SeatStatus.CRASHED) -> None:
        """The player's process exited abnormally (the headless runner tells the server).

        The connection closing is what hands the seat over; if that already happened (it
        was DISCONNECTED) the status becomes CRASHED and an event notes it.  A process that
        exits after the server closed its connection (a seat handed over for its faults)
        keeps the status that made the server close it, and so does one whose seat was handed
        over before a restart (its new connection was closed by the server at once)."""
        seat = self.seats[player]
        seat.crashed, seat.crashed_as = detail, status
        if seat.restored:
            return
        if seat.stand_in is not None and seat.report.status is SeatStatus.DISCONNECTED:
            seat.report.status = status
            seat.report.count(status)
            seat.report.detail = detail
            self.events.append(SeatEvent(player, self.game, self.turn, status, NOTED, detail))

    def _read_ready(self) -> None:
        """What the players sent since the last look, taken in for the connections that no
        read task reads: one ``poll`` for all of them, then a read of those with bytes (or
        an end) waiting.  The poll object is kept while the seats' connections and who
        reads them stay the same (every turn; a connection that ended meanwhile reads
        nothing more, and the check after this hands its seat over)."""
        key = (PlayerConnection.readers_changed, *[s.conn for s in self.seats])
        if self._polled[0] != key:
            pulled = [s.conn for s in self.seats
                      if s.conn is not None and s.conn.pulled and s.conn.ended is None]
            fresh = select.poll() if pulled else None
            by_fd = {}
            for conn in pulled:
                assert conn.sock is not None and fresh is not None
                fresh.register(conn.sock.fileno(), select.POLLIN)
                by_fd[conn.sock.fileno()] = conn
            self._polled = (key, fresh, by_fd)
        _, poller, by_fd = self._polled
        if poller is not None:
            for fd, _events in poller.poll(0):
                by_fd[fd].read_ready()

    def troubled(self) -> bool:
        """Take in what the players sent since the last look; True when :meth:`check` has
        something to do (a connection ended or flooded, or bytes nobody asked for came).
        Callers on the hot path skip the check's await when it has nothing to do."""
        self._read_ready()
        for seat in self.seats:
            conn = seat.conn
            if conn is not None and (conn.buffer or conn.ended is not None):
                return True
        return False

    async def check(self) -> None:
        """Before a request: hand over dead connections; drop bytes nobody asked for."""
        self._read_ready()
        for seat in self.seats:
            conn = seat.conn
            if conn is None or (not conn.buffer and conn.ended is None):
                continue  # the usual case, every turn: nothing came that nobody asked for
            if conn.flooded:
                await self.hand_over(seat.number, SeatStatus.MALFORMED, conn.ended or "flooded")
            elif conn.ended is not None:
                await self.lost(seat.number, conn.ended)
            else:
                extra = conn.drop_unsolicited()
                if extra:
                    detail = f"sent {extra} bytes nobody asked for (thrown away)"
                    self.events.append(SeatEvent(seat.number, self.game, self.turn,
                                                 SeatStatus.MALFORMED, FAULT, detail))
                    await self.fault(seat.number, SeatStatus.MALFORMED, detail)

    async def close_all(self) -> None:
        """Close every connection (the match is over, or failed): what an outbox still
        holds is written first if the socket takes it at once."""
        for seat in self.seats:
            if seat.conn is not None and self.held is not None:
                self.held.release_now(seat.number)
            if seat.conn is not None:
                conn, seat.conn = seat.conn, None
                await conn.aclose()


__all__ = ["FAULT", "NOTED", "HeldWrites", "Seat", "SeatTable"]
