"""The floor server of ``daihinmin bench tcp``: a real session recorded by the native clients,
replayed by ``floor_server.c`` (and in Python, on selectors and on Trio, by
``bench_floor_py``) to the same clients over real TCP on 127.0.0.1."""

from __future__ import annotations

import shutil
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from daihinmin.bench.floor import (
    OP_GAME,
    OP_READ,
    RecordingError,
    Script,
    build_script,
    read_recording,
    read_script,
)
from daihinmin.bench.floor_py import LOOPS
from daihinmin.bench.tcp import (
    PLAYERS,
    BenchError,
    Floor,
    close_logs,
    compile_native,
    finish,
    record_floor,
    run_kind,
    start_table,
    stop,
)
from daihinmin.server.config import MOVE_TIMEOUT
from daihinmin.server.outbox import HELD_CHUNKS

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
GAMES = 4


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Floor]:
    folder = tmp_path_factory.mktemp("floor")
    native = compile_native(folder)
    assert native is not None
    return native, record_floor(native, GAMES, 7, "serve", folder)


def test_the_replayed_session_is_accepted_by_the_native_clients(
        recorded: tuple[Path, Floor]) -> None:
    # run_kind fails (BenchError) unless every client exits 0 (--strict: each table whole)
    # and the floor server exits 0 (every reply equal to the recorded one).
    native, floor = recorded
    r = run_kind("native", native, GAMES, 1, 7, "serve", floor)
    assert r["timed_games"] == GAMES - 1 and r["turns_per_game"] > 20
    assert r["server_cpu_ms_per_game"] > 0 and r["client_cpu_ms_per_game"] > 0


def test_a_reply_unlike_the_recording_fails_the_floor_run(
        recorded: tuple[Path, Floor], tmp_path: Path) -> None:
    native, floor = recorded
    data = bytearray(floor.script.read_bytes())
    count = struct.unpack_from("=I", data, 8)[0]
    header, op_size = 20, 24
    blob = header + count * op_size
    for i in range(count):
        kind, _, size, _, offset = struct.unpack_from("=IIIIQ", data, header + i * op_size)
        if kind == OP_READ:  # the first move or exchange: another card in it
            data[blob + offset + size - 1] ^= 1
            break
    changed = tmp_path / "changed.script"
    changed.write_bytes(bytes(data))
    with pytest.raises(BenchError, match="exited with 3"):
        run_kind("native", native, GAMES, 1, 7, "serve", Floor(floor.server, changed))


def test_the_script_has_one_write_per_player_per_wait(tmp_path: Path) -> None:
    native = compile_native(tmp_path)
    assert native is not None
    table, reader = start_table("native", native, 3, 11, "serve", record=tmp_path)
    try:
        finish([table], [reader], timeout=120)
    finally:
        stop([table])
        close_logs([table])
    recordings = [read_recording(tmp_path / f"client{n}.rec") for n in range(PLAYERS)]
    coalesced, deferred = build_script(recordings), build_script(recordings, deferred=True)
    for script in (coalesced, deferred):
        games = [op for op in script.ops if op[0] == OP_GAME]
        assert [g[1] for g in games] == [1, 2, 3] and script.games == 3
        # between two reads (or a game's end, where serve writes what it holds) each player
        # gets at most one write
        seen: set[int] = set()
        for kind, player, _, _ in script.ops[2 * PLAYERS:]:  # after seating (the numbers)
            if kind == 1:
                assert player not in seen
                seen.add(player)
            else:
                seen.clear()
        # each player's writes are exactly the bytes it read, in order
        for number in range(PLAYERS):
            own = next(m for m in recordings if m[1][1] == struct.pack(">I", number))
            sent = b"".join(script.blob[o:o + s] for k, p, s, o in script.ops
                            if k == 1 and p == number)
            assert sent == b"".join(data for kind, data in own if kind == b"R")
    # deferred: a write goes to the player read from next, or to everyone at a game's end,
    # or it carries the HELD_CHUNKS chunks held for a player not read from for long
    ops = deferred.ops
    early = 0
    for at, (kind, player, size, _) in enumerate(ops[2 * PLAYERS:], 2 * PLAYERS):
        after = next((op for op in ops[at + 1:] if op[0] != 1), ops[-1])
        if kind == 1 and not (after[0] == OP_GAME or after[1] == player):
            assert size >= HELD_CHUNKS // 2 * 480
            early += 1
    assert early > 0  # a player out early in a long game
    writes = [sum(op[0] == 1 for op in s.ops) for s in (coalesced, deferred)]
    assert writes[1] * 2 < writes[0]
    cut = recordings[0][:-1]
    with pytest.raises(RecordingError):
        build_script([cut, *recordings[1:]])


