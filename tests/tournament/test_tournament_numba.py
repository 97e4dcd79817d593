"""``tournament --in-process --engine numba``: bundled bots' Numba models on the simulator
play the tournament the rules engine plays (the same games: the same standings)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from daihinmin.records.exit_codes import OK, USAGE

pytestmark = pytest.mark.usefixtures("env_compiled")  # conftest.py: compiled once a session

CLI = [sys.executable, "-m", "daihinmin.tools", "tournament"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600)


def test_the_numba_engine_plays_the_engines_tournament(tmp_path: Path) -> None:
    common = ("--bot", "a=default", "--bot", "b=default", "--bot", "c=default",
              "--games", "120", "--games-per-match", "10", "--seed", "3", "--in-process",
              "--jobs", "1", "--json")
    engine = run(*common, "--db", str(tmp_path / "engine.sqlite"))
    numba = run(*common, "--engine", "numba", "--db", str(tmp_path / "numba.sqlite"))
    assert engine.returncode == numba.returncode == OK, (engine.stderr, numba.stderr)
    reports = [json.loads(done.stdout) for done in (engine, numba)]

    def results(report: dict) -> list[tuple[str, object, object]]:
        return sorted((p["name"], p["games"], p["mean_points"])
                      for p in report["participants"])

    assert results(reports[0]) == results(reports[1])
    assert reports[0]["games_planned"] == reports[1]["games_planned"] >= 120
    assert all(p["games"] > 0 for p in reports[1]["participants"])
    assert "numba" in json.dumps(reports[1]) and "numba" not in json.dumps(reports[0])


def test_what_the_numba_engine_cannot_play_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "t.sqlite")
    for args, why in [
        (("--bot", "default", "--bot", "random", "--in-process"), "Numba model"),
        (("--bot", "default", "--bot", "a=default", "--in-process", "--rules",
          "thirteenth_floor"), "hand_size"),
        (("--bot", "default", "--bot", "a=default"), "--in-process"),
    ]:
        done = run(*args, "--engine", "numba", "--games", "10", "--db", db)
        assert done.returncode == USAGE, done.stderr
        assert why in done.stderr and "Traceback" not in done.stderr
