"""``daihinmin match --jobs N``: N tables at once, each its own server process; one result.

A UECda match chains its games (the ranks of one game decide the next game's exchange), so
the games are split into N matches of their own (:func:`split_count`, larger shares first),
one chain per table.  Table 1 plays the match seed, table k > 1 :func:`table_seed`; the same
command replays the same games.  Each table runs in a worker of the tournament's pool (its
own process: Trio is single-threaded and the server is CPU bound) with its own player
processes, and writes its own log, :func:`table_log_path` of ``--log``.

The standings add up every table's games; a seat's status adds its faults over the tables,
takes the first hand-over to a stand-in, and names the tables where something happened.
Ctrl-C or SIGTERM is passed on to every table (the workers are in their own process group,
so the terminal's Ctrl-C reaches this process only), which stops its players and ends its
log with the reason; this process waits for them, then stops any worker that is left.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from daihinmin.driver.faults import SeatReport, more_serious
from daihinmin.launch.process import LaunchOptions, PlayerSpec
from daihinmin.local.parallel import split_count
from daihinmin.records.standings import Standings
from daihinmin.server.config import ServerConfig
from daihinmin.server.errors import MatchInterruptedError, ServerConfigError
from daihinmin.server.match_server import MatchOutcome

from .match_options import (
    default_log_path,
    setup_logging,
)
from .match_outcome import (
    finish_standings,
    report_errors,
    report_outcome,
    result_code,
    start_standings,
)

if TYPE_CHECKING:
    from daihinmin.driver.record import GameRecord
    from daihinmin.tournament.pool import WorkerPool

STOP_GRACE_SECONDS = 10.0  # a table stopping its players: runner.EXIT_GRACE + SIGKILL's wait


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


@dataclass(frozen=True)
class TableTask:
    """One table of the match: its own match config (games, seed, log) and players."""

    table: int  # 1, 2, ...
    config: ServerConfig
    specs: tuple[PlayerSpec, ...]


@dataclass(frozen=True)
class TablesSetup:
    """What every worker needs besides its table."""

    connect_timeout: float
    verbose: bool
    launch: LaunchOptions | None = None  # the players' limits and sandbox


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


# --- in each worker process -------------------------------------------------------------


def table_worker(worker: int, setup: TablesSetup, tasks: Any, results: Any, slots: int,
                 show_hands: bool | None = None) -> None:
    """A worker of the pool: plays the tables it takes, posting
    ``("started", table, worker)``, ``("game", table, record)``, then ``("done", table, outcome)``,
    ``("failed", table, exit_code, message)`` or ``("stopped", table)``; then ``exit``."""
    from daihinmin.tournament.worker import next_task, own_cpu_seconds

    os.setpgrp()  # the terminal's Ctrl-C goes to the parent, which passes it on
    setup_logging(setup.verbose)
    try:
        while (task := cast("TableTask | None", next_task(tasks))) is not None:
            results.put(("started", task.table, worker))
            if not play_table(task, setup, results):
                break
    except KeyboardInterrupt:  # between tables
        pass
    results.put(("exit", worker, own_cpu_seconds()))


def play_table(task: TableTask, setup: TablesSetup, results: Any) -> bool:
    """One table to its end; False when it was stopped (a signal, the parent gone)."""
    import trio
    from daihinmin.server.errors import leaf_errors
    from daihinmin.server.runner import run_headless_match
    from daihinmin.tournament.worker import POLL_SECONDS, DispatcherGoneError, dispatcher_alive

    def on_game(record: GameRecord) -> None:
        results.put(("game", task.table, record))

    async def stop_when_parent_gone() -> None:
        while dispatcher_alive():
            await trio.sleep(POLL_SECONDS)
        raise DispatcherGoneError("daihinmin match is gone")

    async def serve() -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stop_when_parent_gone)
            outcome = await run_headless_match(task.config, list(task.specs), on_game=on_game,
                                               connect_timeout=setup.connect_timeout,
                                               launch=setup.launch)
            nursery.cancel_scope.cancel()
        return outcome

    try:
        outcome = trio.run(serve)
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as exc:
        stops = (KeyboardInterrupt, MatchInterruptedError, DispatcherGoneError)
        if any(isinstance(err, stops) for err in leaf_errors(exc)):
            results.put(("stopped", task.table))
            return False
        text = io.StringIO()
        with contextlib.redirect_stderr(text):  # the parent prints it, for every table
            code = report_errors(exc, f"daihinmin match: table {task.table}")
        results.put(("failed", task.table, code, text.getvalue().rstrip()))
        return True
    results.put(("done", task.table, outcome))
    return True


# --- in the parent process --------------------------------------------------------------


def merge_reports(tables: list[list[SeatReport]], players: int) -> list[SeatReport]:
    """Each seat over every table: fault counts added up, the first hand-over to a stand-in
    (else the most serious status), and what happened, table by table.

    >>> from daihinmin.driver.faults import SeatStatus
    >>> a = [SeatReport(0, SeatStatus.TIMEOUT, {"TIMEOUT": 1}, detail="slow")]
    >>> b = [SeatReport(0, SeatStatus.CRASHED, {"TIMEOUT": 2, "CRASHED": 1}, "fallback", 3, 7,
    ...                 "died")]
    >>> merge_reports([a, b], 1)[0]  # doctest: +NORMALIZE_WHITESPACE
    SeatReport(player=0, status=<SeatStatus.CRASHED: 'CRASHED'>,
               faults={'TIMEOUT': 3, 'CRASHED': 1}, stand_in='fallback', since_game=3,
               since_turn=7, detail='table 1: slow; table 2: died')
    """
    merged = [SeatReport(p) for p in range(players)]
    details: list[list[str]] = [[] for _ in range(players)]
    for table, reports in enumerate(tables, 1):
        for r in reports:
            m = merged[r.player]
            for kind, count in r.faults.items():
                m.faults[kind] = m.faults.get(kind, 0) + count
            if m.stand_in is None and r.stand_in is not None:
                m.status, m.stand_in = r.status, r.stand_in
                m.since_game, m.since_turn = r.since_game, r.since_turn
            elif m.stand_in is None:
                m.status = more_serious(m.status, r.status)
            if r.detail and not r.pristine:
                details[r.player].append(f"table {table}: {r.detail}")
    for m, lines in zip(merged, details, strict=True):
        m.detail = "; ".join(lines)
    return merged


@dataclass
class TablesRun:
    """What the tables have sent so far."""

    tasks: list[TableTask]
    combined: Standings
    per_table: dict[int, Standings]
    outcomes: dict[int, MatchOutcome] = field(default_factory=dict)
    failures: dict[int, tuple[int, str]] = field(default_factory=dict)  # code, message
    worker_of: dict[int, int] = field(default_factory=dict)  # table -> worker playing it
    cpu_workers: float = 0.0  # workers and their player processes, as they exit
    on_game: Callable[[], None] = lambda: None

    def handle(self, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "started":
            self.worker_of[msg[1]] = msg[2]
        elif kind == "game":
            # Table 1 plays the match seed: its last game breaks ties of points.
            self.combined.add_game(msg[2], last=msg[1] == self.tasks[0].table)
            self.per_table[msg[1]].add_game(msg[2])
            self.on_game()
        elif kind == "done":
            self.outcomes[msg[1]] = msg[2]
        elif kind == "failed":
            self.failures[msg[1]] = (msg[2], msg[3])
        elif kind == "exit":
            self.cpu_workers += msg[2]

    def worker_died(self, worker: int, exitcode: int | None) -> None:
        """The tables ``worker`` was playing fail (it died without a word)."""
        for table, w in self.worker_of.items():
            if w == worker and table not in self.outcomes and table not in self.failures:
                self.failures[table] = (1, f"daihinmin match: table {table}: its worker "
                                           f"process died (exit code {exitcode})")


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise here as they do in one table's runner (Ctrl-C already raises
    KeyboardInterrupt), so the tables are stopped, not orphaned."""
    def stop(signum: int, _frame: object) -> None:
        raise MatchInterruptedError(f"stopped by {signal.Signals(signum).name}")

    old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def stop_tables(pool: WorkerPool, run: TablesRun, signum: int) -> None:
    """Pass the stop on to every worker and wait for them (their games still count)."""
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must wait
    try:
        for p in pool.procs:
            if p.is_alive() and p.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signum)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while not pool.finished and time.monotonic() < deadline:
            for msg in pool.poll(0.1):
                run.handle(msg)
        for msg in pool.poll(0.0):
            run.handle(msg)
    finally:
        signal.signal(signal.SIGINT, old)


