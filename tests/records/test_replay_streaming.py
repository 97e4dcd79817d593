"""``daihinmin replay`` reads a log one game at a time: its memory does not grow with the
number of games, and a log that changes between the first reading and the replay is bad
input (exit 4, one line), never a wrong verdict."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.records.errors import MatchLogError
from daihinmin.records.inprocess_log import LocalMatchLog
from daihinmin.records.matchlog import LoggedGames, read_match_log, scan_match_log
from daihinmin.rules.ruleset import UECDA
from daihinmin.tools.cli import main


def write_log(path: Path, games: int) -> Path:
    bots = [make_bot("random", seed=p) for p in range(5)]
    with LocalMatchLog.open(path, UECDA, seed=3, games=games,
                            names=[f"r{p}" for p in range(5)]) as log:
        log.finish(play_local_match(UECDA, seed=3, games=games, bots=bots, on_game=log.game))
    return path


def peak_bytes(argv: list[str]) -> int:
    tracemalloc.start()
    try:
        assert main(argv) == 0
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("logs")
    return write_log(folder / "short.jsonl", 10), write_log(folder / "long.jsonl", 100)


def test_the_scanned_log_has_the_same_games_as_the_log_read_whole(
        logs: tuple[Path, Path]) -> None:
    whole, scanned = read_match_log(logs[0]), scan_match_log(logs[0])
    assert isinstance(scanned.games, LoggedGames) and len(scanned.games) == 10
    assert list(scanned.games) == whole.games and list(scanned.games) == whole.games
    assert scanned.end == whole.end and scanned.header == whole.header


@pytest.mark.parametrize("command", [["--verify"], []])
def test_replay_memory_does_not_grow_with_the_games(logs: tuple[Path, Path],
                                                    command: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    peak_bytes(["replay", *command, str(logs[0])])  # imports and caches: not the log's
    short, long = (peak_bytes(["replay", *command, str(path)]) for path in logs)
    capsys.readouterr()
    # Ten times the games: held in memory they took about five to ten times the peak.
    assert long < 1.5 * short, (short, long)


def test_a_log_cut_after_the_first_reading_is_bad_input(logs: tuple[Path, Path],
                                                        tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    lines = logs[0].read_text().splitlines(keepends=True)
    path.write_text("".join(lines))
    log = scan_match_log(path)
    path.write_text("".join(lines[:4]))  # the header and three games are left
    with pytest.raises(MatchLogError, match="3 games on reading it again, 10 before"):
        list(log.games)
