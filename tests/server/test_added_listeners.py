"""Listening sockets handed to the server (``MatchServer.add_listener``), as a sandboxed
player's is: its connections are seated like those of the server's own port, and it is
closed with that port once every seat is taken.  Real TCP on 127.0.0.1, real clients."""

from __future__ import annotations

import socket

import pytest
import trio
from daihinmin.players.default_bot import DefaultBot
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchServer
from seating import seat_bots


def listening() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, sock.getsockname()[1]


async def test_seated_through_an_added_listener_which_closes_after_seating() -> None:
    server = MatchServer(ServerConfig(games=1, seed=11, port=0, durable=False))
    early, early_port = listening()
    server.add_listener(early)  # before the server runs: taken up when it seats players
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        await seat_bots(nursery, server, early_port, [DefaultBot() for _ in range(2)])
        late, late_port = listening()
        server.add_listener(late)  # while seating
        await seat_bots(nursery, server, late_port, [DefaultBot() for _ in range(2)])
        await seat_bots(nursery, server, port, [DefaultBot()])  # the server's own port
        while server.seats is None:  # the table is set once the listeners are closed
            await trio.sleep(0.001)
        for closed in (early_port, late_port, port):  # every seat taken: all refuse
            with trio.socket.socket() as probe, pytest.raises(ConnectionRefusedError):
                await probe.connect(("127.0.0.1", closed))
        after, _ = listening()
        server.add_listener(after)  # after seating: closed at once
        assert after.fileno() == -1
    assert server.outcome is not None and server.outcome.games_played == 1
    assert [p.number for p in server.players] == [0, 1, 2, 3, 4]
