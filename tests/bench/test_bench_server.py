"""``daihinmin bench server`` runs and reports what the note quotes (figures are not checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daihinmin.driver.faults import SeatStatus
from daihinmin.records.matchlog import read_match_log
from daihinmin.tools.cli import main


def test_bench_server_reports_rss_and_resume_time(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "server", "--stand-ins", "--games", "5", "--early", "2",
                 "--full-replay", "--json"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["games"] == 5 and result["resume_games"] == 5
    assert result["full_replay_games"] == 5
    assert result["rss_kib_early"] > 0 and result["rss_kib_last"] > 0
    assert set(result["rss_kib_by_game"]) >= {"2", "5"}


def test_stand_ins_asked_for_are_said_so_never_crashes(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "m.jsonl"
    assert main(["bench", "server", "--stand-ins", "--games", "3", "--early", "1",
                 "--keep", str(log)]) == 0
    out = capsys.readouterr().out
    assert "seats played: 5 of 5 by the server's stand-ins, as asked (--stand-ins)" in out
    assert "CRASHED" not in out and "0 faults" in out
    end = read_match_log(log).end  # the kept log says the same
    assert end is not None
    seats = end.seats
    assert [s.status for s in seats] == [SeatStatus.REQUESTED] * 5
    assert all(s.faults == {} and s.stand_in == "fallback" for s in seats)
    assert "asked for" in seats[0].detail
    assert main(["replay", str(log)]) == 0
    shown = capsys.readouterr().out.split("standings:")[1]
    assert shown.count("mean place -") == 5  # no own game: no place (never "0.00")
    assert shown.count("REQUESTED, fallback from game 1") == 5
