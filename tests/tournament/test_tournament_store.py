"""The results database: schedule, per-game rows, resume rules, fingerprints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from daihinmin.tournament import config as config_module
from daihinmin.tournament.config import config_from_dict, load_config
from daihinmin.tournament.store import (
    ResumeMismatchError,
    StoreError,
    TournamentStore,
)


def config(**kw):
    d = {"games": 20, "games_per_match": 2, "transport": "in-process",
         "participant": [{"bot": "default"}, {"bot": "random"}, {"bot": "greedy"}]}
    d.update(kw)
    return config_from_dict(d)


def finish(store: TournamentStore, match: int, games: int) -> None:
    store.match_started(match)
    for g in range(1, games + 1):
        store.record_game(match, g, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
    store.match_done(match, 0.1)


def test_interrupted_match_is_replayed_not_double_counted(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    store = TournamentStore.create(path, config())
    total = store.total_games()
    finish(store, 0, 2)
    store.match_started(1)
    store.record_game(1, 1, (0, 1, 2, 3, 4), (4, 3, 2, 1, 0), (1, 2, 3, 4, 5), 7)
    store.close()  # as if the process died here
    again = TournamentStore.resume(path, None)
    assert again.counts() == {"done": 1, "pending": len(again.pending()), "running": 1}
    assert again.reset_unfinished() == 1
    assert again.game_count(done_only=False) == 2  # the partial game is gone
    assert [s.index for s in again.pending()][:2] == [1, 2]
    for s in again.pending():
        finish(again, s.index, s.games)
    assert again.game_count() == total
    assert len(again.games()) == total


def test_a_game_cannot_be_recorded_twice(tmp_path) -> None:
    store = TournamentStore.create(tmp_path / "t.sqlite", config())
    store.match_started(0)
    store.record_game(0, 1, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
    with pytest.raises(Exception, match="UNIQUE"):
        store.record_game(0, 1, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
    with pytest.raises(StoreError):
        store.match_done(0, None)  # one of two games missing


def test_create_refuses_an_existing_file(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    TournamentStore.create(path, config()).close()
    with pytest.raises(StoreError, match="--resume"):
        TournamentStore.create(path, config())


def test_resume_checks_the_fingerprint_and_may_add_games(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    TournamentStore.create(path, config()).close()
    with pytest.raises(ResumeMismatchError):
        TournamentStore.resume(path, config(seed=2))
    with pytest.raises(ResumeMismatchError):
        TournamentStore.resume(path, config(transport="tcp"))
    store = TournamentStore.resume(path, config(games=60, jobs=3))
    assert store.total_games() >= 60
    stored = store.stored_config()
    assert stored is not None and stored.games == 60


def test_failed_match_keeps_no_games_and_is_retried(tmp_path) -> None:
    store = TournamentStore.create(tmp_path / "t.sqlite", config())
    store.match_started(0)
    store.record_game(0, 1, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
    store.match_failed(0, "bot crashed")
    assert store.game_count(done_only=False) == 0
    assert store.failures() == [(0, "bot crashed")]
    store.reset_unfinished()
    assert store.pending()[0].index == 0 and not store.failures()


def test_the_example_config_is_valid() -> None:
    path = Path(config_module.__file__).with_name("example.toml")
    cfg = load_config(path)
    assert [p.name for p in cfg.participants] == ["default", "greedy", "random"]
    assert cfg.transport == "in-process" and cfg.games == 2000


def test_an_exact_tournament_grows_only_until_its_short_round_is_played(tmp_path) -> None:
    path = tmp_path / "t.sqlite"
    store = TournamentStore.create(path, config(games=20, games_per_match=10, games_exact=True))
    assert store.total_games() == 20  # 3 tables x 5 rotations, not 150
    store.close()
    store = TournamentStore.resume(path, config(games=40, games_per_match=10, games_exact=True))
    assert store.total_games() == 40 and len(store.pending()) == 15  # longer, not more
    finish(store, 0, 3)
    store.close()
    with pytest.raises(ResumeMismatchError, match="--games-exact"):
        TournamentStore.resume(path, config(games=60, games_per_match=10, games_exact=True))
    with pytest.raises(ResumeMismatchError):  # exact or not is part of the fingerprint
        TournamentStore.resume(path, config(games=40, games_per_match=10))


def test_a_log_the_killed_run_never_recorded_is_adopted_as_an_uncounted_attempt(
        tmp_path) -> None:
    """A run killed between a worker opening match 1's log and the database hearing of it:
    the resume names that file as an attempt of its own, and the next attempt is counted."""
    from daihinmin.runs.match_logs import logs_in, next_log_path

    logs = tmp_path / "logs"
    logs.mkdir()
    old = logs / "match-00002.jsonl"  # another tournament's log, from before this one
    old.write_text("")
    os.utime(old, (1_000_000, 1_000_000))
    store = TournamentStore.create(tmp_path / "t.sqlite", config())
    store.begin_run("in-process", 1, 1)
    store.match_started(0)
    first = next_log_path(logs, 0)
    first.write_text("")
    store.record_log(0, str(first))
    store.record_game(0, 1, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
    orphan = next_log_path(logs, 1)  # the worker's next match; its messages were lost
    orphan.write_text("")
    store.close()

    again = TournamentStore.resume(tmp_path / "t.sqlite", None)
    again.reset_unfinished()
    assert again.adopt_logs(logs_in(logs)) == 1
    assert again.adopt_logs(logs_in(logs)) == 0  # once
    for match in (0, 1):
        again.match_started(match)
        path = next_log_path(logs, match)
        path.write_text("")
        again.record_log(match, str(path))
        for g in (1, 2):
            again.record_game(match, g, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
        again.match_done(match, 0.1)
    rows = [(r.match_id, r.attempt, Path(r.path).name, r.counted) for r in again.match_logs()]
    assert rows == [(0, 1, "match-00000.jsonl", False), (0, 2, "match-00000.2.jsonl", True),
                    (1, 1, "match-00001.jsonl", False), (1, 2, "match-00001.2.jsonl", True)]


def play_attempt(store: TournamentStore, logs: Path, match: int) -> None:
    """One whole attempt of ``match`` as the dispatcher records it, its log made."""
    from daihinmin.runs.match_logs import next_log_path

    store.match_started(match)
    path = next_log_path(logs, match)
    path.write_text("")
    store.record_log(match, str(path))
    for g in (1, 2):
        store.record_game(match, g, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), 9)
    store.match_done(match, 0.1)


def resumed(path: Path, logs: Path) -> TournamentStore:
    """The database as ``--resume --log-dir`` starts it (run_tournament's order)."""
    from daihinmin.runs.match_logs import logs_in

    again = TournamentStore.resume(path, None)
    again.adopt_logs(logs_in(logs))
    again.reset_unfinished()
    return again


def test_a_log_whose_started_was_recorded_is_that_attempts_not_one_more(tmp_path) -> None:
    """Killed between the dispatcher recording match 0's ``started`` and its ``log``: the
    file is the log of the attempt already counted, not an attempt of its own."""
    from daihinmin.runs.match_logs import next_log_path

    logs = tmp_path / "logs"
    logs.mkdir()
    store = TournamentStore.create(tmp_path / "t.sqlite", config())
    store.begin_run("in-process", 1, 1)
    store.match_started(0)
    next_log_path(logs, 0).write_text("")  # its "log" message was lost
    store.close()

    again = resumed(tmp_path / "t.sqlite", logs)
    play_attempt(again, logs, 0)
    rows = [(r.attempt, Path(r.path).name, r.counted) for r in again.match_logs()]
    assert rows == [(1, "match-00000.jsonl", False), (2, "match-00000.2.jsonl", True)]
    (attempts,) = again.con.execute("SELECT attempts FROM matches WHERE id = 0").fetchone()
    assert attempts == 2  # two attempts played, two counted


def test_a_named_log_that_was_never_made_is_forgotten_so_its_name_is_named_once(
        tmp_path) -> None:
    """Match 0's log was named, then never made (the run was stopped first, or the server
    removed a log it never wrote a header to): the next attempt takes the free name, and the
    report names that file once, as the counted attempt's."""
    from daihinmin.runs.match_logs import next_log_path

    logs = tmp_path / "logs"
    logs.mkdir()
    store = TournamentStore.create(tmp_path / "t.sqlite", config())
    store.begin_run("tcp", 1, 1)
    store.match_started(0)
    store.record_log(0, str(next_log_path(logs, 0)))
    store.match_failed(0, "match timeout (600 s)")
    store.close()

    again = resumed(tmp_path / "t.sqlite", logs)
    play_attempt(again, logs, 0)
    rows = [(r.attempt, Path(r.path).name, r.counted) for r in again.match_logs()]
    assert rows == [(2, "match-00000.jsonl", True)]


def test_a_database_whose_creation_was_killed_is_taken_up_by_resume(tmp_path) -> None:
    """Killed between making the file (its tables) and writing the tournament into it:
    ``--resume`` with the tournament writes it; without one, or on another program's
    SQLite file, it is still refused."""
    import sqlite3

    from daihinmin.tournament.store import DatabaseExistsError, StoreReadError

    path = tmp_path / "t.sqlite"
    path.touch()  # as create() makes it, exclusively; then its empty tables, no more
    TournamentStore(path, writer=True).close()
    with pytest.raises(DatabaseExistsError):
        TournamentStore.create(path, config())
    with pytest.raises(StoreReadError, match="holds no tournament"):
        TournamentStore.resume(path, None).close()
    store = TournamentStore.resume(path, config())
    fresh = TournamentStore.create(tmp_path / "fresh.sqlite", config())
    assert store.stored_config() == fresh.stored_config()
    assert store.pending() == fresh.pending() and store.total_games() >= 20
    store.close()
    fresh.close()

    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE notes (text TEXT)")
    con.close()
    with pytest.raises(StoreReadError, match="not a whole tournament database"):
        TournamentStore.resume(other, config()).close()
    assert sqlite3.connect(other).execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == [("notes",)]
