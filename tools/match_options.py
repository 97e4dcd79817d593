"""The options ``serve`` and ``match`` share: the match (rules, games, seed, log), deadlines
and the fault policy, write modes, publishing, and the server config they make.

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
import logging
import os
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.server.config import (
    EXCHANGE_TIMEOUT,
    FAULT_LIMIT,
    MOVE_TIMEOUT,
    PROFILE_TIMEOUT,
    SEND_TIMEOUT,
    TIME_BANK,
    WriteMode,
)

# Heavy imports (trio, rich, the server) happen inside the handlers: every ``daihinmin``
# process builds the whole parser, including each bot process of a match.
if TYPE_CHECKING:
    from daihinmin.launch.process import LaunchOptions
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.match_server import MatchObserver
    from daihinmin.server.resume import ResumePoint
    from daihinmin.watch.publish import TablePublisher


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
    p.add_argument("--overwrite", action="store_true",
                   help="replace an existing --log file (without it an existing file is "
                        "refused, exit code 5)")
    p.add_argument("--allow-stand-ins", action="store_true",
                   help="exit 0 even if a stand-in played for a player (default: exit 3)")
    p.add_argument("--resume", type=Path, default=None, metavar="LOG",
                   help="continue the match of LOG from its last finished game (rules, seed "
                        "and games come from the log; the games are appended to it)")
    p.add_argument("--no-fsync", action="store_true",
                   help="do not fsync the log after each game (faster, less safe)")
    p.add_argument("--json", action="store_true", help="print one JSON object at the end")
    p.add_argument("-v", "--verbose", action="store_true", help="log every connection")
    p.add_argument("--publish", default=None, metavar="URL",
                   help="show the table live in a running `daihinmin web` at URL "
                        "with the token it printed (http://127.0.0.1:8080/?token=T); the "
                        "match never waits for it")
    p.add_argument("--publish-hands", action="store_true",
                   help="with --publish: let the spectators see every hand")
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
    p.set_defaults(option_defaults={d: p.get_default(d) for d in POLICY_FLAGS.values()})


def default_log_path(seed: int) -> Path:
    """``logs/match-<date>-<time>.<microseconds>-<seed>-<pid>.jsonl``: two matches started
    at the same moment get different files (and the log is created exclusively anyway)."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S.%f")
    return LOG_FOLDER / f"match-{stamp}-{seed}-{os.getpid()}.jsonl"


# The deadline and fault options, by the key the log's policy records them under.
POLICY_FLAGS = {"profile_timeout": "profile_time", "move_timeout": "move_time",
                "exchange_timeout": "exchange_time", "time_bank": "time_bank",
                "send_timeout": "send_time", "fault_limit": "fault_limit",
                "illegal_counts": "illegal_counts", "on_fault": "on_fault",
                "fallback": "fallback"}


def resumed_faults(args: argparse.Namespace, faults: dict[str, Any], policy: dict[str, Any]
                   ) -> dict[str, Any]:
    """The deadlines and fault policy of the logged match (``policy``, the one logged last):
    an option left at its default takes the log's value; one given with another value than
    the log's is refused."""
    from daihinmin.server.errors import ServerConfigError

    defaults = args.option_defaults
    changed = []
    out = dict(faults)
    for key, dest in POLICY_FLAGS.items():
        if key not in policy:
            continue
        logged, given = policy[key], getattr(args, dest)
        if given == defaults[dest]:
            out[key] = type(given)(logged)
        elif given != logged:
            changed.append(f"--{dest.replace('_', '-')} {given} (the log has {logged})")
    if changed:
        raise ServerConfigError("--resume goes on with the logged match's deadlines and "
                                "fault policy; drop " + ", ".join(changed))
    return out


def refuse_resume_flags(args: argparse.Namespace) -> None:
    """``--resume`` takes the match from its log: options that would change it are refused."""
    from daihinmin.server.errors import ServerConfigError

    given = [flag for flag, value in (("--games", args.games), ("--seed", args.seed),
                                      ("--rules", args.rules), ("--rule", args.rule),
                                      ("--log", args.log), ("--no-log", args.no_log),
                                      ("--overwrite", args.overwrite))
             if value]
    if given:
        raise ServerConfigError(f"--resume takes the match from its log; drop "
                                f"{', '.join(given)}")


