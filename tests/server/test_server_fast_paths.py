"""The server's fast paths give what the plain code gives: the kept move readings, the
pre-packed ints (random input, each checked against the code worked out from scratch), and
connections read with no read task (the table's task and the seats' check read them)."""

from __future__ import annotations

import contextlib
import struct

import pytest
import trio.testing
from daihinmin.driver.faults import SeatStatus
from daihinmin.protocol.table import (
    CELLS,
    PROTOCOL_20060,
    PROTOCOL_20070,
    PROTOCOL_20140,
    PROTOCOL_20260,
    Table,
    encode_int,
)
from daihinmin.server import requests
from daihinmin.server.config import ServerConfig, WriteMode
from daihinmin.server.connection import PlayerConnection
from daihinmin.server.errors import PlayerDisconnectedError, PlayerTimeoutError
from daihinmin.server.outbox import Outbox
from daihinmin.server.requests import read_move, read_move_table
from daihinmin.server.seats import SeatTable
from hypothesis import given
from hypothesis import strategies as st
from loopback import loopback_pairs

VERSIONS = (PROTOCOL_20070, PROTOCOL_20060, PROTOCOL_20140, PROTOCOL_20260)


def connection(version: int) -> PlayerConnection:
    stream, _ = trio.testing.memory_stream_pair()
    return PlayerConnection(stream, 0, "p", version)  # type: ignore[arg-type]


# Card rows of 0/1/2 mostly (real moves, shape errors), now and then any value (bad cells).
card_cells = st.lists(st.sampled_from((0,) * 12 + (1, 1, 2, 3, 7, 0xFFFFFFFF)),
                      min_size=CELLS, max_size=CELLS)


def table_bytes(cells: list[int], version: int) -> bytes:
    return Table(cells[:75] + [0] * (CELLS - 75)).to_bytes(version)


@given(st.lists(st.tuples(st.sampled_from(VERSIONS), card_cells, st.sampled_from((1, 2)),
                          st.booleans()), min_size=1, max_size=12),
       st.binary(max_size=490))
def test_kept_move_readings_equal_the_readings_worked_out(
        tables: list[tuple[int, list[int], int, bool]], junk: bytes) -> None:
    requests._READ_MOVES.clear()
    for version, cells, jokers, garbage in tables + tables:  # twice: the second time is kept
        raw = junk if garbage else table_bytes(cells, version)
        conn = connection(version)
        got = read_move(conn, raw, jokers)
        assert got == read_move_table(version, raw, jokers)
        if got[1] is not None:  # a caller changing its cells changes no later reading
            got[1][(9, 9)] = 1
            assert read_move(conn, raw, jokers) == read_move_table(version, raw, jokers)


def test_the_kept_readings_stay_bounded() -> None:
    requests._READ_MOVES.clear()
    conn = connection(PROTOCOL_20070)
    for n in range(requests.READ_MOVES_KEPT * 2 + 5):
        raw = n.to_bytes(480, "big")
        assert read_move(conn, raw, 1) == read_move_table(PROTOCOL_20070, raw, 1)
        assert len(requests._READ_MOVES) <= requests.READ_MOVES_KEPT


@given(st.sampled_from(VERSIONS), st.integers(min_value=-3, max_value=2**33))
def test_the_prepacked_ints_equal_encode_int(version: int, value: int) -> None:
    assert connection(version).encode_int(value) == encode_int(value, version)


def test_every_prepacked_int_equals_encode_int() -> None:
    for version in VERSIONS:
        for value in range(-2, 40):
            assert connection(version).encode_int(value) == encode_int(value, version)


# --- no read task: the seats' check reads what the read task would have read ---------------


def check_after_misbehaving(with_read_tasks: bool) -> list[object]:
    """Four seats: one sends 10 bytes nobody asked for, one closes, one floods, one is
    quiet; what ``seats.check()`` makes of it."""
    async def main() -> list[object]:
        pairs = await loopback_pairs(4)
        seats = SeatTable.of([conn for conn, _ in pairs], ServerConfig(port=0))
        clients = [client for _, client in pairs]
        async with trio.open_nursery() as nursery:
            if with_read_tasks:
                for conn, _ in pairs:
                    nursery.start_soon(conn.read_loop)
            await clients[0].send_all(b"x" * 10)
            await clients[1].aclose()
            async def flood() -> None:
                with contextlib.suppress(trio.BrokenResourceError):  # cut off by the server
                    await clients[2].send_all(b"\xff" * 200_000)
            nursery.start_soon(flood)
            await trio.sleep(0.3)  # every byte is in the kernel, or taken by the readers
            assert with_read_tasks or all(conn.pulled for conn, _ in pairs)
            seats.at(1, 5)
            await seats.check()
            nursery.cancel_scope.cancel()
        result: list[object] = [(s.report.status, s.report.detail, s.conn is None)
                                for s in seats.seats]
        result += [(e.player, e.status, e.action, e.detail) for e in seats.take_events()]
        await seats.close_all()
        for client in (clients[0], clients[2], clients[3]):
            await client.aclose()
        return result

    return trio.run(main)


