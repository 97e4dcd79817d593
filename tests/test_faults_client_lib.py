"""The client library facing a server that goes silent, or that hands its seat over.

Both runners (blocking sockets and Trio) must end with a clear error and never hang.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

import pytest
import trio
from daihinmin.client import (
    Bot,
    GameView,
    MatchRecord,
    ServerClosedError,
    ServerTimeoutError,
    run_bot,
    run_bot_async,
)
from daihinmin.players.default_bot import DefaultBot
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchServer
from daihinmin.values.moves import Move
from probe import ProbePlayer

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


def run_sync(port: int, **kw: object) -> MatchRecord:
    return run_bot(DefaultBot(), "127.0.0.1", port, **kw)  # type: ignore[arg-type]


def run_async(port: int, **kw: object) -> MatchRecord:
    async def main() -> MatchRecord:
        return await run_bot_async(DefaultBot(), "127.0.0.1", port,
                                   **kw)  # type: ignore[arg-type]
    return trio.run(main)


RUNNERS = [pytest.param(run_sync, id="sync"), pytest.param(run_async, id="trio")]


@pytest.mark.parametrize("run", RUNNERS)
def test_a_server_that_never_answers_the_profile_does_not_hang_the_client(
        run: Callable[..., MatchRecord]) -> None:
    server = SilentServer()
    started = time.monotonic()
    try:
        with pytest.raises(ServerTimeoutError, match="player number"):
            run(server.port, connect_timeout=0.5, read_timeout=None)
    finally:
        server.stop()
    assert time.monotonic() - started < 10


class Sleeper(Bot):
    """Thinks far longer than the server allows."""

    name = "sleeper"

    def play(self, view: GameView) -> Move:
        time.sleep(0.6)
        return view.legal_moves()[-1]


@pytest.mark.parametrize("runner", ["sync", "trio"])
def test_a_client_handed_over_for_timeouts_gets_a_clear_error(runner: str) -> None:
    config = ServerConfig(games=2, seed=3, port=0, move_timeout=0.25, time_bank=0.0,
                          fault_limit=2)
    server = MatchServer(config)
    errors: list[BaseException] = []

    def sleeper(port: int) -> None:
        try:
            if runner == "sync":
                run_bot(Sleeper(), "127.0.0.1", port, read_timeout=30)
            else:
                async def main() -> None:
                    await run_bot_async(Sleeper(), "127.0.0.1", port, read_timeout=30,
                                        bot_in_thread=True)
                trio.run(main)
        except BaseException as exc:
            errors.append(exc)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            thread = threading.Thread(target=sleeper, args=(port,))
            thread.start()
            while not server.players:
                await trio.sleep(0.01)
            players = [ProbePlayer("127.0.0.1", port, f"p{i}", seed=i) for i in range(4)]
            for p in players:
                await trio.to_thread.run_sync(lambda p=p: (p.connect(), p.handshake()))
                nursery.start_soon(trio.to_thread.run_sync, p.run)
            await trio.to_thread.run_sync(thread.join, 30)

    trio.run(main)
    assert server.outcome is not None and server.outcome.seats[0].status == "TIMEOUT"
    assert len(errors) == 1 and isinstance(errors[0], ServerClosedError)
    assert "closed the connection" in str(errors[0])
