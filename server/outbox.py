"""Messages to the players, in the protocol's order: written at once, gathered, or deferred.

The three write modes (:class:`~daihinmin.server.config.WriteMode`):

* exact (the default) writes every message with its own send as soon as it is queued, so
  the writes across the sockets follow the reference server one by one;
* coalesced keeps each player's queued messages until the server next waits for any player
  (:meth:`Outbox.flush`) and then writes them with one send per player, in the order the
  players were first queued;
* deferred keeps them until the server waits for *that* player's reply (its turn, its
  exchange, its choice: ``flush(player)``), the game ends (``flush()``: everyone), the
  server closes the player's connection (:meth:`release`), or :data:`HELD_CHUNKS` chunks
  are held for it (then they go at the next wait: a player who is out, or not asked for a
  long time).  So what is held for a player is at most 32 chunks of at most one table and
  an end flag each, about 16 turns (at most ~31 KB; 15.5 KB with 20070 tables), and each
  write is small enough for the socket to take whole: a client reading exactly one table
  per ``read()`` never gets part of one.  A player who is not to answer wakes once for all
  the tables since its last answer instead of once per turn.  Seats a person watches
  (``Seat.watched``) are flushed at every wait, as coalesced.

Each connection carries the very same bytes in the very same order in every mode; only the
number and the timing of the writes (and so the wake-ups of every client) change.  A
player's deadline starts after its own flush.

A write is first tried as one plain non-blocking ``send`` on the socket (a few microseconds);
only when the socket would block, or took part of the bytes, does the rest go through the
connection's ``send`` and so Trio's wait and the send deadline.  Errors take that path too,
so they are reported as before.

Seats played by a stand-in get nothing.  A write that fails hands the seat to its stand-in
(DISCONNECTED), and so does one that blocks past the send deadline (TIMEOUT: the player
does not read); the other players' messages go on.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable
from typing import Any

from daihinmin.driver.faults import SeatStatus
from daihinmin.protocol.table import Table

from .config import WriteMode
from .connection import PlayerConnection
from .errors import PlayerDisconnectedError, PlayerTimeoutError
from .seats import SeatTable

# Chunks (a table, an int, or a turn's field table and end flag) held for one player before
# they are written anyway: a write of many tables (~100 KB for a player out early in a long
# game) is taken by the kernel in parts, and a strict reader then gets part of a table.
HELD_CHUNKS = 32


class Outbox:
    def __init__(self, seats: SeatTable, mode: WriteMode = WriteMode.EXACT) -> None:
        self.seats = seats
        self.coalesce = mode != WriteMode.EXACT  # queue, and write at a flush
        self.deferred = mode == WriteMode.DEFERRED
        self.watched = tuple(s.number for s in seats.seats if s.watched)
        self.pending: dict[int, list[bytes]] = {}  # insertion order = flush order
        self.written_at = [0.0] * len(seats)  # perf_counter() of each player's last write
        if self.coalesce:
            seats.held = self  # a connection is closed: what is held for it goes out first

    async def _send(self, player: int, data: bytes) -> None:
        conn = self.seats.seats[player].conn  # the list itself: once per message
        if conn is not None:
            rest = self._send_now(player, conn, data)
            if rest:
                await self._send_rest(player, conn, rest)

    def _send_now(self, player: int, conn: PlayerConnection, data: bytes) -> bytes:
        """One plain non-blocking send (every write of every turn comes here); returns what
        the socket did not take, for :meth:`_send_rest`."""
        sock = conn.sock
        if sock is None or conn.closed:
            return data
        try:
            sent = sock.send(data)
        except OSError:  # BlockingIOError, or a broken pipe the connection's send reports
            return data
        if sent == len(data):
            self.written_at[player] = time.perf_counter()
            return b""
        return data[sent:]

    async def _send_rest(self, player: int, conn: PlayerConnection, data: bytes) -> None:
        """The connection's own send, with Trio's wait and the send deadline."""
        try:
            await conn.send(data)
        except PlayerTimeoutError as exc:
            await self.seats.hand_over(player, SeatStatus.TIMEOUT, exc.message)
        except PlayerDisconnectedError as exc:
            await self.seats.lost(player, exc.message)
        self.written_at[player] = time.perf_counter()

    async def _queue(self, player: int, data: bytes) -> None:
        if self.coalesce:
            chunks = self.pending.get(player)
            if chunks is None:
                self.pending[player] = [data]
            else:
                chunks.append(data)
            return
        await self._send(player, data)

    def hold_each(self, messages: list[bytes]) -> None:
        """:meth:`raw_each` when coalescing (``self.coalesce``): only queued, so no await."""
        pending, get, seats = self.pending, self.pending.get, self.seats.seats
        assert len(messages) == len(seats)
        for number, data in enumerate(messages):  # (a seat's index is its number; half
            if seats[number].conn is not None:    # the time of zip and seat.number)
                chunks = get(number)
                if chunks is None:
                    pending[number] = [data]
                else:
                    chunks.append(data)

    def hold_int(self, player: int, value: int) -> None:
        """:meth:`int` when coalescing (``self.coalesce``): only queued, so no await."""
        conn = self.seats.seats[player].conn
        if conn is not None:
            data = conn.encode_int(value)
            chunks = self.pending.get(player)
            if chunks is None:
                self.pending[player] = [data]
            else:
                chunks.append(data)

    async def raw(self, player: int, data: bytes) -> None:
        """Bytes already encoded for this player's protocol version."""
        if self.seats[player].conn is not None:
            await self._queue(player, data)

    async def raw_each(self, messages: list[bytes]) -> None:
        """``messages[p]`` to each seated player ``p``, in player order: :meth:`raw` for
        each, with the coalesced queueing done in line (every turn's tables go this way)."""
        if self.coalesce:
            self.hold_each(messages)
            return
        for seat, data in zip(self.seats.seats, messages, strict=True):
            if seat.conn is not None:
                await self._send(seat.number, data)

    async def table(self, player: int, table: Table) -> None:
        conn = self.seats[player].conn
        if conn is not None:
            await self._queue(player, conn.encode_table(table))

    async def int(self, player: int, value: int) -> None:
        conn = self.seats.seats[player].conn
        if conn is not None:
            await self._queue(player, conn.encode_int(value))

    async def table_to_all(self, table: Table) -> None:
        """The same table to players 0..n-1, encoded once per protocol version."""
        await self._to_all(table, PlayerConnection.encode_table)

    async def raw_to_all(self, *messages: bytes) -> None:
        """The same 20070 messages to every seated player (all of them speak 20070), in
        order: one chunk per player when coalescing, else one write per message."""
        if self.coalesce:
            self.hold_each([b"".join(messages)] * len(self.seats))
        else:
            for data in messages:
                await self.raw_each([data] * len(self.seats))

    async def int_to_all(self, value: builtins.int) -> None:  # ``int`` is the method above
        await self._to_all(value, PlayerConnection.encode_int)

    async def _to_all(self, message: Any, encode: Callable[[PlayerConnection, Any], bytes]
                      ) -> None:
        encoded: dict[int, bytes] = {}
        pending = self.pending if self.coalesce else None
        for seat in self.seats.seats:
            conn = seat.conn
            if conn is None:
                continue
            data = encoded.get(conn.version)
            if data is None:
                data = encoded[conn.version] = encode(conn, message)
            if pending is not None:  # inline _queue: this runs for every message of a turn
                pending.setdefault(seat.number, []).append(data)
            else:
                await self._send(seat.number, data)

    async def flush(self, player: builtins.int | None = None) -> None:
        """Write what is queued; call before waiting for ``player``'s reply (coalesced: for
        everyone; deferred: for ``player`` and the watched seats), or with no player at the
        end of a game (everyone).  The plain send is tried in line: no task step per player
        unless a socket is full."""
        pending = self.pending
        if not pending:
            return
        if player is not None and self.deferred:
            # (one C-level pass first: a player is rarely held that long)
            full = ([n for n, chunks in pending.items() if len(chunks) >= HELD_CHUNKS]
                    if max(map(len, pending.values())) >= HELD_CHUNKS else ())
            # (a write that fails hands its seat over, which releases what is held for it:
            # each player's chunks are looked up again before they are written)
            chunks = pending.pop(player, None)
            if chunks is not None:  # _write, in line (every turn comes here)
                conn = self.seats.seats[player].conn
                if conn is not None:
                    rest = self._send_now(player, conn, chunks[0] if len(chunks) == 1
                                          else b"".join(chunks))
                    if rest:
                        await self._send_rest(player, conn, rest)
            for number in (*self.watched, *full):
                chunks = pending.pop(number, None)
                if chunks is not None:
                    await self._write(number, chunks)
            return
        self.pending = {}
        for number, chunks in pending.items():
            await self._write(number, chunks)

    async def _write(self, player: builtins.int, chunks: list[bytes]) -> None:
        conn = self.seats.seats[player].conn
        if conn is None:
            return
        rest = self._send_now(player, conn, chunks[0] if len(chunks) == 1
                              else b"".join(chunks))
        if rest:
            await self._send_rest(player, conn, rest)

    async def release(self, player: builtins.int) -> None:
        """Write what is held for ``player`` (its connection is about to be closed)."""
        chunks = self.pending.pop(player, None)
        if chunks:
            await self._write(player, chunks)

    def release_now(self, player: builtins.int) -> None:
        """What is held for ``player``, if its socket takes it now (the match is ending
        without its last flush, e.g. on an error: nothing may wait)."""
        chunks = self.pending.pop(player, None)
        conn = self.seats.seats[player].conn
        if chunks and conn is not None:
            self._send_now(player, conn, b"".join(chunks))
