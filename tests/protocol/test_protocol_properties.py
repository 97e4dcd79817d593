"""Property tests of the wire codec: round trips, and typed errors on any garbage.

* tables survive 20070 (big-endian), 20060 (native) and, where representable, 20140 (hex);
* ints round-trip and clamp like the reference server (negatives go out as 0);
* moves round-trip through table cells, move tables and their text form; card sets through
  their text form; profile names through the profile table;
* any bytes, any table and any text handed to a decoder give a value or a typed error
  (:class:`ProtocolError` / :class:`MoveTableError`, :class:`CardParseError` for text), and
  a decoded move never makes the judge or :meth:`GameState.step` raise.
"""

from __future__ import annotations

import random

import pytest
from daihinmin.protocol.codec import (
    build_exchange,
    build_move,
    build_profile,
    decode_exchange_table,
    decode_move_table,
    read_hand,
    read_profile,
    read_state,
)
from daihinmin.protocol.errors import MoveTableError, ProtocolError, TableSizeError
from daihinmin.protocol.table import (
    CELLS,
    COLS,
    HEX20140_CHARS,
    PROTOCOL_20060,
    PROTOCOL_20070,
    PROTOCOL_20140,
    TABLE_BYTES,
    Table,
    decode_int,
    encode_int,
    table_size,
)
from daihinmin.rules.match import MatchState
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import DECK52, JOKER, JOKER2, CardParseError, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import Move, move_from_cells, move_to_cells
from hypothesis import given, settings
from hypothesis import strategies as st

U32 = 2**32 - 1
FAST = settings(max_examples=150, deadline=None)
SLOW = settings(max_examples=40, deadline=None)
ALL_CARDS = list(CardSet(DECK52))

# 120 big-endian cells drawn as bytes: much faster to generate than 120 integers
u32_cells = st.binary(min_size=TABLE_BYTES, max_size=TABLE_BYTES).map(
    lambda data: list(Table.from_bytes(data).cells))
cell_positions = st.tuples(st.integers(0, 7), st.integers(0, COLS - 1))


@st.composite
def hands(draw: st.DrawFn, min_size: int = 0, max_size: int = 14) -> CardSet:
    cards = draw(st.lists(st.sampled_from(ALL_CARDS), min_size=min_size, max_size=max_size,
                          unique=True))
    jokers = draw(st.integers(0, 2))
    return CardSet.of(cards + [JOKER, JOKER2][:jokers])


@st.composite
def sparse_tables(draw: st.DrawFn) -> Table:
    """Mostly-zero tables with a few cells of any value (small values more often)."""
    values = st.one_of(st.integers(0, 3), st.integers(0, U32))
    cells = draw(st.dictionaries(cell_positions, values, max_size=8))
    return Table.zeros().with_cells(cells)


@st.composite
def tables_20140(draw: st.DrawFn) -> Table:
    """Tables the 20140 hex form can carry exactly."""
    cells: dict[tuple[int, int], int] = {}
    for row in range(4):
        for col in range(1, 14):
            cells[(row, col)] = draw(st.integers(0, 1))
    if draw(st.booleans()):
        row, col = draw(st.tuples(st.integers(0, 4), st.integers(0, COLS - 1)))
        cells[(row, col)] = 2
    cells[(5, 0)] = draw(st.integers(0, 1))
    cells[(5, 1)] = draw(st.integers(0, 5))
    cells[(5, 2)] = draw(st.integers(0, 1))
    cells[(5, 3)] = draw(st.integers(0, 7))
    for col in range(4, 8):
        cells[(5, col)] = draw(st.integers(0, 1))
    for col in range(COLS):
        cells[(6, col)] = draw(st.integers(0, 15))
    return Table.zeros().with_cells(cells)


# --- tables and ints ----------------------------------------------------------------------------
@FAST
@given(u32_cells, st.sampled_from([PROTOCOL_20070, PROTOCOL_20060]))
def test_table_bytes_round_trip(values: list[int], version: int) -> None:
    table = Table(values)
    data = table.to_bytes(version)
    assert len(data) == TABLE_BYTES == table_size(version)
    assert Table.from_bytes(data, version) == table


