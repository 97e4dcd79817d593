"""``daihinmin replay --verify``: a real match log verifies; any tampering is named exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import LogMismatchError, verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.tools.cli import main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from probe import probe_match


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "match.jsonl"
    probe_match(ServerConfig(games=4, seed=31, port=0, log_path=path, fault_limit=0),
                first_seed=7, fault_rate=0.2)
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def verify_cli(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["replay", str(path), "--verify"])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_real_log_verifies(match_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, text = verify_cli(match_log, capsys)
    assert code == 0, text
    assert "4 games" in text and "complete" in text
    log = read_match_log(match_log)
    assert any(t.malformed for g in log.games for t in g.turns)  # faults are in the log
    assert any(t.substituted for g in log.games for t in g.transfers)


def test_flipped_answer_is_named_with_game_and_turn(
        match_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = lines(match_log)
    turn = records[2]["turns"][4]  # game 2, turn 5
    turn["answer"] = 17 - turn["answer"]
    code, text = verify_cli(write(tmp_path / "t.jsonl", records), capsys)
    assert code == 1
    assert "MISMATCH" in text and "game 2, turn 5: answer to" in text
    assert f"log has {turn['answer']}, re-simulation gives {17 - turn['answer']}" in text


def test_changed_deal_is_named(match_log: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    records = lines(match_log)
    hand = records[1]["dealt"][2].split()
    records[1]["dealt"][2] = " ".join(hand[1:])
    code, text = verify_cli(write(tmp_path / "t.jsonl", records), capsys)
    assert code == 1 and "game 1: dealt hand of player 2" in text


def test_another_seed_does_not_verify(match_log: Path, tmp_path: Path) -> None:
    records = lines(match_log)
    records[0]["seed"] += 1
    with pytest.raises(LogMismatchError) as info:
        verify_log(read_match_log(write(tmp_path / "t.jsonl", records)))
    assert info.value.mismatch.game == 1 and info.value.mismatch.turn is None


def test_changed_move_is_caught_at_or_after_its_turn(match_log: Path, tmp_path: Path) -> None:
    records = lines(match_log)
    turns = records[3]["turns"]
    index = next(i for i, t in enumerate(turns) if t["move"] != "pass" and t["answer"] == 9)
    turns[index]["move"] = "pass"
    with pytest.raises(LogMismatchError) as info:
        verify_log(read_match_log(write(tmp_path / "t.jsonl", records)))
    m = info.value.mismatch
    assert m.game == 3 and m.turn is not None and m.turn >= index + 1


def test_missing_last_turn_and_changed_points(match_log: Path, tmp_path: Path) -> None:
    records = lines(match_log)
    records[2]["turns"].pop()
    with pytest.raises(LogMismatchError, match=r"game 2, turn \d+: end of the game"):
        verify_log(read_match_log(write(tmp_path / "a.jsonl", records)))
    records = lines(match_log)
    records[4]["totals"][0] += 1
    with pytest.raises(LogMismatchError, match="game 4: cumulative points"):
        verify_log(read_match_log(write(tmp_path / "b.jsonl", records)))
    records = lines(match_log)
    chosen = next(t for t in records[3]["transfers"] if not t["automatic"])
    chosen["substituted"] = not chosen["substituted"]
    with pytest.raises(LogMismatchError, match="game 3: cards returned by player"):
        verify_log(read_match_log(write(tmp_path / "c.jsonl", records)))


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_flipped_answer_is_found_exactly_there(match_log: Path, tmp_path: Path,
                                                   data: st.DataObject) -> None:
    records = lines(match_log)
    g = data.draw(st.integers(1, len(records) - 2), label="game")
    t = data.draw(st.integers(0, len(records[g]["turns"]) - 1), label="turn index")
    records[g]["turns"][t]["answer"] = 17 - records[g]["turns"][t]["answer"]
    with pytest.raises(LogMismatchError) as info:
        verify_log(read_match_log(write(tmp_path / "h.jsonl", records)))
    assert (info.value.mismatch.game, info.value.mismatch.turn) == (g, t + 1)


def test_unreadable_logs_exit_4(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                match_log: Path) -> None:
    garbage = tmp_path / "g.jsonl"
    garbage.write_text("not json\n")
    assert main(["replay", str(garbage), "--verify"]) == 4
    records = lines(match_log)
    records[0]["schema"] = "something/9"
    assert main(["replay", str(write(tmp_path / "s.jsonl", records)), "--verify"]) == 4
    assert "schema" in capsys.readouterr().err


def test_game_and_summary_printing(match_log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(match_log), "--game", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 2") and "exchange:" in out and "result:" in out
    assert "   1  p" in out  # turn 1 line
    assert main(["replay", str(match_log)]) == 0
    summary = capsys.readouterr().out
    assert "4 of 4 games, complete" in summary and "standings:" in summary
    assert main(["replay", str(match_log), "--game", "99"]) == 2
