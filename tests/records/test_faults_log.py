"""Match log schema 2 (faults, stand-ins, seat reports) and reading schema 1 logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daihinmin.driver.faults import SeatEvent, SeatReport, SeatStatus
from daihinmin.driver.record import GameRecord
from daihinmin.records.matchlog import SCHEMA, MatchEnd, read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.server.config import ServerConfig
from probe import probe_match

# schema 2's keys (+ the end's "seats")
V2_KEYS = ("fault", "by", "events", "stand_in", "bank_ms", "policy", "seat_reports")


@pytest.fixture(scope="module")
def faulty_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "m.jsonl"
    probe_match(ServerConfig(games=3, seed=12, port=0, log_path=path, fault_limit=0),
                first_seed=20, fault_rate=0.3)
    return path


def strip_v2(obj: object) -> object:
    if isinstance(obj, dict):
        return {k: strip_v2(v) for k, v in obj.items() if k not in V2_KEYS}
    if isinstance(obj, list):
        return [strip_v2(v) for v in obj]
    return obj


def test_faults_are_in_the_log(faulty_log: Path) -> None:
    log = read_match_log(faulty_log)
    assert log.header.schema == SCHEMA and log.header.policy is not None
    assert log.header.policy["fault_limit"] == 0 and log.header.policy["move_timeout"] == 1.0
    faults = {t.fault for g in log.games for t in g.turns}
    assert {"MALFORMED", "ILLEGAL"} <= faults
    assert all(g.bank_ms == [10_000] * 5 for g in log.games)  # nobody was slow
    assert log.end is not None and len(log.end.seats) == 5
    assert all(r.stand_in is None for r in log.end.seats)
    assert verify_log(log).faults == sum(
        1 for g in log.games for t in g.turns if t.fault) + sum(
        1 for g in log.games for t in g.transfers if t.fault)


def test_a_schema_1_log_still_reads_and_verifies(faulty_log: Path, tmp_path: Path) -> None:
    records = [strip_v2(json.loads(line)) for line in faulty_log.read_text().splitlines()]
    records[0]["schema"] = "daihinmin.matchlog/1"  # type: ignore[index]
    del records[-1]["seats"]  # type: ignore[attr-defined]  # the end record's seat reports
    old = tmp_path / "v1.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in records))
    log = read_match_log(old)
    assert log.header.schema == "daihinmin.matchlog/1" and log.header.policy is None
    assert all(t.fault is None and t.by is None for g in log.games for t in g.turns)
    summary = verify_log(log)
    assert summary.complete and summary.games == 3


def test_seat_records_round_trip() -> None:
    event = SeatEvent(2, 3, 17, SeatStatus.TIMEOUT, "fallback", "3 faults")
    report = SeatReport(2, SeatStatus.TIMEOUT, {"TIMEOUT": 3}, "fallback", 3, 17, "3 faults")
    game = GameRecord(3, [0, 1, 2, 3, 4], 0, None, [], events=[event], stand_in=[2],
                      bank_ms=[1, 2, 3, 4, 5], reports=[report])
    assert GameRecord.from_json(json.loads(json.dumps(game.to_json()))) == game
    end = MatchEnd(3, [1, 2, 3, 4, 5], seats=[report], events=[event])
    assert MatchEnd.from_json(json.loads(json.dumps(end.to_json()))) == end
    assert SeatReport.from_json(report.to_json()) == report
