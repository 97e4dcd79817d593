"""The soak script, kept small: chaotic clients, bad connections, no game lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)


@pytest.mark.slow
def test_a_short_soak_loses_no_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "daihinmin.bench.soak", "--games", "8", "--games-per-match", "4",
         "--rate", "0.3", "--bad-connections", "3", "--seed", "5", "--json", "--quiet",
         "--log-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=170)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["matches"] == 2 and report["games_verified"] == 8
    assert report["games_lost"] == 0 and not report["problems"]
    assert report["faults_injected"] >= 6  # the bad connections alone
    assert report["refused_late"] == 2  # a full table refuses new connections
    assert report["rss_start_kib"] > 0 and report["rss_end_kib"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match0001.jsonl", "match0002.jsonl"]
