"""The client library's deadlines: a silent or trickling server ends in a clear error.

The Trio runner follows Trio's clock, so these tests run the default deadlines (10 s to the
player number, 600 s per message) on Trio's mock clock (pytest-trio's ``autojump_clock``) in
a fraction of a second; the servers are real loopback listeners in the same Trio run.  The
blocking runner cannot follow Trio's clock: it is tried with short deadlines on real time.
"""

from __future__ import annotations

import socket
import struct
import threading
import time

import pytest
import trio
import trio.testing
from daihinmin.client import (
    ClientProtocol,
    ServerClosedError,
    ServerTimeoutError,
    run_bot,
    run_bot_async,
)
from daihinmin.client.retry import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT
from daihinmin.client.sync_runner import run_protocol
from daihinmin.players.default_bot import DefaultBot
from daihinmin.protocol.table import TABLE_BYTES, encode_int

pytestmark = pytest.mark.timeout(60)

PLAYER_NUMBER = encode_int(2)


async def trickle(stream: trio.SocketStream, data: bytes, every: float) -> None:
    for byte in data:
        await trio.sleep(every)
        await stream.send_all(bytes([byte]))


async def serve_and_run(script: str) -> tuple[BaseException | None, float]:
    """Run the Trio client against a server following ``script`` (both in this Trio run,
    over loopback TCP); returns the client's error and the clock's time when it came."""
    error: BaseException | None = None
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def server() -> None:
        stream = await listeners[0].accept()
        await stream.receive_some(TABLE_BYTES)  # (the profile: some of it is enough)
        if script == "trickle-number":
            await trickle(stream, PLAYER_NUMBER, 8.0)
        elif script == "silent-after-number":
            await stream.send_all(PLAYER_NUMBER)
        elif script == "trickle-deal":
            await stream.send_all(PLAYER_NUMBER)
            await trickle(stream, bytes(TABLE_BYTES), 8.0)
        await trio.sleep_forever()  # "silent": no player number at all

    async with trio.open_nursery() as nursery:
        nursery.start_soon(server)
        try:
            await run_bot_async(DefaultBot(), "127.0.0.1", port)
        except ServerTimeoutError as exc:
            error = exc
        ended = trio.current_time()
        nursery.cancel_scope.cancel()
    await listeners[0].aclose()
    return error, ended


async def test_a_server_that_never_answers_the_profile_meets_the_handshake_deadline(
        autojump_clock: trio.testing.MockClock) -> None:
    error, at = await serve_and_run("silent")
    assert isinstance(error, ServerTimeoutError) and "player number" in str(error)
    assert DEFAULT_CONNECT_TIMEOUT <= at < DEFAULT_CONNECT_TIMEOUT + 1


async def test_a_trickled_player_number_meets_the_total_handshake_deadline(
        autojump_clock: trio.testing.MockClock) -> None:
    """One byte every 8 s: each read is quick, but the whole handshake has 10 s."""
    error, at = await serve_and_run("trickle-number")
    assert isinstance(error, ServerTimeoutError)
    assert "player number" in str(error) and "(got 1 of 4 bytes)" in str(error)
    assert DEFAULT_CONNECT_TIMEOUT <= at < DEFAULT_CONNECT_TIMEOUT + 1


async def test_a_server_silent_after_the_player_number_meets_the_default_read_deadline(
        autojump_clock: trio.testing.MockClock) -> None:
    error, at = await serve_and_run("silent-after-number")
    assert isinstance(error, ServerTimeoutError) and "deal table of game 1" in str(error)
    assert DEFAULT_READ_TIMEOUT <= at < DEFAULT_READ_TIMEOUT + 1


async def test_a_trickled_table_meets_the_read_deadline_of_the_whole_message(
        autojump_clock: trio.testing.MockClock) -> None:
    error, at = await serve_and_run("trickle-deal")
    assert isinstance(error, ServerTimeoutError) and "deal table" in str(error)
    assert f"of {TABLE_BYTES} bytes" in str(error)
    assert DEFAULT_READ_TIMEOUT <= at < DEFAULT_READ_TIMEOUT + 1


class TricklingServer:
    """A real-time server thread: the player number, one byte every ``every`` seconds."""

    def __init__(self, every: float, first: bytes = b"", trickled: bytes = PLAYER_NUMBER
                 ) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.every, self.first, self.trickled = every, first, trickled
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.listener.settimeout(10)
        with self.listener, self.listener.accept()[0] as conn:
            conn.recv(TABLE_BYTES)
            conn.sendall(self.first)
            for byte in self.trickled:
                if self.stop.wait(self.every):
                    return
                conn.sendall(bytes([byte]))
            self.stop.wait(10)

    def __enter__(self) -> TricklingServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)


def test_the_blocking_runner_meets_the_total_handshake_deadline() -> None:
    started = time.monotonic()
    with (TricklingServer(every=0.4) as server,
          pytest.raises(ServerTimeoutError, match=r"player number.*got \d of 4 bytes")):
        run_bot(DefaultBot(), "127.0.0.1", server.port, connect_timeout=1.0)
    assert time.monotonic() - started < 5  # per read, each byte came well within 1 s


def test_the_blocking_runner_meets_the_read_deadline() -> None:
    # the whole player number, then nothing
    with (TricklingServer(every=0.0) as server,
          pytest.raises(ServerTimeoutError, match="deal table")):
        run_bot(DefaultBot(), "127.0.0.1", server.port, read_timeout=0.5)


def test_the_blocking_runner_meets_the_read_deadline_of_a_trickled_table() -> None:
    """The read limit shrinks with the time left: a byte of the deal every 0.7 s meets the
    deadline of 1 s with one byte of it read (a limit left at 1 s would read a second one,
    at 1.4 s)."""
    with (TricklingServer(every=0.7, first=PLAYER_NUMBER, trickled=bytes(TABLE_BYTES))
          as server,
          pytest.raises(ServerTimeoutError, match=f"deal table.*got 1 of {TABLE_BYTES} ")):
        run_bot(DefaultBot(), "127.0.0.1", server.port, read_timeout=1.0)


def test_a_callers_socket_comes_back_with_its_timeout_and_no_kernel_read_limit() -> None:
    """run_protocol on a socket the caller made: whatever ends the match (here the server
    closing after the player number), the socket has the read timeout back and, where the
    runner had the kernel keep the deadline, no SO_RCVTIMEO left on it."""
    with socket.create_server(("127.0.0.1", 0)) as listener, \
            socket.create_connection(listener.getsockname()) as sock:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(PLAYER_NUMBER)
            conn.shutdown(socket.SHUT_WR)
            with pytest.raises(ServerClosedError, match="deal table"):
                run_protocol(sock, ClientProtocol(DefaultBot()), read_timeout=5.0)
        assert sock.gettimeout() == 5.0
        limit = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, 16)
        assert struct.unpack("@ll", limit) == (0, 0)