@FAST
@given(u32_cells)
def test_20070_is_big_endian_row_major(values: list[int]) -> None:
    data = Table(values).to_bytes()
    assert [int.from_bytes(data[4 * i:4 * i + 4], "big") for i in range(CELLS)] == values


@SLOW
@given(st.lists(st.integers(-(2**40), 2**40), min_size=CELLS, max_size=CELLS))
def test_negative_and_oversized_cells_are_clamped(values: list[int]) -> None:
    back = Table.from_bytes(Table(values).to_bytes())
    assert list(back.cells) == [min(max(v, 0), U32) for v in values]


@FAST
@given(tables_20140())
def test_table_20140_round_trip(table: Table) -> None:
    data = table.to_bytes(PROTOCOL_20140)
    assert len(data) == HEX20140_CHARS == table_size(PROTOCOL_20140)
    assert Table.from_bytes(data, PROTOCOL_20140) == table


@FAST
@given(st.one_of(st.binary(max_size=40),
                 st.text(alphabet="0123456789abcdefABCDEFxyz٣ ", min_size=33, max_size=33)
                 .map(lambda t: t.encode())))
def test_20140_garbage_gives_a_table_or_typed_error(data: bytes) -> None:
    try:
        table = Table.from_bytes(data, PROTOCOL_20140)
    except ProtocolError:
        return
    assert len(data) == HEX20140_CHARS
    # not every hex string is canonical (e.g. [5][1] below 0), but what it decodes to is
    assert Table.from_bytes(table.to_bytes(PROTOCOL_20140), PROTOCOL_20140) == table


@FAST
@given(st.binary(max_size=600), st.sampled_from([PROTOCOL_20070, PROTOCOL_20060]))
def test_wrong_sized_tables_are_typed_errors(data: bytes, version: int) -> None:
    if len(data) == TABLE_BYTES:
        assert Table.from_bytes(data, version).to_bytes(version) == data
    else:
        with pytest.raises(TableSizeError):
            Table.from_bytes(data, version)


def test_unknown_versions_are_typed_errors() -> None:
    with pytest.raises(ProtocolError):
        Table.zeros().to_bytes(12345)
    with pytest.raises(ProtocolError):
        Table.from_bytes(bytes(TABLE_BYTES), 12345)


@FAST
@given(st.integers(-(2**40), 2**40), st.sampled_from([PROTOCOL_20070, PROTOCOL_20060,
                                                        PROTOCOL_20140]))
def test_int_round_trip_and_clamp(value: int, version: int) -> None:
    data = encode_int(value, version)
    assert len(data) == 4
    assert decode_int(data, version) == min(max(value, 0), U32)
    if version != PROTOCOL_20060:
        assert data == min(max(value, 0), U32).to_bytes(4, "big")


@FAST
@given(st.binary(max_size=8))
def test_wrong_sized_ints_are_typed_errors(data: bytes) -> None:
    if len(data) == 4:
        assert encode_int(decode_int(data)) == data
    else:
        with pytest.raises(TableSizeError):
            decode_int(data)


# --- moves, cards, names -------------------------------------------------------------------
@SLOW
@given(hands(min_size=3))
def test_every_play_round_trips_through_cells_tables_and_text(hand: CardSet) -> None:
    single_joker_hand = hand if hand.jokers < 2 else hand - CardSet(1 << JOKER2)
    for move in all_plays(single_joker_hand, UECDA):
        assert move_from_cells(move_to_cells(move)) == move
        table = build_move(move)
        assert decode_move_table(Table.from_bytes(table.to_bytes())) == move
        assert Move.parse(str(move)) == move
        assert move.hand_cards() <= single_joker_hand
        assert len(move.hand_cards()) == move.size


@FAST
@given(hands())
def test_cardset_text_and_hand_cells_round_trip(hand: CardSet) -> None:
    assert CardSet.parse(str(hand)) == hand
    assert CardSet.parse(", ".join(str(hand).split())) == hand
    assert len(hand) == len(list(hand)) == len(str(hand).split())
    if hand.jokers <= 1:
        assert read_hand(Table.from_bytes(build_exchange(hand).to_bytes())) == hand


