"""Input hardening of the server: the connection buffer, seating under abuse, hostile names.

The connection buffer is tested over in-memory streams; seating over real TCP on 127.0.0.1
(ephemeral ports) against in-process default bots, probe clients (``tests/support/probe.py``)
and raw sockets that misbehave.  Deadline tests run on Trio's mock clock (``autojump_clock``): the
deadlines are realistic and pass at once, and the time they took is checked exactly.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import cast

import pytest
import trio
import trio.testing
from daihinmin.client import GameView, MatchRecord
from daihinmin.players.default_bot import DefaultBot
from daihinmin.protocol.codec import build_profile
from daihinmin.protocol.table import TABLE_BYTES
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.server.connection import (
    MAX_OWED_TABLES,
    QUICK_READS_PER_YIELD,
    SPARE_TABLES,
    PlayerConnection,
    plain_socket,
)
from daihinmin.server.errors import PlayerDisconnectedError, PlayerTimeoutError
from daihinmin.server.match_server import MatchServer
from daihinmin.values.moves import Move
from late_client import LateStream, run_late_bot
from probe import ProbePlayer
from seating import seat, seat_bots

pytestmark = pytest.mark.timeout(120)
HOST = "127.0.0.1"


def table_of(value: int) -> bytes:
    return struct.pack(">120I", value, *([0] * 119))


# --- the connection buffer -----------------------------------------------------------------------
# In-memory streams on Trio's mock clock: deadlines of seconds pass at once and exactly, and
# ``wait_all_tasks_blocked`` waits until the reader has taken in everything that was sent.
def connection_pair(send_timeout: float = 10.0, lockstep: bool = False
                    ) -> tuple[PlayerConnection, trio.abc.Stream]:
    """A connection over an in-memory stream and the player's end of it.  ``lockstep``: a
    write blocks until the player reads it (a player that never reads blocks every write)."""
    make = trio.testing.lockstep_stream_pair if lockstep else trio.testing.memory_stream_pair
    server, client = make()
    # PlayerConnection only sends, receives and closes: any Trio stream will do.
    conn = PlayerConnection(cast(trio.SocketStream, server), 0, "p", send_timeout=send_timeout)
    return conn, client


@asynccontextmanager
async def reading() -> AsyncIterator[tuple[PlayerConnection, trio.abc.Stream]]:
    """:func:`connection_pair` with the connection's reader running (stopped on exit)."""
    conn, client = connection_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(conn.read_loop)
        yield conn, client
        nursery.cancel_scope.cancel()


async def test_a_table_after_its_deadline_is_skipped_and_the_next_one_is_read(
        autojump_clock: trio.testing.MockClock) -> None:
    async with reading() as (conn, client):
        await client.send_all(table_of(1)[:100])
        asked = trio.current_time()
        with pytest.raises(PlayerTimeoutError, match=r"within 5 s \(100 of 480 bytes\)"):
            await conn.receive_table_bytes(5.0)
        assert trio.current_time() - asked == pytest.approx(5.0)  # at the deadline, not before
        assert conn.stale == 1
        await client.send_all(table_of(1)[100:])  # the late rest of the first table
        with pytest.raises(PlayerTimeoutError):
            await conn.receive_table_bytes(5.0)  # the second request also times out
        assert conn.stale == 1 and conn.unsolicited() == 0  # late #1 thrown away on arrival
        await client.send_all(table_of(2) + table_of(3))  # late #2, then the answer
        assert await conn.receive_table_bytes(5.0) == table_of(3)
        assert conn.stale == 0 and not conn.buffer


async def connected_pair() -> tuple[PlayerConnection, trio.SocketStream]:
    """A connection over real loopback sockets and the player's end of it."""
    listeners = await trio.open_tcp_listeners(0, host=HOST)
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream(HOST, port)
    server = await listeners[0].accept()
    await listeners[0].aclose()
    return PlayerConnection(server, 0, "p", send_timeout=1.0), client


def test_a_request_takes_a_reply_that_already_came_without_the_read_task() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        sock = plain_socket(conn.stream)
        assert sock is not None
        await client.send_all(table_of(7))
        await trio.lowlevel.wait_readable(sock)  # it is in the kernel
        # No read task runs: the request's own non-blocking read finds the table.
        assert await conn.receive_table_bytes(1.0) == table_of(7)
        assert not conn.buffer
        await conn.aclose()
        await client.aclose()

    trio.run(main)


