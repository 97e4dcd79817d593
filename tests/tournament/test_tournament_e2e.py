"""End to end: ``daihinmin tournament`` in subprocesses, killed with SIGKILL and resumed.

A resumed tournament must hold exactly the games of an uninterrupted one (same seeds, same
per-game results), with none lost and none counted twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from daihinmin.tournament.store import TournamentStore
from results_db import committed_games

CLI = [sys.executable, "-m", "daihinmin.tools", "tournament"]


def run_cli(*args: str, timeout: float = 240) -> dict:
    proc = subprocess.run([*CLI, *args, "--json"], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def kill_midway(args: list[str], path: Path, after_games: int, timeout: float = 120) -> int:
    """Start the tournament and SIGKILL it once ``after_games`` games are committed; returns
    its session (its workers' too, :func:`wait_until_gone`)."""
    proc = subprocess.Popen([*CLI, *args, "--json"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    try:
        while committed_games(path) < after_games:
            assert proc.poll() is None, f"finished before the kill: {proc.stderr.read()!r}"
            assert time.monotonic() < deadline, "no progress"
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    return proc.pid


def stored_games(path: Path) -> list:
    store = TournamentStore(path)
    try:
        return store.game_results()
    finally:
        store.close()


def match_states(path: Path) -> dict[str, int]:
    store = TournamentStore(path)
    try:
        return store.counts()
    finally:
        store.close()


IN_PROCESS = ["--bot", "default", "--bot", "random", "--bot", "greedy", "--bot", "random",
              "--bot", "default", "--games", "150", "--games-per-match", "5", "--seed", "7",
              "--in-process", "--jobs", "2"]


@pytest.mark.slow
def test_in_process_kill_and_resume_equals_uninterrupted(tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    full = run_cli(*IN_PROCESS, "--db", str(whole))
    assert full["games"] == 150 and full["transport"] == "in-process"

    cut = tmp_path / "cut.sqlite"
    kill_midway([*IN_PROCESS, "--db", str(cut)], cut, after_games=40)
    assert 40 <= len(stored_games(cut)) < 150
    resumed = run_cli("--resume", "--db", str(cut))
    assert resumed["games"] == 150
    assert resumed["run"]["games"] < 150 + 25  # only the unfinished part (and its replays)
    assert stored_games(cut) == stored_games(whole)
    assert match_states(cut) == {"done": 30}
    assert resumed["participants"] == full["participants"]
    assert resumed["pairwise"] == full["pairwise"]


def test_report_only_and_exports(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    run_cli("--bot", "default", "--bot", "random", "--games", "20", "--games-per-match", "2",
            "--in-process", "--jobs", "1", "--db", str(db))
    csv_path, json_path = tmp_path / "s.csv", tmp_path / "r.json"
    report = run_cli("--report", "--db", str(db), "--csv", str(csv_path), "--report-json",
                     str(json_path))
    assert report["games"] == 20 and "run" not in report
    assert json.loads(json_path.read_text())["participants"] == report["participants"]
    lines = csv_path.read_text().splitlines()
    assert lines[0].startswith("rank,participant,seat_games,mean_points")
    assert [ln.split(",")[1] for ln in lines[1:]] == [p["name"] for p in report["participants"]]
    # 2 participants at 5 seats: 20 games x 5 seats, split 3/2 and 2/3 over the round
    assert sum(p["games"] for p in report["participants"]) == 100


@pytest.mark.slow
def test_existing_db_needs_resume_and_a_matching_tournament(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    args = ["--bot", "default", "--bot", "random", "--games", "10", "--games-per-match", "5",
            "--in-process", "--jobs", "1", "--db", str(db)]
    first = run_cli(*args)
    assert first["games"] == 50  # rounded up to a whole round: 2 tables x 5 rotations x 5
    again = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=60)
    assert again.returncode == 5 and "--resume" in again.stderr  # 5: output refused
    other = subprocess.run([*CLI, *args, "--resume", "--seed", "99"], capture_output=True,
                           text=True, timeout=60)
    assert other.returncode == 2 and "different tournament" in other.stderr
    more = run_cli(*[a if a != "10" else "60" for a in args], "--resume")  # one more round
    assert more["games"] == 100 and more["run"]["games"] == 50


@pytest.mark.parametrize("bad", [["--bot", "default"], ["--bot", "default", "--cmd",
                                                         "x {port}", "--in-process"],
                                 ["--bot", "simple", "--bot", "default", "--in-process"]])
def test_bad_quick_runs_are_refused(tmp_path: Path, bad: list[str]) -> None:
    proc = subprocess.run([*CLI, *bad, "--db", str(tmp_path / "x.sqlite")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert not (tmp_path / "x.sqlite").exists()  # refused before a database is made


def processes_mentioning(token: str, session: int | None = None) -> list[int]:
    """Live processes whose command line contains ``token``, or that are in ``session``
    (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state, _, _, sid = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[:4]
        except (OSError, ValueError):
            continue
        if (token.encode() in cmdline or int(sid) == session) and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until_gone(token: str, session: int) -> None:
    """The killed dispatcher's workers (in its session) and their bots (named with
    ``token``, each in a session of its own) have all noticed and exited: a worker may
    still open a match's log while no bot of it is up yet."""
    deadline = time.monotonic() + 120
    while processes_mentioning(token, session) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_mentioning(token, session) == []


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_tcp_with_an_external_command_kill_and_resume(tmp_path: Path) -> None:
    token = f"t{os.getpid()}x"  # a label on every bot process of this test
    external = (f"{token}ext={sys.executable} -m daihinmin.tools bot random --seed 5 -q "
                f"--host {{host}} --port {{port}}")
    args = ["--bot", f"{token}d=default", "--bot", f"{token}r=random", "--cmd", external,
            "--games", "6", "--games-per-match", "2", "--no-duplicate", "--seed", "3",
            "--jobs", "2", "--tables", "2"]
    whole = tmp_path / "whole.sqlite"
    full = run_cli(*args, "--db", str(whole))
    assert full["transport"] == "tcp" and full["games"] == 6
    assert full["matches"] == {"done": 3}
    names = {p["name"] for p in full["participants"]}
    assert names == {f"{token}d", f"{token}r", f"{token}ext"}

    cut = tmp_path / "cut.sqlite"
    session = kill_midway([*args, "--db", str(cut)], cut, after_games=2)
    assert 2 <= len(stored_games(cut)) < 6
    wait_until_gone(token, session)  # workers and bots notice the dispatcher is gone
    # the database alone never makes a program run: the players are named again
    resumed = run_cli(*args, "--resume", "--db", str(cut))
    assert resumed["games"] == 6 and match_states(cut) == {"done": 3}
    assert stored_games(cut) == stored_games(whole)
    assert resumed["participants"] == full["participants"]


def logged_results(path: Path) -> list[tuple[int, list[int], list[int]]]:
    """(game, places, points) of every game in a match log."""
    from daihinmin.records.matchlog import read_match_log

    return [(g.game, list(g.places), list(g.points)) for g in read_match_log(path).games]


def db_results(path: Path) -> dict[int, list[tuple[int, list[int], list[int]]]]:
    """(game, places, points) of every stored game, by match."""
    out: dict[int, list[tuple[int, list[int], list[int]]]] = {}
    for mid, game, _seats, rows in stored_games(path):
        out.setdefault(mid, []).append((game, [r[1] for r in rows], [r[2] for r in rows]))
    return out


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_tcp_match_logs_survive_a_kill_and_the_resume_writes_new_ones(tmp_path: Path
                                                                      ) -> None:
    token = f"l{os.getpid()}x"
    logs = tmp_path / "logs"
    logs.mkdir()
    db = tmp_path / "t.sqlite"
    # matches long enough that the kill, once a game is committed, finds one in play even
    # when the dispatcher commits late on a busy machine (3-game matches were all over once)
    args = ["--bot", f"{token}d=default", "--bot", f"{token}g=greedy", "--games", "24",
            "--games-per-match", "12", "--no-duplicate", "--seed", "4", "--jobs", "1",
            "--tables", "1", "--log-dir", str(logs), "--db", str(db)]
    session = kill_midway(args, db, after_games=1)
    wait_until_gone(token, session)  # the worker exits first, then its bots see EOF
    before = {p: p.read_bytes() for p in logs.glob("*.jsonl")}  # (players' stderr beside)
    unfinished = [p for p, data in before.items() if b'"type": "end"' not in data]
    assert unfinished, "the kill left no match in play"

    report = run_cli("--resume", "--db", str(db), "--log-dir", str(logs))
    assert report["matches"] == {"done": len({r["match"] for r in report["match_logs"]})}
    for path, data in before.items():  # an earlier attempt's log is never clobbered
        assert path.read_bytes() == data
    listed = {Path(r["path"]): r for r in report["match_logs"]}
    assert set(listed) == set(logs.glob("*.jsonl"))  # the report names every log, only those
    for path in unfinished:
        assert not listed[path]["counted"]
        again = [r for r in listed.values() if r["match"] == listed[path]["match"]
                 and r["attempt"] > listed[path]["attempt"]]
        assert again and again[-1]["counted"]
        assert Path(again[-1]["path"]).name.endswith(".2.jsonl")
    stored = db_results(db)
    counted = [r for r in report["match_logs"] if r["counted"]]
    assert sorted(r["match"] for r in counted) == sorted(stored)  # one per match
    for r in counted:  # the counted logs hold exactly the stored games, and verify
        path = Path(r["path"])
        assert logged_results(path) == stored[r["match"]]
        check = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", "--verify",
                                str(path)], capture_output=True, text=True, timeout=60)
        assert check.returncode == 0 and "(complete)" in check.stdout, check.stderr

    text = subprocess.run([*CLI, "--report", "--db", str(db)], capture_output=True,
                          text=True, timeout=60)
    assert text.returncode == 0, text.stderr
    assert f"Match logs: {len(listed)} in {logs}; {len(counted)} hold the counted" in \
        " ".join(text.stdout.split())
