"""``daihinmin match``: a headless match, every player its own process over loopback TCP.

Bundled bots are named (``default``, ``random``, ``greedy``, ...) and run as
``daihinmin bot KIND``; any other program joins with ``--cmd 'COMMAND {host} {port}'``.
Player numbers follow the order given: BOT arguments first, then the ``--cmd`` programs.
The deadline and fault options are those of ``daihinmin serve``: a player that crashes,
hangs or misbehaves is handed to the stand-in and the match finishes; the standings show
each seat's status.  ``--resume LOG`` (with the same players) continues a stopped match.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from daihinmin.server.config import CONNECT_TIMEOUT_SECONDS

from .cmd_serve import (
    add_match_options,
    config_from_args,
    print_standings,
    report_errors,
    setup_logging,
    standings_json,
    standings_of,
)

if TYPE_CHECKING:
    from daihinmin.rules.ruleset import RuleSet
    from daihinmin.server.bots import PlayerSpec

DEFAULT_TABLE = ("default", "default", "default", "random", "greedy")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("match", help="headless match of bot processes over loopback TCP")
    p.add_argument("bots", nargs="*", metavar="BOT",
                   help=f"bundled bots by name (default table: {' '.join(DEFAULT_TABLE)})")
    p.add_argument("--cmd", action="append", default=[], metavar="COMMAND",
                   help="an external player program; {host} and {port} are filled in "
                        "(repeatable)")
    p.add_argument("--exact-writes", action="store_true",
                   help="one write per message, as the reference server (the default when "
                        "any --cmd player takes part, since external clients may over-read; "
                        "otherwise each player's messages are gathered into one write per "
                        "wait: the same bytes, far fewer wake-ups)")
    p.add_argument("--connect-timeout", type=float, default=CONNECT_TIMEOUT_SECONDS,
                   help="seconds each player may take to start and be seated; a player that "
                        "is not seated by then is stopped and a stand-in takes its seat")
    add_match_options(p)
    p.set_defaults(func=match_command)


def player_specs(bots: list[str], commands: list[str], players: int,
                 rules: RuleSet | None = None, seed: int | None = None) -> list[PlayerSpec]:
    """BOT arguments, then the commands; missing seats come from the default table (repeated
    for six players).  Bundled bots get ``rules`` as options, so they list legal moves with
    the match's rules and speak protocol 20260 when those need it, and a seed derived from
    the match seed, so the same match seed replays the same match."""
    from daihinmin.protocol.extension_rules import rule_args
    from daihinmin.server.bots import PlayerSpec

    extra = tuple(rule_args(rules)) if rules is not None else ()

    def bundled(kind: str) -> PlayerSpec:
        spec = PlayerSpec.bundled(kind)
        bot_seed = () if seed is None else ("--seed", str(seed * 1000 + len(specs)))
        return PlayerSpec(spec.label, spec.argv + extra + bot_seed)

    specs: list[PlayerSpec] = []
    for kind in bots:
        specs.append(bundled(kind))
    specs += [PlayerSpec.command(c) for c in commands]
    if len(specs) > players:
        raise ValueError(f"{len(specs)} players given; the rules seat {players}")
    if not bots:
        for i in range(players - len(specs)):
            specs.append(bundled(DEFAULT_TABLE[i % len(DEFAULT_TABLE)]))
    if len(specs) != players:
        raise ValueError(f"{len(specs)} players given; the rules seat {players}")
    return specs


def check_bot_names(bots: list[str]) -> None:
    """Fail early on an unknown bundled bot (when the player registry is available)."""
    try:
        from daihinmin.players.registry import names
    except ImportError:
        return
    known = names()
    unknown = [b for b in bots if b not in known and ":" not in b]
    if unknown:
        raise ValueError(f"unknown bot {', '.join(unknown)}; known: {', '.join(known)}")


def match_command(args: argparse.Namespace) -> int:
    import trio
    from daihinmin.rules.ruleset import RuleConfigError
    from daihinmin.server.errors import ServerError
    from daihinmin.server.matchlog import GameRecord
    from daihinmin.server.runner import run_headless_match
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    setup_logging(args.verbose)
    try:
        exact = args.exact_writes or bool(args.cmd)
        config = config_from_args(args, "127.0.0.1", 0, coalesce_writes=not exact)
        check_bot_names(args.bots)
        specs = player_specs(args.bots, args.cmd, config.rules.players, config.rules,
                             config.seed)
    except (RuleConfigError, ServerError, ValueError) as exc:
        print(f"daihinmin match: {exc}", file=sys.stderr)
        return 2
    progress = Progress(TextColumn("[bold]match[/]"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("games"), TimeRemainingColumn(),
                        console=Console(stderr=True), disable=args.json, transient=True,
                        refresh_per_second=2)  # each redraw costs the server's process CPU

    def on_game(record: GameRecord) -> None:
        progress.advance(task)

    done = 0
    if config.resume and config.log_path is not None:
        from daihinmin.server.matchlog import read_match_log

        done = len(read_match_log(config.log_path).games)
    task = progress.add_task("match", total=config.games, completed=done)
    started = time.perf_counter()
    try:
        with progress:
            outcome = trio.run(lambda: run_headless_match(
                config, specs, on_game=on_game, connect_timeout=args.connect_timeout))
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as exc:
        return report_errors(exc, "daihinmin match")
    labels = [s.label for s in specs]
    standings = standings_of(outcome, labels)
    if args.json:
        wall = round(time.perf_counter() - started, 3)  # with starting and stopping players
        print(json.dumps(standings_json(outcome, config, standings, {
            "wall_seconds": wall, "match_seconds": round(outcome.wall_seconds, 3)})))
    else:
        print_standings(standings, outcome, Console())
    return 0
