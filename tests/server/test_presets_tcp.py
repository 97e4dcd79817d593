"""Every rules preset as a short headless match over real loopback TCP: the server in one
process, each bundled ``random``/``default`` bot its own ``daihinmin bot`` process (speaking
protocol 20260 where the preset needs it), and the log verified by ``daihinmin replay
--verify``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from daihinmin.records.matchlog import read_match_log
from daihinmin.rules.extension_rules import needs_extension
from daihinmin.rules.ruleset import ruleset_from

CASES = {
    "uecda": [],
    "original": [],  # 6 players
    "web": [],
    "app": ["seven_pass=yes", "ten_discard=yes", "five_skip=yes", "nine_reverse=yes"],
    "thirteenth_floor": [],
}


def daihinmin(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "daihinmin.tools", *args],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("preset", sorted(CASES))
def test_preset_match_of_bot_processes_verifies(preset: str, tmp_path: Path) -> None:
    overrides = CASES[preset]
    rules = ruleset_from(preset, overrides)
    bots = ["random" if p % 2 else "default" for p in range(rules.players)]
    log = tmp_path / f"{preset}.jsonl"
    rule_options = [opt for item in overrides for opt in ("--rule", item)]
    done = daihinmin("match", *bots, "--rules", preset, *rule_options, "--games", "2",
                     "--seed", "21", "--log", str(log), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == 2 and report["rules"] == rules.name
    assert all(p["status"] == "OK" for p in report["players"]), report["players"]
    header = read_match_log(log).header
    protocol = 20260 if needs_extension(rules) else 20070
    assert [p.protocol for p in header.players] == [protocol] * rules.players
    verified = daihinmin("replay", "--verify", str(log))
    assert verified.returncode == 0, verified.stderr
    assert "2 games" in verified.stdout and "(complete)" in verified.stdout
    if rules.seven_pass:
        assert '"choices"' in log.read_text()
