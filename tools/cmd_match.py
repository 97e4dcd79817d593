"""``daihinmin match``: a headless match, every player its own process over loopback TCP.

Bundled bots are named (``default``, ``random``, ``greedy``, ...) and run as
``daihinmin bot KIND``; any other program joins with ``--cmd 'COMMAND {host} {port}'``, and
a submission folder (``daihinmin-bot.toml``, docs/SANDBOX.md) with ``--submission DIR``.
Player numbers follow the order given: BOT arguments first, then the ``--cmd`` programs,
then the submissions.  Every player process runs under the ``--limit`` limits, and with
``--sandbox bwrap`` in a sandbox; a player stopped by a limit is a fault with its reason.
The deadline and fault options are those of ``daihinmin serve``: a player that crashes,
hangs or misbehaves is handed to the stand-in and the match finishes; the standings show
each seat's status, and the exit code is 3 when a stand-in played (docs/RESULTS.md).
``--resume LOG`` continues a stopped match with the lineup of its log.
``--jobs N`` plays N tables at once, one result (:mod:`daihinmin.tools.match_tables`).
``--engine numba`` plays bundled bots on the Numba simulator (:mod:`.match_numba`).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from daihinmin.players.prepare import prepare_kinds
from daihinmin.runs.backend import add_backend_options, backend_from
from daihinmin.server.config import CONNECT_TIMEOUT_SECONDS, WriteMode

from .match_options import (
    add_launch_options,
    add_match_options,
    add_write_mode_options,
    config_from_args,
    launch_options_from,
    publisher_for,
    refuse_resume_flags,
    setup_logging,
)
from .match_outcome import (
    interrupted,
    report_errors,
    report_interrupted,
    report_outcome,
    start_standings,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from daihinmin.launch.process import LaunchOptions, PlayerSpec
    from daihinmin.records.matchlog import MatchHeader
    from daihinmin.records.standings import Standings
    from daihinmin.rules.ruleset import RuleSet
    from daihinmin.runs.tables import TableTask
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.match_server import MatchOutcome
    from daihinmin.server.resume import ResumePoint
    from daihinmin.watch.publish import TablePublisher

DEFAULT_TABLE = ("default", "default", "default", "random", "greedy")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("match", help="headless match of bot processes over loopback TCP")
    p.add_argument("bots", nargs="*", metavar="BOT",
                   help=f"bundled bots by name (default table: {' '.join(DEFAULT_TABLE)})")
    p.add_argument("--cmd", action="append", default=[], metavar="COMMAND",
                   help="an external player program; {host} and {port} are filled in "
                        "(repeatable)")
    p.add_argument("--submission", action="append", default=[], metavar="DIR",
                   help="a submission folder with a daihinmin-bot.toml manifest; its build "
                        "command runs first (repeatable)")
    add_write_mode_options(
        p, "when the messages are written (the same bytes in the same order on each "
           "connection): default deferred (a player's messages wait until the server waits "
           "for that player or the game ends: the fewest writes and wake-ups), or exact "
           "when any --cmd player takes part, since external clients may over-read; see "
           "`daihinmin serve --help`")
    p.add_argument("--connect-timeout", type=float, default=CONNECT_TIMEOUT_SECONDS,
                   help="seconds each player may take to start and be seated; a player that "
                        "is not seated by then is stopped and a stand-in takes its seat")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="tables at once (default 1), each its own server process with its "
                        "own player processes; the games are split between them and each "
                        "table is a chain of its own (ranks carry into its next game's "
                        "exchange); table 1 plays --seed, table k a seed derived from it; "
                        "one log per table, LOG.t<k>.jsonl; the standings add up every "
                        "table.  Not with --resume (resume each table's log) or --publish")
    p.add_argument("--engine", choices=["tcp", "numba"], default="tcp",
                   help="tcp (default): every player a process over loopback TCP; numba: "
                        "bundled bots with an exact Numba model (default) on the Numba "
                        "simulator, the same games at its speed, no log "
                        "(docs/ENVIRONMENTS.md)")
    add_backend_options(p)
    add_match_options(p)
    add_launch_options(p)
    p.set_defaults(func=match_command)


Lineup = tuple[tuple[tuple[str, str], ...], ...]  # per player: (("bot", kind),), cmd, folder


def lineup_of(bots: list[str], commands: list[str], players: int,
              submissions: list[str] | None = None) -> Lineup:
    """BOT arguments, then the commands, then the submission folders; missing seats come
    from the default table (repeated for six players) when no BOT is named."""
    lineup = [(("bot", kind),) for kind in bots] + [(("cmd", c),) for c in commands]
    lineup += [(("submission", str(Path(d).resolve())),) for d in submissions or []]
    if len(lineup) > players:
        raise ValueError(f"{len(lineup)} players given; the rules seat {players}")
    if not bots:
        lineup += [(("bot", DEFAULT_TABLE[i % len(DEFAULT_TABLE)]),)
                   for i in range(players - len(lineup))]
    if len(lineup) != players:
        raise ValueError(f"{len(lineup)} players given; the rules seat {players}")
    return tuple(lineup)


def describe(entry: tuple[tuple[str, str], ...]) -> str:
    kind, value = entry[0]
    return value if kind == "bot" else f"--{kind} {value!r}"


def resume_lineup(log_path: Path, header: MatchHeader, bots: list[str], commands: list[str],
                  players: int, submissions: list[str] | None = None) -> Lineup:
    """The lineup of the logged match; one given on the command line must be the same.
    A log never makes a program run: with a ``--cmd`` or ``--submission`` player (or a
    ``module:factory`` bot, whose import runs it) logged, the players must be named again."""
    from daihinmin.server.errors import ResumeLogError, ServerConfigError

    logged = header.lineup
    named = bool(bots or commands or submissions)
    if logged is None:
        if not named:
            raise ServerConfigError(f"{log_path} does not say how its players were started "
                                    "(written by serve, or by an older version); name them")
        return lineup_of(bots, commands, players, submissions)
    lineup: Lineup = tuple(tuple(sorted(entry.items())) for entry in logged)
    try:
        check_bot_names([value for entry in lineup for kind, value in entry if kind == "bot"])
    except ValueError as exc:
        raise ResumeLogError(f"{log_path}: the logged lineup names an {exc}") from None
    if not named:
        programs = [describe(e) for e in lineup if e[0][0] != "bot" or ":" in e[0][1]]
        if programs:
            raise ServerConfigError(f"{log_path} names programs ({', '.join(programs)}); a "
                                    "log is never a reason to run one: name the players "
                                    "again to resume")
        return lineup
    given = lineup_of(bots, commands, players, submissions)
    diffs = [f"player {i}: the log has {describe(a)}, the command line {describe(b)}"
             for i, (a, b) in enumerate(zip(lineup, given, strict=True)) if a != b]
    if diffs:
        raise ServerConfigError("--resume goes on with the logged lineup; " + "; ".join(diffs)
                                + " (give no players to use the log's)")
    return lineup


def player_specs(lineup: Lineup, rules: RuleSet | None = None, seed: int | None = None
                 ) -> list[PlayerSpec]:
    """One spec per player.  Bundled bots get ``rules`` as options, so they list legal moves
    with the match's rules and speak protocol 20260 when those need it, and a seed derived
    from the match seed, so the same match seed replays the same match."""
    from daihinmin.launch.process import PlayerSpec
    from daihinmin.launch.submission import load_submission
    from daihinmin.rules.extension_rules import rule_args

    extra = tuple(rule_args(rules)) if rules is not None else ()
    specs: list[PlayerSpec] = []
    for entry in lineup:
        kind, value = entry[0]
        if kind == "cmd":
            specs.append(PlayerSpec.command(value))
            continue
        if kind == "submission":  # checked (and built) before: see prepare_submissions
            specs.append(load_submission(value).spec())
            continue
        spec = PlayerSpec.bundled(value)
        bot_seed = () if seed is None else ("--seed", str(seed * 1000 + len(specs)))
        specs.append(PlayerSpec(spec.label, spec.argv + extra + bot_seed))
    return specs
def match_write_mode(args: argparse.Namespace, lineup: Lineup) -> WriteMode:
    """Deferred for bundled bots (their client reads whatever has come and splits the
    tables), exact once an external program plays, unless the options say otherwise."""
    if args.write_mode is not None:
        return WriteMode(args.write_mode)
    if args.exact_writes or any(entry[0][0] != "bot" for entry in lineup):
        return WriteMode.EXACT
    return WriteMode.DEFERRED


def check_bot_names(bots: list[str]) -> None:
    """Fail early on an unknown bundled bot (when the player registry is available)."""
    try:
        from daihinmin.players.registry import names
    except ImportError:
        return
    known = names()
    unknown = [b for b in bots if b not in known and ":" not in b]
    if unknown:
        shown = ", ".join(repr(b)[:40] for b in unknown)
        raise ValueError(f"unknown bot {shown}; known: {', '.join(known)}")


@dataclass
class MatchPlan:
    """A match checked and ready to play: everything read and refused before a player
    starts."""

    lineup: Lineup
    config: ServerConfig
    specs: list[PlayerSpec]
    standings: Standings
    publisher: TablePublisher | None
    tables: list[TableTask]  # --jobs/--backend ray: the tables; else none (one match)


def match_lineup(args: argparse.Namespace) -> tuple[Lineup, ResumePoint | None]:
    """Who plays, and with ``--resume LOG`` where the logged match stands (the one reading
    of the log)."""
    from daihinmin.rules.ruleset import ruleset_from

    if args.resume is None:
        players = ruleset_from(args.rules or "uecda", args.rule).players
        return lineup_of(args.bots, args.cmd, players, args.submission), None
    from daihinmin.server.resume import load_resume

    refuse_resume_flags(args)
    point = load_resume(args.resume)  # the one reading of the log
    players = point.header.ruleset().players
    return resume_lineup(args.resume, point.header, args.bots, args.cmd, players,
                         args.submission), point


def plan_match(args: argparse.Namespace, tables_run: bool) -> MatchPlan:
    """Check the bots, the backend and the flags, read the lineup, build the submissions,
    and make the server's config, the player specs and the tables.  Refusals are raised
    (OutputRefusedError, RuleConfigError, ServerError, RecordsError, ValueError)."""
    from daihinmin.launch.submission import prepare_submissions
    from daihinmin.tools.match_tables import plan_tables, refuse_tables_flags

    check_bot_names(args.bots)
    backend_from(args)
    if tables_run:
        refuse_tables_flags(args)
    lineup, point = match_lineup(args)
    prepare_submissions(entry[0][1] for entry in lineup if entry[0][0] == "submission")
    tables_args = args if not tables_run else argparse.Namespace(**{**vars(args),
                                                                     "no_log": True})
    config = config_from_args(tables_args, "127.0.0.1", 0,  # table logs: plan_tables
                              match_write_mode(args, lineup), lineup=lineup, point=point)
    specs = player_specs(lineup, config.rules, config.seed)
    standings = start_standings(config, [s.label for s in specs])
    publisher = publisher_for(args, config, "match")
    tables = [] if not tables_run else plan_tables(
        args, config, lambda c: player_specs(lineup, c.rules, c.seed))
    return MatchPlan(lineup, config, specs, standings, publisher, tables)


def plan_or_code(args: argparse.Namespace, tables_run: bool) -> MatchPlan | int:
    """:func:`plan_match`, or the exit code of the one line that says why not."""
    from daihinmin.launch.submission import SubmissionError
    from daihinmin.records.errors import MatchLogError, RecordsError
    from daihinmin.records.exit_codes import BAD_INPUT, OUTPUT_REFUSED, USAGE
    from daihinmin.records.outfile import OutputRefusedError
    from daihinmin.rules.ruleset import RuleConfigError
    from daihinmin.server.errors import ResumeLogError, ServerError

    try:
        return plan_match(args, tables_run)
    except OutputRefusedError as exc:
        print(f"daihinmin match: {exc}", file=sys.stderr)
        return OUTPUT_REFUSED
    except (RuleConfigError, ServerError, RecordsError, ValueError) as exc:
        from daihinmin.local.terminal_text import terminal_safe

        print(terminal_safe(f"daihinmin match: {exc}"), file=sys.stderr)
        bad_input = (ResumeLogError, MatchLogError, SubmissionError)
        return BAD_INPUT if isinstance(exc, bad_input) else USAGE


def match_command(args: argparse.Namespace) -> int:
    if args.engine == "numba":
        from .match_numba import numba_match_command

        return numba_match_command(args, DEFAULT_TABLE, check_bot_names)
    from daihinmin.launch.limits import LimitsError
    from daihinmin.launch.sandbox import SandboxUnavailableError
    from daihinmin.records.exit_codes import INTERRUPTED, USAGE
    from daihinmin.tools.match_tables import play_tables

    setup_logging(args.verbose)
    jobs = args.jobs
    tables_run = jobs != 1 or args.backend == "ray"  # --backend ray: each table a Ray task
    try:
        launch = launch_options_from(args)
    except (LimitsError, SandboxUnavailableError, ValueError) as exc:
        print(f"daihinmin match: {exc}", file=sys.stderr)
        return USAGE
    plan = plan_or_code(args, tables_run)
    if isinstance(plan, int):
        return plan
    try:
        prepare_kinds((entry[0][1] for entry in plan.lineup if entry[0][0] == "bot"),
                      "daihinmin match")
    except KeyboardInterrupt:
        print("daihinmin match: interrupted while preparing the bots; nothing was played",
              file=sys.stderr)
        return INTERRUPTED
    if plan.tables:
        return play_tables(args, plan.config, plan.tables, [s.label for s in plan.specs],
                           launch)
    return play_one_match(args, plan, launch)


def play_one_match(args: argparse.Namespace, plan: MatchPlan,
                   launch: LaunchOptions | None) -> int:
    """Play the match with a progress bar; print the result (or the errors): the exit code."""
    import trio
    from daihinmin.driver.record import GameRecord
    from daihinmin.server.runner import run_headless_match
    from daihinmin.tools.match_progress import match_progress

    config, standings, publisher = plan.config, plan.standings, plan.publisher
    progress = match_progress("", quiet=args.json)

    def on_game(record: GameRecord) -> None:
        standings.add_game(record)
        progress.advance(task)

    task = progress.add_task("match", total=config.games, completed=standings.games)
    started = time.perf_counter()
    try:
        with progress:
            def match() -> Awaitable[MatchOutcome]:
                return run_headless_match(config, plan.specs, on_game=on_game,
                                          connect_timeout=args.connect_timeout,
                                          watcher=publisher, launch=launch)

            outcome = trio.run(match if publisher is None
                               else lambda: publisher.publishing(match()))
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as exc:
        if interrupted(exc):
            report_interrupted(standings, config, "daihinmin match",
                               time.perf_counter() - started)
        return report_errors(exc, "daihinmin match")
    wall = round(time.perf_counter() - started, 3)  # with starting and stopping players
    return report_outcome(args, config, standings, outcome, "daihinmin match",
                          {"wall_seconds": wall, "match_seconds": round(outcome.wall_seconds,
                                                                        3)})
