"""examples/mybot.py, the bot the README and docs/WRITING_BOTS.md start from, plays whole
games as an external program under ``daihinmin match --cmd`` over loopback TCP."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "examples" / "mybot.py"


def daihinmin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daihinmin.tools", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240, check=False)


def test_the_example_bot_plays_a_match_under_match_cmd(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, str(BOT)]) + " --host {host} --port {port}"
    done = daihinmin("match", "--cmd", command, "default", "default", "default", "greedy",
                     "--games", "3", "--seed", "1", "--no-log", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 3 and summary["stand_in_games"] == 0
    mine = [p for p in summary["players"] if p["name"] == "mybot"]
    assert len(mine) == 1, summary["players"]
    # every game played by the bot itself: no stand-in, no fault
    assert mine[0]["own_games"] == 3 and mine[0]["status"] == "OK" and not mine[0]["faults"]
    assert sum(mine[0]["places"]) == 3  # a count per place


def test_the_example_bot_takes_host_and_port(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BOT), "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0
    assert "--host" in done.stdout and "--port" in done.stdout