def run_pool(pool: WorkerPool, run: TablesRun) -> None:
    """Until every table is done; the first failed table stops the others."""
    stopping = False
    while not pool.finished:
        for msg in pool.poll(0.25):
            run.handle(msg)
        for w in pool.crashed():
            run.worker_died(w, pool.procs[w].exitcode)
        if run.failures and not stopping:
            stopping = True
            stop_tables(pool, run, signal.SIGTERM)
    for msg in pool.poll(0.0):  # anything sent just before the last exit
        run.handle(msg)
    for w in pool.crashed():
        run.worker_died(w, pool.procs[w].exitcode)


def play_tables(args: argparse.Namespace, config: ServerConfig, tasks: list[TableTask],
                labels: list[str], launch: LaunchOptions | None = None) -> int:
    """Play the tables at once; print one result (or the errors) and return the exit code."""
    from daihinmin.records.exit_codes import FAILED, INTERRUPTED
    from daihinmin.tools.match_progress import match_progress
    from daihinmin.tournament.pool import WorkerPool
    from daihinmin.tournament.worker import own_cpu_seconds

    progress = match_progress(f" {len(tasks)} tables", quiet=args.json)
    bar = progress.add_task("match", total=config.games)
    run = TablesRun(tasks, start_standings(config, labels),
                    {t.table: start_standings(t.config, labels) for t in tasks},
                    on_game=lambda: progress.advance(bar))
    pool = WorkerPool(TablesSetup(args.connect_timeout, args.verbose, launch), [1] * len(tasks),
                      target=table_worker, name="match")
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
            standings, task.config, log_path=outcome.log_path,
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