def test_requests_served_at_once_still_let_the_other_tasks_run() -> None:
    """Quick replies need no wait, but the table must not starve the scheduler."""
    async def main() -> None:
        conn, client = await connected_pair()
        ticks = 0

        async def other_task() -> None:
            nonlocal ticks
            while True:
                await trio.sleep(0)
                ticks += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(other_task)
            requests = 4 * QUICK_READS_PER_YIELD
            await client.send_all(b"".join(table_of(n) for n in range(requests)))
            while len(conn.buffer) < TABLE_BYTES:  # the first bytes are there
                await trio.sleep(0.01)
                conn._read_now()
            start = ticks
            for n in range(requests):  # no other await here: only the requests can yield
                assert await conn.receive_table_bytes(1.0) == table_of(n)
            # a yield every QUICK_READS_PER_YIELD requests (one scheduler batch each, in
            # which the other task runs once, before or after this one); none without them
            assert 3 <= ticks - start <= 5
            nursery.cancel_scope.cancel()
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


async def test_without_a_fault_limit_owed_tables_do_not_grow_the_buffer(
        autojump_clock: trio.testing.MockClock) -> None:
    """--fault-limit 0: a silent seat times out again and again; what it may send at once
    stays a few tables, and a flood of late tables is cut off, not buffered."""
    async with reading() as (conn, client):
        limits = []
        for _ in range(20):
            with pytest.raises(PlayerTimeoutError):
                await conn.receive_table_bytes(10.0)
            limits.append(conn.buffer_limit)
        assert conn.stale == MAX_OWED_TABLES
        assert max(limits) == (MAX_OWED_TABLES + SPARE_TABLES) * TABLE_BYTES
        await client.send_all(table_of(1) * 40)
        await trio.testing.wait_all_tasks_blocked()  # the reader took what it would
        assert conn.flooded
        assert len(conn.buffer) <= conn.buffer_limit + TABLE_BYTES


async def test_bytes_nobody_asked_for_are_found_and_dropped(
        autojump_clock: trio.testing.MockClock) -> None:
    async with reading() as (conn, client):
        await client.send_all(table_of(1) + b"junk")
        assert await conn.receive_table_bytes(5.0) == table_of(1)
        await trio.testing.wait_all_tasks_blocked()
        assert conn.unsolicited() == 4 and conn.drop_unsolicited() == 4
        assert conn.unsolicited() == 0 and not conn.buffer


async def test_a_flood_stops_the_reader_with_a_bounded_buffer(
        autojump_clock: trio.testing.MockClock) -> None:
    async with reading() as (conn, client):
        await client.send_all(b"\xff" * (1 << 20))
        await trio.testing.wait_all_tasks_blocked()
        assert conn.flooded and "flooded" in (conn.ended or "")
        assert len(conn.buffer) <= SPARE_TABLES * TABLE_BYTES + 1


async def test_a_closed_connection_with_half_a_table_is_a_disconnect(
        autojump_clock: trio.testing.MockClock) -> None:
    async with reading() as (conn, client):
        await client.send_all(table_of(1)[:200])
        await client.aclose()
        with pytest.raises(PlayerDisconnectedError, match=r"\(200 of 480 bytes"):
            await conn.receive_table_bytes(5.0)


