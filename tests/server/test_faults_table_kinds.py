"""A table is MALFORMED or ILLEGAL by what was sent, never by which error happened to read it.

Bytes that are no table (a cell outside 0..2, the wrong size, bad 20140 hex) are MALFORMED and
counted against the seat; a table of 0/1/2 cells that the rules reject for any reason (any
wrong shape, too many jokers, cards not held, a wrong exchange or choice) is ILLEGAL: answered
8 and played as a pass, as the reference server does, and counted only with
``--illegal-counts``.  Each error class says which it is by one base class
(:mod:`daihinmin.values.errors`); the checks below fail when a new error says neither, or
when a reader raises one that says neither.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from daihinmin.driver.faults import SeatStatus, table_fault
from daihinmin.protocol import codec, extension, table
from daihinmin.protocol import errors as protocol_errors
from daihinmin.protocol.errors import TABLE_ERRORS, IllegalTableError, MalformedTableError
from daihinmin.protocol.table import PROTOCOL_20070, PROTOCOL_20140, PROTOCOL_20260, Table
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.server.extension import read_choice
from daihinmin.server.requests import read_exchange, read_move_table
from daihinmin.values import errors as value_errors
from daihinmin.values import moves
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from hypothesis import given
from hypothesis import strategies as st
from probe import ProbePlayer, ProbeRecord, ProtocolViolation, SeenTurn, serve_probes

pytestmark = pytest.mark.timeout(120)

Cells = dict[tuple[int, int], int]

# Every table of 0/1/2 cells a 20070 move reader rejects at a one-joker table (UECda), one
# per raise of the cells reader (values/moves.py) it can reach: (cells, error class, words
# of the message).
SHAPE_TABLES: list[tuple[str, Cells, type[Exception], str]] = [
    ("card in column 0", {(1, 0): 1}, value_errors.BadCellError, "only a joker may stand"),
    ("card in column 14", {(2, 14): 1}, value_errors.BadCellError, "only a joker may stand"),
    ("card in row 4", {(4, 6): 1}, value_errors.BadCellError, "only a joker may stand"),
    ("two jokers", {(0, 4): 2, (1, 4): 2}, value_errors.TooManyJokersError, "jokers (2s)"),
    ("lone joker in row 4", {(4, 6): 2}, value_errors.InvalidShapeError, "row 4 holds only"),
    ("run with a gap", {(0, 3): 1, (0, 5): 1, (0, 6): 1}, value_errors.InvalidShapeError,
     "must be consecutive"),
    ("two-card run", {(3, 4): 1, (3, 5): 1}, value_errors.InvalidShapeError,
     "at least 3 cards"),
    ("group reaching row 4", {(0, 5): 1, (4, 5): 2}, value_errors.InvalidShapeError,
     "row 4 may be used only"),
    ("mixed suits and ranks", {(0, 3): 1, (1, 4): 1}, value_errors.InvalidShapeError,
     "neither one rank"),
]
# The raises of the cells reader only other readers reach (two jokers, 20260's shapes).
OTHER_SHAPES: list[tuple[str, Cells, int, bool, str]] = [
    ("group in a joker-only column", {(0, 0): 2, (1, 0): 2}, 2, False, "joker-only column"),
    ("group of jokers alone", {(0, 5): 2, (1, 5): 2}, 2, False, "at least one real card"),
    ("stairs with a gap", {(0, 3): 1, (1, 3): 1, (0, 5): 1, (1, 5): 1, (0, 6): 1, (1, 6): 1},
     1, True, "nor stairs"),
    ("mixed cards read for stairs", {(0, 3): 1, (1, 4): 1}, 1, True, "nor stairs"),
]
# Raises no table can reach, and why.
UNREACHABLE = {
    "is outside the card rows": "a table's card cells are rows 0..4",
    "stairs need at least one real card": "six cells of stairs hold at most two jokers",
}


def error_classes() -> Iterator[type[BaseException]]:
    """Every error class of the modules that read a peer's table."""
    for module in (value_errors, protocol_errors, extension):
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == module.__name__:
                yield cls


