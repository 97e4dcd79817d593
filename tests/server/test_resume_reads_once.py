"""``match --resume`` and ``serve --resume`` read the log once, whatever its length.

A real log file of a few hundred games, a real ``daihinmin match --resume`` in a separate
process (its players are real processes too), and two counts: the kernel's count of the bytes
the command's thread read (``rchar`` in ``/proc/thread-self/io``: the whole process's count
would include the reaped bot processes' reads) and Python's audit events for every ``open``
of the log.  The command, its checks and the server together read the log once (the check
of its last line reads one byte).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.records.inprocess_log import LocalMatchLog
from daihinmin.rules.ruleset import UECDA

# Resumes LOG twice (first COPY, so that every lazy import is done before the count), then
# prints what the second resume read: bytes (rchar) and each open of LOG with its mode.
DRIVER = """
import json, os, sys
from daihinmin.tools.cli import main
copy, log, out = sys.argv[1:4]
args = sys.argv[4:]
opens = []
def audit(event, params):
    if event == "open" and isinstance(params[0], str | bytes | os.PathLike) and (
            os.fsdecode(params[0]) == log):
        opens.append(str(params[1]) + ":" + str(params[2] if len(params) > 2 else ""))
sys.addaudithook(audit)
def rchar():
    with open("/proc/thread-self/io") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("rchar"))
first = main([*args, "--resume", copy, "--json"])
before = rchar()
code = main([*args, "--resume", log, "--json"])
read = rchar() - before
with open(out, "w") as f:
    json.dump({"first": first, "code": code, "read": read, "opens": opens}, f)
"""


def cut_log(path: Path, games: int) -> None:
    """A match of ``games + 1`` games stopped after ``games`` (no end record: resumable)."""
    with LocalMatchLog.open(path, UECDA, seed=11, games=games + 1,
                            names=[f"p{i}" for i in range(5)]) as log:
        play_local_match(UECDA, 11, games, [make_bot("random", seed=i) for i in range(5)],
                         on_game=log.game)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_match_resume_reads_a_long_log_once(tmp_path: Path) -> None:
    log, copy = tmp_path / "m.jsonl", tmp_path / "copy.jsonl"
    cut_log(log, 300)
    shutil.copy(log, copy)
    size = log.stat().st_size
    assert size > 1_000_000  # well above what the process reads besides (imports are done)
    out = tmp_path / "count.json"
    done = subprocess.run([sys.executable, "-c", DRIVER, str(copy), str(log), str(out),
                           "match", "random", "random", "random", "random", "random"],
                          capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    count = json.loads(out.read_text())
    assert count["first"] == 0 and count["code"] == 0, done.stderr
    summary = json.loads(done.stdout.splitlines()[-1])
    assert summary["games"] == 301  # the resumed match went on to its end
    reads = [o for o in count["opens"] if o.split(":")[0] in ("r", "rb", "r+b", "r+")]
    assert len(reads) <= 2, " ".join(count["opens"])  # the pass, and the last line's check
    assert size <= count["read"] < 1.3 * size, (count, size)


def test_the_server_takes_the_commands_reading_only_while_the_log_is_unchanged(
        tmp_path: Path) -> None:
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.errors import ResumeLogError
    from daihinmin.server.resume import config_for_resume, load_resume, resume_point_for

    log = tmp_path / "m.jsonl"
    cut_log(log, 3)
    point = load_resume(log)
    assert point.games_done == 3 and point.standings.games == 3
    assert [p.seat_points for p in point.standings.players] == point.last_totals
    config = config_for_resume(log, ServerConfig(port=0), point)
    assert config.games == 4 and resume_point_for(config) is point
    with log.open("a") as f:  # another process appended meanwhile
        f.write("\n")
    with pytest.raises(ResumeLogError, match="another process wrote it"):
        resume_point_for(config)
    fresh = resume_point_for(config_for_resume(log, ServerConfig(port=0)))
    assert fresh is not None and fresh.games_done == 3  # no reading given: read now
