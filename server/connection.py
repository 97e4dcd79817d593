"""One seated player's TCP connection: whole messages in, whole messages out, with deadlines.

Every message goes out with one ``send_all`` call, bounded by the send deadline: a player
that stops reading cannot block the table (:meth:`PlayerConnection.watch_sends`).  What the
player sends is kept in a bounded buffer, so a receive that times out loses no byte: a table
that arrives after its deadline is recognised as *stale* and thrown away when it comes, and
the next table read is the one that was asked for.  Bytes the server did not ask for are found
before each request (:meth:`PlayerConnection.unsolicited`) and dropped; a player that sends
more than a few tables' worth of them is cut off (``flooded``).

Who reads: over a plain socket, nobody in between (``pulled``).  A request first takes what
the kernel already holds, then waits on the socket itself, and the seats' check before each
request takes in what every connection sent since (:meth:`PlayerConnection.read_ready`, after
one ``poll`` for them all): one task per table, so a move costs one task switch, not two.  A
stream with no plain socket under it is read by a reader task
(:meth:`PlayerConnection.read_loop`, run in the match's nursery) that wakes the waiting
request; so is any connection whose owner runs that task.  Both ways take in the same bytes
under the same limits (``_absorb``, ``_room``).
"""

from __future__ import annotations

import contextlib
import math
import socket
import struct

import trio
from daihinmin.protocol.table import CELLS, PROTOCOL_20070, Table, encode_int, table_size

from .errors import PlayerDisconnectedError, PlayerTimeoutError

_BIG_ENDIAN_TABLE = struct.Struct(f">{CELLS}I")
RECEIVE_CHUNK = 4096
# Tables' worth of bytes a player may have sent beyond those the server waits for before it
# counts as flooding.  An honest client never has more than the owed tables in flight.
SPARE_TABLES = 4
# Late tables still owed that the buffer makes room for: without a fault limit a silent seat
# owes one more per timeout for ever, and the buffer must not grow with that (beyond this many
# late tables arriving at once are bytes nobody asked for: dropped, MALFORMED).
MAX_OWED_TABLES = 4
SEND_BUFFER_BYTES = 64 * 1024
# Requests served from bytes already there, per connection, between two yields to Trio.
QUICK_READS_PER_YIELD = 8
_INTS_20070 = tuple(encode_int(v, PROTOCOL_20070) for v in range(16))
_NO_DEADLINE = contextlib.nullcontext()  # reusable: a wait with no deadline


def set_nodelay(stream: trio.SocketStream) -> None:
    """Small messages must leave at once: disable Nagle on every socket."""
    stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def limit_send_buffer(stream: trio.SocketStream) -> None:
    """A fixed send buffer: a player that stops reading blocks the server's writes (and so
    meets the send deadline) after tens of kilobytes, not megabytes of auto-tuned buffer.
    An honest client never has more than a few tables unread."""
    stream.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)


def plain_socket(stream: trio.SocketStream) -> socket.socket | None:
    """The stdlib socket under a Trio stream (non-blocking), or None when there is none.
    Trio keeps it private, hence the guarded lookup; callers fall back to the stream."""
    sock = getattr(getattr(stream, "socket", None), "_sock", None)
    return sock if isinstance(sock, socket.socket) else None


def seconds(limit: float | None) -> float:
    """A deadline setting as seconds for Trio: ``None`` or 0 mean no deadline."""
    return limit if limit else math.inf


async def receive_exact(stream: trio.SocketStream, size: int) -> bytes:
    """Exactly ``size`` bytes; raises :class:`EOFError` if the peer closes first."""
    chunks = bytearray()
    while len(chunks) < size:
        data = await stream.receive_some(size - len(chunks))
        if not data:
            raise EOFError(f"connection closed after {len(chunks)} of {size} bytes")
        chunks += data
    return bytes(chunks)


