"""Results that never lie, end to end: ``daihinmin match`` / ``replay`` as real processes.

Each test runs the command in a subprocess (real player processes over loopback TCP, real
files): a missing or crashing ``--cmd`` shows up in the standings and the exit code; resume
seats the logged lineup; logs are never clobbered or written twice; lower-is-better scoring
ranks right; Ctrl-C prints the standings so far; a slow first start does not cost a seat.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from daihinmin.records.exit_codes import INTERRUPTED, OK, OUTPUT_REFUSED, STAND_IN, USAGE
from daihinmin.records.matchlog import read_match_log
from processes import as_a_terminal_starts_it

pytestmark = pytest.mark.timeout(120)

CLI = [sys.executable, "-m", "daihinmin.tools"]
DATA = Path(__file__).parents[1] / "data"
CRASHER = (f"{sys.executable} -m daihinmin.bench.fault_client crash --at 3 "
           "--host {host} --port {port}")


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 90) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env)


def game_lines(path: Path) -> int:
    try:
        return sum(1 for line in path.read_bytes().split(b"\n")[:-1]
                   if b'"type": "game"' in line)
    except FileNotFoundError:
        return 0


def wait_for_games(proc: subprocess.Popen[str], path: Path, games: int) -> None:
    deadline = time.monotonic() + 60
    while game_lines(path) < games:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)


def seat(report: dict, number: int) -> dict:
    return next(p for p in report["players"] if p["number"] == number)


# --- faults in the standings and the exit code -----------------------------------------

def test_a_missing_cmd_is_a_stand_in_not_a_winner_and_exits_3(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    done = run("match", "default", "default", "default", "default", "--cmd",
               "./no-such-program {host} {port}", "--games", "3", "--seed", "4", "--log",
               str(log), "--json")
    assert done.returncode == STAND_IN, done.stderr
    report = json.loads(done.stdout)
    bad = seat(report, 4)
    assert bad["status"] == "CRASHED" and bad["stand_in_games"] == 3
    assert bad["own_games"] == 0 and bad["points"] == 0 and bad["stand_in_points"] > 0
    assert report["ranking"][-1] == 4 and report["stand_in_games"] == 3
    assert "could not start" in bad["detail"] and "--allow-stand-ins" in done.stderr
    table = run("match", "default", "default", "default", "default", "--cmd",
                "./no-such-program {host} {port}", "--games", "2", "--seed", "4",
                "--no-log", "--allow-stand-ins", env={**os.environ, "COLUMNS": "80"})
    assert table.returncode == OK, table.stderr
    assert "0+2" in table.stdout and "CRASHED" in table.stdout
    assert max(len(line) for line in table.stdout.splitlines()) <= 80


def test_a_cmd_that_crashes_mid_game_keeps_only_its_own_games(tmp_path: Path) -> None:
    done = run("match", "default", "default", "default", "default", "--cmd", CRASHER,
               "--games", "3", "--seed", "8", "--no-log", "--json")
    assert done.returncode == STAND_IN, done.stderr
    report = json.loads(done.stdout)
    bad = seat(report, 4)
    assert bad["status"] == "CRASHED" and bad["stand_in"] == "fallback"
    assert bad["stand_in_games"] == 3 - bad["own_games"] >= 1
    assert bad["seat_points"] == bad["points"] + bad["stand_in_points"]
    assert report["ranking"][-1] == 4
    assert [p["seat_points"] for p in sorted(report["players"], key=lambda p: p["number"])] \
        == report["totals"]


# --- files never clobbered ---------------------------------------------------------------

def test_output_paths_are_checked_before_anyone_is_seated(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    spy = f"{sys.executable} -c \"open('{marker}', 'w')\" {{host}} {{port}}"
    existing = tmp_path / "old.jsonl"
    existing.write_text("a complete log\n")
    for path, why in ((existing, "exists"), (tmp_path, "is a directory"),
                      (Path("/dev/full"), "not a regular file"),
                      (tmp_path / "nowhere" / "x.jsonl", "does not exist")):
        done = run("match", "--cmd", spy, "--games", "1", "--log", str(path))
        assert done.returncode == OUTPUT_REFUSED, (path, done.stderr)
        assert why in done.stderr and "Traceback" not in done.stderr
    assert existing.read_text() == "a complete log\n" and not marker.exists()
    over = run("match", "--games", "1", "--seed", "2", "--log", str(existing), "--overwrite")
    assert over.returncode == OK, over.stderr
    assert len(read_match_log(existing).games) == 1


def test_default_log_names_are_unique(tmp_path: Path) -> None:
    procs = [subprocess.Popen([*CLI, "match", "--games", "1", "--seed", "5", "--json"],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    logs = set()
    for proc in procs:
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == OK, err
        logs.add(json.loads(out)["log"])
    assert len(logs) == 2
    for name in logs:
        assert len(read_match_log(tmp_path / name).games) == 1


def test_one_writer_per_log(tmp_path: Path) -> None:
    """A log being written is locked: a second writer (here a second ``--resume`` of it) is
    refused with exit code 5 and the log is left as the first writer makes it."""
    log = tmp_path / "m.jsonl"
    first = subprocess.Popen(as_a_terminal_starts_it([*CLI, "match", "--games", "200", "--seed",
                                                      "3", "--log", str(log), "--move-time",
                                                      "5"]), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_for_games(first, log, 1)
        with log.open("rb") as f, pytest.raises(BlockingIOError):  # the match holds the lock
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        second = run("match", "--resume", str(log))
        assert second.returncode == OUTPUT_REFUSED, second.stderr
        assert "being written by another process" in second.stderr
        again = run("match", "--games", "1", "--log", str(log))
        assert again.returncode == OUTPUT_REFUSED and "exists" in again.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    played = read_match_log(log)
    assert played.end is not None and not played.resumes
    assert [g.game for g in played.games] == list(range(1, len(played.games) + 1))


# --- exact resume, Ctrl-C -----------------------------------------------------------------

LINEUP = ["default", "greedy", "default", "greedy", "default"]


def test_ctrl_c_prints_standings_and_resume_then_resume_takes_the_logged_lineup(
        tmp_path: Path) -> None:
    whole = run("match", *LINEUP, "--games", "6", "--seed", "21", "--no-log", "--json")
    assert whole.returncode == OK, whole.stderr
    log = tmp_path / "m.jsonl"
    cmd = [*CLI, "match", *LINEUP, "--games", "6", "--seed", "21", "--log", str(log)]
    proc = subprocess.Popen(as_a_terminal_starts_it(cmd), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_for_games(proc, log, 2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == INTERRUPTED, err
    assert "Standings so far" in err and f"--resume {log}" in err
    cut = read_match_log(log)
    assert cut.end is not None and cut.end.error == "interrupted by the user (Ctrl-C)"
    if len(cut.games) == 6:
        pytest.skip("the match finished before Ctrl-C arrived")

    other = run("match", "default", "random", "default", "greedy", "default", "--resume",
                str(log))
    assert other.returncode == USAGE
    assert "player 1: the log has greedy, the command line random" in other.stderr
    resumed = run("match", "--resume", str(log), "--json")  # no names: the log's lineup
    assert resumed.returncode == OK, resumed.stderr
    report, expected = json.loads(resumed.stdout), json.loads(whole.stdout)
    assert report["totals"] == expected["totals"] and report["games"] == 6
    assert [p["label"] for p in report["players"]] == LINEUP
    assert read_match_log(log).header.lineup == [{"bot": b} for b in LINEUP]


# --- lower is better ------------------------------------------------------------------------

def test_thirteenth_floor_ranks_fewest_points_first_in_match_and_replay(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    done = run("match", "--rules", "thirteenth_floor", "--games", "3", "--seed", "6",
               "--log", str(log), "--json")
    assert done.returncode == OK, done.stderr
    report = json.loads(done.stdout)
    points = {p["number"]: p["points"] for p in report["players"]}
    assert report["lower_is_better"]
    assert [points[n] for n in report["ranking"]] == sorted(points.values())
    replay = run("replay", str(log))
    assert replay.returncode == OK, replay.stderr
    lines = replay.stdout.split("standings:")[1].splitlines()[1:]
    shown = [int(line.split()[2]) for line in lines if line.strip().startswith("p")]
    assert shown[:len(points)] == sorted(points.values())


# --- a slow first start ----------------------------------------------------------------------

def test_a_bundled_bot_slower_to_start_than_the_seating_timeout_is_prepared_first(
        tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(DATA),
                                                        os.environ.get("PYTHONPATH", "")]),
           "SLOWPREP_CACHE": str(tmp_path / "cache"), "SLOWPREP_SECONDS": "4"}
    done = run("match", "slowprep:SlowStartBot", "default", "default", "default", "default",
               "--games", "1", "--seed", "1", "--no-log", "--connect-timeout", "2", "--json",
               env=env)
    assert done.returncode == OK, done.stderr
    assert "daihinmin match: slowprep:SlowStartBot: compiling (a stand-in for a first " \
           "compile)..." in done.stderr and "SlowStartBot ready in" in done.stderr
    assert seat(json.loads(done.stdout), 0)["status"] == "OK"
    again = run("match", "slowprep:SlowStartBot", "default", "default", "default", "default",
                "--games", "1", "--seed", "1", "--no-log", "--json", env=env)
    assert again.returncode == OK, again.stderr  # its "cache" is there: nothing announced
    assert "SlowStartBot" not in again.stderr, again.stderr
