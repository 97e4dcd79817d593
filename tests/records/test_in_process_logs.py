"""In-process runs write the server's match log, and ``daihinmin replay --verify`` accepts it.

Real processes and real files: ``daihinmin tournament --in-process --log-dir`` and
``python -m daihinmin.research.mc_strength --log-dir`` write one log per match; each is checked
by ``daihinmin replay --verify`` (its exit code and its summary line).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from daihinmin.records.matchlog import read_match_log

DAIHINMIN = [sys.executable, "-m", "daihinmin.tools.cli"]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=240,
                          check=False)


def verify(path: Path) -> str:
    done = run([*DAIHINMIN, "replay", "--verify", str(path)], path.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_an_in_process_tournament_writes_logs_that_replay_verifies(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    done = run([*DAIHINMIN, "tournament", "--bot", "default", "--bot", "greedy", "--bot",
                "random", "--games", "4", "--games-per-match", "2", "--no-duplicate",
                "--in-process", "--jobs", "1", "--db", "t.sqlite", "--log-dir", str(logs),
                "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    files = sorted(logs.glob("match-*.jsonl"))
    assert files and len(files) * 2 == summary["games"]
    assert [Path(r["path"]) for r in summary["match_logs"]] == files
    for path in files:
        assert "agree with the engine (complete)" in verify(path)
        log = read_match_log(path)
        assert [p.protocol for p in log.header.players] == [0] * 5  # no wire: in process
        assert log.end is not None and log.end.status == "complete"


def test_the_log_folder_must_exist(tmp_path: Path) -> None:
    for transport in (["--in-process"], []):
        missing = run([*DAIHINMIN, "tournament", "--bot", "default", "--bot", "greedy",
                       "--games", "2", *transport, "--db", "a.sqlite", "--log-dir", "nope"],
                      tmp_path)
        assert missing.returncode == 5 and "not an existing folder" in missing.stderr
        assert len(missing.stderr.splitlines()) == 1, missing.stderr
        assert not (tmp_path / "a.sqlite").exists()


def test_a_log_already_in_the_folder_is_kept_and_the_match_takes_the_next_name(
        tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    other = logs / "match-00000.jsonl"  # another tournament's, say
    other.write_text("not ours\n")
    done = run([*DAIHINMIN, "tournament", "--bot", "default", "--bot", "greedy", "--games",
                "2", "--games-per-match", "2", "--no-duplicate", "--in-process", "--jobs",
                "1", "--db", "t.sqlite", "--log-dir", str(logs), "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert other.read_text() == "not ours\n"
    summary = json.loads(done.stdout)
    ours = [Path(r["path"]) for r in summary["match_logs"] if r["match"] == 0]
    assert ours == [logs / "match-00000.2.jsonl"]
    assert summary["match_logs"][0]["counted"] and summary["match_logs"][0]["attempt"] == 1
    assert "agree with the engine (complete)" in verify(ours[0])


@pytest.mark.usefixtures("mc_compiled")  # its processes load the cache the fixture fills
def test_mc_strength_writes_logs_that_replay_verifies(tmp_path: Path) -> None:
    done = run([sys.executable, "-m", "daihinmin.research.mc_strength", "--games", "3",
                "--jobs", "2", "--playouts", "20", "--time-ms", "0", "--log-dir",
                str(tmp_path), "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 3
    files = sorted(tmp_path.glob("mc-strength-*.jsonl"))
    assert [f.name for f in files] == ["mc-strength-0.jsonl", "mc-strength-1.jsonl"]
    assert sum(len(read_match_log(f).games) for f in files) == 3
    for path in files:
        assert "(complete)" in verify(path)
    again = run([sys.executable, "-m", "daihinmin.research.mc_strength", "--games", "1",
                 "--log-dir", str(tmp_path)], tmp_path)
    assert again.returncode == 5 and "exists" in again.stderr  # never clobbered


def test_duplicate_writes_a_log_per_position_that_replay_verifies(tmp_path: Path) -> None:
    """A position is a one-game match that starts at a later game with fixed classes: the
    header's ``start`` says so, and replay begins there."""
    done = run([sys.executable, "-m", "daihinmin.research.duplicate", "--a", "default", "--b",
                "greedy", "--positions", "3", "--warm-games", "0", "--log-dir", str(tmp_path),
                "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    files = sorted(f.name for f in tmp_path.glob("*.jsonl"))
    assert files == [f"{side}-0000{k}.jsonl" for side in "ab" for k in range(3)]
    for name in files:
        assert "1 games" in verify(tmp_path / name) and "(complete)" in verify(tmp_path / name)
        log = read_match_log(tmp_path / name)
        assert log.header.start is not None and log.header.start["game"] > 1
        assert log.games[0].game == log.header.start["game"] and log.games[0].transfers


def test_duplicate_logs_each_jobs_unscored_warm_up_match_too(tmp_path: Path) -> None:
    """Every game played is in a log; the warm-up logs are named as such and listed apart,
    so nobody counts them as positions."""
    args = [sys.executable, "-m", "daihinmin.research.duplicate", "--a", "default", "--b",
            "greedy", "--positions", "3", "--warm-games", "2", "--jobs", "2", "--log-dir",
            str(tmp_path), "--json"]
    done = run(args, tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    warm = [f"{side}-warm-{j}.jsonl" for side in "ab" for j in range(2)]
    assert summary["warm_up_logs"] == [str(tmp_path / name) for name in warm]
    files = sorted(f.name for f in tmp_path.glob("*.jsonl"))
    assert files == sorted(warm + [f"{side}-0000{k}.jsonl" for side in "ab" for k in range(3)])
    for name in warm:
        assert "2 games" in verify(tmp_path / name)
        log = read_match_log(tmp_path / name)
        assert log.header.start is None and [g.game for g in log.games] == [1, 2]
        assert log.header.players[0].name == ("default" if name[0] == "a" else "greedy")
    again = run(args, tmp_path)  # every log, warm-ups included, is refused before playing
    assert again.returncode == 5 and "exists" in again.stderr


@pytest.mark.parametrize("start", [{"game": 0, "classes": None, "seats": [0, 1, 2, 3, 4]},
                                   {"game": 2, "classes": [0, 0, 1, 2, 3],
                                    "seats": [0, 1, 2, 3, 4]},
                                   {"game": 2, "classes": None, "seats": [0, 1]},
                                   "game 2"])
def test_a_bad_start_in_the_header_is_refused(start: object) -> None:
    from daihinmin.records.errors import MatchLogError
    from daihinmin.records.inprocess_log import IN_PROCESS_PROTOCOL
    from daihinmin.records.matchlog import MatchHeader, PlayerInfo, parse_lines
    from daihinmin.rules.ruleset import UECDA, ruleset_to_dict

    header = MatchHeader(rules=ruleset_to_dict(UECDA), seed=1, games=3, started="",
                         players=[PlayerInfo(p, "x", IN_PROCESS_PROTOCOL) for p in range(5)],
                         start=start)  # type: ignore[arg-type]
    with pytest.raises(MatchLogError):
        parse_lines([json.dumps(header.to_json()) + "\n"])


def test_a_header_that_lists_fewer_players_than_the_table_is_bad_input(tmp_path: Path) -> None:
    """Found by the reader fuzz: a header with ``players: []`` made ``replay`` crash in the
    standings (an IndexError); it is now refused as bad input (exit 4)."""
    from daihinmin.records.matchlog import MatchHeader, PlayerInfo
    from daihinmin.rules.ruleset import UECDA, ruleset_to_dict

    header = MatchHeader(rules=ruleset_to_dict(UECDA), seed=1, games=1, started="",
                         players=[PlayerInfo(0, "only", 0)])
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(header.to_json()) + "\n", encoding="utf-8")
    done = run([*DAIHINMIN, "replay", str(path)], tmp_path)
    assert done.returncode == 4 and "Traceback" not in done.stderr
    assert "1 listed, the table has 5" in done.stderr
