"""Durability: a match killed with SIGKILL and resumed equals an uninterrupted one.

``daihinmin match`` runs in a subprocess with deterministic bots (``default``, ``greedy``:
their moves depend only on what they see), is killed with SIGKILL once a few games are in
its log, and is continued with ``--resume LOG``.  The per-game results and points must be
those of an uninterrupted run of the same seed, and the log must verify.  The same holds for
``daihinmin serve`` with bot processes connected over TCP.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from daihinmin.records.matchlog import drop_torn_tail, parse_lines, read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.server.errors import ServerConfigError
from daihinmin.server.resume import config_for_resume, load_resume
from probe import ProbePlayer, probe_match, serve_probes

pytestmark = pytest.mark.timeout(240)

CLI = [sys.executable, "-m", "daihinmin.tools"]
BOTS = ["default", "greedy", "default", "greedy", "default"]
GAMES, SEED = 14, 77
SERVE_GAMES, SERVE_SEED = 12, 91


def match_cmd(*args: str) -> list[str]:
    return [*CLI, "match", *args, "--json", "--move-time", "5", "--exchange-time", "5"]


def game_lines(path: Path) -> int:
    """Complete game records in the log (a line still being written does not count)."""
    try:
        complete = path.read_bytes().split(b"\n")[:-1]
    except FileNotFoundError:
        return 0
    return sum(1 for line in complete if b'"type": "game"' in line)


def kill_after_games(proc: subprocess.Popen, path: Path, games: int) -> None:
    """SIGKILL ``proc`` as soon as ``path`` holds ``games`` game records."""
    deadline = time.monotonic() + 120
    try:
        while game_lines(path) < games:
            assert proc.poll() is None, "the match ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.005)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def results(path: Path) -> list[tuple[int, list[int], list[int], list[int]]]:
    return [(g.game, g.places, g.points, g.totals) for g in read_match_log(path).games]


@pytest.mark.slow
def test_kill_9_mid_match_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    done = subprocess.run(match_cmd(*BOTS, "--games", str(GAMES), "--seed", str(SEED),
                                    "--log", str(whole)),
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr

    cut = tmp_path / "cut.jsonl"
    proc = subprocess.Popen(match_cmd(*BOTS, "--games", str(GAMES), "--seed", str(SEED),
                                      "--log", str(cut)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_after_games(proc, cut, 4)
    killed_at = len(read_match_log(cut).games)
    assert 4 <= killed_at < GAMES
    assert read_match_log(cut).end is None  # no chance to write it

    resumed = subprocess.run(match_cmd(*BOTS, "--resume", str(cut)),
                             capture_output=True, text=True, timeout=180)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["resumed_after"] == killed_at and report["games"] == GAMES
    assert results(cut) == results(whole)
    log = read_match_log(cut)
    assert len(log.resumes) == 1 and log.resumes[0].after_game == killed_at
    assert log.end is not None and log.end.totals == read_match_log(whole).end.totals  # type: ignore[union-attr]
    summary = verify_log(log)
    assert summary.complete and summary.resumes == 1

    again = subprocess.run(match_cmd(*BOTS, "--resume", str(cut)),
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "complete; nothing to resume" in again.stderr


def test_resume_options_that_would_change_the_match_are_refused(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    log.write_text("")
    done = subprocess.run(match_cmd("--resume", str(log), "--seed", "3"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "drop --seed" in done.stderr


@pytest.fixture(scope="module")
def short_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("resume") / "m.jsonl"
    probe_match(ServerConfig(games=4, seed=8, port=0, log_path=path))
    return path


def cut_after(source: Path, target: Path, games: int, torn: str = "") -> Path:
    """The first ``games`` game lines of ``source`` (and ``torn``: a line cut short)."""
    lines = source.read_text().splitlines(keepends=True)
    target.write_text("".join(lines[:1 + games]) + torn)
    return target


def test_a_last_line_cut_short_is_dropped(short_log: Path, tmp_path: Path) -> None:
    lines = short_log.read_text().splitlines(keepends=True)
    torn = lines[3][: len(lines[3]) // 2]
    path = cut_after(short_log, tmp_path / "t.jsonl", 2, torn)
    log = read_match_log(path)
    assert log.torn and len(log.games) == 2 and verify_log(log).games == 2
    assert drop_torn_tail(path) == len(torn.encode())
    assert path.read_text() == "".join(lines[:3])
    assert drop_torn_tail(path) == 0
    with pytest.raises(Exception, match="a line without its end"):
        parse_lines([lines[0], torn, lines[1]])


def test_a_whole_last_record_without_its_newline_is_kept(short_log: Path,
                                                          tmp_path: Path) -> None:
    lines = short_log.read_text().splitlines(keepends=True)
    path = cut_after(short_log, tmp_path / "w.jsonl", 1, lines[2].rstrip("\n"))
    assert len(read_match_log(path).games) == 2
    assert drop_torn_tail(path) == 0 and path.read_text().endswith("\n")


def test_resume_point_and_config_come_from_the_log(short_log: Path, tmp_path: Path) -> None:
    path = cut_after(short_log, tmp_path / "c.jsonl", 2)
    point = load_resume(path)
    assert point.games_done == 2 and point.match.game == 3
    assert point.match.points == read_match_log(path).games[-1].totals
    config = config_for_resume(path, ServerConfig(port=0, games=99, seed=1))
    assert (config.seed, config.games, config.resume) == (8, 4, True)
    with pytest.raises(ServerConfigError, match="nothing to resume"):
        load_resume(short_log)


def test_a_tampered_log_is_not_resumed(short_log: Path, tmp_path: Path) -> None:
    records = [json.loads(line) for line in short_log.read_text().splitlines()[:3]]
    records[2]["totals"][0] += 1
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ServerConfigError, match="cumulative points"):
        load_resume(path)


def test_resume_plays_the_rest_in_process(short_log: Path, tmp_path: Path) -> None:
    lines = short_log.read_text().splitlines(keepends=True)
    path = cut_after(short_log, tmp_path / "r.jsonl", 2, lines[3][:40])
    config = config_for_resume(path, ServerConfig(port=0))
    players = [ProbePlayer("127.0.0.1", 0, f"p{i}", seed=50 + i, resumed=True)
               for i in range(5)]
    outcome, records = trio.run(serve_probes, config, players)
    assert outcome.resumed_after == 2 and outcome.games_played == 4
    assert all(len(r.games) == 2 for r in records)  # the probes played games 3 and 4 only
    log = read_match_log(path)
    assert [g.game for g in log.games] == [1, 2, 3, 4] and not log.torn
    assert verify_log(log).complete


def test_a_log_with_every_game_but_no_end_is_just_closed(short_log: Path,
                                                          tmp_path: Path) -> None:
    path = cut_after(short_log, tmp_path / "e.jsonl", 4)
    config = config_for_resume(path, ServerConfig(port=0))
    outcome, records = trio.run(serve_probes, config, [])
    assert outcome.resumed_after == 4 and records == []
    log = read_match_log(path)
    assert log.end is not None and log.end.status == "complete"
    assert verify_log(log).complete


def start_server(*args: str) -> tuple[subprocess.Popen[str], int]:
    server = subprocess.Popen([*CLI, "serve", "--port", "0", "--json", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    line = server.stderr.readline()
    found = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    assert found, line
    return server, int(found.group(1))


def start_bots(port: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([*CLI, "bot", "default", "--port", str(port), "--name", f"d{i}",
                              "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for i in range(5)]


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


def run_to_end(*args: str) -> dict[str, object]:
    server, port = start_server(*args)
    bots = start_bots(port)
    try:
        out, err = server.communicate(timeout=180)
    finally:
        server.kill()
        stop(bots)
    assert server.returncode == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_serve_killed_mid_match_and_resumed_equals_an_uninterrupted_run(
        tmp_path: Path) -> None:
    """The server as its own process with five ``daihinmin bot default`` processes (one
    deterministic strategy in every seat, so the seating order does not matter)."""
    whole = tmp_path / "whole.jsonl"
    run_to_end("--games", str(SERVE_GAMES), "--seed", str(SERVE_SEED),
               "--log", str(whole))

    cut = tmp_path / "cut.jsonl"
    server, port = start_server("--games", str(SERVE_GAMES), "--seed", str(SERVE_SEED),
                                "--log", str(cut))
    bots = start_bots(port)
    try:
        kill_after_games(server, cut, 3)
    finally:
        stop(bots)
    killed_at = len(read_match_log(cut).games)
    assert 3 <= killed_at < SERVE_GAMES and read_match_log(cut).end is None

    report = run_to_end("--resume", str(cut))
    assert report["resumed_after"] == killed_at and report["games"] == SERVE_GAMES
    assert len(results(whole)) == SERVE_GAMES and results(cut) == results(whole)
    log = read_match_log(cut)
    assert len(log.resumes) == 1 and log.resumes[0].after_game == killed_at
    assert log.end is not None and log.end.totals == read_match_log(whole).end.totals  # type: ignore[union-attr]
    assert verify_log(log).complete
