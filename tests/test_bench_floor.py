"""The floor server of ``daihinmin bench tcp``: a real session recorded by the native clients,
replayed by ``bench_floor_server.c`` to the same clients over real TCP on 127.0.0.1."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from daihinmin.tools.bench_floor import (
    OP_GAME,
    OP_READ,
    RecordingError,
    build_script,
    read_recording,
)
from daihinmin.tools.bench_tcp import (
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
    script = build_script(recordings)
    games = [op for op in script.ops if op[0] == OP_GAME]
    assert [g[1] for g in games] == [1, 2, 3] and script.games == 3
    # between two reads (or a game's end, where serve writes what it holds) each player
    # gets at most one write
    seen: set[int] = set()
    for kind, player, _, _ in script.ops:
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
    cut = recordings[0][:-1]
    with pytest.raises(RecordingError):
        build_script([cut, *recordings[1:]])