def config_from_args(args: argparse.Namespace, host: str, port: int,
                     write_mode: WriteMode = WriteMode.EXACT,
                     lineup: tuple[tuple[tuple[str, str], ...], ...] = (),
                     point: ResumePoint | None = None) -> ServerConfig:
    """The server config the options ask for (raises RuleConfigError/ServerError); with
    ``--resume``, ``point`` is the log as already read (else it is read here, once)."""
    from daihinmin.records.outfile import check_output_path
    from daihinmin.rules.ruleset import ruleset_from
    from daihinmin.server.config import ServerConfig
    from daihinmin.server.resume import config_for_resume, load_resume

    faults = {"profile_timeout": args.profile_time, "move_timeout": args.move_time,
              "exchange_timeout": args.exchange_time, "time_bank": args.time_bank,
              "send_timeout": args.send_time, "fault_limit": args.fault_limit,
              "illegal_counts": args.illegal_counts, "on_fault": args.on_fault,
              "fallback": args.fallback, "durable": not args.no_fsync}
    if args.resume is not None:
        refuse_resume_flags(args)
        point = point or load_resume(args.resume)  # a bad log: exit 4
        config = config_for_resume(args.resume, ServerConfig(
            host=host, port=port, write_mode=write_mode, lineup=lineup,
            **resumed_faults(args, faults, point.policy)), point)
        check_output_path(args.resume, what="match log", existing=True)  # then: writable?
        return config
    rules = ruleset_from(args.rules or "uecda", args.rule)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    log_path = None if args.no_log else (args.log or default_log_path(seed))
    if log_path is not None:  # refused now, before any player is started or seated
        check_output_path(log_path, what="match log", overwrite=args.overwrite,
                          make_folder=args.log is None)
    games = args.games if args.games is not None else DEFAULT_GAMES
    return ServerConfig(rules=rules, games=games, seed=seed, host=host, port=port,
                        log_path=log_path, write_mode=write_mode,
                        overwrite_log=args.overwrite, make_log_folder=args.log is None,
                        lineup=lineup, **faults).validate()


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")


def add_write_mode_options(p: argparse.ArgumentParser, help_text: str
                           ) -> argparse._MutuallyExclusiveGroup:
    """``--write-mode`` and its shorthand ``--exact-writes`` (one excludes the other)."""
    writes = p.add_mutually_exclusive_group()
    writes.add_argument("--write-mode", choices=list(WriteMode), default=None, help=help_text)
    writes.add_argument("--exact-writes", action="store_true",
                        help="the same as --write-mode exact")
    return writes


def publisher_for(args: argparse.Namespace, config: ServerConfig, source: str,
                  inner: MatchObserver | None = None) -> TablePublisher | None:
    """The ``--publish`` observer, or None (a bad URL is a usage error: ValueError)."""
    if args.publish is None:
        if args.publish_hands:
            raise ValueError("--publish-hands needs --publish URL")
        return None
    from daihinmin.watch.publish import TablePublisher

    return TablePublisher(args.publish, config.rules, config.games, source,
                          args.publish_hands, inner)


def add_launch_options(p: argparse.ArgumentParser) -> None:
    """``--sandbox`` and ``--limit``: how the platform runs the player processes."""
    g = p.add_argument_group("player processes (docs/SANDBOX.md)")
    g.add_argument("--sandbox", choices=["none", "bwrap"], default="none",
                   help="run each player in a bubblewrap sandbox: read-only system, its own "
                        "folder read-only, a private scratch folder, no network but its "
                        "table's server (default none: limits only)")
    g.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="a limit per player process, 0 = none (repeatable, or "
                        "comma-separated): cpu=3600 (s), memory=2048 (MiB), processes=64, "
                        "open_files=1024, file_size=64 (MiB), wall=0 (s)")


def launch_options_from(args: argparse.Namespace) -> LaunchOptions:
    """The players' limits and sandbox (LimitsError, SandboxUnavailableError)."""
    from daihinmin.launch.limits import Limits
    from daihinmin.launch.process import LaunchOptions

    limits = Limits()
    for text in args.limit:
        limits = Limits.parse(text, limits)
    return LaunchOptions(limits, args.sandbox).check()