class PlayerConnection:
    """The stream of player ``number`` speaking protocol ``version``."""

    # Goes up whenever a read task starts or stops on any connection: the seats' check
    # keeps its poll object while this and the seats' connections are unchanged.
    readers_changed = 0

    def __init__(self, stream: trio.SocketStream, number: int, name: str,
                 version: int = PROTOCOL_20070, *, send_timeout: float | None = None) -> None:
        self.stream = stream
        self.sock = plain_socket(stream)  # the stdlib socket under it (None: stream only)
        self.number = number
        self.name = name
        self.version = version
        self.table_bytes = table_size(version)
        self.send_timeout = send_timeout
        self.buffer = bytearray()  # received, not yet consumed
        self.stale = 0  # tables owed for requests that timed out (thrown away on arrival)
        self.ended: str | None = None  # why the receive side stopped (closed, reset, flood)
        self.flooded = False
        self.closed = False
        self.sending_since: float | None = None  # trio.current_time() of a write under way
        self.stalled = False  # a write blocked past the send deadline
        self._changed = trio.Event()
        self._awaited = False  # a request waits on _changed (the read task wakes it)
        self._quick = 0  # requests served at once since the last yield to the scheduler
        self._reader = False  # a read_loop task runs (else the requests and checks read)

    # --- encoding -------------------------------------------------------------------------
    def encode_table(self, table: Table) -> bytes:
        if self.version == PROTOCOL_20070:
            # Server tables hold only small non-negative values: no clamping pass needed.
            return _BIG_ENDIAN_TABLE.pack(*table.cells)
        return table.to_bytes(self.version)

    def encode_int(self, value: int) -> bytes:
        if self.version == PROTOCOL_20070 and 0 <= value < len(_INTS_20070):
            return _INTS_20070[value]  # the answers and end flags: packed once
        return encode_int(value, self.version)

    # --- sending --------------------------------------------------------------------------
    async def send(self, data: bytes) -> None:
        """One message in one write; :meth:`watch_sends` breaks a write that blocks past the
        send deadline (no cancel scope per message: writes are the server's hot path)."""
        if self.closed:
            raise PlayerDisconnectedError(self.number, "the connection is closed")
        self.sending_since = trio.current_time()
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            if self.stalled:
                raise PlayerTimeoutError(self.number, f"a write blocked for "
                                                      f"{self.send_timeout:g} s: the player "
                                                      "does not read") from exc
            raise PlayerDisconnectedError(self.number, f"send failed: {exc}") from exc
        finally:
            self.sending_since = None

    async def watch_sends(self) -> None:
        """Close the connection when a write has blocked for the send deadline (a match
        task; checks four times per deadline)."""
        if not self.send_timeout:
            return
        while not self.closed:
            await trio.sleep(self.send_timeout / 4)
            since = self.sending_since
            if since is not None and trio.current_time() - since >= self.send_timeout:
                self.stalled = True
                self.ended = "the player stopped reading"
                await self.aclose()  # the blocked write fails at once

    async def send_table(self, table: Table) -> None:
        await self.send(self.encode_table(table))

    async def send_int(self, value: int) -> None:
        await self.send(self.encode_int(value))

    # --- receiving ------------------------------------------------------------------------
    @property
    def buffer_limit(self) -> int:
        return (self.stale + SPARE_TABLES) * self.table_bytes

    async def read_loop(self) -> None:
        """Buffer what the player sends until it closes, breaks or floods (a match task).

        Reads the plain socket under Trio's stream where there is one: one ``recv`` per
        wake-up, and no ``recv`` that finds nothing before the next wait when the last one
        emptied the socket (fewer system calls and scheduler passes per move)."""
        sock = self.sock
        self._set_reader(True)
        try:
            if sock is None:
                while self._room() >= 0:
                    if not self._absorb(await self.stream.receive_some(self._chunk())):
                        return
                return
            drained = False
            while self._room() >= 0:
                if drained:
                    await trio.lowlevel.wait_readable(sock)
                chunk = self._chunk()
                try:
                    data = sock.recv(chunk)
                except BlockingIOError:
                    drained = True
                    continue
                if not self._absorb(data):
                    return
                drained = len(data) < chunk
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            self._failed(exc)
        finally:
            self._set_reader(False)
            self._notify()

    def _set_reader(self, running: bool) -> None:
        self._reader = running
        PlayerConnection.readers_changed += 1

    def _failed(self, exc: BaseException) -> None:
        self.ended = self.ended or f"receive failed: {exc or type(exc).__name__}"

    @property
    def pulled(self) -> bool:
        """No read task runs and there is a plain socket: the requests and the seats'
        check read (:meth:`read_ready`) what the read task would have taken."""
        return self.sock is not None and not self._reader

    def read_ready(self) -> None:
        """Take what the kernel holds now, without waiting, as the read task would: until
        it would block, the stream ends or fails, or the buffer is full (a flood)."""
        sock = self.sock
        assert sock is not None
        while self.ended is None and self._room() >= 0:
            chunk = self._chunk()
            try:
                data = sock.recv(chunk)
            except BlockingIOError:
                return
            except OSError as exc:
                self._failed(exc)
                return
            if not self._absorb(data) or len(data) < chunk:
                return

    def _room(self) -> int:
        """Bytes the buffer may still take; below 0 the player flooded (and is cut off)."""
        room = self.buffer_limit - len(self.buffer)
        if room < 0 and not self.flooded:
            self.flooded = True
            self.ended = f"flooded: {len(self.buffer)} bytes nobody asked for"
        return room

    def _chunk(self) -> int:
        return min(RECEIVE_CHUNK, self.buffer_limit - len(self.buffer) + 1)

    def _absorb(self, data: bytes) -> bool:
        """Keep what came (late tables thrown away) and wake a waiting request; False at
        the end of the stream."""
        if not data:
            self.ended = self.ended or "the player closed the connection"
            return False
        self.buffer += data
        size = self.table_bytes
        while self.stale and len(self.buffer) >= size:  # a late table: thrown away
            del self.buffer[:size]
            self.stale -= 1
        self._notify()
        return True

    def _read_now(self) -> None:
        """Take what the player has sent already, without waiting (a request's first look:
        a quick reply is used at once, with no pass through the read task)."""
        sock = self.sock
        if sock is None or self.ended is not None:
            return
        room = (self.stale + SPARE_TABLES) * self.table_bytes - len(self.buffer)  # _room
        if room < 0:
            self._room()  # a flood: cut off
            return
        try:
            data = sock.recv(min(RECEIVE_CHUNK, room + 1))  # _chunk
        except OSError:  # nothing there yet, or an error the reader or the wait reports
            return
        if data:  # the end of the stream is left to the reader or the wait, which stop on it
            self._absorb(data)

    def _notify(self) -> None:
        """Wake the request waiting on the read task, if one waits (only that request
        waits on ``_changed``: without a waiter no new event is made)."""
        if self._awaited:
            self._awaited = False
            self._changed.set()
            self._changed = trio.Event()

    def unsolicited(self) -> int:
        """Bytes in the buffer beyond the stale tables still owed (nobody asked for them)."""
        return max(0, len(self.buffer) - self.stale * self.table_bytes)

    def drop_unsolicited(self) -> int:
        """Throw away everything buffered when some of it was not asked for; returns the
        number of unsolicited bytes (the owed stale tables are dropped with them)."""
        extra = self.unsolicited()
        if extra:
            self.buffer.clear()
            self.stale = 0
        return extra

    async def receive_table_bytes(self, timeout: float | None = None) -> bytes:
        """The raw bytes of the table asked for now (480, or 33 for protocol 20140).

        Stale tables still owed are skipped first; on a timeout this request is owed too.
        """
        size, buffer = self.table_bytes, self.buffer  # (the buffer is only ever changed
        need = (self.stale + 1) * size                # in place)
        if len(buffer) < need:
            self._read_now()
            need = (self.stale + 1) * size  # late tables may have been dropped
        if len(buffer) < need:
            if self.pulled:
                await self._pull_table(timeout)
            else:
                await self._wait_for_table(timeout)
        else:
            # A request whose table was there at once never waited: now and then it lets
            # the other tasks (signals, send deadlines, the other readers) run, or a table
            # of quick players could play on without them.
            self._quick += 1
            if self._quick >= QUICK_READS_PER_YIELD:
                self._quick = 0
                await trio.lowlevel.checkpoint()
        need = (self.stale + 1) * size  # after the waits: late tables may have been dropped
        if len(buffer) < need:
            got = max(0, len(buffer) - self.stale * size)
            self.stale = min(self.stale + 1, MAX_OWED_TABLES)
            raise PlayerTimeoutError(self.number, f"no table within {timeout:g} s"
                                     + (f" ({got} of {size} bytes)" if got else ""))
        if len(buffer) == need == size:  # the usual case: exactly the table asked for
            data = bytes(buffer)
            buffer.clear()
        else:
            data = bytes(buffer[need - size:need])
            del buffer[:need]
        self.stale = 0
        return data

    async def _wait_for_table(self, timeout: float | None) -> None:
        """Until the table asked for is buffered, the stream ends, or ``timeout`` passes."""
        size = self.table_bytes
        with trio.move_on_after(seconds(timeout)):
            while len(self.buffer) < (self.stale + 1) * size:
                self._raise_if_ended()
                self._awaited = True
                await self._changed.wait()

    async def _pull_table(self, timeout: float | None) -> None:
        """:meth:`_wait_for_table` with no read task: this request waits on the socket
        itself and reads on each wake-up (one task switch per move fewer)."""
        size, sock = self.table_bytes, self.sock
        assert sock is not None
        # No deadline (a person's seat, a time of 0): no cancel scope (6-9 us a wait) either
        with trio.move_on_after(timeout) if timeout else _NO_DEADLINE:
            while len(self.buffer) < (self.stale + 1) * size:
                self._raise_if_ended()
                try:
                    await trio.lowlevel.wait_readable(sock)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    self._failed(exc)
                    continue
                self.read_ready()

    def _raise_if_ended(self) -> None:
        if self.ended is not None:
            size = self.table_bytes
            got = max(0, len(self.buffer) - self.stale * size)
            raise PlayerDisconnectedError(
                self.number, f"{self.ended} ({got} of {size} bytes of the table)")

    async def aclose(self) -> None:
        self.closed = True
        with trio.CancelScope(shield=True):
            await self.stream.aclose()
