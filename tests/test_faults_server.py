"""Input hardening of the server: the connection buffer, seating under abuse, hostile names.

Real TCP on 127.0.0.1 (ephemeral ports); the players are the checking probe clients
(:mod:`daihinmin.server.probe`) and raw sockets that misbehave.
"""

from __future__ import annotations

import select
import socket
import struct
import time
from pathlib import Path

import pytest
import trio
import trio.testing
from daihinmin.protocol.codec import build_profile
from daihinmin.protocol.table import TABLE_BYTES
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
from daihinmin.server.matchlog import read_match_log
from daihinmin.server.probe import ProbePlayer
from daihinmin.server.replay import verify_log

pytestmark = pytest.mark.timeout(120)
HOST = "127.0.0.1"


def table_of(value: int) -> bytes:
    return struct.pack(">120I", value, *([0] * 119))


# --- the connection buffer -----------------------------------------------------------------------
async def connected_pair() -> tuple[PlayerConnection, trio.SocketStream]:
    listeners = await trio.open_tcp_listeners(0, host=HOST)
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream(HOST, port)
    server = await listeners[0].accept()
    await listeners[0].aclose()
    return PlayerConnection(server, 0, "p", send_timeout=1.0), client


def test_a_table_after_its_deadline_is_skipped_and_the_next_one_is_read() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            await client.send_all(table_of(1)[:100])
            with pytest.raises(PlayerTimeoutError, match=r"\(100 of 480 bytes\)"):
                await conn.receive_table_bytes(0.05)
            assert conn.stale == 1
            await client.send_all(table_of(1)[100:])  # the late rest of the first table
            with pytest.raises(PlayerTimeoutError):
                await conn.receive_table_bytes(0.05)  # the second request also times out
            assert conn.stale == 1 and conn.unsolicited() == 0  # late #1 thrown away on arrival
            await client.send_all(table_of(2) + table_of(3))  # late #2, then the answer
            assert await conn.receive_table_bytes(1.0) == table_of(3)
            assert conn.stale == 0 and not conn.buffer
            nursery.cancel_scope.cancel()
        await conn.aclose()
        await client.aclose()

    trio.run(main)


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


def test_without_a_fault_limit_owed_tables_do_not_grow_the_buffer() -> None:
    """--fault-limit 0: a silent seat times out again and again; what it may send at once
    stays a few tables, and a flood of late tables is cut off, not buffered."""
    async def main() -> None:
        conn, client = await connected_pair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            limits = []
            for _ in range(20):
                with pytest.raises(PlayerTimeoutError):
                    await conn.receive_table_bytes(0.001)
                limits.append(conn.buffer_limit)
            assert conn.stale == MAX_OWED_TABLES
            assert max(limits) == (MAX_OWED_TABLES + SPARE_TABLES) * TABLE_BYTES
            await client.send_all(table_of(1) * 40)
            with trio.fail_after(5):
                while not conn.flooded:
                    await trio.sleep(0.01)
            assert len(conn.buffer) <= conn.buffer_limit + TABLE_BYTES
            nursery.cancel_scope.cancel()
        await conn.aclose()
        await client.aclose()

    trio.run(main)


def test_bytes_nobody_asked_for_are_found_and_dropped() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            await client.send_all(table_of(1) + b"junk")
            assert await conn.receive_table_bytes(1.0) == table_of(1)
            await trio.sleep(0.05)
            assert conn.unsolicited() == 4 and conn.drop_unsolicited() == 4
            assert conn.unsolicited() == 0 and not conn.buffer
            nursery.cancel_scope.cancel()
        await conn.aclose()
        await client.aclose()

    trio.run(main)


def test_a_flood_stops_the_reader_with_a_bounded_buffer() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            with trio.move_on_after(1.0):
                await client.send_all(b"\xff" * (1 << 20))  # blocks once the server stops
            await trio.sleep(0.1)
            assert conn.flooded and "flooded" in (conn.ended or "")
            assert len(conn.buffer) <= SPARE_TABLES * TABLE_BYTES + 1
            nursery.cancel_scope.cancel()
        await conn.aclose()

    trio.run(main)


def test_a_closed_connection_with_half_a_table_is_a_disconnect() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.read_loop)
            await client.send_all(table_of(1)[:200])
            await client.aclose()
            with pytest.raises(PlayerDisconnectedError, match=r"\(200 of 480 bytes"):
                await conn.receive_table_bytes(1.0)
            nursery.cancel_scope.cancel()
        await conn.aclose()

    trio.run(main)


def test_a_write_to_a_player_that_does_not_read_fails_at_the_deadline() -> None:
    async def main() -> None:
        conn, client = await connected_pair()
        conn.send_timeout = 0.2
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conn.watch_sends)
            with pytest.raises(PlayerTimeoutError, match="does not read"):
                for _ in range(100_000):
                    await conn.send(b"\0" * 65536)
            assert conn.closed and conn.stalled
        await client.aclose()

    trio.run(main)


