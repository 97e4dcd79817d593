"""Tables of one match played side by side (``daihinmin match --jobs N``): a run too.

Each table is a :class:`TableTask` (its own match config: games, seed, log; and its players'
commands) played by :func:`table_worker` in a worker of a run (a local process, or a Ray
node), with its own player processes; the parent gathers what the tables send in a
:class:`TablesRun` and adds every table's games up.  :func:`merge_reports` adds each seat's
faults over the tables.  Ctrl-C or SIGTERM is passed on to every table (the workers are in
their own process group, so the terminal's Ctrl-C reaches the parent only), which stops its
players and ends its log with the reason; the parent waits for them, then stops any worker
that is left (:func:`stop_tables`).
"""

from __future__ import annotations

import contextlib
import logging
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
from daihinmin.records.standings import Standings
from daihinmin.server.config import ServerConfig
from daihinmin.server.errors import MatchInterruptedError
from daihinmin.server.match_server import MatchOutcome

if TYPE_CHECKING:
    from daihinmin.driver.record import GameRecord

    from .backend import Run

STOP_GRACE_SECONDS = 10.0  # a table stopping its players: runner.EXIT_GRACE + SIGKILL's wait


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
    own_group: bool = True  # a local worker leads its own process group (Ctrl-C: the parent)
    python: str = sys.executable  # the driver's: a bundled player's program, moved on a node


# --- a table on a Ray node (.ray_run.RayJob) ------------------------------------------------


def table_on_node(setup: TablesSetup, task: TableTask, folder: str
                  ) -> tuple[TablesSetup, TableTask]:
    """The table as a Ray node plays it: its log in the node's private folder (sent back at
    the end), bundled players started by this node's Python, the worker's group left alone."""
    log_path = task.config.log_path
    config = task.config if log_path is None else replace(
        task.config, log_path=Path(folder) / log_path.name)
    specs = tuple(PlayerSpec(s.label, (sys.executable, *s.argv[1:]))
                  if s.argv and s.argv[0] == setup.python else s for s in task.specs)
    return replace(setup, own_group=False), replace(task, config=config, specs=specs)


def table_destinations(setup: TablesSetup, task: TableTask) -> dict[str, str]:
    """Where a table's log goes on the driver: where ``--log`` said."""
    path = task.config.log_path
    return {} if path is None else {path.name: str(path)}


def no_log_dir(setup: TablesSetup) -> None:
    return None


def table_key(task: TableTask) -> int:
    return task.table


def lost_table(task: TableTask, why: str) -> tuple[Any, ...]:
    from daihinmin.records.exit_codes import FAILED

    return ("failed", task.table, FAILED, f"daihinmin match: table {task.table}: {why}")


def tables_job() -> Any:
    """A ``match --jobs`` table as a Ray task (played once: a lost table fails the match)."""
    from .ray_run import RayJob

    return RayJob(target=table_worker, on_node=table_on_node, destinations=table_destinations,
                  log_dir_of=no_log_dir, key=table_key, lost=lost_table, attempts=1)


def failure_lines(exc: BaseException, prog: str) -> tuple[int, list[str]]:
    """The exit code of a failed match and one line per error: 1, 2 for a match that cannot
    start (e.g. a log that cannot be resumed), 4 for a bad log, 3 for an output refused, or
    130 (and no line: the standings so far and the resume hint say it) when interrupted."""
    from daihinmin.records.errors import MatchLogError
    from daihinmin.records.exit_codes import BAD_INPUT, FAILED, INTERRUPTED, OUTPUT_REFUSED, USAGE
    from daihinmin.records.outfile import OutputRefusedError
    from daihinmin.server.errors import (
        ListenError,
        ResumeLogError,
        ServerConfigError,
        leaf_errors,
    )

    errors = leaf_errors(exc)
    if any(isinstance(err, KeyboardInterrupt) for err in errors):
        return INTERRUPTED, []
    for kind, code in ((OutputRefusedError, OUTPUT_REFUSED),
                       ((ResumeLogError, MatchLogError), BAD_INPUT), (ServerConfigError, USAGE),
                       (ListenError, FAILED)):
        if all(isinstance(err, kind) for err in errors):
            return code, [f"{prog}: {err}" for err in errors]
    return FAILED, [f"{prog}: {type(err).__name__}: {err}" for err in errors]


# --- in each worker process -------------------------------------------------------------


def table_worker(worker: int, setup: TablesSetup, tasks: Any, results: Any, slots: int,
                 show_hands: bool | None = None) -> None:
    """A worker of the pool: plays the tables it takes, posting
    ``("started", table, worker)``, ``("game", table, record)``, then ``("done", table, outcome)``,
    ``("failed", table, exit_code, message)`` or ``("stopped", table)``; then ``exit``."""
    from .worker import next_task, own_cpu_seconds

    if setup.own_group:
        os.setpgrp()  # the terminal's Ctrl-C goes to the parent, which passes it on
    logging.basicConfig(level=logging.INFO if setup.verbose else logging.WARNING,
                        stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
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

    from .worker import POLL_SECONDS, DispatcherGoneError, dispatcher_alive

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
        code, lines = failure_lines(exc, f"daihinmin match: table {task.table}")
        results.put(("failed", task.table, code, "\n".join(lines)))  # the parent prints it
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


def stop_tables(pool: Run, run: TablesRun, signum: int) -> None:
    """Pass the stop on to every worker and wait for them (their games still count)."""
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must wait
    try:
        pool.interrupt(signum)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while not pool.finished and time.monotonic() < deadline:
            for msg in pool.poll(0.1):
                run.handle(msg)
        for msg in pool.poll(0.0):
            run.handle(msg)
    finally:
        signal.signal(signal.SIGINT, old)


def run_pool(pool: Run, run: TablesRun) -> None:
    """Until every table is done; the first failed table stops the others."""
    stopping = False
    while not pool.finished:
        for msg in pool.poll(0.25):
            run.handle(msg)
        note_crashed(pool, run)
        if run.failures and not stopping:
            stopping = True
            stop_tables(pool, run, signal.SIGTERM)
    for msg in pool.poll(0.0):  # anything sent just before the last exit
        run.handle(msg)
    note_crashed(pool, run)


def note_crashed(pool: Run, run: TablesRun) -> None:
    """Fail the tables of workers that ended without a word.  What an ended worker sent is
    all in the pipe, but may have come after the last poll: it is read first, so a worker
    that finished its table and said goodbye since is not taken for a dead one."""
    if not pool.crashed():
        return
    for msg in pool.poll(0.0):
        run.handle(msg)
    for w, code in pool.crashed():
        run.worker_died(w, code)


