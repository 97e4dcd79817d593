"""``daihinmin match --jobs N``: N tables at once, each its own server process; one result.

A UECda match chains its games (the ranks of one game decide the next game's exchange), so
the games are split into N matches of their own (:func:`split_count`, larger shares first),
one chain per table.  Table 1 plays the match seed, table k > 1 :func:`table_seed`; the same
command replays the same games.  Each table runs in a worker of a run
(:mod:`daihinmin.runs.tables`: its own process, as Trio is single-threaded and the server is
CPU bound) with its own player processes, and writes its own log, :func:`table_log_path` of
``--log``.

The standings add up every table's games; a seat's status adds its faults over the tables,
takes the first hand-over to a stand-in, and names the tables where something happened.
"""

from __future__ import annotations

import argparse
import hashlib
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from daihinmin.launch.process import LaunchOptions, PlayerSpec
from daihinmin.local.parallel import split_count
from daihinmin.runs.tables import (
    TablesRun,
    TablesSetup,
    TableTask,
    merge_reports,
    run_pool,
    signals_raise,
    stop_tables,
)
from daihinmin.server.config import ServerConfig
from daihinmin.server.errors import MatchInterruptedError, ServerConfigError
from daihinmin.server.match_server import MatchOutcome

from .match_options import default_log_path
from .match_outcome import (
    finish_standings,
    report_errors,
    report_outcome,
    result_code,
    start_standings,
)

if TYPE_CHECKING:
    from collections.abc import Callable


