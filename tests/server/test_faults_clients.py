"""Real misbehaving client processes against the server over loopback TCP.

Each match seats four bundled ``default`` bot processes and one
``python -m daihinmin.bench.fault_client MODE`` process (it plays the same ``default`` bot
until it misbehaves).  Every match must finish all its games, give each seat the right
status, say in the log which turns a stand-in played, and verify with the engine.
Deadlines are short (0.3 s) so each match takes a few seconds.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from daihinmin.launch.process import PlayerSpec
from daihinmin.records.matchlog import LoadedMatchLog, MatchLog, read_match_log
from daihinmin.records.replay import verify_log
from daihinmin.records.standings import Standings
from daihinmin.server.config import ServerConfig
from daihinmin.server.match_server import MatchOutcome
from daihinmin.server.runner import run_headless_match
from daihinmin.tools.cli import main

pytestmark = pytest.mark.timeout(120)

GAMES = 3
SEED = 5  # with five default bots, player 1 is the fugo of game 2 (it returns a card)
# A one-second bank lets the healthy bots ride out a loaded machine: a fault client's first
# timeout waits 0.3 + 1 s, the later ones 0.3 s.
FAST = ServerConfig(games=GAMES, seed=SEED, port=0, move_timeout=0.3, exchange_timeout=0.3,
                    time_bank=1.0, profile_timeout=0.5, send_timeout=1.0, fault_limit=3)
LATE = "1.4"  # past the first deadline and its bank; any later deadline ends after that


def standings_of(log: MatchLog) -> Standings:
    """The standings of a logged match, game by game (as the command line adds them up)."""
    standings = Standings(log.players)
    for record in log.games:
        standings.add_game(record)
    return standings

def fault_spec(mode: str, *args: str) -> PlayerSpec:
    return PlayerSpec(f"fault:{mode}", (sys.executable, "-m", "daihinmin.bench.fault_client",
                                        mode, "--host", "{host}", "--port", "{port}", *args))


def play(tmp_path: Path, spec: PlayerSpec, seat: int = 2, games: int = GAMES,
         **changes: object) -> tuple[MatchOutcome, LoadedMatchLog]:
    """A match of four default bots and ``spec`` as player ``seat``; checks what every match
    must satisfy and returns the outcome and the log."""
    log_path = tmp_path / "match.jsonl"
    config = replace(FAST, log_path=log_path, games=games, **changes)  # type: ignore[arg-type]
    specs = [PlayerSpec.bundled("default") for _ in range(4)]
    specs.insert(seat, spec)
    outcome = trio.run(lambda: run_headless_match(config, specs, connect_timeout=5.0,
                                                  exit_grace=2.0))
    assert outcome.games_played == games
    log = read_match_log(log_path)
    assert log.end is not None and log.end.status == "complete"
    assert [r.to_json() for r in log.end.seats] == [r.to_json() for r in outcome.seats]
    summary = verify_log(log)
    assert summary.complete and summary.games == games
    for p, report in enumerate(outcome.seats):
        if p != seat:
            assert report.status == "OK" and not report.faults, report
    return outcome, log


def turns_of(log: MatchLog, player: int) -> list:
    return [t for g in log.games for t in g.turns if t.player == player]


def test_crash_mid_game_hands_the_seat_to_the_fallback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome, log = play(tmp_path, fault_spec("crash", "--at", "5"))
    seat = outcome.seats[2]
    assert seat.status == "CRASHED" and seat.stand_in == "fallback" and seat.since_game == 1
    assert "exited with code 3" in seat.detail
    mine = turns_of(log, 2)
    assert [t.by for t in mine[:4]] == [None] * 4  # four moves of its own, then the fallback
    assert {t.by for t in mine[4:]} == {"fallback"}
    events = [e for g in log.games for e in g.events]
    assert events and {e.player for e in events} == {2}
    assert all(g.stand_in == [2] for g in log.games)
    standings = standings_of(log)
    assert standings.games == GAMES
    standings.apply_reports(outcome.seats)
    me = standings.players[2]
    assert me.stand_in_games == GAMES and "CRASHED, fallback from game 1" in me.status_text()
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "match.jsonl"), "--verify"]) == 0
    assert "stand-in turns" in capsys.readouterr().out
    assert main(["replay", str(tmp_path / "match.jsonl"), "--game", "1"]) == 0
    shown = capsys.readouterr().out
    # the seat is handed over at the first sign the server sees: the process's exit
    # (CRASHED) or, on a busy machine, the socket's end before it (DISCONNECTED); the seat's
    # report above says CRASHED either way
    assert "[fallback]" in shown and re.search(r"seat: p2 (CRASHED|DISCONNECTED)", shown)


def test_hanging_on_a_move_times_out_until_the_fault_limit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome, log = play(tmp_path, fault_spec("hang", "--at", "3"))
    seat = outcome.seats[2]
    assert seat.status == "TIMEOUT" and seat.faults == {"TIMEOUT": 3}
    assert seat.stand_in == "fallback" and "3 faults (limit 3)" in seat.detail
    timed_out = [t for t in turns_of(log, 2) if t.fault == "TIMEOUT"]
    assert len(timed_out) == 3
    assert all(t.move == "pass" and t.answer == 8 and "no table within" in (t.error or "")
               for t in timed_out)
    assert all(t.think_ms >= 300 for t in timed_out)  # never before the deadline
    assert main(["replay", str(tmp_path / "match.jsonl"), "--game", "1"]) == 0
    assert "<timeout: no table within 0.3 s>" in capsys.readouterr().out


def test_a_late_move_is_read_and_thrown_away_and_the_stream_stays_in_step(
        tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("slow", "--at", "3", "--delay", LATE))
    seat = outcome.seats[2]
    assert seat.status == "TIMEOUT" and set(seat.faults) == {"TIMEOUT"}
    assert seat.stand_in is None
    mine = turns_of(log, 2)
    late = max(i for i, t in enumerate(mine) if t.fault)
    after = mine[late + 1:]
    # Its next moves are its own current ones: none is a stale table read as a move (which
    # would be rejected, or malformed).
    assert after and all(t.fault is None and t.by is None for t in after)
    assert any(t.answer == 9 and t.move != "pass" for t in after)


def test_every_move_late_never_desynchronises(tmp_path: Path) -> None:
    """Each request first skips the stale table of the one before it, then times out."""
    outcome, log = play(tmp_path, fault_spec("slow-all", "--at", "1", "--delay", "0.35"),
                        games=1, fault_limit=0, time_bank=0.0)
    seat = outcome.seats[2]
    mine = turns_of(log, 2)
    assert seat.stand_in is None and set(seat.faults) == {"TIMEOUT"}
    assert all(t.fault == "TIMEOUT" and t.move == "pass" for t in mine)


def test_garbage_bytes_are_malformed_and_the_player_plays_on(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("garbage", "--at", "3"))
    seat = outcome.seats[2]
    assert seat.status == "MALFORMED" and seat.faults == {"MALFORMED": 1}
    assert seat.stand_in is None
    bad = [t for t in turns_of(log, 2) if t.fault]
    assert len(bad) == 1 and bad[0].answer == 8 and "BadCellValueError" in (bad[0].error or "")


def test_half_a_table_then_silence(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("half", "--at", "3"))
    seat = outcome.seats[2]
    assert seat.status == "TIMEOUT" and seat.stand_in == "fallback"
    first = next(t for t in turns_of(log, 2) if t.fault)
    assert "(240 of 480 bytes)" in (first.error or "")


def test_half_a_table_then_the_rest_too_late(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("half-late", "--at", "3", "--delay", LATE))
    seat = outcome.seats[2]
    assert set(seat.faults) == {"TIMEOUT"} and seat.stand_in is None
    mine = turns_of(log, 2)
    first = next(t for t in mine if t.fault)
    assert "(240 of 480 bytes)" in (first.error or "")
    assert {t.fault for t in mine} == {None, "TIMEOUT"}


def test_bytes_after_the_move_are_dropped_before_the_next_request(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("junk-after", "--at", "3"))
    seat = outcome.seats[2]
    assert seat.faults == {"MALFORMED": 1} and seat.stand_in is None
    events = [e for g in log.games for e in g.events]
    assert [(e.player, e.action, e.status) for e in events] == [(2, "fault", "MALFORMED")]
    assert "7 bytes nobody asked for" in events[0].detail
    assert not any(t.fault for t in turns_of(log, 2))  # back in step at once


def test_an_illegal_move_is_answered_8_and_not_counted(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("illegal", "--at", "3"), fault_limit=1)
    seat = outcome.seats[2]
    assert seat.status == "ILLEGAL" and seat.faults == {"ILLEGAL": 1} and seat.stand_in is None
    bad = [t for t in turns_of(log, 2) if t.fault]
    assert len(bad) == 1 and bad[0].answer == 8 and bad[0].error is None


def test_illegal_moves_count_when_asked(tmp_path: Path) -> None:
    outcome, _ = play(tmp_path, fault_spec("illegal", "--at", "3"), fault_limit=1,
                      illegal_counts=True)
    assert outcome.seats[2].status == "ILLEGAL" and outcome.seats[2].stand_in == "fallback"


def test_a_flood_cuts_the_player_off(tmp_path: Path) -> None:
    outcome, _ = play(tmp_path, fault_spec("flood", "--at", "3"))
    seat = outcome.seats[2]
    assert seat.status == "MALFORMED" and seat.stand_in == "fallback"
    assert "flooded" in seat.detail


def test_a_player_that_stops_reading_meets_the_send_deadline(tmp_path: Path) -> None:
    outcome, _ = play(tmp_path, fault_spec("deaf", "--at", "3"), fault_limit=0)
    seat = outcome.seats[2]
    assert seat.status == "TIMEOUT" and seat.stand_in == "fallback"
    assert "does not read" in seat.detail


def test_disconnect_during_the_exchange(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("disconnect-exchange"), seat=1)
    seat = outcome.seats[1]
    assert seat.status == "DISCONNECTED" and (seat.since_game, seat.since_turn) == (2, 0)
    chosen = [t for t in log.games[1].transfers if not t.automatic and t.giver == 1]
    assert len(chosen) == 1 and chosen[0].by == "fallback" and not chosen[0].substituted


def test_a_late_exchange_table_is_replaced_by_the_servers_pick_and_thrown_away(
        tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("slow", "--on", "exchange", "--at", "1",
                                             "--delay", LATE), seat=1)
    seat = outcome.seats[1]
    assert set(seat.faults) == {"TIMEOUT"} and seat.stand_in is None
    chosen = [t for t in log.games[1].transfers if not t.automatic and t.giver == 1]
    assert chosen[0].substituted and chosen[0].fault == "TIMEOUT"
    # The late table was thrown away, never read as a move (a one-card exchange table is a
    # well-formed single): no rejected or malformed move follows.
    assert {t.fault for t in turns_of(log, 1)} <= {None, "TIMEOUT"}


@pytest.mark.parametrize(("mode", "status"), [("hang-handshake", "TIMEOUT"),
                                               ("half-profile", "TIMEOUT")])
def test_a_handshake_that_never_completes_gets_a_stand_in_from_the_start(
        tmp_path: Path, mode: str, status: str) -> None:
    outcome, log = play(tmp_path, fault_spec(mode))
    seat = outcome.seats[2]
    assert seat.status == status and (seat.since_game, seat.since_turn) == (1, 0)
    assert "no profile within 0.5 s" in seat.detail
    assert log.header.players[2].stand_in == "fallback"
    assert {t.by for t in turns_of(log, 2)} == {"fallback"}


def test_forfeit_passes_every_turn_and_ranks_last(tmp_path: Path) -> None:
    outcome, log = play(tmp_path, fault_spec("crash", "--at", "2"), on_fault="forfeit")
    seat = outcome.seats[2]
    assert seat.status == "CRASHED" and seat.stand_in == "forfeit"
    forfeited = [t for t in turns_of(log, 2) if t.by]
    assert forfeited and all(t.by == "forfeit" and t.move == "pass" for t in forfeited)
    assert log.games[-1].places[2] == 4  # an always-pass seat ends last
    standings = standings_of(log)
    standings.apply_reports(outcome.seats)
    assert standings.ranked()[-1].number == 2 and standings.ranked()[-1].forfeited


def test_a_garbage_exchange_table_is_malformed_and_the_match_goes_on(tmp_path: Path) -> None:
    """Random bytes as the fugo's exchange table (cells far outside 0..2): the server picks
    the returned card, counts the fault, and the match is played to its end."""
    outcome, log = play(tmp_path, fault_spec("garbage", "--on", "exchange"), seat=1)
    chosen = [t for g in log.games for t in g.transfers if t.giver == 1 and not t.automatic]
    assert chosen and chosen[0].substituted and chosen[0].fault == "MALFORMED"
    assert outcome.seats[1].faults.get("MALFORMED", 0) >= 1
