"""Results that never lie in ``daihinmin tournament``, end to end (subprocesses, real bot
processes over TCP, a real SQLite file): a participant whose program is missing or crashes
is never credited with a stand-in's games; its faults are in the report, JSON, CSV and the
database; one writer per database; lower-is-better ranking; the planned games explained.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from daihinmin.records.exit_codes import FAILED, OK, OUTPUT_REFUSED

pytestmark = pytest.mark.timeout(180)

CLI = [sys.executable, "-m", "daihinmin.tools", "tournament"]
CRASH_LATE = (f"crash={sys.executable} -m daihinmin.bench.fault_client crash --at 25 "
              "--host {host} --port {port}")


def run(*args: str, timeout: float = 150) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def by_name(report: dict) -> dict[str, dict]:
    return {p["name"]: p for p in report["participants"]}


def test_a_missing_cmd_fails_its_matches_and_is_never_ranked_on_stand_in_games(
        tmp_path: Path) -> None:
    db, out = tmp_path / "t.sqlite", tmp_path / "s.csv"
    done = run("--bot", "default", "--bot", "greedy", "--cmd", "bad=./no-such-program {host} "
               "{port}", "--games", "10", "--games-per-match", "2", "--db", str(db),
               "--csv", str(out), "--json", "--jobs", "1", "--tables", "1")
    assert done.returncode == FAILED, done.stderr
    report = json.loads(done.stdout)
    bad = by_name(report)["bad"]
    assert bad["games"] == 0 and bad["faults"].get("CRASHED", 0) >= 1
    assert bad["stand_in_matches"] >= 1 and report["games"] == 0
    assert "could not start" in done.stderr
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    faults = con.execute("SELECT p.name, f.status, f.stand_in FROM seat_faults f JOIN "
                         "participants p ON p.id = f.participant").fetchall()
    assert faults and all(row == ("bad", "CRASHED", "fallback") for row in faults)
    errors = [e for (e,) in con.execute("SELECT error FROM matches WHERE status = 'failed'")]
    assert errors and all("bad (player" in e and "could not start" in e for e in errors)
    con.close()
    rows = {r["participant"]: r for r in csv.DictReader(out.open())}
    assert rows["bad"]["faults"].startswith("CRASHED") and rows["default"]["faults"] == ""


def test_a_cmd_that_crashes_mid_match_keeps_no_games_of_that_match(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    done = run("--bot", "default", "--bot", "greedy", "--cmd", CRASH_LATE, "--games", "5",
               "--games-per-match", "5", "--no-duplicate", "--db", str(db), "--json",
               "--jobs", "1", "--tables", "1")
    assert done.returncode == FAILED, done.stderr
    report = json.loads(done.stdout)
    assert by_name(report)["crash"]["faults"].get("CRASHED", 0) >= 1
    con = sqlite3.connect(db)
    status, error = con.execute("SELECT status, error FROM matches").fetchone()
    assert status == "failed" and "crash (player" in error and "CRASHED" in error
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    con.close()


def flock_held(path: Path) -> bool:
    """Whether some process holds a ``flock`` on ``path`` (read from /proc/locks, so the
    check itself takes no lock the writer could be refused by)."""
    if not path.exists():
        return False
    st = path.stat()
    file_id = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    return any(fields[1] == "FLOCK" and fields[5] == file_id
               for fields in map(str.split, Path("/proc/locks").read_text().splitlines())
               if len(fields) > 5)


def test_one_writer_per_database_and_checked_paths(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    first = subprocess.Popen([*CLI, "--bot", "default", "--bot", "greedy", "--games", "4000",
                              "--in-process", "--jobs", "1", "--db", str(db), "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not flock_held(db):  # the first one writes
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        second = run("--resume", "--db", str(db))
        assert second.returncode == OUTPUT_REFUSED, second.stderr
        assert "in use by another tournament process" in second.stderr
        assert "Traceback" not in second.stderr
        fresh = run("--bot", "default", "--bot", "greedy", "--db", str(db))
        assert fresh.returncode == OUTPUT_REFUSED and "pass --resume" in fresh.stderr
    finally:
        first.kill()
        first.communicate()
    for path, why in ((tmp_path, "is a directory"), (Path("/dev/full"), "not a regular file"),
                      (tmp_path / "nowhere" / "t.sqlite", "does not exist")):
        done = run("--bot", "default", "--bot", "greedy", "--db", str(path))
        assert done.returncode == OUTPUT_REFUSED, (path, done.stderr)
        assert why in done.stderr and "Traceback" not in done.stderr


def test_thirteenth_floor_rates_fewest_points_best_and_planned_games_are_explained(
        tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    done = run("--bot", "default", "--bot", "random", "--rules", "thirteenth_floor",
               "--games", "150", "--games-per-match", "10", "--in-process", "--jobs", "1",
               "--db", str(db), "--json")
    assert done.returncode == OK, done.stderr
    report = json.loads(done.stdout)
    assert report["lower_is_better"]
    first, last = report["participants"][0], report["participants"][-1]
    assert first["mean_points"] < last["mean_points"]  # fewer points: the better player
    assert report["games_planned"] > report["games_asked"] == 150
    assert report["planned_note"].startswith(
        f"Playing {report['games_planned']} games, not 150: whole rounds")
    assert not report["games_exact"]


def test_games_not_a_whole_round_are_said_first_or_played_exactly(tmp_path: Path) -> None:
    three = ("--bot", "default", "--bot", "greedy", "--bot", "random", "--in-process",
             "--jobs", "1", "--games", "4", "--games-per-match", "1")
    rounded = run(*three, "--db", str(tmp_path / "r.sqlite"))
    assert rounded.returncode == OK, rounded.stderr
    first = rounded.stderr.splitlines()[0]  # before any game: one line, what and why
    assert first.startswith("Playing 15 games, not 4: whole rounds keep the seats fair, and "
                            "a round is 3 tables x 5 seat rotations x 1 game = 15;"), first
    assert first.endswith("for exactly 4: --games-exact")
    assert "15 games of 15 planned" in rounded.stdout
    exact = run(*three, "--games-exact", "--db", str(tmp_path / "e.sqlite"), "--json")
    assert exact.returncode == OK, exact.stderr
    report = json.loads(exact.stdout)
    assert report["games"] == report["games_planned"] == report["games_asked"] == 4
    assert report["games_exact"] and "seats are not balanced" in report["planned_note"]
    assert sum(p["games"] for p in report["participants"]) == 4 * 5
