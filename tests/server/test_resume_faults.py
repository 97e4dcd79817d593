"""``--resume`` carries the seats' fault reports over: counts go on towards the limit and a seat
handed to its stand-in before the restart keeps it (real TCP, in-process server)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from daihinmin.driver.faults import SeatReport, SeatStatus
from daihinmin.records.matchlog import read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.server.config import ServerConfig
from daihinmin.server.resume import config_for_resume, load_resume
from daihinmin.server.seats import SeatTable
from probe import ProbePlayer, ProbeRecord, ProtocolViolation, serve_probes

pytestmark = pytest.mark.timeout(120)

GAMES, SEED, LIMIT, BAD = 5, 31, 2, 2


class ClosableProbe(ProbePlayer):
    """A probe whose connection the server may close (a seat handed to its stand-in)."""

    def run(self) -> ProbeRecord:
        try:
            return super().run()
        except (ProtocolViolation, ConnectionError):
            self.close()
            return self.record


def probes(bad_rate: float, resumed: bool = False) -> list[ProbePlayer]:
    players: list[ProbePlayer] = [ProbePlayer("127.0.0.1", 0, f"p{i}", seed=60 + i,
                                              resumed=resumed) for i in range(5)]
    players[BAD] = ClosableProbe("127.0.0.1", 0, "bad", seed=60 + BAD, fault_rate=bad_rate,
                                 resumed=resumed)
    return players


@pytest.fixture(scope="module")
def whole_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A match where player 2 sends only bad tables: handed over in game 1."""
    path = tmp_path_factory.mktemp("faults") / "whole.jsonl"
    config = ServerConfig(games=GAMES, seed=SEED, port=0, log_path=path, fault_limit=LIMIT)
    trio.run(serve_probes, config, probes(1.0))
    return path


def cut_after(source: Path, target: Path, games: int) -> Path:
    lines = source.read_text().splitlines(keepends=True)
    target.write_text("".join(lines[:1 + games]))
    return target


def test_every_game_logs_the_reports_so_far(whole_log: Path) -> None:
    log = read_match_log(whole_log)
    assert log.games[0].events and log.games[0].events[0].player == BAD
    for game in log.games:
        assert [r.player for r in game.reports] == [BAD]
        assert game.reports[0].stand_in == "fallback" and game.reports[0].since_game == 1
    assert log.end is not None and log.end.seats[BAD] == log.games[-1].reports[0]


def test_a_handed_over_seat_keeps_its_stand_in_after_resume(whole_log: Path,
                                                              tmp_path: Path) -> None:
    path = cut_after(whole_log, tmp_path / "cut.jsonl", 2)
    point = load_resume(path)
    assert [r.player for r in point.reports] == [BAD]
    config = config_for_resume(path, ServerConfig(port=0, fault_limit=LIMIT))
    outcome, records = trio.run(serve_probes, config, probes(0.0, resumed=True))
    assert outcome.resumed_after == 2 and outcome.games_played == GAMES
    assert records[BAD].games == []  # closed at once: it never saw a deal
    assert all(len(r.games) == GAMES - 2 for i, r in enumerate(records) if i != BAD)
    log = read_match_log(path)
    before = read_match_log(whole_log).games[1].reports[0]
    assert log.end is not None and log.end.seats[BAD] == before  # nothing reset
    for game in log.games[2:]:
        assert BAD in game.stand_in and not game.events
        assert all(t.by == "fallback" for t in game.turns if t.player == BAD)
    assert verify_log(log).complete


def test_fault_counts_go_on_towards_the_limit() -> None:
    config = ServerConfig(port=0, fault_limit=3)
    seats = SeatTable.of([None] * 5, config)
    earlier = SeatReport(1, SeatStatus.TIMEOUT, {"TIMEOUT": 1, "ILLEGAL": 4})

    async def go() -> None:
        await seats.restore([earlier])
        await seats.fault(1, SeatStatus.MALFORMED, "bad bytes")
        assert seats[1].stand_in is None  # 2 counted (ILLEGAL does not count by default)
        await seats.fault(1, SeatStatus.TIMEOUT, "late")

    trio.run(go)
    report = seats[1].report
    assert seats[1].stand_in is not None and report.stand_in == "fallback"
    assert report.faults == {"TIMEOUT": 2, "ILLEGAL": 4, "MALFORMED": 1}
    assert earlier.faults == {"TIMEOUT": 1, "ILLEGAL": 4}  # the restored report was copied


def test_a_restored_seat_whose_new_process_exits_keeps_its_report() -> None:
    """The server closes the comeback connection of a seat handed over before the restart;
    the player's process then exits non-zero.  That is not a crash of the player."""
    seats = SeatTable.of([None] * 5, ServerConfig(port=0))
    gone = SeatReport(4, SeatStatus.DISCONNECTED, {"DISCONNECTED": 1}, "fallback", 2, 30,
                      "connection closed")
    trio.run(seats.restore, [gone])
    seats.process_crashed(4, "exited with code 4")
    assert seats[4].report == gone and seats.take_events() == []
