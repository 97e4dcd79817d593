"""The client library facing a server that goes silent, or that hands its seat over.

Both runners (blocking sockets and Trio) must end with a clear error and never hang.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import pytest
import trio
import trio.testing
from daihinmin.client import (
    Bot,
    GameView,
    ServerClosedError,
    ServerTimeoutError,
    run_bot,
)
from daihinmin.players.default_bot import DefaultBot
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchServer
from daihinmin.values.moves import Move
from late_client import LateStream, run_late_bot
from probe import ProbePlayer
from seating import seat, seat_bots

pytestmark = pytest.mark.timeout(60)


class SilentServer:
    """Accepts one connection, reads whatever comes, never answers; closes when told."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.listener.settimeout(10)
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            self.done.wait(20)
        self.listener.close()

    def stop(self) -> None:
        self.done.set()
        self.thread.join(10)


def test_a_server_that_never_answers_the_profile_does_not_hang_the_blocking_client() -> None:
    """(The Trio runner's case runs on the mock clock in test_client_deadlines.)"""
    server = SilentServer()
    started = time.monotonic()
    try:
        with pytest.raises(ServerTimeoutError, match="player number"):
            run_bot(DefaultBot(), "127.0.0.1", server.port, connect_timeout=0.5,
                    read_timeout=None)
    finally:
        server.stop()
    assert time.monotonic() - started < 10


class Sleeper(Bot):
    """Thinks far longer than the server allows: ``think(seconds)`` passes the time (a real
    sleep, or a late reply on Trio's clock)."""

    name = "sleeper"

    def __init__(self, think: Callable[[float], None], seconds: float = 0.6) -> None:
        self.think = think
        self.seconds = seconds

    def play(self, view: GameView) -> Move:
        self.think(self.seconds)
        return view.legal_moves()[-1]


SLEEPER_MATCH = ServerConfig(games=2, seed=3, port=0, move_timeout=0.25, time_bank=0.0,
                             fault_limit=2)
#: On real time the deadline holds for every seat, the probe players' too, whose threads a
#: busy machine may hold up for a while: a deadline they meet however loaded the machine, and
#: a sleeper that misses it by far.
REAL_TIME_MATCH = replace(SLEEPER_MATCH, move_timeout=3.0)
REAL_TIME_SLEEP = 7.0


def check_handed_over(server: MatchServer, errors: list[BaseException]) -> None:
    assert server.outcome is not None and server.outcome.seats[0].status == "TIMEOUT"
    assert len(errors) == 1 and isinstance(errors[0], ServerClosedError)
    assert "closed the connection" in str(errors[0])


def test_a_blocking_client_handed_over_for_timeouts_gets_a_clear_error() -> None:
    """The blocking runner's thinking takes real time: real deadlines, probe players."""
    server = MatchServer(REAL_TIME_MATCH)
    errors: list[BaseException] = []

    def sleeper(port: int) -> None:
        try:
            run_bot(Sleeper(time.sleep, REAL_TIME_SLEEP), "127.0.0.1", port, read_timeout=30)
        except Exception as exc:
            errors.append(exc)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            await seat(nursery, server, lambda: trio.to_thread.run_sync(sleeper, port))
            players = [ProbePlayer("127.0.0.1", port, f"p{i}", seed=i) for i in range(4)]
            for p in players:
                await trio.to_thread.run_sync(p.join)
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    check_handed_over(server, errors)


async def test_a_trio_client_handed_over_for_timeouts_gets_a_clear_error(
        autojump_clock: trio.testing.MockClock) -> None:
    """The same match in one Trio run on the mock clock: each of the sleeper's replies goes
    out 0.6 s late; the other players are in-process default bots."""
    server = MatchServer(SLEEPER_MATCH)
    errors: list[BaseException] = []

    async def sleeper(port: int) -> None:
        late = LateStream()
        try:
            await run_late_bot(Sleeper(late.hold), late, port)
        except Exception as exc:
            errors.append(exc)

    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        await seat(nursery, server, lambda: sleeper(port))  # player 0
        await seat_bots(nursery, server, port, [DefaultBot() for _ in range(4)])
    check_handed_over(server, errors)
