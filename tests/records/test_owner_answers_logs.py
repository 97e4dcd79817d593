"""Match logs record the trick clear they were played under; logs written before the
``owner_answers`` toggle existed (no key in the header's rules) replay as the 2013 build.

Real matches over TCP on 127.0.0.1 with the checking probe clients, real log files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import LogMismatchError, verify_log
from daihinmin.rules.ruleset import UECDA
from daihinmin.server.config import ServerConfig
from probe import probe_match


def play(path: Path, owner_answers: bool) -> Path:
    rules = UECDA.with_rules(owner_answers=owner_answers)
    probe_match(ServerConfig(rules=rules, games=3, seed=5, port=0, log_path=path),
                first_seed=3)
    return path


def without_key(path: Path, out: Path) -> Path:
    """The log as a server from before the toggle would have written it."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert records[0]["type"] == "header"
    del records[0]["rules"]["owner_answers"]
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


def test_the_log_records_the_trick_clear(tmp_path: Path) -> None:
    log = read_match_log(play(tmp_path / "devkit.jsonl", True))
    assert log.header.rules["owner_answers"] is True
    assert log.header.ruleset().owner_answers
    assert verify_log(log).complete


def test_an_old_log_without_the_key_verifies_as_the_2013_build(tmp_path: Path) -> None:
    old = without_key(play(tmp_path / "2013.jsonl", False), tmp_path / "old.jsonl")
    log = read_match_log(old)
    assert not log.header.ruleset().owner_answers
    summary = verify_log(log)
    assert summary.complete and summary.games == 3


def test_a_devkit_log_read_as_the_2013_build_does_not_verify(tmp_path: Path) -> None:
    stripped = without_key(play(tmp_path / "devkit.jsonl", True), tmp_path / "stripped.jsonl")
    with pytest.raises(LogMismatchError):
        verify_log(read_match_log(stripped))