async def test_a_write_to_a_player_that_does_not_read_fails_at_the_deadline(
        autojump_clock: trio.testing.MockClock) -> None:
    conn, client = connection_pair(send_timeout=8.0, lockstep=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(conn.watch_sends)
        started = trio.current_time()
        with pytest.raises(PlayerTimeoutError, match="does not read"):
            await conn.send(b"\0" * 480)
        # The watcher looks four times per deadline: closed within a quarter past it.
        assert 8.0 <= trio.current_time() - started <= 8.0 + 2.0
        assert conn.closed and conn.stalled
    await client.aclose()


# --- seating under abuse ---------------------------------------------------------------------
def raw_connect(port: int) -> socket.socket:
    s = socket.create_connection((HOST, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def probes(port: int, n: int = 5, names: list[str] | None = None) -> list[ProbePlayer]:
    return [ProbePlayer(HOST, port, names[i] if names else f"probe{i}", seed=i, timeout=30)
            for i in range(n)]


async def seat_and_play(server: MatchServer,
                        before: Callable[[int], Awaitable[None]] | None = None,
                        names: list[str] | None = None) -> list[MatchRecord]:
    """Start ``server``, await ``before(port)``, then seat five in-process default bots one
    after the other (each has its number before the next connects) and play the match.

    Everything runs in this Trio run, so on the mock clock only deadlines move the time."""
    records: list[MatchRecord] = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        if before is not None:
            await before(port)
        for i in range(5):
            name = names[i] if names else f"bot{i}"
            await seat_bots(nursery, server, port, [DefaultBot()], records, name=name)
    return sorted(records, key=lambda r: r.player)


async def test_a_silent_connection_holds_up_nobody(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """Nothing from the first connection: the five after it are seated at once."""
    config = ServerConfig(games=1, seed=1, port=0, log_path=tmp_path / "s.jsonl",
                          profile_timeout=30.0)
    server = MatchServer(config)
    silent: list[trio.SocketStream] = []

    async def connect_silent(port: int) -> None:
        silent.append(await trio.open_tcp_stream(HOST, port))

    started = trio.current_time()
    records = await seat_and_play(server, connect_silent)
    assert [r.player for r in records] == [0, 1, 2, 3, 4]
    assert await silent[0].receive_some(1) == b""
    # Closed when the seats were all taken: neither the match nor this close waited for the
    # silent connection's deadline.
    assert trio.current_time() - started < 30.0
    await silent[0].aclose()


async def test_a_flood_of_connections_is_closed_at_once_and_the_match_goes_on(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    """40 silent connections: 5 + 3 wait in the handshake (30 s deadline), the other 32 are
    closed at once; when the flood leaves, five players are seated and play."""
    config = ServerConfig(games=1, seed=2, port=0, log_path=tmp_path / "f.jsonl",
                          profile_timeout=30.0, handshake_slack=3)
    server = MatchServer(config)
    closed: list[int] = []

    async def flood(port: int) -> None:
        ended: list[trio.SocketStream] = []

        async def watch(stream: trio.SocketStream) -> None:
            if await stream.receive_some(1) == b"":
                ended.append(stream)

        socks = [await trio.open_tcp_stream(HOST, port) for _ in range(40)]
        async with trio.open_nursery() as watchers:
            for s in socks:
                watchers.start_soon(watch, s)
            await trio.testing.wait_all_tasks_blocked()
            assert trio.current_time() < 30.0  # at once, not at the deadline
            closed.append(len(ended))
            watchers.cancel_scope.cancel()
        for s in socks:
            await s.aclose()
        await trio.testing.wait_all_tasks_blocked()  # the server sees the 8 leave
        assert server.in_handshake == 0

    await seat_and_play(server, flood)
    assert closed == [32] and server.refused == 32
    assert len(read_match_log(tmp_path / "f.jsonl").games) == 1


def test_connections_after_the_last_seat_are_refused(tmp_path: Path) -> None:
    config = ServerConfig(games=2, seed=3, port=0, log_path=tmp_path / "r.jsonl")
    server = MatchServer(config)
    outcome: list[BaseException | None] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)
            players = probes(port)
            for p in players:
                await trio.to_thread.run_sync(p.join)
            await trio.testing.wait_all_tasks_blocked()  # seated: the listener is closed
            assert server.seats is not None
            try:
                await trio.to_thread.run_sync(raw_connect, port)
                outcome.append(None)
            except OSError as exc:
                outcome.append(exc)
            for p in players:
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    assert isinstance(outcome[0], ConnectionRefusedError)


async def test_bad_profiles_are_closed_and_the_seat_stays_free(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    config = ServerConfig(games=1, seed=4, port=0, log_path=tmp_path / "b.jsonl",
                          profile_timeout=10.0)
    server = MatchServer(config)
    answers: list[tuple[bytes, float]] = []

    async def hostile(port: int) -> None:
        for data in (b"\xff" * TABLE_BYTES, table_of(0xFFFFFFFF), b"GET / HTTP/1.0\r\n\r\n"):
            async with await trio.open_tcp_stream(HOST, port) as s:
                sent = trio.current_time()
                await s.send_all(data)
                answers.append((await s.receive_some(4), trio.current_time() - sent))

    records = await seat_and_play(server, hostile)
    assert [data for data, _ in answers] == [b"", b"", b""]
    # Bad profiles are closed at once; the short one when its profile deadline is over.
    assert [waited for _, waited in answers] == [0.0, 0.0, pytest.approx(10.0)]
    assert [r.player for r in records] == [0, 1, 2, 3, 4]
    assert server.outcome is not None and server.outcome.games_played == 1


async def test_hostile_names_are_data_in_the_log_and_never_paths(
        tmp_path: Path, autojump_clock: trio.testing.MockClock) -> None:
    folder = tmp_path / "logs"
    log_path = folder / "match.jsonl"
    names = ["../../evil", "/etc/passwd", "[bold]x[/]", "a\tb", "ok"]
    server = MatchServer(ServerConfig(games=1, seed=5, port=0, log_path=log_path))
    await seat_and_play(server, names=names)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["logs", "match.jsonl"]
    logged = [p.name for p in read_match_log(log_path).header.players]
    assert logged == ["../../evil", "/etc/passwd", "[bold]x[/]", "a?b", "ok"]
    assert verify_log(read_match_log(log_path)).complete


def test_a_profile_naming_itself_with_any_code_point_is_safe(tmp_path: Path) -> None:
    raw = list(build_profile("x").cells)
    raw[15:24] = [0x110000, 0x202E, 0xFFFFFFFF, 0x1F600, 10, 0xD800, 65, 66, 0]
    profile = struct.pack(">120I", *raw)
    server = MatchServer(ServerConfig(games=1, seed=6, port=0, log_path=tmp_path / "n.jsonl"))
    numbers: list[bytes] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.run)

            def odd() -> None:
                s = raw_connect(port)
                s.sendall(profile)
                numbers.append(s.recv(4))
                s.close()  # then it leaves: the fallback plays its seat

            await trio.to_thread.run_sync(odd)
            players = probes(port, 4)
            for p in players:
                await trio.to_thread.run_sync(p.join)
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    assert numbers == [b"\0\0\0\0"]
    assert server.outcome is not None
    assert server.outcome.players[0].name == "???\U0001F600??AB"
    assert server.outcome.seats[0].status == "DISCONNECTED"


# --- the time bank -------------------------------------------------------------------------------
class Thinker(DefaultBot):
    """Default moves; its first moves' replies go out ``holds`` seconds late."""

    def __init__(self, late: LateStream, holds: list[float]) -> None:
        self.late = late
        self.holds = list(holds)

    def play(self, view: GameView) -> Move:
        if self.holds:
            self.late.hold(self.holds.pop(0))
        return super().play(view)


@pytest.mark.parametrize(("holds", "faults", "bank_ms"), [
    ([1.6, 1.6], [None, None], 800),  # 0.6 s over the 1 s deadline twice: from the 2 s bank
    ([1.6, 1.6, 2.0], [None, None, "TIMEOUT"], 0),  # the third is past 1 s + the 0.8 s left
])
async def test_time_past_the_move_deadline_is_taken_from_the_bank(
        tmp_path: Path, autojump_clock: trio.testing.MockClock, holds: list[float],
        faults: list[str | None], bank_ms: int) -> None:
    log_path = tmp_path / "bank.jsonl"
    server = MatchServer(ServerConfig(games=1, seed=7, port=0, log_path=log_path,
                                      move_timeout=1.0, time_bank=2.0, fault_limit=0))
    late = LateStream()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        await seat(nursery, server, lambda: run_late_bot(Thinker(late, holds), late, port))
        await seat_bots(nursery, server, port, [DefaultBot() for _ in range(4)])
    game = read_match_log(log_path).games[0]
    mine = [t for t in game.turns if t.player == 0]
    assert [t.fault for t in mine[:len(holds)]] == faults
    assert all(t.fault is None for t in mine[len(holds):])
    assert game.bank_ms is not None and game.bank_ms[0] == bank_ms
    assert game.bank_ms[1:] == [2000] * 4
