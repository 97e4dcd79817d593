"""The Python floors of ``daihinmin bench tcp``: a real session recorded by the native
clients, replayed by ``bench_floor_py`` on selectors and on Trio to the same clients over
real TCP on 127.0.0.1."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from daihinmin.tools.bench_floor import OP_READ, RecordingError, Script, read_script
from daihinmin.tools.bench_floor_py import LOOPS
from daihinmin.tools.bench_tcp import BenchError, Floor, compile_native, record_floor, run_kind

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
GAMES = 3


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Floor]:
    folder = tmp_path_factory.mktemp("pyfloor")
    native = compile_native(folder)
    assert native is not None
    return native, record_floor(native, GAMES, 5, "deferred", folder)


@pytest.mark.parametrize("loop", LOOPS)
def test_each_python_loop_replays_the_session_to_the_native_clients(
        recorded: tuple[Path, Floor], loop: str) -> None:
    # run_kind fails unless the replay exits 0 (every reply equal to the recorded one) and
    # every --strict client exits 0 (each table whole, in one read)
    native, floor = recorded
    r = run_kind("native", native, GAMES, 1, 5, "deferred", Floor(floor.server, floor.script,
                                                                  loop))
    assert r["timed_games"] == GAMES - 1 and r["turns_per_game"] > 20
    assert r["server_cpu_ms_per_game"] > 0


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
        run_kind("native", native, GAMES, 1, 5, "deferred", Floor(floor.server, changed, loop))


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
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools.bench_floor_py", "trio",
                           str(cut)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "cannot read the script" in done.stderr
