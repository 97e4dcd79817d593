"""Continuing a match from its log after the server (or ``daihinmin match``) was stopped.

Every game is in the log, fsynced, before the next deal; a last line cut short by a kill is
dropped.  The log's games are re-simulated with the engine (so a log that does not agree
with the engine is refused) and the match goes on from the next game: each game draws from
``game_rng(seed, game)`` and starts from the classes, seats and points after the previous
one, so the rest of the match is exactly what an uninterrupted run would have played (for
players whose choices depend only on what they see).  The seats' time banks and fault
reports are taken from the last game: fault counts go on towards the limit, and a seat
already handed to its stand-in stays with it (its new connection is closed at once), as in
an uninterrupted run.  Logs written before the reports were logged start every seat afresh.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleConfigError

from .config import ServerConfig
from .errors import MatchLogError, ServerConfigError
from .faults import SeatReport
from .matchlog import MatchLog, read_match_log
from .replay import LogMismatchError, rebuild_match


@dataclass
class ResumePoint:
    log: MatchLog
    match: MatchState  # after the last finished game
    banks: list[float] | None  # seconds left in each seat's time bank, if logged
    reports: list[SeatReport]  # the seats that had met a fault by the last game

    @property
    def games_done(self) -> int:
        return len(self.log.games)


def load_resume(path: Path) -> ResumePoint:
    """Where the logged match stands; refuses a complete, unreadable or inconsistent log."""
    try:
        log = read_match_log(path)
        match = rebuild_match(log)
    except (MatchLogError, LogMismatchError) as exc:
        raise ServerConfigError(f"cannot resume from {path}: {exc}") from exc
    if log.end is not None and log.end.status == "complete":
        raise ServerConfigError(f"{path}: the match is complete; nothing to resume")
    last = log.games[-1] if log.games else None
    banks = ([ms / 1000.0 for ms in last.bank_ms]
             if last is not None and last.bank_ms is not None else None)
    return ResumePoint(log, match, banks, last.reports if last is not None else [])


def config_for_resume(path: Path, config: ServerConfig) -> ServerConfig:
    """``config`` with the rules, seed and number of games of the logged match."""
    try:
        header = read_match_log(path).header
        rules = header.ruleset()
    except (MatchLogError, RuleConfigError) as exc:
        raise ServerConfigError(f"cannot resume from {path}: {exc}") from exc
    return replace(config, rules=rules, seed=header.seed, games=header.games, log_path=path,
                   resume=True).validate()


__all__ = ["ResumePoint", "config_for_resume", "load_resume"]
