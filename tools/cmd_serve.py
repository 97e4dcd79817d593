"""``daihinmin serve``: the UECda match server on TCP (players connect, numbered in order).

The match, deadline and fault options are :mod:`daihinmin.tools.match_options`; the report
at the end is :mod:`daihinmin.tools.match_outcome` (both shared with ``match``).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from daihinmin.server.config import (
    DEFAULT_PORT,
    WriteMode,
)

# Heavy imports (trio, rich, the server) happen inside the handlers: every ``daihinmin``
# process builds the whole parser, including each bot process of a match.
if TYPE_CHECKING:
    from daihinmin.records.standings import Standings
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.match_server import MatchObserver

from .match_options import (
    add_match_options,
    add_write_mode_options,
    config_from_args,
    publisher_for,
    setup_logging,
)
from .match_outcome import (
    interrupted,
    report_errors,
    report_interrupted,
    report_outcome,
    start_standings,
)


def serve_report(config: ServerConfig, quiet: bool,
                 standings: Standings | None = None) -> MatchObserver:
    """Lines on stderr: where it listens; unless ``quiet``, players joining and each game."""
    from daihinmin.driver.record import GameRecord
    from daihinmin.records.matchlog import PlayerInfo
    from daihinmin.server.match_server import MatchObserver

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
            if standings is not None:
                standings.name_players([info])
            person = ", a person: no move deadline" if info.person else ""
            say(f"player {info.number}: {info.name} (protocol {info.protocol}{person})")

        def game_finished(self, record: GameRecord) -> None:
            if standings is not None:
                standings.add_game(record)
            for e in record.events:  # seats handed over: always worth a line
                say(f"game {e.game} turn {e.turn}: player {e.player} {e.status} ({e.detail})"
                    + (f"; the {e.action} stand-in plays from now on"
                       if e.action in ("fallback", "forfeit") else ""), always=True)
            order = sorted(range(len(record.places)), key=lambda p: record.places[p])
            say(f"game {record.game}: order {' '.join(map(str, order))}, "
                f"{len(record.turns)} turns, totals {record.totals}")

    return ServeReport()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the match server (players connect over TCP)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (0 = any free port)")
    p.add_argument("--no-human-seats", action="store_true",
                   help="give seats whose profile says a person plays them (daihinmin bot "
                        "human) the usual deadlines too (default: no move deadline)")
    writes = add_write_mode_options(
        p, "when the messages are written; every mode sends the same bytes in the same "
           "order on each connection: exact (one write per message, in the reference "
           "server's order across the sockets), coalesced (one write per player per wait; "
           "the default), deferred (a player's messages wait until the server waits for "
           "that player, the game ends or its connection closes: the fewest writes and "
           "wake-ups, for headless matches; a player whose profile says a person plays "
           "still gets every table at once)")
    writes.add_argument("--coalesce", action="store_true",
                        help="the same as --write-mode coalesced")
    add_match_options(p)
    p.set_defaults(func=serve_command)


def serve_write_mode(args: argparse.Namespace) -> WriteMode:
    """serve writes once per player per wait unless told otherwise: the same bytes in the
    same order on each connection, so a client reading exact message sizes (even one
    ``read()`` of 480 bytes per table) sees no difference, with a third of the writes.
    Deferred writes are asked for (they change when a client sees the other players'
    tables, which a client showing the table live to a person may not expect)."""
    if args.write_mode is not None:
        return WriteMode(args.write_mode)
    return WriteMode.EXACT if args.exact_writes else WriteMode.COALESCED


def serve_command(args: argparse.Namespace) -> int:
    import trio
    from daihinmin.records.errors import MatchLogError, RecordsError
    from daihinmin.records.exit_codes import BAD_INPUT, OUTPUT_REFUSED, USAGE
    from daihinmin.records.outfile import OutputRefusedError
    from daihinmin.rules.ruleset import RuleConfigError
    from daihinmin.server.errors import ResumeLogError, ServerError
    from daihinmin.server.match_server import MatchServer

    setup_logging(args.verbose)
    try:
        config = config_from_args(args, args.host, args.port, serve_write_mode(args))
        if args.no_human_seats:
            config = replace(config, human_seats=False)
        standings = start_standings(config)
        observer = serve_report(config, quiet=args.json, standings=standings)
        publisher = publisher_for(args, config, "serve", observer)
    except OutputRefusedError as exc:
        print(f"daihinmin serve: {exc}", file=sys.stderr)
        return OUTPUT_REFUSED
    except (RuleConfigError, ServerError, RecordsError, ValueError) as exc:
        print(f"daihinmin serve: {exc}", file=sys.stderr)
        return BAD_INPUT if isinstance(exc, (ResumeLogError, MatchLogError)) else USAGE
    server = MatchServer(config, publisher or observer)
    started = time.perf_counter()
    try:
        outcome = trio.run(server.run if publisher is None
                           else lambda: publisher.publishing(server.run()))
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as exc:
        if interrupted(exc):
            report_interrupted(standings, config, "daihinmin serve",
                               time.perf_counter() - started)
        return report_errors(exc, "daihinmin serve")
    return report_outcome(args, config, standings, outcome, "daihinmin serve")
