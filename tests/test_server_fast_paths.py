"""The server's fast paths give what the plain code gives: the kept move readings, the
pre-packed ints (random input, each checked against the code worked out from scratch)."""

from __future__ import annotations

import trio.testing
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
from daihinmin.server.connection import PlayerConnection
from daihinmin.server.requests import read_move, read_move_table
from hypothesis import given
from hypothesis import strategies as st

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