# --- seating under abuse ---------------------------------------------------------------------
def raw_connect(port: int) -> socket.socket:
    s = socket.create_connection((HOST, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def probes(port: int, n: int = 5, names: list[str] | None = None) -> list[ProbePlayer]:
    return [ProbePlayer(HOST, port, names[i] if names else f"probe{i}", seed=i, timeout=30)
            for i in range(n)]


async def seat_and_play(server: MatchServer, before: object, names: list[str] | None = None
                        ) -> list[ProbePlayer]:
    """Start ``server``, run ``before(port)`` in a thread, then seat and play five probes."""
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.run)
        await trio.to_thread.run_sync(before, port)  # type: ignore[arg-type]
        players = probes(port, names=names)
        for p in players:
            await trio.to_thread.run_sync(lambda p=p: (p.connect(), p.handshake()))
            nursery.start_soon(trio.to_thread.run_sync, p.run)
    return players


def test_a_silent_connection_holds_up_nobody(tmp_path: Path) -> None:
    """Nothing from the first connection: the five after it are seated at once."""
    config = ServerConfig(games=1, seed=1, port=0, log_path=tmp_path / "s.jsonl",
                          profile_timeout=30.0)
    server = MatchServer(config)
    silent: list[socket.socket] = []

    def connect_silent(port: int) -> None:
        silent.append(raw_connect(port))

    started = time.monotonic()
    players = trio.run(seat_and_play, server, connect_silent)
    assert time.monotonic() - started < 20  # far less than the 30 s profile deadline
    assert [p.record.number for p in players] == [0, 1, 2, 3, 4]
    silent[0].settimeout(5)
    assert silent[0].recv(1) == b""  # closed when the seats were all taken
    silent[0].close()


def test_a_flood_of_connections_is_closed_at_once_and_the_match_goes_on(
        tmp_path: Path) -> None:
    """40 silent connections: 5 + 3 wait in the handshake (30 s deadline), the other 32 are
    closed at once; when the flood leaves, five players are seated and play."""
    config = ServerConfig(games=1, seed=2, port=0, log_path=tmp_path / "f.jsonl",
                          profile_timeout=30.0, handshake_slack=3)
    server = MatchServer(config)
    closed: list[int] = []

    def flood(port: int) -> None:
        socks = [raw_connect(port) for _ in range(40)]
        ended = set()
        deadline = time.monotonic() + 5.0  # far less than the profile deadline
        while len(ended) < 32 and time.monotonic() < deadline:
            readable, _, _ = select.select([s for s in socks if s not in ended], [], [], 0.1)
            for s in readable:
                if s.recv(1) == b"":
                    ended.add(s)
        closed.append(len(ended))
        for s in socks:
            s.close()
        while server.in_handshake:  # the server sees the 8 leave before the players come
            time.sleep(0.01)

    trio.run(seat_and_play, server, flood)
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
                await trio.to_thread.run_sync(lambda p=p: (p.connect(), p.handshake()))
            while server.seats is None:  # the server has closed its listener by then
                await trio.sleep(0.01)
            try:
                await trio.to_thread.run_sync(raw_connect, port)
                outcome.append(None)
            except OSError as exc:
                outcome.append(exc)
            for p in players:
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    assert isinstance(outcome[0], ConnectionRefusedError)


def test_bad_profiles_are_closed_and_the_seat_stays_free(tmp_path: Path) -> None:
    config = ServerConfig(games=1, seed=4, port=0, log_path=tmp_path / "b.jsonl",
                          profile_timeout=0.5)
    server = MatchServer(config)
    answers: list[bytes] = []

    def hostile(port: int) -> None:
        for data in (b"\xff" * TABLE_BYTES, table_of(0xFFFFFFFF), b"GET / HTTP/1.0\r\n\r\n"):
            s = raw_connect(port)
            s.settimeout(5)
            s.sendall(data)
            answers.append(s.recv(4))
            s.close()

    players = trio.run(seat_and_play, server, hostile)
    assert answers == [b"", b"", b""]
    assert [p.record.number for p in players] == [0, 1, 2, 3, 4]
    assert server.outcome is not None and server.outcome.games_played == 1


def test_hostile_names_are_data_in_the_log_and_never_paths(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    log_path = folder / "match.jsonl"
    names = ["../../evil", "/etc/passwd", "[bold]x[/]", "a\tb", "ok"]
    server = MatchServer(ServerConfig(games=1, seed=5, port=0, log_path=log_path))
    trio.run(seat_and_play, server, lambda port: None, names)
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
                await trio.to_thread.run_sync(lambda p=p: (p.connect(), p.handshake()))
                nursery.start_soon(trio.to_thread.run_sync, p.run)

    trio.run(main)
    assert numbers == [b"\0\0\0\0"]
    assert server.outcome is not None
    assert server.outcome.players[0].name == "???\U0001F600??AB"
    assert server.outcome.seats[0].status == "DISCONNECTED"
