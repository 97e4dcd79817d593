"""``daihinmin bench tcp`` with real server and client processes on loopback (a few games)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def bench(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "bench", "tcp", "--json",
                           *args], capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_cc
def test_native_clients_read_each_coalesced_and_deferred_table_with_one_read() -> None:
    # The native clients run --strict: a table split across read() calls exits 3 and fails
    # the bench, so coalesced and deferred writes must keep every 480-byte table whole and in
    # order; the floor server replays each mode's pattern (and checks every reply).
    out = bench("--kind", "native", "--games", "4", "--write-mode", "coalesced",
                "--write-mode", "deferred", "--no-strace")
    assert out["write_mode"] == "coalesced,deferred"
    assert list(out["results"]) == ["native:coalesced", "native:deferred"]
    for mode in ("coalesced", "deferred"):
        r = out["results"][f"native:{mode}"]
        assert r["write_mode"] == mode and r["timed_games"] == 3
        assert r["wall_ms_per_game"] > 0 and r["server_cpu_ms_per_game"] > 0
        # /proc counts CPU in clock ticks (10 ms): three games of a C client or of the
        # deferred floor can take less than one
        assert r["client_cpu_ms_per_game"] >= 0 and r["floor_server_cpu_ms_per_game"] >= 0
        assert r["floor_turns_per_game"] == r["turns_per_game"]
        # the same script replayed in Python on selectors and on Trio (bench_floor_py)
        assert r["pyfloor_turns_per_game"] == r["triofloor_turns_per_game"] == r["turns_per_game"]
        assert r["server_rss_kb_start"][0] > 0 and r["server_rss_kb_end"][0] > 0


def test_bundled_bots_and_two_tables() -> None:
    out = bench("--kind", "default", "--games", "3", "--tables", "2", "--no-strace")
    r = out["results"]["default"]
    assert r["tables"] == 2 and r["timed_games"] == 4
    assert len(r["server_rss_kb_end"]) == 2 and r["client_cpu_ms_per_game"] > 0
    # the start-up of one bot process, measured apart (refused at once, exit 3)
    assert r["client_startup_cpu_ms"] > 0 and r["client_startup_wall_ms"] > 0


@needs_cc
@pytest.mark.skipif(shutil.which("strace") is None, reason="no strace")
def test_syscalls_counted_where_strace_attaches() -> None:
    s = bench("--kind", "native", "--games", "3")["results"]["native"]["syscalls"]
    assert s["games"] >= 5 and s["server_network_syscalls_per_game"] > 0


def test_python_floor_clients_play_the_native_clients_games() -> None:
    # the Python floor client plays as the C client does: the very same games (turns)
    out = bench("--kind", "python", "--games", "3", "--no-strace", "--no-floor")
    r = out["results"]["python"]
    assert r["timed_games"] == 2 and r["client_cpu_ms_per_game"] > 0
    assert r["client_user_ms_per_game"] >= 0 and r["client_cpu_us_per_turn"] > 0
    if shutil.which("cc") is not None:
        native = bench("--kind", "native", "--games", "3", "--no-strace", "--no-floor")
        assert native["results"]["native"]["turns_per_game"] == r["turns_per_game"]