@FAST
@given(hands(), hands())
def test_cardset_algebra_matches_python_sets(a: CardSet, b: CardSet) -> None:
    # real cards as Python sets; jokers are interchangeable, so the algebra counts them
    sa, sb = set(a.without_jokers), set(b.without_jokers)
    ja, jb = a.jokers, b.jokers
    assert set((a | b).without_jokers) == sa | sb and (a | b).jokers == max(ja, jb)
    assert set((a & b).without_jokers) == sa & sb and (a & b).jokers == min(ja, jb)
    assert set((a - b).without_jokers) == sa - sb and (a - b).jokers == max(0, ja - jb)
    assert (a <= b) == (sa <= sb and ja <= jb) and (a == b) == (sa == sb and ja == jb)


printable = st.characters(min_codepoint=32, max_codepoint=0x2FFFF).filter(str.isprintable)


@FAST
@given(st.text(alphabet=printable, max_size=20))
def test_profile_name_round_trip(name: str) -> None:
    table = build_profile(name)
    back = Table.from_bytes(table.to_bytes())
    assert read_profile(back) == (PROTOCOL_20070, name[:14])
    assert back.row(1)[min(len(name), 14)] == 0  # the name always ends with a 0


# --- garbage in, typed errors out ------------------------------------------------------------
@FAST
@given(sparse_tables())
def test_any_move_table_decodes_or_gives_a_typed_error(table: Table) -> None:
    try:
        move = decode_move_table(table)
    except (MoveTableError, MoveShapeError) as exc:
        assert exc.cell is None or (0 <= exc.cell[0] <= 7 and 0 <= exc.cell[1] <= 14)
        return
    assert decode_move_table(build_move(move)) == move  # what it means is canonical
    assert move.jokers <= 1


@FAST
@given(u32_cells)
def test_readers_never_raise_on_any_table(values: list[int]) -> None:
    table = Table(values)
    read_state(table)
    read_hand(table)
    version, name = read_profile(table)
    assert version == values[0] and len(name) <= COLS
    try:
        decode_move_table(table)
    except (MoveTableError, MoveShapeError):
        return
    assert not any(v > 2 for v in values[:5 * COLS])  # such values are always refused


@FAST
@given(sparse_tables(), hands(max_size=11), st.integers(0, 3))
def test_any_exchange_table_gives_held_cards_or_a_typed_error(table: Table, hand: CardSet,
                                                              count: int) -> None:
    try:
        given_cards = decode_exchange_table(table, hand, count)
    except (MoveTableError, MoveShapeError):
        return
    assert given_cards <= hand and len(given_cards) == count


@FAST
@given(st.text(max_size=30))
def test_move_text_parses_or_gives_a_typed_error(text: str) -> None:
    try:
        move = Move.parse(text)
    except (CardParseError, MoveTableError, MoveShapeError):
        return
    assert Move.parse(str(move)) == move


@SLOW
@given(st.integers(0, 2**32 - 1), st.lists(sparse_tables(), min_size=1, max_size=30))
def test_garbage_moves_never_crash_the_engine(seed: int, tables: list[Table]) -> None:
    rng = random.Random(seed)
    state = MatchState(UECDA, seed=seed, games=1).setup_game().start()
    counts = sum(state.counts())
    for table in tables:
        for _ in range(rng.randrange(4)):  # reach a random state in between
            if state.over:
                return
            state.step(rng.choice(state.legal_moves()))
        if state.over:
            return
        try:
            move = decode_move_table(table)
        except (MoveTableError, MoveShapeError):
            continue
        verdict = state.judge(move)
        before = sum(state.counts())
        result = state.step(move)
        assert result.judgement == verdict
        removed = before - sum(state.counts())
        assert removed == (len(move.hand_cards()) if verdict.accepted else 0)
    assert sum(state.counts()) <= counts