def test_every_table_error_says_malformed_or_illegal_and_never_both() -> None:
    sides = {MalformedTableError, IllegalTableError}
    roots = {value_errors.MoveShapeError}  # both sides' cell errors share it; never raised
    readers = [cls for cls in error_classes() if cls not in sides | roots
               and issubclass(cls, value_errors.MoveShapeError | protocol_errors.MoveTableError
                              | protocol_errors.TableSizeError)]
    assert len(readers) >= 10
    for cls in readers:
        said = [side for side in sides if issubclass(cls, side)]
        assert len(said) == 1, f"{cls.__name__} says {said}"
    assert table_fault(value_errors.BadCellValueError("x")) is SeatStatus.MALFORMED
    assert table_fault(protocol_errors.TableSizeError("x")) is SeatStatus.MALFORMED
    for cls in (value_errors.BadCellError, value_errors.InvalidShapeError,
                value_errors.TooManyJokersError, protocol_errors.CardNotHeldError,
                protocol_errors.JokerNotHeldError, protocol_errors.ExchangeCountError,
                extension.ChoiceCountError):
        assert table_fault(cls("x")) is SeatStatus.ILLEGAL, cls
    with pytest.raises(TypeError):
        table_fault(ValueError("says neither"))  # type: ignore[arg-type]


def raised_in(source: str) -> Iterator[tuple[str, str]]:
    """(error class name, first words of its message) of each ``raise X("...")``."""
    for node in ast.walk(ast.parse(textwrap.dedent(source))):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                and isinstance(node.exc.func, ast.Name):
            message = node.exc.args[0] if node.exc.args else None
            words = ""
            if isinstance(message, ast.Constant):
                words = str(message.value)
            elif isinstance(message, ast.JoinedStr):
                words = "".join(str(v.value) for v in message.values
                                if isinstance(v, ast.Constant))
            yield node.exc.func.id, words


SHAPE_READERS: list[tuple[object, str]] = [
    (moves, "check_cells"), (moves, "move_from_cells"), (moves, "_stairs")]
READERS = [*SHAPE_READERS, (codec, "read_card_cells"), (codec, "decode_exchange_table"),
           (codec, "check_ownership"), (extension, "read_choice_answer"),
           (table, "from_hex20140"), (table.Table, "from_bytes")]


def test_every_error_a_table_reader_raises_says_its_side() -> None:
    for reader in READERS:
        source = inspect.getsource(getattr(*reader))
        for name, _ in raised_in(source):
            if name == "UnsupportedVersionError":
                continue  # the server's own version, fixed at the handshake: not the peer's
            cls = getattr(protocol_errors, name, None) or getattr(extension, name)
            assert issubclass(cls, TABLE_ERRORS), f"{reader}: {name}"


def test_every_shape_error_is_covered_here() -> None:
    """Each raise of the cells reader has a table here (or says why none can reach it)."""
    covered = [words for _, _, _, words in SHAPE_TABLES] + \
              [words for *_, words in OTHER_SHAPES] + list(UNREACHABLE)
    raises = [r for reader in SHAPE_READERS for r in raised_in(inspect.getsource(getattr(*reader)))]
    assert len(raises) >= 14
    for name, words in raises:
        if name == "BadCellValueError":
            continue  # MALFORMED: the test below
        assert any(c in words for c in covered), f"no table raises {name}({words!r})"


@pytest.mark.parametrize(("name", "cells", "cls", "words"), SHAPE_TABLES,
                         ids=[t[0] for t in SHAPE_TABLES])
