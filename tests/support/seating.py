"""Seating clients of an in-process :class:`MatchServer` in a chosen order (player numbers).

Each client is started only when the one before it has been seated.  The wait polls the
server's players, so it holds for clients in this Trio run, in threads and in processes alike,
on the real clock and on the mock clock.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import trio
from daihinmin.client import Bot, MatchRecord
from daihinmin.client.trio_runner import run_bot_async
from daihinmin.server.match_server import MatchServer

HOST = "127.0.0.1"


async def seat(nursery: trio.Nursery, server: MatchServer,
               client: Callable[[], Awaitable[object]]) -> None:
    """Start ``client`` in ``nursery``; return once ``server`` has seated it."""
    seated = len(server.players)
    nursery.start_soon(client)
    while len(server.players) == seated:
        await trio.sleep(0.001)


async def seat_bots(nursery: trio.Nursery, server: MatchServer, port: int, bots: Iterable[Bot],
                    records: list[MatchRecord] | None = None, **options: Any) -> None:
    """Seat one Trio client (:func:`run_bot_async` with ``options``) per bot, in order; each
    client's record goes to ``records`` when its match is over."""
    for bot in bots:
        async def play(bot: Bot = bot) -> None:
            record = await run_bot_async(bot, HOST, port, **options)
            if records is not None:
                records.append(record)

        await seat(nursery, server, play)
