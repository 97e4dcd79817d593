"""Files you are handed never run code: a match log or a results database that names a
command (or a ``module:factory`` bot) starts it only when the command line names it again.

Each case is the real command in its own process: ``match --resume`` of a log whose lineup
names ``touch MARKER``, ``replay --verify`` of it, and ``tournament --resume`` of a database
whose stored config has a command participant.  A damaged database (a table dropped, an
unknown schema) is refused with exit 4; a report of an unfinished tournament exits 1 and
says why.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest


def daihinmin(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daihinmin.tools", *map(str, args)],
                          capture_output=True, text=True, timeout=180, cwd=cwd)


@pytest.fixture(scope="module")
def stopped_log(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A match log of 2 of 4 games, as if stopped (no end record)."""
    path = tmp_path_factory.mktemp("never") / "m.jsonl"
    done = daihinmin("match", *["random"] * 5, "--games", "2", "--seed", "5", "--no-fsync",
                     "--log", path)
    assert done.returncode == 0, done.stderr
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["games"] = 4
    return [json.dumps(header) + "\n", *lines[1:-1]]


def log_naming(lines: list[str], tmp_path: Path, entry: dict[str, str]) -> Path:
    header = json.loads(lines[0])
    header["lineup"][4] = entry
    path = tmp_path / "shared.jsonl"
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    return path


@pytest.mark.parametrize("entry", [{"cmd": "touch MARKER"}, {"bot": "os:system"}],
                         ids=["command", "module-factory"])
def test_resume_refuses_what_the_log_would_run(stopped_log: list[str], tmp_path: Path,
                                               entry: dict[str, str]) -> None:
    marker = tmp_path / "pwned"
    entry = {k: v.replace("MARKER", shlex.quote(str(marker))) for k, v in entry.items()}
    log = log_naming(stopped_log, tmp_path, entry)
    before = log.read_bytes()
    done = daihinmin("match", "--resume", log, "--no-fsync", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert next(iter(entry.values())) in done.stderr and "again" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not marker.exists() and log.read_bytes() == before
    verified = daihinmin("replay", "--verify", log)
    assert verified.returncode == 0 and "player 4" in verified.stdout
    assert "named again" in verified.stdout
    other = daihinmin("match", "--resume", log, *["random"] * 4, "--cmd", "true", cwd=tmp_path)
    assert other.returncode == 2 and "the log has" in other.stderr  # given: must match


def test_resume_runs_the_logged_command_named_again(stopped_log: list[str],
                                                    tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = f"touch {shlex.quote(str(marker))}"
    log = log_naming(stopped_log, tmp_path, {"cmd": command})
    done = daihinmin("match", "--resume", log, *["random"] * 4, "--cmd", command,
                     "--no-fsync", "--connect-timeout", "3", cwd=tmp_path)
    assert marker.exists(), done.stderr  # it ran, and left: a stand-in played its seat
    assert done.returncode == 3, done.stderr


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "t.sqlite"
    done = daihinmin("tournament", "--bot", "random", "--bot", "greedy", "--games", "2",
                     "--games-per-match", "1", "--no-duplicate", "--in-process", "--jobs",
                     "1", "--seed", "3", "--db", path, "--json")
    assert done.returncode == 0, done.stderr
    return path


def copy_of(database: Path, tmp_path: Path) -> Path:
    path = tmp_path / "copy.sqlite"
    path.write_bytes(database.read_bytes())
    return path


def test_tournament_resume_refuses_a_stored_command(database: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = copy_of(database, tmp_path)
    con = sqlite3.connect(path)
    config = json.loads(con.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    config["participant"][1] = {"name": "greedy",
                                "command": f"touch {shlex.quote(str(marker))} {{host}} {{port}}"}
    config["transport"] = "tcp"
    con.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config),))
    con.execute("DELETE FROM results")
    con.execute("DELETE FROM games")
    con.execute("UPDATE matches SET status = 'pending', transport = 'tcp'")
    con.commit()
    con.close()
    done = daihinmin("tournament", "--resume", "--db", path, "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "greedy: cmd: touch" in done.stderr and "again" in done.stderr
    assert not marker.exists()


@pytest.mark.parametrize("damage, words", [
    ("DROP TABLE results", "no results table"),
    ("UPDATE meta SET value = '99' WHERE key = 'schema'", "schema '99'"),
])
def test_a_damaged_database_is_refused(database: Path, tmp_path: Path, damage: str,
                                       words: str) -> None:
    path = copy_of(database, tmp_path)
    con = sqlite3.connect(path)
    con.execute(damage)
    con.commit()
    con.close()
    for flag in ("--resume", "--report"):
        done = daihinmin("tournament", flag, "--db", path, "--jobs", "1")
        assert done.returncode == 4, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr


def test_report_of_an_unfinished_tournament_exits_1_saying_why(database: Path,
                                                               tmp_path: Path) -> None:
    path = copy_of(database, tmp_path)
    con = sqlite3.connect(path)
    con.execute("DELETE FROM results WHERE match_id = 1")
    con.execute("DELETE FROM games WHERE match_id = 1")
    con.execute("UPDATE matches SET status = 'pending' WHERE id = 1")
    con.commit()
    con.close()
    done = daihinmin("tournament", "--report", "--db", path)
    assert done.returncode == 1 and "not played yet" in done.stderr
    docs = (Path(__file__).parents[2] / "docs" / "EXIT_CODES.md").read_text()
    assert "not played yet" in docs
