"""``daihinmin match``: every player a separate OS process over loopback TCP.

External players join with ``--cmd``; here the checking probe client
(``tests/support/probe.py``, run as a script) plays, so each process also checks the server.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.tools.cli import main
from daihinmin.tools.cmd_match import DEFAULT_TABLE, lineup_of, player_specs
from processes import as_a_terminal_starts_it, processes_with

PROBE = Path(__file__).parents[1] / "support" / "probe.py"


def probe_cmd(i: int, marker: str) -> str:
    return (f"{shlex.quote(sys.executable)} {shlex.quote(str(PROBE))} "
            f"--host {{host}} --port {{port}} "
            f"--seed {i} --name {marker}{i}")


def children_with(marker: str) -> list[int]:
    """PIDs of this process's children whose command line mentions ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and marker.encode() in cmdline:
            found.append(int(entry))
    return found


def test_match_of_external_processes_reports_json_and_a_verifiable_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log_path = tmp_path / "m.jsonl"
    args = ["match", "--games", "4", "--seed", "11", "--json", "--log", str(log_path)]
    for i in range(5):
        args += ["--cmd", probe_cmd(i, "extprobe")]
    code = main(args)
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    assert report["games"] == 4 and report["log"] == str(log_path)
    assert [p["name"] for p in report["players"]] == [f"extprobe{i}" for i in range(5)]
    assert sum(p["points"] for p in report["players"]) == 15 * 4
    assert all(sum(p["places"]) == 4 for p in report["players"])
    assert report["wall_seconds"] > 0
    log = read_match_log(log_path)
    assert verify_log(log).complete
    assert [p["points"] for p in report["players"]] == log.end.totals  # type: ignore[union-attr]
    assert children_with("extprobe") == []


def test_a_player_that_fails_gets_a_stand_in_and_no_process_is_left(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A player process that dies before it is seated: the fallback plays its seat, the
    match finishes, and the report says what happened (with the player's stderr)."""
    failing = f"{sys.executable} -c 'import sys; print(\"no luck\", file=sys.stderr); sys.exit(3)'"
    log_path = tmp_path / "f.jsonl"
    args = ["match", "--games", "2", "--seed", "1", "--log", str(log_path), "--json",
            "--cmd", probe_cmd(0, "leftprobe"), "--cmd", probe_cmd(1, "leftprobe"),
            "--cmd", failing, "--cmd", probe_cmd(3, "leftprobe"),
            "--cmd", probe_cmd(4, "leftprobe")]
    assert main(args) == 3  # exit code 3: a stand-in played (docs/RESULTS.md)
    out = capsys.readouterr()
    report = json.loads(out.out)
    seat = report["players"][2]
    assert seat["status"] == "CRASHED" and seat["stand_in"] == "fallback"
    assert "exited with code 3 before it was seated" in seat["detail"]
    assert "no luck" in seat["detail"] and seat["stand_in_games"] == 2
    assert [p["status"] for p in report["players"]].count("OK") == 4
    assert verify_log(read_match_log(log_path)).complete
    assert children_with("leftprobe") == []


def test_player_specs_fill_and_order() -> None:
    specs = player_specs(lineup_of([], ["prog {port}"], 5))
    assert [s.label for s in specs] == ["prog {port}", *DEFAULT_TABLE[:4]]
    assert specs[0].resolve("127.0.0.1", 4321) == ["prog", "4321"]
    bundled = player_specs(lineup_of(["random"] * 5, [], 5))[0].resolve("127.0.0.1", 99)
    assert bundled[-6:] == ["bot", "random", "--host", "127.0.0.1", "--port", "99"]
    with pytest.raises(ValueError, match="6 players given"):
        lineup_of(["random"] * 6, [], 5)
    with pytest.raises(ValueError, match="3 players given"):
        lineup_of(["random"] * 3, [], 5)


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--rule", "nosuchrule=1", "--no-log"]) == 2
    assert main(["match", "nosuchbot", "--no-log"]) == 2
    assert "unknown" in capsys.readouterr().err


def test_default_table_of_bundled_bot_processes_plays_a_verifiable_match(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``daihinmin match`` with no BOT: default default default random greedy, as processes."""
    log_path = tmp_path / "bots.jsonl"
    code = main(["match", "--games", "6", "--seed", "5", "--json", "--log", str(log_path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    assert [p["label"] for p in report["players"]] == list(DEFAULT_TABLE)
    assert sum(p["points"] for p in report["players"]) == 15 * 6
    assert all(p["mean_move_ms"] > 0 for p in report["players"])
    log = read_match_log(log_path)
    summary = verify_log(log)
    assert summary.complete and summary.games == 6
    assert log.header.write_mode == "deferred"  # bundled bots only
    assert all(len(g.transfers) == 4 for g in log.games[1:])  # exchanges from game 2 on
    assert children_with("daihinmin.tools") == []


@pytest.mark.parametrize(("signum", "code", "message"), [
    (signal.SIGINT, 130, "interrupted"),
    (signal.SIGTERM, 1, "MatchInterruptedError: stopped by SIGTERM"),
])
def test_a_signal_stops_the_match_and_every_player_process(signum: int, code: int,
                                                            message: str) -> None:
    marker = "sigprobe" + uuid.uuid4().hex[:8]
    cmd = [sys.executable, "-m", "daihinmin.tools", "match", "--games", "100000", "--no-log"]
    for i in range(5):
        cmd += ["--cmd", probe_cmd(i, marker)]
    runner = subprocess.Popen(as_a_terminal_starts_it(cmd), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        # The runner starts the players one at a time, each seated (within its 60-s connect
        # timeout) before the next starts: so 60 s for the next one to come up, not for all
        # five (9 s for all five at load 9; 4 of 5 up in 60 s were seen at load 12-14).
        up, deadline = 0, time.monotonic() + 60
        while (now := processes_with(marker)) < 5 and time.monotonic() < deadline:
            assert runner.poll() is None
            if now > up:
                up, deadline = now, time.monotonic() + 60
            time.sleep(0.1)
        if processes_with(marker) != 5:  # every player process is up, or say why not
            runner.kill()
            _, err = runner.communicate(timeout=60)
            pytest.fail(f"{processes_with(marker)} of 5 players up; the match said: "
                        f"{err.decode()[-2000:]}")
        runner.send_signal(signum)
        _, err = runner.communicate(timeout=60)
    finally:
        runner.kill()
    assert runner.returncode == code
    assert message in err.decode()
    assert processes_with(marker) == 0