def test_without_read_tasks_the_check_finds_what_the_read_tasks_found() -> None:
    pulled = check_after_misbehaving(with_read_tasks=False)
    assert pulled == check_after_misbehaving(with_read_tasks=True)
    statuses = [row[0] for row in pulled[:4]]  # type: ignore[index]
    assert statuses[1:3] == [SeatStatus.DISCONNECTED, SeatStatus.MALFORMED]
    assert any("nobody asked for" in str(row) for row in pulled[4:])


def test_without_a_read_task_a_request_waits_on_the_socket_and_sees_the_end() -> None:
    async def main() -> None:
        ((conn, client),) = await loopback_pairs(1)
        assert conn.pulled
        async with trio.open_nursery() as nursery:
            async def send_later() -> None:
                await trio.sleep(0.05)
                await client.send_all(table_of(9)[:100])
                await trio.sleep(0.05)
                await client.send_all(table_of(9)[100:] + table_of(4)[:7])
                await trio.sleep(0.05)
                await client.aclose()
            nursery.start_soon(send_later)
            assert await conn.receive_table_bytes(5.0) == table_of(9)
            with pytest.raises(PlayerDisconnectedError,
                               match=r"closed the connection \(7 of 480 bytes"):
                await conn.receive_table_bytes(5.0)
        await conn.aclose()

    trio.run(main)


def test_without_a_read_task_a_late_table_is_skipped_and_the_next_one_read() -> None:
    async def main() -> None:
        ((conn, client),) = await loopback_pairs(1)
        with pytest.raises(PlayerTimeoutError, match=r"within 0\.05 s"):
            await conn.receive_table_bytes(0.05)
        await client.send_all(table_of(1) + table_of(2))  # the late table, then the answer
        assert await conn.receive_table_bytes(5.0) == table_of(2)
        assert conn.stale == 0 and not conn.buffer
        await conn.aclose()
        await client.aclose()

    trio.run(main)


def table_of(value: int) -> bytes:
    return struct.pack(">120I", value, *([0] * 119))


def test_a_write_the_socket_takes_in_part_goes_out_whole_and_in_order() -> None:
    # A player that reads late: the plain send takes part of a flush (the buffers are full)
    # and the rest goes through the connection's send; the player reads every byte in order.
    async def main() -> None:
        pairs = await loopback_pairs(2)
        seats = SeatTable.of([conn for conn, _ in pairs], ServerConfig(port=0))
        outbox = Outbox(seats, WriteMode.COALESCED)
        big = [bytes([n % 251]) * 100_000 for n in range(1, 9)]
        for chunk in big:
            await outbox.raw_each([chunk, chunk[:10]])
        got: list[bytes] = []

        async def read_all(client: trio.SocketStream, size: int) -> None:
            await trio.sleep(0.2)  # the server's plain send has met a full buffer by now
            data = bytearray()
            while len(data) < size:
                data += await client.receive_some(65536)
            got.append(bytes(data))

        with trio.fail_after(10):  # bytes lost: the reader would wait for ever
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_all, pairs[0][1], sum(map(len, big)))
                await outbox.flush()
        assert got == [b"".join(big)]
        assert await pairs[1][1].receive_some(1000) == b"".join(c[:10] for c in big)
        await seats.close_all()
        for _, client in pairs:
            await client.aclose()

    trio.run(main)


@pytest.mark.parametrize("how", ["seated", "handed over"])
def test_a_stand_in_is_told_every_turn_once_it_plays_a_seat(how: str) -> None:
    """The per-turn telling of the stand-ins is skipped only while no stand-in plays."""
    from daihinmin.driver.game import GameDriver, MoveRequest, TurnDone
    from daihinmin.players.default_bot import DefaultBot
    from daihinmin.rules.match import MatchState
    from daihinmin.rules.ruleset import UECDA
    from daihinmin.server.requests import GameRequests

    class Counting(DefaultBot):
        turns = 0

        def on_turn(self, *args: object) -> None:
            Counting.turns += 1

    seats = SeatTable.of([None] * 5, ServerConfig(port=0))
    driver = GameDriver(MatchState(UECDA, seed=2, games=1))
    asked = GameRequests(seats, driver)
    assert seats.all_live
    if how == "seated":
        seats.seat_stand_in(3, SeatStatus.DISCONNECTED, "gone")
    else:
        trio.run(seats.hand_over, 3, SeatStatus.TIMEOUT, "too slow")
    stand_in = seats[3].stand_in
    assert stand_in is not None and not seats.all_live
    stand_in.bot = Counting()
    told = 0
    while (out := driver.next()) is not None:
        if isinstance(out, MoveRequest):
            driver.move(driver.view(out.player).legal_moves()[-1])
        elif isinstance(out, TurnDone):
            asked.observed(out)
            told += 1  # (game 1 of a block has no exchange; uecda asks no choices)
    assert told > 10 and Counting.turns == told
