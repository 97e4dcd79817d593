"""``tournament --sprt``: a two-participant tournament that stops when the sequential test
decides, and stays decided on ``--resume``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from daihinmin.tools.cli import main
from daihinmin.tournament.config import TournamentConfigError, config_from_dict
from daihinmin.tournament.store import TournamentStore


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["tournament", *args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip() else {"err": out.err}


def test_the_run_stops_at_the_verdict_and_resume_keeps_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "t.sqlite")
    code, report = run(capsys, "--bot", "random", "--bot", "default", "--games", "2000",
                       "--games-per-match", "1", "--in-process", "--jobs", "1", "--db", db,
                       "--sprt", "0", "0.3")
    assert code == 0, report
    t = report["sprt"]
    assert t["verdict"] == "H1" and t["llr"] >= t["upper"]
    assert t["deal_sets_used"] == t["observations"] == len(t["trace"]) < t["deal_sets"] == 200
    assert t["games_used"] == 10 * t["deal_sets_used"]  # 2 tables x 5 rotations x 1 game
    assert t["ci95"][0] > 0.3
    store = TournamentStore(db)
    played = store.game_count()
    assert t["games_used"] <= played < 2000 and store.counts().get("pending", 0) > 0
    assert store.counts().get("failed", 0) == 0 and store.counts().get("running", 0) == 0
    store.close()
    code, again = run(capsys, "--resume", "--db", db)
    assert code == 0 and again["sprt"] == t
    store = TournamentStore(db)
    assert store.game_count() == played  # decided: nothing more was played
    store.close()
    assert main(["tournament", "--report", "--db", db]) == 0
    assert "H1 accepted" in capsys.readouterr().out


def test_sprt_needs_two_participants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--bot", "random", "--bot", "default", "--bot", "greedy",
                 "--in-process", "--db", str(tmp_path / "x.sqlite"), "--sprt", "0", "0.3"])
    err = capsys.readouterr().err
    assert code == 2 and "two participants" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.sqlite").exists()
    code = main(["tournament", "--bot", "random", "--bot", "default", "--in-process", "--db",
                 str(tmp_path / "y.sqlite"), "--sprt", "0.3", "0"])
    assert code == 2 and "d0 < d1" in capsys.readouterr().err


def test_a_config_file_states_the_test() -> None:
    parts = [{"bot": "random"}, {"bot": "default"}]
    cfg = config_from_dict({"participant": parts, "sprt": [0, 0.25]})
    assert cfg.sprt == (0.0, 0.25, 0.05, 0.05)
    assert config_from_dict({"participant": parts, "sprt": [0, 0.25, 0.1, 0.2]}).sprt == \
        (0.0, 0.25, 0.1, 0.2)
    plain = config_from_dict({"participant": parts})
    assert plain.sprt is None and "sprt" not in plain.to_dict()  # stored configs unchanged
    assert plain.fingerprint() != cfg.fingerprint()
    with pytest.raises(TournamentConfigError, match="sprt must be"):
        config_from_dict({"participant": parts, "sprt": [0, "x"]})
