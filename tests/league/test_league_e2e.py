"""A real league over loopback: ``daihinmin league`` as its own process, bundled bots and
submission folders as player processes, the SQLite database read as the pages read it.

One league lives through what a contest host sees: a submission entered while it runs is
placed; a folder replaced by a new version retires the old one (its rating frozen); a folder
with a broken manifest and a submission that crashes are suspended with their reasons, and a
crash never credits anybody; ``kill -9`` in the middle of a match and a restart lose and
double-count nothing.  Then the UECda groups format advances the right players.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daihinmin.league.standings import leaderboard
from daihinmin.league.store import LeagueStore
from league_run import WAIT, query, stop, wait_for

PY = shlex.quote(sys.executable)


def bot_command(kind: str, name: str) -> str:
    return (f"{PY} -m daihinmin.tools.botproc {kind} -q --host {{host}} --port {{port}} "
            f"--name {name}")


def submission(root: Path, folder: str, name: str, version: str, command: str) -> Path:
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "daihinmin-bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\nauthor = "test"\n'
        f"command = {json.dumps(command)}\n", encoding="utf-8")
    return path


def write_config(home: Path, extra: str = "", **settings: Any) -> Path:
    base = {"name": "loopback league", "submissions": "subs", "games_per_match": 2,
            "tables": 2, "crash_limit": 2, "scan_seconds": 0.3, "move_time": 3.0,
            "profile_time": 30.0, "seed": 5}
    base.update(settings)
    lines = [f"{k} = {json.dumps(v)}" for k, v in base.items()]
    path = home / "league.toml"
    path.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return path


def start(config: Path) -> subprocess.Popen[str]:
    out = (config.parent / "league-out.txt").open("a")
    return subprocess.Popen([sys.executable, "-m", "daihinmin.tools", "league", str(config)],
                            stdout=out, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def entrant(db: Path, name: str, status: str) -> tuple[Any, ...] | None:
    rows = query(db, "SELECT id, version, reason FROM entrants WHERE name = ? AND status = ?"
                 " ORDER BY id DESC", name, status)
    return rows[0] if rows else None


def done_matches_of(db: Path, entrant_id: int) -> int:
    return int(query(db, "SELECT COUNT(*) FROM matches m WHERE status = 'done' AND EXISTS"
                         " (SELECT 1 FROM json_each(m.lineup) WHERE value = ?)",
                     entrant_id)[0][0])


@pytest.fixture
def league_home(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "subs").mkdir()
    yield tmp_path


def board_row(db: Path, entrant_id: int) -> Any:
    store = LeagueStore.reader(db)
    try:
        return next(r for r in leaderboard(store).rows if r.id == entrant_id)
    finally:
        store.close()


def test_a_league_places_new_versions_suspends_crashers_and_resumes_after_kill(
        league_home: Path) -> None:
    subs = league_home / "subs"
    db = league_home / "league.sqlite"
    submission(subs, "alpha", "alpha", "1", bot_command("default", "alpha"))
    config = write_config(league_home, house=["random", "weakest"])
    proc = start(config)
    try:
        first = wait_for("alpha entered", lambda: entrant(db, "alpha", "active"), proc)
        wait_for("alpha's first match", lambda: done_matches_of(db, first[0]), proc)

        # a new submission mid-run is placed: it plays soon and gets a rank
        submission(subs, "gamma", "gamma", "1.0", bot_command("greedy", "gamma"))
        submission(subs, "beta", "beta", "1", "").joinpath("daihinmin-bot.toml").write_text(
            'name = "beta"\nversion = "1"\n', encoding="utf-8")
        gamma = wait_for("gamma entered", lambda: entrant(db, "gamma", "active"), proc)
        wait_for("gamma placed", lambda: done_matches_of(db, gamma[0]) >= 1, proc)
        assert board_row(db, gamma[0]).rank is not None
        beta = wait_for("beta suspended", lambda: entrant(db, "beta", "suspended"), proc)
        assert beta[2] == "daihinmin-bot.toml: author must be a non-empty string"

        # a replaced folder is the next version: the old one retires with its history
        submission(subs, "alpha", "alpha", "2", bot_command("default", "alpha2"))
        new = wait_for("alpha 2 entered",
                       lambda: (e := entrant(db, "alpha", "active")) and e[1] == "2" and e, proc)
        old = wait_for("alpha 1 retired", lambda: entrant(db, "alpha", "retired"), proc)
        assert old[0] == first[0] and old[2] == "replaced by version 2"
        frozen = board_row(db, old[0])
        assert frozen.status == "retired" and frozen.games > 0 and frozen.rating is not None
        wait_for("alpha 2 played", lambda: done_matches_of(db, new[0]) >= 1, proc)

        # a submission that check-bot fails never plays
        crash = f"{PY} -c 'import sys; sys.exit(3)' {{port}}"
        submission(subs, "early", "early", "1", crash)
        early = wait_for("early suspended", lambda: entrant(db, "early", "suspended"), proc)
        assert early[2] == "check-bot failed at its handshake step"
        [(detail,)] = query(db, "SELECT detail FROM entrants WHERE id = ?", early[0])
        assert "exited with code 3" in detail  # its output: on its page, for the host

        # one that starts crashing in its matches is suspended after crash_limit in a row
        flag = league_home / "crash-now"
        crash_when = Path(__file__).parents[1] / "data" / "league" / "crash_when.py"
        submission(subs, "crasher", "crasher", "1",
                   f"{PY} {shlex.quote(str(crash_when))} {shlex.quote(str(flag))} {{host}} "
                   "{port}")
        wait_for("crasher entered", lambda: entrant(db, "crasher", "active"), proc)
        flag.touch()
        bad = wait_for("crasher suspended", lambda: entrant(db, "crasher", "suspended"),
                       proc, timeout=WAIT * 2)
        assert "stand-in" in bad[2]
        assert query(db, "SELECT COUNT(*) FROM results WHERE entrant = ?", bad[0]) == [(0,)]
        failed = query(db, "SELECT COUNT(*), SUM(stand_in IS NOT NULL) FROM faults WHERE"
                           " entrant = ?", bad[0])[0]
        assert failed[0] >= 2 and failed[1] >= 2
        assert query(db, "SELECT COUNT(*) FROM results r JOIN matches m ON m.id = r.match_id"
                         " WHERE m.status = 'failed'") == [(0,)]  # a crash credits nobody

        # kill -9 in the middle of a match, with some of its games committed
        running = wait_for("a match in play with a game committed", lambda: query(
            db, "SELECT m.id FROM matches m WHERE m.status = 'running' AND EXISTS"
                " (SELECT 1 FROM games g WHERE g.match_id = m.id)"), proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        stop(proc)
    killed = running[0][0]
    before = query(db, "SELECT r.* FROM results r JOIN matches m ON m.id = r.match_id WHERE"
                       " m.status = 'done' ORDER BY r.match_id, r.game, r.player")
    done_before = int(query(db, "SELECT COUNT(*) FROM matches WHERE status = 'done'")[0][0])
    frozen_rating = board_row(db, old[0]).rating

    config = write_config(league_home, extra=f"[stop]\nmatches = {done_before + 3}\n",
                          house=["random", "weakest"])
    proc = start(config)
    try:
        assert proc.wait(WAIT * 2) == 0, (league_home / "league-out.txt").read_text()
    finally:
        stop(proc)
    out = (league_home / "league-out.txt").read_text()
    assert "played again from their start" in out
    assert query(db, "SELECT status FROM matches WHERE id = ?", killed) == [("done",)]
    assert query(db, "SELECT COUNT(*) FROM matches WHERE status = 'running'") == [(0,)]
    after = query(db, "SELECT r.* FROM results r JOIN matches m ON m.id = r.match_id WHERE"
                      " m.status = 'done' ORDER BY r.match_id, r.game, r.player")
    assert set(before) <= set(after)  # what was counted before the kill stays as it was
    # every done match has exactly its games, each once; other matches keep none
    per_match = query(db, "SELECT m.id, m.games, COUNT(g.game), COUNT(DISTINCT g.game) FROM"
                          " matches m LEFT JOIN games g ON g.match_id = m.id GROUP BY m.id,"
                          " m.status HAVING m.status = 'done'")
    assert per_match and all(n == k == d for _, n, k, d in per_match)
    assert query(db, "SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id WHERE"
                     " m.status != 'done'") == [(0,)]
    assert int(query(db, "SELECT COUNT(*) FROM matches WHERE status = 'done'")[0][0]) == (
        done_before + 3)
    # the retired version's rating stayed frozen while the others played on
    assert board_row(db, old[0]).rating == frozen_rating

    # the export gives the board's numbers
    export = subprocess.run([sys.executable, "-m", "daihinmin.tools", "league", str(config),
                             "--export", "json"], capture_output=True, text=True, check=True)
    data = json.loads(export.stdout)
    store = LeagueStore.reader(db)
    try:
        board = leaderboard(store, "loopback league")
    finally:
        store.close()
    assert data["entrants"] == json.loads(json.dumps(board.to_json()["entrants"]))


def test_uecda_groups_advance_the_best_of_each_group(league_home: Path) -> None:
    bots = ["default", "random", "weakest", "greedy", "d2=default", "r2=random", "w2=weakest"]
    config = write_config(league_home, extra="[groups]\ngames = 2\nadvance = 2\n",
                          format="uecda-groups", house=bots, submissions="subs", tables=1)
    db = league_home / "league.sqlite"
    proc = start(config)
    try:  # killed mid-round: the next run goes on with the round
        wait_for("a group played and one in play", lambda: query(
            db, "SELECT 1 FROM matches WHERE status = 'done'") and query(
            db, "SELECT 1 FROM matches WHERE status = 'running'"), proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        stop(proc)
    proc = start(config)
    try:
        assert proc.wait(WAIT * 2) == 0, (league_home / "league-out.txt").read_text()
    finally:
        stop(proc)
    assert query(db, "SELECT round, grp, COUNT(*) FROM matches WHERE status = 'done' GROUP BY"
                     " round, grp HAVING COUNT(*) > 1") == []  # each group played once
    assert "the final is played" in (league_home / "league-out.txt").read_text()
    filler = query(db, "SELECT id FROM entrants WHERE status = 'filler'")[0][0]
    rounds: dict[int, dict[int, int]] = {}
    for mid, rnd, grp in query(db, "SELECT id, round, grp FROM matches WHERE status = 'done'"):
        rounds.setdefault(rnd, {})[grp] = mid
    assert sorted(rounds) == [1, 2] and len(rounds[1]) == 2 and len(rounds[2]) == 1
    seven = {e for (e,) in query(db, "SELECT id FROM entrants WHERE status = 'active'")}
    first_round = [json.loads(query(db, "SELECT lineup FROM matches WHERE id = ?", m)[0][0])
                   for m in rounds[1].values()]
    assert {e for lineup in first_round for e in lineup} - {filler} == seven
    expected = set()
    for mid in rounds[1].values():
        totals = query(db, "SELECT r.entrant, SUM(r.points), MIN(CASE WHEN r.game = 2 THEN"
                           " r.place END) FROM results r WHERE r.match_id = ? GROUP BY"
                           " r.player", mid)
        ranked = sorted((t for t in totals if t[0] != filler), key=lambda t: (-t[1], t[2]))
        expected |= {ranked[0][0], ranked[1][0]}
    final = json.loads(query(db, "SELECT lineup FROM matches WHERE id = ?",
                             rounds[2][0])[0][0])
    assert set(final) - {filler} == expected and final.count(filler) == 1


def test_an_in_process_league_stops_by_its_rule_and_its_logs_replay(league_home: Path) -> None:
    config = write_config(league_home, extra="[stop]\ngames = 12\n", transport="in-process",
                          house=["default", "random", "weakest"], submissions=None,
                          games_per_match=3)
    text = config.read_text().replace("submissions = null\n", "")
    config.write_text(text)
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "league", str(config)],
                          capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "12 games played" in done.stdout
    db = league_home / "league.sqlite"
    games = int(query(db, "SELECT COUNT(*) FROM games")[0][0])
    assert 12 <= games <= 12 + 3  # the other table's match in play finishes too
    [(log,)] = query(db, "SELECT log_path FROM matches WHERE status = 'done' LIMIT 1")
    check = subprocess.run([sys.executable, "-m", "daihinmin.tools", "replay", "--verify", log],
                           capture_output=True, text=True, timeout=WAIT)
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_league_in_the_sandbox_plays_its_submissions(league_home: Path) -> None:
    submission(league_home / "subs", "alpha", "alpha", "1", bot_command("default", "alpha"))
    config = write_config(league_home, extra="[limits]\nmemory = 1024\n[stop]\nmatches = 2\n",
                          house=["random", "weakest"], sandbox="bwrap", tables=1)
    done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "league", str(config)],
                          capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout + done.stderr
    db = league_home / "league.sqlite"
    alpha = query(db, "SELECT id, status FROM entrants WHERE name = 'alpha'")
    assert alpha[0][1] == "active", query(db, "SELECT reason, detail FROM entrants")
    assert int(query(db, "SELECT COUNT(*) FROM results WHERE entrant = ?", alpha[0][0])[0][0]) > 0