def table_seed(seed: int, table: int) -> int:
    """Table 1 plays the match seed; table k > 1 the first 31 bits of
    ``sha256("daihinmin:<seed>:table<k>")`` (so tables of nearby seeds do not overlap).

    >>> table_seed(5, 1), table_seed(5, 2), table_seed(5, 3), table_seed(6, 2) == table_seed(5, 2)
    (5, 1147578991, 266628870, False)
    """
    if table == 1:
        return seed
    digest = hashlib.sha256(f"daihinmin:{seed}:table{table}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def table_log_path(base: Path, table: int) -> Path:
    """Table k's log: ``.t<k>`` before the suffix of ``--log``.

    >>> str(table_log_path(Path("logs/m.jsonl"), 2)), str(table_log_path(Path("m"), 1))
    ('logs/m.t2.jsonl', 'm.t1')
    """
    return base.with_name(f"{base.stem}.t{table}{base.suffix}")


def refuse_tables_flags(args: argparse.Namespace) -> None:
    """What ``--jobs N`` (N > 1) cannot do, refused before anything starts (exit code 2)."""
    if args.jobs < 1:
        raise ServerConfigError(f"--jobs is at least 1, got {args.jobs}")
    if args.resume is not None:
        raise ServerConfigError("--resume continues one table's log: each table of a --jobs "
                                "match wrote its own; resume each without --jobs")
    if args.publish is not None:
        raise ServerConfigError("--publish shows one table; drop --jobs to publish the match")


def plan_tables(args: argparse.Namespace, config: ServerConfig,
                specs_for: Callable[[ServerConfig], list[PlayerSpec]]) -> list[TableTask]:
    """The tables (at most one per game); each log path is checked now, before any player
    starts (the ``outfile`` rules: an existing one is refused without ``--overwrite``)."""
    from daihinmin.records.outfile import check_output_path

    base = None if args.no_log else (args.log or default_log_path(config.seed))
    tasks = []
    for table, games in enumerate((n for n in split_count(config.games, args.jobs) if n), 1):
        log_path = None if base is None else table_log_path(base, table)
        if log_path is not None:
            check_output_path(log_path, what="match log", overwrite=args.overwrite,
                              make_folder=args.log is None)
        table_config = replace(config, games=games, seed=table_seed(config.seed, table),
                               log_path=log_path)
        tasks.append(TableTask(table, table_config, tuple(specs_for(table_config))))
    return tasks


def play_tables(args: argparse.Namespace, config: ServerConfig, tasks: list[TableTask],
                labels: list[str], launch: LaunchOptions | None = None) -> int:
    """Play the tables at once; print one result (or the errors) and return the exit code."""
    from daihinmin.records.exit_codes import FAILED, INTERRUPTED
    from daihinmin.runs.backend import Backend, open_run
    from daihinmin.runs.ray_run import RayConnectError
    from daihinmin.runs.tables import table_worker, tables_job
    from daihinmin.runs.worker import own_cpu_seconds
    from daihinmin.tools.match_progress import match_progress

    progress = match_progress(f" {len(tasks)} tables", quiet=args.json)
    bar = progress.add_task("match", total=config.games)
    run = TablesRun(tasks, start_standings(config, labels),
                    {t.table: start_standings(t.config, labels) for t in tasks},
                    on_game=lambda: progress.advance(bar))
    backend = Backend.parse(args.backend, args.address)
    try:
        pool = open_run(backend, TablesSetup(args.connect_timeout, args.verbose, launch),
                        [1] * len(tasks), None, target=table_worker, name="match",
                        job=tables_job() if backend.kind == "ray" else None,
                        in_flight=len(tasks))
    except RayConnectError as exc:
        print(f"daihinmin match: {exc}", file=sys.stderr)
        return FAILED
    started = time.perf_counter()
    try:
        with progress, signals_raise():
            pool.start(tasks)
            try:
                run_pool(pool, run)
            except (KeyboardInterrupt, MatchInterruptedError) as exc:
                signum = (signal.SIGINT if isinstance(exc, KeyboardInterrupt)
                          else signal.SIGTERM)
                stop_tables(pool, run, signum)
                raise
    except KeyboardInterrupt:
        report_tables_interrupted(run, config, time.perf_counter() - started)
        return INTERRUPTED
    except (Exception, BaseExceptionGroup) as exc:  # e.g. SIGTERM: one line, no traceback
        return report_errors(exc, "daihinmin match")
    finally:
        pool.stop()
    wall = round(time.perf_counter() - started, 3)
    if run.failures:
        for _, text in sorted(run.failures.values(), key=lambda f: f[1]):
            print(text, file=sys.stderr)
        codes = {code for code, _ in run.failures.values()}
        return codes.pop() if len(codes) == 1 else FAILED
    return report_tables(args, config, run, wall, own_cpu_seconds())


def report_tables(args: argparse.Namespace, config: ServerConfig, run: TablesRun,
                  wall: float, cpu_parent: float) -> int:
    """The combined standings (and with ``--json`` each table's) and the exit code."""
    from rich.console import Console

    from .standings_report import standings_json

    outcomes = [run.outcomes[t.table] for t in run.tasks]
    players = config.rules.players
    combined = MatchOutcome(
        players=outcomes[0].players, games_played=sum(o.games_played for o in outcomes),
        totals=[sum(o.totals[p] for o in outcomes) for p in range(players)],
        wall_seconds=max(o.wall_seconds for o in outcomes),
        seats=merge_reports([o.seats for o in outcomes], players))
    tables = []
    for task, outcome in zip(run.tasks, outcomes, strict=True):
        standings = run.per_table[task.table]
        finish_standings(standings, outcome)
        tables.append(standings_json(
            standings, task.config, log_path=task.config.log_path,
            wall_seconds=outcome.wall_seconds, resumed_after=0, totals=outcome.totals,
            extra={"table": task.table,
                   "exit_code": result_code(standings, args.allow_stand_ins)}))
    if not args.json:
        console = Console()
        for t in tables:
            console.print(f"table {t['table']}: {t['games']} games, seed {t['seed']}, "
                          f"{t['wall_seconds']:.1f} s"
                          + (f"; log: {t['log']}" if t["log"] else ""), highlight=False)
    return report_outcome(args, config, run.combined, combined, "daihinmin match",
                          {"wall_seconds": wall, "match_seconds": combined.wall_seconds,
                           "jobs": len(run.tasks),
                           "logs": [t["log"] for t in tables if t["log"]],
                           "cpu_seconds": round(cpu_parent + run.cpu_workers, 3),
                           "tables": tables})


def report_tables_interrupted(run: TablesRun, config: ServerConfig, wall: float) -> None:
    """After Ctrl-C: the standings of every table's finished games, and how each goes on."""
    from rich.console import Console

    from .standings_report import print_standings

    print_standings(run.combined, Console(stderr=True), wall_seconds=wall,
                    title=f"Standings so far: {run.combined.games} of {config.games} games "
                          f"in {len(run.tasks)} tables (interrupted)")
    logged = [t for t in run.tasks if t.config.log_path is not None]
    if not logged:
        print("daihinmin match: interrupted (no log was written, so it cannot be resumed)",
              file=sys.stderr)
    for t in logged:
        print(f"daihinmin match: interrupted; continue table {t.table} with: daihinmin match "
              f"--resume {t.config.log_path}", file=sys.stderr)
