"""The client's byte readers give what the table readers give: ``read_turn_bytes`` and
``read_field_bytes`` against ``read_turn``/``read_field`` of ``Table.from_bytes``, on random
tables (valid ones and ones with a state cell out of range), the same value or the same
error naming the same cell."""

from __future__ import annotations

from collections.abc import Callable

from daihinmin.client.errors import UnexpectedMessageError
from daihinmin.client.tables import (
    read_field,
    read_field_bytes,
    read_play,
    read_turn,
    read_turn_bytes,
)
from daihinmin.protocol.codec import TableState, build_field, build_turn
from daihinmin.protocol.table import Table
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import VALID_BITS, CardSet
from hypothesis import given
from hypothesis import strategies as st

WHERE = "reading a table"
# What a server sends: flags 0/1, players 0..4, counts 0..54, classes and seats 0..4.
flag = st.integers(0, 1)
player = st.integers(0, 4)
five_players = st.tuples(player, player, player, player, player)
counts = st.tuples(*[st.integers(0, 54)] * 5)
valid_states = st.builds(TableState, flag, st.integers(0, 11), flag, player, flag, flag, flag,
                         flag, counts, five_players, five_players)
# ... and now and then one cell of rows 5 and 6 set to any 32-bit value (a check must catch
# it, unless the readers do not check that cell).
STATE_CELLS = [(5, c) for c in range(8)] + [(6, c) for c in range(15)]
EDGES = (0, 1, 2, 4, 5, 6, 54, 55, 2**32 - 1)  # each side of every check's bound
corruption = st.one_of(st.none(), st.tuples(st.sampled_from(STATE_CELLS),
                                            st.one_of(st.sampled_from(EDGES),
                                                      st.integers(0, 2**32 - 1))))


@st.composite
def states(draw: st.DrawFn) -> dict[tuple[int, int], int]:
    """The state cells of a table (rows 5 and 6)."""
    cells = draw(valid_states).cells()
    bad = draw(corruption)
    if bad is not None:
        cells[bad[0]] = bad[1]
    return cells


hands = st.integers(min_value=0, max_value=(1 << 62) - 1).map(lambda m: CardSet(m & VALID_BITS))


def outcome(read: Callable[..., object], *args: object) -> object:
    """What ``read(*args)`` gives: a value, or the error's text, cell and value."""
    try:
        return read(*args)
    except UnexpectedMessageError as exc:
        return ("error", str(exc), exc.cell, exc.value)


@given(hands, states(), st.booleans())
def test_read_turn_bytes_is_read_turn(hand: CardSet, state: dict[tuple[int, int], int],
                                      known: bool) -> None:
    data = build_turn(hand, TableState()).with_cells(state).to_bytes()
    table = Table.from_bytes(data)
    # The caller passes the hand an earlier table with the same card rows gave.
    given_hand = read_turn(build_turn(hand, TableState()), WHERE).hand if known else None
    assert (outcome(read_turn_bytes, data, WHERE, given_hand)
            == outcome(read_turn, table, WHERE, given_hand))


@given(hands, states(), st.booleans(), st.data())
def test_read_field_bytes_is_read_field(hand: CardSet, state: dict[tuple[int, int], int],
                                        known: bool, data: st.DataObject) -> None:
    plays = all_plays(hand, UECDA)
    on_field: bool = bool(plays) and data.draw(st.booleans())
    move = data.draw(st.sampled_from(plays)) if on_field else None
    raw = build_field(move, TableState()).with_cells(state).to_bytes()
    table = Table.from_bytes(raw)
    play = read_play(build_field(move, TableState()), WHERE) if known else None
    for max_jokers in (1, 2):
        assert (outcome(read_field_bytes, raw, WHERE, max_jokers, play)
                == outcome(read_field, table, WHERE, max_jokers, play))


def test_every_state_cell_at_every_bound_reads_the_same() -> None:
    """Each cell of rows 5 and 6 at each side of each check's bound, in a valid table, with
    the card rows known and not: the byte readers agree with the table readers."""
    hand = CardSet.parse("S3 H7 DK JK")
    base = TableState(my_turn=1, turn_player=2, counts=(4, 5, 6, 7, 8),
                      classes=(0, 1, 2, 3, 4)).cells()
    move = all_plays(CardSet.parse("S3 H3"), UECDA)[-1]
    for cell in STATE_CELLS:
        for value in EDGES:
            state = base | {cell: value}
            turn = build_turn(hand, TableState()).with_cells(state)
            field = build_field(move, TableState()).with_cells(state)
            for known in (False, True):
                held = hand if known else None
                assert (outcome(read_turn_bytes, turn.to_bytes(), WHERE, held)
                        == outcome(read_turn, turn, WHERE, held)), (cell, value)
                play = read_play(field, WHERE) if known else None
                assert (outcome(read_field_bytes, field.to_bytes(), WHERE, 1, play)
                        == outcome(read_field, field, WHERE, 1, play)), (cell, value)
