"""Server-side player connections paired with client streams over real TCP on 127.0.0.1."""

from __future__ import annotations

import trio
from daihinmin.server.connection import PlayerConnection

HOST = "127.0.0.1"


async def loopback_pairs(count: int) -> list[tuple[PlayerConnection, trio.SocketStream]]:
    """``count`` (server connection of player n, its client's stream), accepted in order."""
    listeners = await trio.open_tcp_listeners(0, host=HOST)
    port = listeners[0].socket.getsockname()[1]
    pairs = []
    for number in range(count):
        client = await trio.open_tcp_stream(HOST, port)
        server = await listeners[0].accept()
        pairs.append((PlayerConnection(server, number, f"p{number}", send_timeout=1.0),
                      client))
    await listeners[0].aclose()
    return pairs
