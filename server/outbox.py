"""Messages to the players, in the protocol's order, written exactly or gathered per player.

Exact mode (the default) writes every message with its own ``send_all`` as soon as it is
queued, so the writes across the sockets follow the reference server one by one.  Coalesce
mode keeps each player's queued messages until the server next waits for input (``flush``)
and then writes them with one ``send_all`` per player, in the order the players were first
queued.  Each connection carries the very same bytes in the very same order either way; only
the number of writes (and so the wake-ups of every client) changes.
"""

from __future__ import annotations

import time

from daihinmin.protocol.table import Table

from .connection import PlayerConnection


class Outbox:
    def __init__(self, conns: list[PlayerConnection], coalesce: bool = False) -> None:
        self.conns = conns
        self.coalesce = coalesce
        self.pending: dict[int, list[bytes]] = {}  # insertion order = flush order
        self.written_at = [0.0] * len(conns)  # perf_counter() of each player's last write

    async def _queue(self, player: int, data: bytes) -> None:
        if self.coalesce:
            self.pending.setdefault(player, []).append(data)
            return
        await self.conns[player].send(data)
        self.written_at[player] = time.perf_counter()

    async def table(self, player: int, table: Table) -> None:
        await self._queue(player, self.conns[player].encode_table(table))

    async def int(self, player: int, value: int) -> None:
        await self._queue(player, self.conns[player].encode_int(value))

    async def table_to_all(self, table: Table) -> None:
        """The same table to players 0..n-1, encoded once per protocol version."""
        encoded: dict[int, bytes] = {}
        for player, conn in enumerate(self.conns):
            data = encoded.get(conn.version)
            if data is None:
                data = encoded[conn.version] = conn.encode_table(table)
            await self._queue(player, data)

    async def int_to_all(self, value: int) -> None:
        for player in range(len(self.conns)):
            await self.int(player, value)

    async def flush(self) -> None:
        """Write what is queued (coalesce mode); call before waiting for any player."""
        pending, self.pending = self.pending, {}
        for player, chunks in pending.items():
            await self.conns[player].send(b"".join(chunks))
            self.written_at[player] = time.perf_counter()
