"""How a player's connection reads: the plain socket under Trio's stream, a request's first
look at what already came, and the stream-only fallback.  Real TCP on 127.0.0.1."""

from __future__ import annotations

import struct

import pytest
import trio
import trio.testing
from daihinmin.server.connection import PlayerConnection, plain_socket
from daihinmin.server.errors import PlayerDisconnectedError

pytestmark = pytest.mark.timeout(60)
HOST = "127.0.0.1"


def table_of(value: int) -> bytes:
    return struct.pack(">120I", value, *([0] * 119))


async def connected_pair() -> tuple[PlayerConnection, trio.SocketStream]:
    listeners = await trio.open_tcp_listeners(0, host=HOST)
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream(HOST, port)
    server = await listeners[0].accept()
    await listeners[0].aclose()
    return PlayerConnection(server, 0, "p"), client


def test_a_request_takes_a_reply_that_already_came_without_the_read_task() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        assert plain_socket(conn.stream) is not None
        await client.send_all(table_of(7))
        await trio.lowlevel.wait_readable(plain_socket(conn.stream))  # it is in the kernel
        # No read task runs: the request's own non-blocking read finds the table.
        assert await conn.receive_table_bytes(1.0) == table_of(7)
        assert not conn.buffer
        await conn.aclose()
        await client.aclose()

    trio.run(main)


def test_pieces_then_a_close_give_the_table_then_the_end() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            data = table_of(3)
            for a, b in ((0, 1), (1, 200), (200, 480)):
                await client.send_all(data[a:b])
                await trio.sleep(0.01)
            assert await conn.receive_table_bytes(1.0) == data
            await client.send_all(data[:10])
            await client.aclose()
            with pytest.raises(PlayerDisconnectedError,
                               match=r"closed the connection \(10 of 480 bytes"):
                await conn.receive_table_bytes(1.0)
        await conn.aclose()

    trio.run(main)


def test_a_stream_without_a_plain_socket_is_read_through_the_stream() -> None:
    async def main() -> None:
        client, server = trio.testing.memory_stream_pair()
        conn = PlayerConnection(server, 1, "m")  # type: ignore[arg-type]
        assert plain_socket(server) is None  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            await client.send_all(table_of(5)[:50])
            await client.send_all(table_of(5)[50:] + table_of(6))
            assert await conn.receive_table_bytes(1.0) == table_of(5)
            assert await conn.receive_table_bytes(1.0) == table_of(6)
            await client.aclose()
            with pytest.raises(PlayerDisconnectedError, match="closed the connection"):
                await conn.receive_table_bytes(1.0)

    trio.run(main)
