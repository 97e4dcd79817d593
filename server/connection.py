"""One seated player's TCP connection: whole messages in, whole messages out.

Every message goes out with one ``send_all`` call; a receive loops until every byte of the
message is in.  Each receive may carry a deadline (seconds), so fault policies can be added
without touching the match loop.
"""

from __future__ import annotations

import socket
import struct

import trio
from daihinmin.protocol.table import CELLS, PROTOCOL_20070, Table, encode_int, table_size

from .errors import PlayerDisconnectedError, PlayerTimeoutError

_BIG_ENDIAN_TABLE = struct.Struct(f">{CELLS}I")


def set_nodelay(stream: trio.SocketStream) -> None:
    """Small messages must leave at once: disable Nagle on every socket."""
    stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


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

    def __init__(self, stream: trio.SocketStream, number: int, name: str,
                 version: int = PROTOCOL_20070) -> None:
        self.stream = stream
        self.number = number
        self.name = name
        self.version = version
        self.table_bytes = table_size(version)

    def encode_table(self, table: Table) -> bytes:
        if self.version == PROTOCOL_20070:
            # Server tables hold only small non-negative values: no clamping pass needed.
            return _BIG_ENDIAN_TABLE.pack(*table.cells)
        return table.to_bytes(self.version)

    def encode_int(self, value: int) -> bytes:
        return encode_int(value, self.version)

    async def send(self, data: bytes) -> None:
        """One message in one write."""
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise PlayerDisconnectedError(self.number, f"send failed: {exc}") from exc

    async def send_table(self, table: Table) -> None:
        await self.send(self.encode_table(table))

    async def send_int(self, value: int) -> None:
        await self.send(self.encode_int(value))

    async def receive_table_bytes(self, timeout: float | None = None) -> bytes:
        """The raw bytes of one table (480, or 33 for protocol 20140)."""
        try:
            with trio.fail_after(timeout if timeout is not None else float("inf")):
                return await receive_exact(self.stream, self.table_bytes)
        except trio.TooSlowError as exc:
            raise PlayerTimeoutError(self.number, f"no table within {timeout} s") from exc
        except (EOFError, trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            raise PlayerDisconnectedError(self.number, f"receive failed: {exc}") from exc

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            await self.stream.aclose()