@pytest.mark.parametrize("loop", LOOPS)
def test_each_python_loop_replays_the_session_to_the_native_clients(
        recorded: tuple[Path, Floor], loop: str) -> None:
    # run_kind fails unless the replay exits 0 (every reply equal to the recorded one) and
    # every --strict client exits 0 (each table whole, in one read)
    native, floor = recorded
    r = run_kind("native", native, GAMES, 1, 7, "serve", Floor(floor.server, floor.script, loop))
    assert r["timed_games"] == GAMES - 1 and r["turns_per_game"] > 20
    # measured, but not necessarily above 0: the bench samples the server's CPU when it reads
    # a game's line, and on a busy machine it may read the first and the last game's at once
    assert isinstance(r["server_cpu_ms_per_game"], float) and r["server_cpu_ms_per_game"] >= 0


@pytest.mark.parametrize("loop", LOOPS)
def test_a_reply_byte_unlike_the_recording_fails_the_python_replay(
        recorded: tuple[Path, Floor], tmp_path: Path, loop: str) -> None:
    native, floor = recorded
    data = bytearray(floor.script.read_bytes())
    _, ops = read_script(bytes(data))
    count = struct.unpack_from("=I", data, 8)[0]
    header, op_size = 20, 24
    at = [i for i, op in enumerate(ops) if op[0] == OP_READ][-1]  # the last move: one byte
    offset = struct.unpack_from("=IIIIQ", data, header + at * op_size)[4]
    data[header + count * op_size + offset + 100] ^= 1
    changed = tmp_path / "changed.script"
    changed.write_bytes(bytes(data))
    with pytest.raises(BenchError, match="exited with 3"):
        run_kind("native", native, GAMES, 1, 7, "serve", Floor(floor.server, changed, loop))


def test_read_script_gives_back_what_the_script_wrote(tmp_path: Path) -> None:
    script = Script(2, deferred=True)
    script.send(0, b"ab")
    script.send(1, b"c")
    script.read(0, b"xyz")
    script.game_over(1, 7)
    data = script.to_bytes()
    assert read_script(data) == (2, [(1, 0, 2, b"ab"), (2, 0, 3, b"xyz"), (1, 1, 1, b"c"),
                                     (4, 1, 7, b"")])
    with pytest.raises(RecordingError):
        read_script(data[:-1])
    cut = tmp_path / "cut.script"
    cut.write_bytes(data[:-1])
    done = subprocess.run([sys.executable, "-m", "daihinmin.bench.floor_py", "trio",
                           str(cut)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "cannot read the script" in done.stderr


@pytest.mark.parametrize("loop", LOOPS)
def test_a_player_that_never_replies_ends_the_python_replay_at_the_move_deadline(
        tmp_path: Path, loop: str) -> None:
    script = Script(1, deferred=True)
    script.send(0, b"ab")
    script.read(0, b"xyz")
    path = tmp_path / "silent.script"
    path.write_bytes(script.to_bytes())
    replay = subprocess.Popen([sys.executable, "-m", "daihinmin.bench.floor_py", loop,
                               str(path)], stderr=subprocess.PIPE, text=True)
    try:
        assert replay.stderr is not None
        port = int(replay.stderr.readline().rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=30) as player:
            assert player.recv(2) == b"ab"  # then silence, the connection kept open
            assert replay.wait(timeout=30) == 1
        assert f"no reply within {MOVE_TIMEOUT:g} s" in replay.stderr.read()
    finally:
        replay.kill()
        replay.wait()
