"""``daihinmin serve``: the UECda match server on TCP (players connect, numbered in order).

Also holds what ``serve`` and ``match`` share: the match options, the deadline and fault
options, the default log path and the standings report.

Deadlines (seconds, 0 = none): ``--profile-time`` 10, ``--move-time`` 1, ``--exchange-time``
1, plus a ``--time-bank`` of 10 s per seat and match for slow moves, and ``--send-time`` 10
for a player that stops reading.  A timeout or a table that is no table counts as a pass
(answered 8); ``--fault-limit`` such faults (5), or a lost connection, hand the seat to the
``--fallback`` bot (``default``) for the rest of the match, or with ``--on-fault forfeit``
make the seat pass every turn and rank its player below everyone who did not forfeit.
``--resume LOG`` continues a match that was stopped, from its last finished game.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.server.config import (
    DEFAULT_PORT,
    EXCHANGE_TIMEOUT,
    FAULT_LIMIT,
    MOVE_TIMEOUT,
    PROFILE_TIMEOUT,
    SEND_TIMEOUT,
    TIME_BANK,
)

# Heavy imports (trio, rich, the server) happen inside the handlers: every ``daihinmin``
# process builds the whole parser, including each bot process of a match.
if TYPE_CHECKING:
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.match_server import MatchObserver, MatchOutcome
    from daihinmin.server.standings import Standings
    from rich.console import Console

DEFAULT_GAMES = 10
LOG_FOLDER = Path("logs")


def add_match_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int, default=None,
                   help=f"games in the match (default {DEFAULT_GAMES})")
    p.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    p.add_argument("--rules", default=None, help="rules preset (default uecda)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule (repeatable)")
    p.add_argument("--log", type=Path, default=None, metavar="FILE",
                   help="match log (default: logs/match-<time>-<seed>.jsonl)")
    p.add_argument("--no-log", action="store_true", help="write no match log")
    p.add_argument("--resume", type=Path, default=None, metavar="LOG",
                   help="continue the match of LOG from its last finished game (rules, seed "
                        "and games come from the log; the games are appended to it)")
    p.add_argument("--no-fsync", action="store_true",
                   help="do not fsync the log after each game (faster, less safe)")
    p.add_argument("--json", action="store_true", help="print one JSON object at the end")
    p.add_argument("-v", "--verbose", action="store_true", help="log every connection")
    add_fault_options(p)


def add_fault_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("deadlines and faults (seconds; 0 = no deadline)")
    g.add_argument("--profile-time", type=float, default=PROFILE_TIMEOUT, metavar="S",
                   help=f"connect to profile table (default {PROFILE_TIMEOUT:g})")
    g.add_argument("--move-time", type=float, default=MOVE_TIMEOUT, metavar="S",
                   help=f"per move (default {MOVE_TIMEOUT:g})")
    g.add_argument("--exchange-time", type=float, default=EXCHANGE_TIMEOUT, metavar="S",
                   help=f"per exchange table (default {EXCHANGE_TIMEOUT:g})")
    g.add_argument("--time-bank", type=float, default=TIME_BANK, metavar="S",
                   help=f"extra time per seat and match, drawn on once a move's or exchange's "
                        f"own time is used (default {TIME_BANK:g})")
    g.add_argument("--send-time", type=float, default=SEND_TIMEOUT, metavar="S",
                   help=f"a write to a player that does not read (default {SEND_TIMEOUT:g})")
    g.add_argument("--fault-limit", type=int, default=FAULT_LIMIT, metavar="N",
                   help=f"timeouts and malformed tables before the seat is handed over "
                        f"(default {FAULT_LIMIT}; 0 = never)")
    g.add_argument("--illegal-counts", action="store_true",
                   help="count tables the rules reject as faults too")
    g.add_argument("--on-fault", choices=["fallback", "forfeit"], default="fallback",
                   help="a handed-over seat is played by the fallback bot, or forfeits "
                        "(passes every turn, ranked last)")
    g.add_argument("--fallback", default="default", metavar="BOT",
                   help="bundled bot that plays a handed-over seat (default: default)")


def default_log_path(seed: int) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return LOG_FOLDER / f"match-{stamp}-{seed}.jsonl"


def config_from_args(args: argparse.Namespace, host: str, port: int,
                     coalesce_writes: bool = False) -> ServerConfig:
    """The server config the options ask for (raises RuleConfigError/ServerError)."""
    from daihinmin.rules.ruleset import ruleset_from
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.errors import ServerConfigError
    from daihinmin.server.resume import config_for_resume

    faults = {"profile_timeout": args.profile_time, "move_timeout": args.move_time,
              "exchange_timeout": args.exchange_time, "time_bank": args.time_bank,
              "send_timeout": args.send_time, "fault_limit": args.fault_limit,
              "illegal_counts": args.illegal_counts, "on_fault": args.on_fault,
              "fallback": args.fallback, "durable": not args.no_fsync}
    if args.resume is not None:
        given = [flag for flag, value in (("--games", args.games), ("--seed", args.seed),
                                          ("--rules", args.rules), ("--rule", args.rule),
                                          ("--log", args.log), ("--no-log", args.no_log))
                 if value]
        if given:
            raise ServerConfigError(f"--resume takes the match from its log; drop "
                                    f"{', '.join(given)}")
        return config_for_resume(args.resume, ServerConfig(
            host=host, port=port, coalesce_writes=coalesce_writes, **faults))
    rules = ruleset_from(args.rules or "uecda", args.rule)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    log_path = None if args.no_log else (args.log or default_log_path(seed))
    games = args.games if args.games is not None else DEFAULT_GAMES
    return ServerConfig(rules=rules, games=games, seed=seed, host=host, port=port,
                        log_path=log_path, coalesce_writes=coalesce_writes, **faults).validate()


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")


def report_errors(exc: BaseException, prog: str) -> int:
    """Print each error of a failed match: exit code 1, 2 for a match that cannot start
    (e.g. a log that cannot be resumed), or 130 when interrupted (Ctrl-C)."""
    from daihinmin.server.errors import ServerConfigError, leaf_errors

    errors = leaf_errors(exc)
    if any(isinstance(err, KeyboardInterrupt) for err in errors):
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    if all(isinstance(err, ServerConfigError) for err in errors):
        for err in errors:
            print(f"{prog}: {err}", file=sys.stderr)
        return 2
    for err in errors:
        print(f"{prog}: {type(err).__name__}: {err}", file=sys.stderr)
    return 1


def standings_of(outcome: MatchOutcome, labels: list[str] | None = None) -> Standings:
    from daihinmin.server.standings import Standings

    standings = Standings(outcome.players, labels)
    for record in outcome.games:
        standings.add_game(record)
    standings.apply_reports(outcome.seats)
    return standings


def standings_json(outcome: MatchOutcome, config: ServerConfig, standings: Standings,
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"games": standings.games, "seed": config.seed, "rules": config.rules.name,
            "players": [p.to_json() for p in sorted(standings.players, key=lambda s: s.number)],
            "totals": outcome.totals, "resumed_after": outcome.resumed_after,
            "log": str(outcome.log_path) if outcome.log_path else None,
            "wall_seconds": round(outcome.wall_seconds, 3), **(extra or {})}


def print_standings(standings: Standings, outcome: MatchOutcome, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table as RichTable

    n = len(standings.players)
    table = RichTable(title=f"Standings after {standings.games} games")
    table.add_column("rank", justify="right")
    table.add_column("player")
    table.add_column("points", justify="right")
    table.add_column("mean place", justify="right")
    for place in range(n):
        table.add_column(f"{place + 1}.", justify="right")
    table.add_column("ms/move", justify="right")
    faulty = any(s.status != "OK" for s in standings.players)
    if faulty:
        table.add_column("status")
    for rank, s in enumerate(standings.ranked(), 1):
        # Names come from the players' profiles: shown as text, never as markup.
        who = f"#{s.number} {s.name}" + (f" ({s.label})" if s.label and s.label != s.name
                                         else "")
        row = [str(rank), escape(who), str(s.points), f"{s.mean_place:.2f}",
               *[str(k) for k in s.places], f"{s.mean_move_ms:.2f}"]
        if faulty:
            row.append(escape(s.status_text()))
        table.add_row(*row)
    console.print(table)
    for s in standings.players:
        if s.status != "OK" and s.detail:
            console.print(f"#{s.number}: {escape(s.detail)}", highlight=False)
    rate = standings.games / outcome.wall_seconds if outcome.wall_seconds else 0.0
    resumed = (f" (resumed after game {outcome.resumed_after})" if outcome.resumed_after
               else "")
    console.print(f"{standings.games} games in {outcome.wall_seconds:.1f} s "
                  f"({rate:.1f} games/s){resumed}" +
                  (f"; log: {escape(str(outcome.log_path))}" if outcome.log_path else ""))


def serve_report(config: ServerConfig, quiet: bool) -> MatchObserver:
    """Lines on stderr: where it listens; unless ``quiet``, players joining and each game."""
    from daihinmin.server.match_server import MatchObserver
    from daihinmin.server.matchlog import GameRecord, PlayerInfo

    def say(text: str, always: bool = False) -> None:
        if always or not quiet:
            print(text, file=sys.stderr, flush=True)

    class ServeReport(MatchObserver):
        def listening(self, host: str, port: int) -> None:
            c = config  # always shown: with --port 0 it is the only way to learn the port
            say(f"daihinmin serve: listening on {host}:{port} — {c.rules.players} players, "
                f"{c.games} games, rules {c.rules.name}, seed {c.seed}"
                + (f", resuming {c.log_path}" if c.resume else ""), always=True)

        def player_joined(self, info: PlayerInfo) -> None:
            say(f"player {info.number}: {info.name} (protocol {info.protocol})")

        def game_finished(self, record: GameRecord) -> None:
            for e in record.events:  # seats handed over: always worth a line
                say(f"game {e.game} turn {e.turn}: player {e.player} {e.status} ({e.detail})"
                    + (f"; the {e.action} stand-in plays from now on"
                       if e.action in ("fallback", "forfeit") else ""), always=True)
            order = sorted(range(len(record.places)), key=lambda p: record.places[p])
            say(f"game {record.game}: order {' '.join(map(str, order))}, "
                f"{len(record.turns)} turns, totals {record.totals}")

    return ServeReport()


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="run the match server (players connect over TCP)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (0 = any free port)")
    writes = p.add_mutually_exclusive_group()
    writes.add_argument("--coalesce", action="store_true",
                        help="one write per player per wait: the same bytes in the same order "
                             "on each connection, fewer writes (the default)")
    writes.add_argument("--exact-writes", action="store_true",
                        help="one write per message, in the reference server's order across "
                             "the sockets")
    add_match_options(p)
    p.set_defaults(func=serve_command)


def coalesces(args: argparse.Namespace) -> bool:
    """serve writes once per player per wait unless ``--exact-writes``: the same bytes in the
    same order on each connection, so a client reading exact message sizes (even one
    ``read()`` of 480 bytes per table) sees no difference, with a third of the writes."""
    return not args.exact_writes


def serve_command(args: argparse.Namespace) -> int:
    import trio
    from daihinmin.rules.ruleset import RuleConfigError
    from daihinmin.server.errors import ServerError
    from daihinmin.server.match_server import MatchServer
    from rich.console import Console

    setup_logging(args.verbose)
    try:
        config = config_from_args(args, args.host, args.port, coalesces(args))
    except (RuleConfigError, ServerError) as exc:
        print(f"daihinmin serve: {exc}", file=sys.stderr)
        return 2
    server = MatchServer(config, serve_report(config, quiet=args.json))
    try:
        outcome = trio.run(server.run)
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as exc:
        return report_errors(exc, "daihinmin serve")
    standings = standings_of(outcome)
    if args.json:
        print(json.dumps(standings_json(outcome, config, standings)))
    else:
        print_standings(standings, outcome, Console())
    return 0
