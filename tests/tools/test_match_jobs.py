"""``daihinmin match --jobs N``: several tables at once, real processes over real TCP, one
result.  The players are the bench's native C client (it costs almost nothing), so the tests
pay for the servers and a few games only."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from daihinmin.bench.tcp import compile_native
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.tools.cli import main
from daihinmin.tools.match_tables import table_log_path, table_seed
from processes import as_a_terminal_starts_it, processes_with


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = compile_native(tmp_path_factory.mktemp("native"))
    if exe is None:
        pytest.skip("no C compiler (cc) for the native client")
    return exe


def native_cmd(native: Path, name: str) -> str:
    return f"{shlex.quote(str(native))} {{host}} {{port}} {name}"


def fail_once_cmd(native: Path, flag: Path, name: str) -> str:
    """Exits 3 before it is seated the first time (in whichever table starts it first);
    the native client everywhere else."""
    script = f'mkdir {shlex.quote(str(flag))} 2>/dev/null && exit 3; exec "$2" "$0" "$1" {name}'
    return f"sh -c {shlex.quote(script)} {{host}} {{port}} {shlex.quote(str(native))}"


def test_two_tables_one_result_with_a_stand_in_in_one_table(
        native: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.jsonl"
    args = ["match", "--jobs", "2", "--games", "5", "--seed", "8", "--json", "--log", str(log)]
    for i in range(4):
        args += ["--cmd", native_cmd(native, f"n{i}")]
    args += ["--cmd", fail_once_cmd(native, tmp_path / "failed", "n4")]
    assert main(args) == 3  # a stand-in played in one table: exit 3, as for one table
    report = json.loads(capsys.readouterr().out)
    tables = report["tables"]
    assert [(t["table"], t["games"], t["seed"]) for t in tables] == [
        (1, 3, 8), (2, 2, table_seed(8, 2))]  # the larger share first; table 1: the seed
    assert report["games"] == 5 and report["jobs"] == 2 and report["exit_code"] == 3
    assert report["logs"] == [str(table_log_path(log, 1)), str(table_log_path(log, 2))]
    assert not log.exists()
    hit = [t for t in tables if t["players"][4]["status"] == "CRASHED"]
    assert len(hit) == 1 and hit[0]["exit_code"] == 3  # the other table is clean
    assert [t["exit_code"] for t in tables if t is not hit[0]] == [0]
    seat = report["players"][4]
    assert seat["status"] == "CRASHED" and seat["stand_in"] == "fallback"
    assert seat["stand_in_games"] == hit[0]["games"]  # never credited to the player
    assert seat["own_games"] == 5 - hit[0]["games"]
    assert seat["detail"].startswith(f"table {hit[0]['table']}: ")
    assert "exited with code 3" in seat["detail"]
    assert report["ranking"][-1] == 4
    for p in range(5):
        assert report["players"][p]["points"] == sum(t["players"][p]["points"] for t in tables)
        assert report["players"][p]["places"] == [
            sum(k) for k in zip(*(t["players"][p]["places"] for t in tables), strict=True)]
    assert report["totals"] == [sum(t["totals"][p] for t in tables) for p in range(5)]
    for t in tables:
        loaded = read_match_log(Path(t["log"]))
        assert verify_log(loaded).complete  # each table's log re-simulates
        assert (loaded.header.seed, len(loaded.games)) == (t["seed"], t["games"])
        assert loaded.end is not None and loaded.end.totals == t["totals"]


def test_table_logs_are_checked_before_anyone_is_seated(
        native: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log, started = tmp_path / "m.jsonl", tmp_path / "a-player-started"
    table_log_path(log, 2).write_text("keep me")
    args = ["match", "--jobs", "2", "--games", "4", "--log", str(log)]
    script = f'touch {started}; exec "$2" "$0" "$1" n'
    for _ in range(5):
        args += ["--cmd", f"sh -c {shlex.quote(script)} {{host}} {{port}} {native}"]
    assert main(args) == 5
    assert capsys.readouterr().err.strip() == (  # one line, from the check (no table's)
        f"daihinmin match: match log {table_log_path(log, 2)} exists; give another path, "
        "or --overwrite to replace it")
    assert table_log_path(log, 2).read_text() == "keep me"
    assert not table_log_path(log, 1).exists() and not started.exists()


@pytest.mark.parametrize(("extra", "message"), [
    (["--jobs", "0"], "--jobs is at least 1"),
    (["--jobs", "2", "--resume", "x.jsonl"], "resume each without --jobs"),
    (["--jobs", "2", "--publish", "http://127.0.0.1:9"], "--publish shows one table"),
])
def test_what_several_tables_cannot_do_is_refused_in_one_line(
        extra: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--no-log", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def children_of(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text() if entry.isdigit() else ""
        except OSError:
            continue
        if stat and int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize(("signum", "code", "message", "reason"), [
    (signal.SIGINT, 130, "continue table 2 with: daihinmin match --resume",
     "interrupted by the user (Ctrl-C)"),
    (signal.SIGTERM, 1, "MatchInterruptedError: stopped by SIGTERM", "stopped by SIGTERM"),
])
def test_a_signal_stops_every_table_and_every_process(
        native: Path, tmp_path: Path, signum: int, code: int, message: str,
        reason: str) -> None:
    marker = "jobsig" + uuid.uuid4().hex[:8]
    log = tmp_path / "s.jsonl"
    cmd = [sys.executable, "-m", "daihinmin.tools", "match", "--jobs", "2", "--games",
           "100000", "--log", str(log), "--no-fsync"]
    for i in range(5):
        cmd += ["--cmd", native_cmd(native, f"{marker}{i}")]
    runner = subprocess.Popen(as_a_terminal_starts_it(cmd), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while processes_with(marker) < 10 and time.monotonic() < deadline:
            assert runner.poll() is None
            time.sleep(0.05)
        assert processes_with(marker) == 10  # both tables' players are up
        workers = [w for fs in children_of(runner.pid) for w in children_of(fs)]
        assert len(workers) == 2  # forkserver -> one worker per table
        if signum == signal.SIGINT:  # as the terminal sends it: to the whole group
            os.killpg(runner.pid, signum)
        else:  # as `kill` sends it
            runner.send_signal(signum)
        _, err = runner.communicate(timeout=60)
    finally:
        runner.kill()
    assert runner.returncode == code, err.decode()
    assert message in err.decode()
    assert processes_with(marker) == 0
    assert not any(alive(w) for w in workers)
    for table in (1, 2):
        end = read_match_log(table_log_path(log, table)).end
        assert end is not None and end.status == "aborted" and end.error == reason


def test_each_table_has_its_share_its_seed_and_its_bots_seeded_from_it() -> None:
    from daihinmin.server.config import ServerConfig
    from daihinmin.tools.cmd_match import lineup_of, player_specs
    from daihinmin.tools.match_tables import plan_tables

    lineup = lineup_of(["random"] * 5, [], 5)
    args = argparse.Namespace(no_log=True, log=None, jobs=3, overwrite=False)
    tasks = plan_tables(args, ServerConfig(games=7, seed=4, lineup=lineup),
                        lambda c: player_specs(lineup, c.rules, c.seed))
    assert [(t.table, t.config.games, t.config.seed) for t in tasks] == [
        (1, 3, 4), (2, 2, table_seed(4, 2)), (3, 2, table_seed(4, 3))]
    for t in tasks:
        assert t.config.log_path is None
        assert [s.argv[-1] for s in t.specs] == [str(t.config.seed * 1000 + i)
                                                for i in range(5)]
    args.jobs = 4  # more tables than games: one table a game
    few = plan_tables(args, ServerConfig(games=2, seed=4), lambda c: [])
    assert [t.config.games for t in few] == [1, 1]


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_table_whose_worker_dies_fails_the_match_and_stops_the_others(
        native: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One table's worker is killed (SIGKILL) while both tables play: the match exits 1 and
    says so, the other table is stopped with its players (its log ends with the reason),
    and the dead table's players leave as their connections close."""
    marker = "jobdie" + uuid.uuid4().hex[:8]
    log = tmp_path / "d.jsonl"
    argv = ["match", "--jobs", "2", "--games", "100000", "--log", str(log), "--no-fsync"]
    for i in range(5):
        argv += ["--cmd", native_cmd(native, f"{marker}{i}")]
    killed: list[int] = []

    def kill_one_worker() -> None:
        deadline = time.monotonic() + 60
        while processes_with(marker) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        # Seated: a table's log has its header once its players are seated (a process that
        # is up may not have connected yet, and a kill before then leaves the log empty).
        logs = [table_log_path(log, t) for t in (1, 2)]
        while not all(p.exists() and b"\n" in p.read_bytes() for p in logs) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        player = next(int(e) for e in os.listdir("/proc") if e.isdigit()
                      and f"{marker}0".encode() in Path(f"/proc/{e}/cmdline").read_bytes())
        killed.append(parent_of(parent_of(player)))  # the player's guard's parent
        os.kill(killed[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    try:
        assert main(argv) == 1
    finally:
        killer.join()
    err = capsys.readouterr().err
    assert "its worker process died (exit code -9)" in err
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)  # the dead table's players see their sockets close
    assert processes_with(marker) == 0
    ends = [read_match_log(table_log_path(log, t)).end for t in (1, 2)]
    assert sorted((e.error if e else None) or "" for e in ends) == ["", "stopped by SIGTERM"]