def test_a_shape_error_is_illegal(name: str, cells: Cells, cls: type[Exception],
                                  words: str) -> None:
    for version in (PROTOCOL_20070, PROTOCOL_20260):
        raw = Table.zeros().with_cells(cells).to_bytes(version)
        move, read, error, fault = read_move_table(version, raw, 1)
        assert move is None and read == cells and fault is SeatStatus.ILLEGAL, name
        assert error is not None and error.startswith(cls.__name__) and words in error


@pytest.mark.parametrize(("name", "cells", "jokers", "extended", "words"), OTHER_SHAPES,
                         ids=[t[0] for t in OTHER_SHAPES])
def test_the_other_shape_errors_are_illegal(name: str, cells: Cells, jokers: int,
                                            extended: bool, words: str) -> None:
    version = PROTOCOL_20260 if extended else PROTOCOL_20070
    raw = Table.zeros().with_cells(cells).to_bytes(version)
    move, _, error, fault = read_move_table(version, raw, jokers)
    assert move is None and fault is SeatStatus.ILLEGAL and words in (error or ""), name


NO_TABLES = [
    (Table.zeros().with_cells({(0, 5): 3}).to_bytes(), PROTOCOL_20070),  # a cell of 3
    (Table.zeros().with_cells({(0, 5): 1, (1, 5): 2**32 - 1}).to_bytes(), PROTOCOL_20260),
    (b"zz" * 16 + b"z", PROTOCOL_20140),  # not hex
    (("é" * 33).encode(), PROTOCOL_20140),  # not ASCII
]


@pytest.mark.parametrize(("raw", "version"), NO_TABLES)
def test_what_is_no_table_is_malformed(raw: bytes, version: int) -> None:
    assert read_move_table(version, raw, 1)[3] is SeatStatus.MALFORMED
    assert read_exchange(version, raw, CardSet.parse("S3 H4 D5"), 1)[3] is SeatStatus.MALFORMED
    problem = read_choice(version, raw, 1)[1]
    assert problem is not None and table_fault(problem) is SeatStatus.MALFORMED


def test_exchange_and_choice_tables_the_rules_reject_are_illegal() -> None:
    hand = CardSet.parse("S3 H4 D5 JK")
    tables: list[Cells] = [
        {(1, 0): 1},  # a card where only a joker may stand
        {(0, 1): 2, (1, 1): 2},  # two jokers, one held
        {(0, 13): 1},  # a card not held
        {(0, 1): 1, (1, 2): 1},  # two cards, one owed
    ]
    for cells in tables:
        raw = Table.zeros().with_cells(cells).to_bytes()
        cards, read, error, fault = read_exchange(PROTOCOL_20070, raw, hand, 1)
        assert cards is None and read == cells and fault is SeatStatus.ILLEGAL, (cells, error)
    for cells in ({(1, 0): 1}, {(0, 1): 2, (1, 1): 2, (2, 1): 2}, {(0, 1): 1, (1, 2): 1}):
        raw = Table.zeros().with_cells(cells).to_bytes(PROTOCOL_20260)
        chosen, problem, _ = read_choice(PROTOCOL_20260, raw, 1)
        assert chosen is None and problem is not None
        assert table_fault(problem) is SeatStatus.ILLEGAL, (cells, problem)


