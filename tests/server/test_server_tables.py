"""The server's tables, byte for byte against the reference transcript, and its flag rules.

Vectors: player 3's first messages in ``tests/data/transcript_example.txt`` (game 1:
deal #3, turn #4, field #5; game 2: deal #272) with the hands of the server kifu.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterator

import pytest
from daihinmin.protocol.codec import build_profile
from daihinmin.protocol.table import PROTOCOL_20070
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, Transfer
from daihinmin.rules.ruleset import UECDA
from daihinmin.server.connection import PlayerConnection
from daihinmin.server.errors import HandshakeError
from daihinmin.server.handshake import profile_version
from daihinmin.server.tables import (
    class_row,
    deal_order,
    deal_table,
    field_table,
    shown_flags,
    turn_state,
    turn_table,
)
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move
from hypothesis import given, settings
from hypothesis import strategies as st

# Hands of game 1 from the kifu ("palyer_cards"), player 0..4; seats 4 0 1 2 3.
GAME1_HANDS = [
    "SQ S2 HT HK D3 D6 C3 C4 CT CJ C2",
    "S3 S5 S7 SJ SA H3 H8 DQ DA C9 CK",
    "S6 H5 H6 H7 HA D5 D8 DJ DK CQ",
    "S4 ST HJ HQ H2 D7 DT C7 CA JK",
    "S8 S9 SK H4 H9 D4 D9 D2 C5 C6 C8",
]
SEATS = (4, 0, 1, 2, 3)


def grid_bytes(rows: dict[int, list[int]]) -> bytes:
    """A table as the wire carries it: 120 big-endian uint32, rows not given are 0."""
    cells = []
    for r in range(8):
        cells += rows.get(r, [0] * 15)
    return struct.pack(">120I", *cells)


def encode(table: object) -> bytes:
    conn = PlayerConnection.__new__(PlayerConnection)
    conn.version = 20070
    return conn.encode_table(table)  # type: ignore[arg-type]


def game1_setup() -> GameSetup:
    hands = [CardSet.parse(h) for h in GAME1_HANDS]
    return GameSetup(UECDA, 1, SEATS, 1, None, list(hands), list(hands), random.Random(0))


def test_transcript_profile_bytes_name_the_version_and_player() -> None:
    profile = grid_bytes({0: [20070] + [0] * 14,
                          1: [115, 116, 100, 51, 0, 108, 116] + [0] * 8})
    first64 = bytes.fromhex("00004e66" + "00" * 56 + "00000073")
    assert profile[:64] == first64  # the transcript's "raw first 64 bytes"
    assert profile_version(profile) == (20070, "std3")  # the name stops at the first 0


def test_profile_versions() -> None:
    assert profile_version(build_profile("hex", 20140).to_bytes()) == (20140, "hex")
    assert profile_version(build_profile("native", 20060).to_bytes(20060))[0] == 20060
    with pytest.raises(HandshakeError, match="unsupported protocol version 20071"):
        profile_version(build_profile("k", 20071).to_bytes())
    with pytest.raises(HandshakeError):
        profile_version(b"\x00" * 100)


def test_game1_deal_table_is_the_transcripts() -> None:
    setup = game1_setup()
    expected = grid_bytes({
        0: [0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        1: [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0],
        2: [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        3: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0],
        4: [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        5: [1, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        6: [11, 11, 10, 10, 11, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3],
    })
    assert encode(deal_table(setup, 3)) == expected
    assert deal_order(setup) == [0, 1, 2, 3, 4]


def test_game1_first_turn_and_field_tables_are_the_transcripts() -> None:
    setup = game1_setup()
    game = setup.start()
    assert game.turn == 0  # holder of D3
    state = turn_state(game, class_row(setup))
    hand_rows = {
        0: [0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        1: [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0],
        2: [0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
        3: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0],
        4: [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    }
    expected_turn = grid_bytes(hand_rows | {
        5: [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        6: [11, 11, 10, 10, 11, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3],
    })
    assert encode(turn_table(game, state, 3)) == expected_turn
    mover = turn_table(game, state, 0)
    assert mover[5, 2] == 1 and mover[5, 3] == 0
    cells = {(2, 1): 1, (3, 1): 1}
    step = game.step(Move.parse("D3 C3"))
    expected_field = grid_bytes({
        2: [0, 1] + [0] * 13,
        3: [0, 1] + [0] * 13,
        6: [9, 11, 10, 10, 11, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3],
    })
    assert encode(field_table(cells, game, step, class_row(setup), False, False)) == expected_field


def test_game2_deal_table_of_the_daifugo_is_the_transcripts() -> None:
    # Game 2 from the kifu: classes 2 4 3 0 1; p1 (daihinmin) gave DA JK to p3 (daifugo),
    # p2 (hinmin) gave SA to p4 (fugo).
    dealt = [CardSet.parse(h) for h in [
        "S7 SJ SQ SK H4 H6 H8 HK D5 D9 CA",
        "ST HT D3 D7 DQ DA C3 C4 C5 JK",
        "S4 SA H5 HA DJ DK C6 C8 CQ CK",
        "S3 S5 S6 S9 S2 H7 H9 D4 D8 CJ C2",
        "S8 H3 HJ HQ H2 D6 DT D2 C7 C9 CT",
    ]]
    hands = list(dealt)
    hands[1] = dealt[1] - CardSet.parse("DA JK")
    hands[3] = dealt[3] | CardSet.parse("DA JK")
    hands[2] = dealt[2] - CardSet.parse("SA")
    hands[4] = dealt[4] | CardSet.parse("SA")
    setup = GameSetup(UECDA, 2, SEATS, 3, (2, 4, 3, 0, 1), dealt, hands, random.Random(0),
                      transfers=[Transfer(1, 3, CardSet.parse("DA JK"), True),
                                 Transfer(2, 4, CardSet.parse("SA"), True)],
                      owed={3: (2, 1), 4: (1, 2)})
    expected = grid_bytes({
        0: [0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0],
        1: [0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        2: [0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0],
        3: [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0],
        4: [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        5: [1, 2, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        6: [11, 10, 10, 11, 11, 2, 4, 3, 0, 1, 4, 0, 1, 2, 3],
    })
    assert encode(deal_table(setup, 3)) == expected
    assert deal_order(setup) == [3, 4, 0, 2, 1]  # daifugo, fugo, heimin, hinmin, daihinmin
    lower = deal_table(setup, 1)  # the daihinmin still sees the cards it is about to lose
    assert lower[4, 1] == 2 and lower[2, 12] == 1 and lower[5, 1] == 0
    assert deal_table(setup, 2)[0, 12] == 1  # the hinmin still shows SA
    fugo = deal_table(setup, 4)
    assert fugo[0, 12] == 1 and fugo[5, 1] == 1  # the fugo already holds SA, owes 1


def locked_game() -> GameState:
    hands = [CardSet.parse(h) for h in ["D3 D5 S9", "D4 S6", "H4 S7", "C4 S8", "H5 S9"]]
    return GameState.start(UECDA, hands, (0, 1, 2, 3, 4), random.Random(1))


def test_field_table_shows_the_lock_before_the_clear_that_lifts_it() -> None:
    game = locked_game()
    game.step(Move.parse("D3"))
    step = game.step(Move.parse("D4"))  # same suit: lock on
    assert game.lock
    before = game.lock, game.eleven_back
    steps = [game.step(Move.parse("pass")) for _ in range(4)]
    lock_shown = [shown_flags(s, True, False)[0] for s in steps]
    assert game.turn == 1 and game.field is not None  # the owner answers its own D4
    step = game.step(Move.parse("pass"))  # p1 passes too: the trick clears
    assert step.trick_cleared and not game.lock
    assert shown_flags(step, *before) == (True, False)  # shown as it was before the clear
    assert lock_shown == [True] * 4
    table = field_table({(2, 2): 1}, game, step, (0,) * 5, *before)
    assert table[5, 7] == 1 and table[5, 4] == 0 and table[2, 2] == 1
    assert not any(table.row(7))


def test_lone_joker_lifts_the_lock_in_the_field_table() -> None:
    hands = [CardSet.parse(h) for h in ["D3 S9", "D4 ST", "JK S7", "C4", "H5"]]
    game = GameState.start(UECDA, hands, (0, 1, 2, 3, 4), random.Random(1))
    game.step(Move.parse("D3"))
    game.step(Move.parse("D4"))
    assert game.lock
    step = game.step(Move.parse("JK"))
    assert shown_flags(step, True, False) == (False, False)


def test_cached_turn_tables_equal_the_plain_builder() -> None:
    from daihinmin.rules.match import MatchState
    from daihinmin.server.tables import TurnTables

    pick = random.Random(5)
    match = MatchState(UECDA, seed=12, games=4)
    builder = TurnTables()
    turns = 0
    while not match.finished:
        setup = match.setup_game()
        game = setup.start()
        classes = class_row(setup)
        while not game.over:
            state = turn_state(game, classes)
            fast = builder.build(game, state)
            assert fast == [turn_table(game, state, p) for p in range(5)]
            game.step(pick.choice(game.legal_moves()))
            turns += 1
        match.finish_game(game)
    assert turns > 100


def random_positions(seed: int, games: int) -> Iterator[tuple[GameState, tuple[int, ...]]]:
    """Every position of ``games`` random engine games (with the deal's class row)."""
    from daihinmin.rules.match import MatchState

    pick = random.Random(seed)
    match = MatchState(UECDA, seed=seed, games=games)
    while not match.finished:
        setup = match.setup_game()
        game = setup.start()
        while not game.over:
            yield game, class_row(setup)
            game.step(pick.choice(game.legal_moves()))
        match.finish_game(game)


def test_turn_table_bytes_from_cached_rows_equal_the_encoded_tables() -> None:
    from daihinmin.server.tables import TurnTables

    builder = TurnTables()
    positions = 0
    for game, classes in random_positions(31, 4):
        state = turn_state(game, classes)
        assert builder.encode(game, state) == [
            turn_table(game, state, p).to_bytes(PROTOCOL_20070) for p in range(5)]
        positions += 1
    assert positions > 100


def test_field_table_bytes_from_the_play_rows_equal_the_encoded_field_table() -> None:
    from daihinmin.rules.match import MatchState
    from daihinmin.server.tables import card_rows_bytes, field_bytes, field_state, field_table
    from daihinmin.values.moves import MoveKind, move_to_cells

    pick = random.Random(4)
    match = MatchState(UECDA, seed=8, games=3)
    steps = 0
    while not match.finished:
        setup = match.setup_game()
        game = setup.start()
        classes = class_row(setup)
        shown = None
        while not game.over:
            lock, eleven_back, before = game.lock, game.eleven_back, game.field
            move = pick.choice(game.legal_moves())
            step = game.step(move)
            if move.kind is not MoveKind.PASS:
                shown = move_to_cells(move)
            elif before is None:
                shown = None
            state = field_state(shown is None, game, step, classes, lock, eleven_back)
            assert field_bytes(card_rows_bytes(shown), state) == field_table(
                shown, game, step, classes, lock, eleven_back).to_bytes(PROTOCOL_20070)
            if game.field is None:
                shown = None
            steps += 1
        match.finish_game(game)
    assert steps > 80


@pytest.mark.parametrize("preset,players", [("uecda", 5), ("web", 3), ("original", 6),
                                            ("uecda", 4)])
def test_turn_and_field_bytes_built_straight_from_the_game_equal_the_state_path(
        preset: str, players: int) -> None:
    """The hot path's tails (no TableState built) give exactly the bytes of the state path,
    for any player count (row 6 is cut or padded to five of each)."""
    from daihinmin.rules.match import MatchState
    from daihinmin.rules.ruleset import ruleset_from
    from daihinmin.server.tables import (
        TurnTables,
        card_rows_bytes,
        field_bytes,
        field_bytes_now,
        field_state,
    )
    from daihinmin.values.moves import move_to_cells

    rules = ruleset_from(preset, [f"players={players}"])
    pick = random.Random(players)
    match = MatchState(rules, seed=players + 40, games=3)
    builder, slow = TurnTables(), TurnTables()
    steps = 0
    while not match.finished:
        setup = match.setup_game()
        game = setup.start()
        classes = class_row(setup)
        while not game.over:
            if game.pending is not None:
                game.step_choice(None)
                continue
            assert builder.encode_turn(game, classes) == slow.encode(
                game, turn_state(game, classes))
            lock, eleven_back = game.lock, game.eleven_back
            move = pick.choice(game.legal_moves())
            step = game.step(move)
            cells = None if move.is_pass else move_to_cells(move)
            rows = card_rows_bytes(cells)
            assert builder.play_rows(cells) == rows
            for empty in (False, True):
                slow_bytes = field_bytes(
                    rows, field_state(empty, game, step, classes, lock, eleven_back))
                assert field_bytes_now(rows, empty, game, step, classes, lock,
                                       eleven_back) == slow_bytes
                # the cached rows (one builder for every game: new classes each game)
                assert builder.encode_field(rows, empty, game, step, classes, lock,
                                            eleven_back) == slow_bytes
            steps += 1
        match.finish_game(game)
    assert steps > 50


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 14)),
                       st.integers(0, 2**32 - 1), max_size=8))
def test_card_rows_bytes_equal_the_packed_cells(cells: dict[tuple[int, int], int]) -> None:
    """The rows written byte by byte (a small value: its last byte) are the packed cells."""
    from daihinmin.server.tables import card_rows_bytes

    values = [0] * 75
    for (r, c), v in cells.items():
        values[r * 15 + c] = v
    assert card_rows_bytes(cells) == struct.pack(">75I", *values)


def test_cached_turn_tables_follow_the_classes_and_seats_given() -> None:
    """The same hands under other classes or seats get their own rows 6 (the cache of the
    last hands is only reused for the same classes and seats)."""
    from daihinmin.rules.match import MatchState
    from daihinmin.server.tables import TurnTables

    setup = MatchState(UECDA, seed=3, games=1).setup_game()
    game = setup.start()
    builder = TurnTables()
    for classes in ((0, 0, 0, 0, 0), (4, 3, 2, 1, 0), (0, 0, 0, 0, 0)):
        assert builder.encode_turn(game, classes) == builder.encode(
            game, turn_state(game, classes))
    game.seats = (4, 3, 2, 1, 0)
    assert builder.encode_turn(game, classes) == builder.encode(game, turn_state(game, classes))
