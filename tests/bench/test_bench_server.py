"""``daihinmin bench server`` runs and reports what the note quotes (figures are not checked)."""

from __future__ import annotations

import json

import pytest
from daihinmin.tools.cli import main


def test_bench_server_reports_rss_and_resume_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "server", "--stand-ins", "--games", "5", "--early", "2",
                 "--full-replay", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["games"] == 5 and result["resume_games"] == 5
    assert result["full_replay_games"] == 5
    assert result["rss_kib_early"] > 0 and result["rss_kib_last"] > 0
    assert set(result["rss_kib_by_game"]) >= {"2", "5"}