# --- over TCP: a client sending each of them plays on -----------------------------------
class ShapeProbe(ProbePlayer):
    """A checked probe that sends the shape tables, one a turn, from its first turn on; the
    server must answer each with 8.  ``cut_at``: the table after which the server may close
    the connection instead (the fault limit reached)."""

    def __init__(self, *args: object, cut_at: int | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.pending = [cells for _, cells, _, _ in SHAPE_TABLES]
        self.cut_at = cut_at
        self.sent = 0
        self.cut = False

    def move(self, turn: Table, hand: CardSet, field: Move | None,
             seen: SeenTurn) -> Move | None:
        if not self.pending:
            return super().move(turn, hand, field, seen)
        self.send_table(Table.zeros().with_cells(self.pending.pop(0)))
        self.sent += 1
        seen.sent = "bad:shape"
        if self.sent == self.cut_at:
            try:
                seen.answer = self.recv_int()
            except ProtocolViolation:  # closed without the 8: the seat went to its stand-in
                self.cut = True
                raise
        else:
            seen.answer = self.recv_int()
        if seen.answer != 8:
            raise ProtocolViolation(f"answer {seen.answer} to a table of the wrong shape")
        return None

    def run(self) -> ProbeRecord:
        try:
            return super().run()
        except ProtocolViolation:
            if not self.cut:
                raise
            return self.record


def shape_match(tmp_path: Path, **changes: object) -> tuple[list[object], ShapeProbe, Path]:
    log_path = tmp_path / "shapes.jsonl"
    config = replace(ServerConfig(games=3, seed=11, port=0, move_timeout=5.0, time_bank=0.0,
                                  log_path=log_path), **changes)  # type: ignore[arg-type]
    shaper = ShapeProbe("127.0.0.1", 0, "shaper", seed=1,
                        cut_at=len(SHAPE_TABLES) if changes.get("illegal_counts") else None)
    probes = [ProbePlayer("127.0.0.1", 0, f"p{i}", seed=10 + i, timeout=60.0)
              for i in range(4)]
    probes.insert(2, shaper)
    outcome, _ = trio.run(serve_probes, config, probes)
    assert outcome.games_played == 3
    return list(outcome.seats), shaper, log_path


def test_tables_of_the_wrong_shape_are_illegal_answered_8_and_not_counted(
        tmp_path: Path) -> None:
    seats, shaper, log_path = shape_match(tmp_path, fault_limit=1)
    assert not shaper.pending and shaper.sent == len(SHAPE_TABLES)
    me = seats[2]
    assert me.status == "ILLEGAL" and me.stand_in is None  # type: ignore[attr-defined]
    assert me.faults == {"ILLEGAL": len(SHAPE_TABLES)}  # type: ignore[attr-defined]
    assert all(s.status == "OK" for i, s in enumerate(seats) if i != 2)  # type: ignore[attr-defined]
    log = read_match_log(log_path)
    bad = [t for g in log.games for t in g.turns if t.player == 2 and t.fault]
    assert [t.fault for t in bad] == ["ILLEGAL"] * len(SHAPE_TABLES)
    assert all(t.answer == 8 and t.move == "pass" for t in bad)
    assert [t.error.split(":")[0] for t in bad if t.error] == [
        cls.__name__ for _, _, cls, _ in SHAPE_TABLES]
    assert not [e for g in log.games for e in g.events]  # no hand-over, no fault outside turns
    assert verify_log(log).complete


def test_with_illegal_counts_the_wrong_shapes_count_to_the_limit(tmp_path: Path) -> None:
    seats, shaper, _ = shape_match(tmp_path, fault_limit=len(SHAPE_TABLES),
                                   illegal_counts=True)
    assert shaper.cut and shaper.sent == len(SHAPE_TABLES)
    me = seats[2]
    assert me.status == "ILLEGAL" and me.stand_in == "fallback"  # type: ignore[attr-defined]
    assert f"{len(SHAPE_TABLES)} faults (limit {len(SHAPE_TABLES)})" in me.detail  # type: ignore[attr-defined]


@given(st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 14)), st.sampled_from((1, 2)),
                       max_size=8),
       st.sampled_from((PROTOCOL_20070, PROTOCOL_20260)), st.sampled_from((1, 2)))
def test_a_table_of_0_1_2_is_a_move_or_illegal_never_malformed(
        cells: Cells, version: int, jokers: int) -> None:
    raw = Table.zeros().with_cells(cells).to_bytes(version)
    move, _, _, fault = read_move_table(version, raw, jokers)
    assert (move is None) == (fault is SeatStatus.ILLEGAL)
    assert fault is not SeatStatus.MALFORMED
