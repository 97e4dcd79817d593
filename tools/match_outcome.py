"""How ``serve`` and ``match`` end: the standings built game by game, the report on the
terminal or as JSON, the exit code, and the errors of a match that failed or was stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

# Heavy imports (trio, rich, the server) happen inside the handlers: every ``daihinmin``
# process builds the whole parser, including each bot process of a match.
if TYPE_CHECKING:
    from daihinmin.records.standings import Standings
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.match_server import MatchOutcome


def report_errors(exc: BaseException, prog: str) -> int:
    """Print each error of a failed match: exit code 1, 2 for a match that cannot start
    (e.g. a log that cannot be resumed), or 130 when interrupted (Ctrl-C)."""
    from daihinmin.runs.tables import failure_lines

    code, lines = failure_lines(exc, prog)
    for line in lines:
        print(line, file=sys.stderr)
    return code


def interrupted(exc: BaseException) -> bool:
    """Stopped by the user (Ctrl-C), possibly inside an exception group."""
    from daihinmin.server.errors import leaf_errors

    return any(isinstance(err, KeyboardInterrupt) for err in leaf_errors(exc))


def start_standings(config: ServerConfig, labels: list[str] | None = None) -> Standings:
    """Standings to build up game by game (names are filled in as players are seated); a
    resumed match starts from its logged games (gathered when the log was read)."""
    from daihinmin.records.matchlog import PlayerInfo
    from daihinmin.records.standings import Standings

    n = config.rules.players
    if config.resume_point is not None:
        standings = config.resume_point.standings
        for s, label in zip(standings.players, labels or [], strict=False):
            s.name = s.label = label
        return standings
    return Standings([PlayerInfo(i, labels[i] if labels else f"player{i}", 0)
                      for i in range(n)], labels,
                     rules=config.rules)


def finish_standings(standings: Standings, outcome: MatchOutcome) -> Standings:
    standings.name_players(outcome.players)
    standings.apply_reports(outcome.seats)
    return standings


def result_code(standings: Standings, allow_stand_ins: bool) -> int:
    """0, or 3 when a stand-in played some game for a player (unless the user allowed it)."""
    from daihinmin.records.exit_codes import OK, STAND_IN

    replaced = standings.stand_in_games or any(s.replaced for s in standings.players)
    return STAND_IN if replaced and not allow_stand_ins else OK


def report_outcome(args: argparse.Namespace, config: ServerConfig, standings: Standings,
                   outcome: MatchOutcome, prog: str,
                   extra: dict[str, Any] | None = None) -> int:
    """Print the final standings (a table, or one JSON object) and return the exit code."""
    from rich.console import Console

    from .standings_report import print_standings, standings_json

    finish_standings(standings, outcome)
    code = result_code(standings, args.allow_stand_ins)
    if args.json:
        print(json.dumps(standings_json(
            standings, config, log_path=outcome.log_path, wall_seconds=outcome.wall_seconds,
            resumed_after=outcome.resumed_after, totals=outcome.totals,
            extra={"exit_code": code, **(extra or {})})))
    else:
        print_standings(standings, Console(), wall_seconds=outcome.wall_seconds,
                        resumed_after=outcome.resumed_after, log_path=outcome.log_path)
    if code:
        print(f"{prog}: a stand-in played for a player (exit code {code}; "
              f"--allow-stand-ins to accept that)", file=sys.stderr)
    return code


def report_interrupted(standings: Standings, config: ServerConfig, prog: str,
                       wall_seconds: float) -> None:
    """After Ctrl-C: the standings so far and how to go on."""
    from rich.console import Console

    from .standings_report import print_standings

    print_standings(standings, Console(stderr=True), wall_seconds=wall_seconds,
                    log_path=config.log_path,
                    title=f"Standings so far: {standings.games} of {config.games} games "
                          "(interrupted)")
    if config.log_path is not None:
        print(f"{prog}: interrupted; continue with: {prog} --resume {config.log_path}",
              file=sys.stderr)
    else:
        print(f"{prog}: interrupted (no log was written, so it cannot be resumed)",
              file=sys.stderr)
