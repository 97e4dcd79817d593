"""Continuing a match from its log after the server (or ``daihinmin match``) was stopped.

Every game is in the log, fsynced, before the next deal; a last line cut short by a kill is
dropped.  Each game record is also a checkpoint: its game number, seats, places (the next
game's classes) and totals are the whole match state after it.  So the log is read record by
record, in bounded memory, and only its last game is re-simulated with the engine, from the
checkpoint before it; on the way every game must follow the one before (game numbers in
order, totals = previous totals + points), and a log that does not agree is refused
(``daihinmin replay --verify`` re-simulates every game).  The match goes on from the next
game: each game draws from ``game_rng(seed, game)`` and starts from the classes, seats and
points after the previous one, so the rest of the match is exactly what an uninterrupted run
would have played (for players whose choices depend only on what they see).  The seats'
time banks and fault reports are taken from the last game: fault counts go on towards the
limit, and a seat already handed to its stand-in stays with it (its new connection is closed
at once), as in an uninterrupted run.  Logs written before the reports were logged start
every seat afresh.

The log is read once per resume: the command (``match``/``serve --resume``) reads it with
:func:`load_resume`, which also gathers what the command needs (the fault policy last logged,
the standings of the logged games), and hands the :class:`ResumePoint` to the server in
``ServerConfig.resume_point``.  The server takes it once it holds the log's lock, if the file
is still the one that was read (same file, same size: logs only grow); a log written by
another process in between is refused (``ResumeLogError``), not resumed from a stale point.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from daihinmin.driver.faults import SeatReport
from daihinmin.driver.record import GameRecord
from daihinmin.records.errors import MatchLogError
from daihinmin.records.matchlog import (
    MatchEnd,
    MatchHeader,
    PlayerInfo,
    ResumeRecord,
    open_log,
    read_header,
)
from daihinmin.records.replay import LogMismatchError, Mismatch, replay_game
from daihinmin.records.standings import Standings
from daihinmin.rules.match import GameResult, MatchState
from daihinmin.rules.ruleset import RuleConfigError

from .config import ServerConfig
from .errors import ResumeLogError, ServerConfigError

FileIdentity = tuple[int, int, int]  # device, inode, size


@dataclass
class ResumePoint:
    header: MatchHeader
    players: list[PlayerInfo]  # of the latest run (the header's, or the last resume's)
    match: MatchState  # after the last finished game
    banks: list[float] | None  # seconds left in each seat's time bank, if logged
    reports: list[SeatReport]  # the seats that had met a fault by the last game
    games_done: int
    last_totals: list[int]
    policy: dict[str, Any]  # the deadlines and fault policy logged last ({} if none)
    standings: Standings  # of the logged games (players named player0.. until seated)
    source: FileIdentity | None  # the file as read (None: it changed while it was read)


def file_identity(path: Path) -> FileIdentity | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size


def match_after(header: MatchHeader, record: GameRecord | None) -> MatchState:
    """The match state after the logged game ``record`` (a fresh match for None)."""
    match = MatchState(header.ruleset(), seed=header.seed, games=header.games)
    if record is not None:
        match.game = record.game + 1
        match.classes = tuple(record.places)
        match.seats = tuple(record.seats)
        match.points = list(record.totals)
        match.results = [GameResult(record.game, tuple(record.places), tuple(record.points))]
    return match


def _follows(previous: GameRecord | None, record: GameRecord) -> None:
    """``record`` is the game after ``previous`` (cheap checks made on every game)."""
    expected = 1 if previous is None else previous.game + 1
    if record.game != expected:
        raise LogMismatchError(Mismatch(record.game, None, "game number", record.game,
                                        expected))
    before = [0] * len(record.totals) if previous is None else previous.totals
    summed = [a + b for a, b in zip(before, record.points, strict=True)]
    if summed != record.totals:
        raise LogMismatchError(Mismatch(record.game, None, "cumulative points", record.totals,
                                        summed))


def load_resume(path: Path) -> ResumePoint:
    """Where the logged match stands; refuses a complete, unreadable or inconsistent log.
    The log is read once, record by record."""
    before = file_identity(path)
    try:
        with open_log(path) as reader:
            header: MatchHeader | None = None
            players: list[PlayerInfo] = []
            policy: dict[str, Any] | None = None
            standings: Standings | None = None
            games = 0
            previous: GameRecord | None = None
            last: GameRecord | None = None
            end: MatchEnd | None = None
            for record in reader:
                if isinstance(record, MatchHeader):
                    header, players, policy = record, record.players, record.policy
                    standings = Standings(
                        [PlayerInfo(i, f"player{i}", 0) for i in range(len(players))],
                        rules=header.ruleset())
                elif isinstance(record, GameRecord):
                    _follows(last, record)
                    assert standings is not None
                    standings.add_game(record)
                    games += 1
                    previous, last = last, record
                elif isinstance(record, ResumeRecord):
                    players, end = record.players, None
                    policy = record.policy or policy
                elif isinstance(record, MatchEnd):
                    end = record
        assert header is not None and standings is not None
        if header.deals != "seed":  # the next games would be dealt from a seed it never had
            raise ResumeLogError(f"cannot resume from {path}: its games were read from a "
                                 "kifu (their deals come from no seed)")
        match = match_after(header, previous)
        if last is not None:
            replay_game(match, last)  # the last game against the engine
    except (MatchLogError, LogMismatchError, RuleConfigError) as exc:
        raise ResumeLogError(f"cannot resume from {path}: {exc}") from None
    if end is not None and end.status == "complete":
        raise ServerConfigError(f"{path}: the match is complete; nothing to resume")
    banks = ([ms / 1000.0 for ms in last.bank_ms]
             if last is not None and last.bank_ms is not None else None)
    after = file_identity(path)
    return ResumePoint(header, players, match, banks, last.reports if last is not None else [],
                       games, list(last.totals) if last else [], policy or {}, standings,
                       after if after == before else None)


def resume_point_for(config: ServerConfig) -> ResumePoint | None:
    """The server's point to go on from (called once it holds the log's lock): the one the
    command read, which must still be the file as it was read (the command's standings
    count its games), or else the log read now."""
    if not config.resume or config.log_path is None:
        return None
    point = config.resume_point
    if point is None:
        return load_resume(config.log_path)
    if point.source is None or point.source != file_identity(config.log_path):
        raise ResumeLogError(f"cannot resume from {config.log_path}: another process wrote "
                             "it while it was being read; give --resume again")
    return point


def config_for_resume(path: Path, config: ServerConfig, point: ResumePoint | None = None
                      ) -> ServerConfig:
    """``config`` with the rules, seed and number of games of the logged match (from
    ``point``, which the server then takes over, when the log was read already)."""
    try:
        header = point.header if point is not None else read_header(path)
        rules = header.ruleset()
    except (MatchLogError, RuleConfigError) as exc:
        raise ResumeLogError(f"cannot resume from {path}: {exc}") from None
    return replace(config, rules=rules, seed=header.seed, games=header.games, log_path=path,
                   resume=True, resume_point=point).validate()


__all__ = ["ResumePoint", "config_for_resume", "load_resume", "match_after",
           "resume_point_for"]
