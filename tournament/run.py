"""The dispatcher: hand pending matches to a run and write results as they come.

The dispatcher is the only database writer, whether the run plays on this machine's cores or
on a Ray cluster (:mod:`daihinmin.runs`).  Every game is committed when its message arrives;
a match is marked done only when all its games are in.  A match whose Ray worker or node
died is played again from its start (its lost games are dropped when it starts again, and
its attempts are counted).  On an interruption the unfinished matches stay ``running`` and
are replayed by the next ``--resume``.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass, field
from typing import Any

from daihinmin.runs.backend import Backend, Run, open_run
from daihinmin.runs.match_logs import logs_in
from daihinmin.runs.pool import split_slots
from daihinmin.runs.spec import MatchSpec

from .config import TournamentConfig, TournamentConfigError
from .live import LiveTally
from .publish import Publishing, TournamentRelay
from .schedule import ScheduledMatch, derive_seed
from .sprt_run import SprtMonitor
from .store import TournamentStore

DEFAULT_TABLES_PER_WORKER = 2  # TCP: bots think in their own processes; overlap the waits
EARLY_FAILURES = 3  # this many failed matches before any success: stop, something is broken


class TournamentAbortedError(RuntimeError):
    """The run was stopped because its first matches all failed."""


def preflight(cfg: TournamentConfig) -> None:
    """Make every bundled bot once with its options, so a typo fails now, not per match."""
    from daihinmin.players.prepare import prepare_kinds
    from daihinmin.players.registry import UnknownBotError, make_bot

    try:
        prepare_kinds((p.bot for p in cfg.participants if p.bot is not None),
                      "daihinmin tournament")  # before any bot process must be seated in time
    except UnknownBotError as exc:  # a name no participant's bot has: a usage error
        raise TournamentConfigError(str(exc)) from exc
    for p in cfg.participants:
        if p.bot is None:
            continue
        try:
            make_bot(p.bot, **p.options)
        except Exception as exc:
            raise TournamentConfigError(f"participant {p.name}: {exc}") from exc


@dataclass
class RunSummary:
    games: int = 0  # games committed in this run
    matches: int = 0
    failed: list[tuple[int, str]] = field(default_factory=list)
    wall_seconds: float = 0.0
    cpu_dispatcher: float = 0.0
    cpu_workers: float = 0.0  # workers and everything they waited for (bot processes)
    workers_reported: int = 0  # workers that sent their CPU (a killed one cannot)
    jobs: int = 0
    tables: int = 0
    interrupted: bool = False
    backend: str = "local"
    retries: int = 0  # plays of a match again after its Ray worker or node died
    decided: bool = False  # the sequential test decided: the rest of the schedule is not needed

    @property
    def games_per_second(self) -> float:
        return self.games / self.wall_seconds if self.wall_seconds > 0 else 0.0

    @property
    def cpu_per_game(self) -> float | None:
        cpu = self.cpu_dispatcher + self.cpu_workers
        return cpu / self.games if self.games else None


def plan_concurrency(cfg: TournamentConfig, pending: int) -> tuple[int, list[int]]:
    """(worker processes, table slots per worker) for this run."""
    jobs = cfg.jobs or os.cpu_count() or 1
    if cfg.transport in ("in-process", "numba"):
        jobs = max(1, min(jobs, pending))
        return jobs, [1] * jobs
    tables = cfg.tables or DEFAULT_TABLES_PER_WORKER * jobs
    tables = max(1, min(tables, pending))
    jobs = max(1, min(jobs, tables))
    return jobs, split_slots(tables, jobs)


def match_spec(cfg: TournamentConfig, m: ScheduledMatch) -> MatchSpec:
    """What a run plays for match ``m``: its participants, rules and seeds (each bundled
    bot's fixed by the match and its player number, so a replay is the same game)."""
    seeds = tuple(derive_seed("bot", m.seed, m.table, m.rotation, player) if cfg.bot_seeds
                  else None for player in range(len(m.lineup)))
    return MatchSpec(m.index, cfg.rules, cfg.rule, m.seed, m.games,
                     tuple(cfg.participants[i] for i in m.lineup), seeds, m.key)


def ray_job(cfg: TournamentConfig) -> Any:
    """How a match is played on a Ray node (TCP tables take half a CPU: bots wait a lot)."""
    from daihinmin.runs.ray_run import RayJob

    return RayJob(num_cpus=1.0 if cfg.transport in ("in-process", "numba") else 0.5)


def cpu_times(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class Dispatcher:
    def __init__(self, store: TournamentStore, cfg: TournamentConfig,
                 tally: LiveTally | None = None, publishing: Publishing | None = None,
                 backend: Backend | None = None) -> None:
        self.store = store
        self.cfg = cfg
        self.tally = tally
        self.publishing = publishing
        self.backend = backend or Backend()
        self.relay: TournamentRelay | None = None
        self.summary = RunSummary(backend=self.backend.kind)
        self.attempt_games: dict[int, int] = {}  # match -> games of its current attempt
        self.sprt = SprtMonitor(store, cfg) if cfg.sprt is not None else None

    def handle(self, msg: tuple[Any, ...]) -> None:
        kind = msg[0]
        if kind == "view":
            if self.relay is not None:
                self.relay.view(msg[1], msg[2])
        elif kind == "started":
            self.store.match_started(msg[1])  # a retried match starts clean
            self.attempt_games[msg[1]] = 0
        elif kind == "retry":  # its worker died; the games of that attempt go
            self.summary.retries += 1
            self.summary.games -= self.attempt_games.pop(msg[1], 0)
        elif kind == "game":
            _, mid, game, seats, places, points, turns = msg
            self.store.record_game(mid, game, seats, places, points, turns)
            self.summary.games += 1
            self.attempt_games[mid] = self.attempt_games.get(mid, 0) + 1
            if self.tally is not None:
                self.tally.add_game(self.store.lineup(mid), places, points)
        elif kind == "done":
            self.store.match_done(msg[1], msg[2])
            self.summary.matches += 1
            if self.tally is not None:
                self.tally.matches_done += 1
            if self.sprt is not None and self.sprt.update() is not None:
                self.summary.decided = True
        elif kind == "log":
            self.store.record_log(msg[1], msg[2])
        elif kind == "faults":
            self.store.record_faults(msg[1], msg[2])
            if self.tally is not None:
                self.tally.add_faults(self.store.lineup(msg[1]), msg[2])
        elif kind == "exit":
            self.summary.cpu_workers += msg[2]
            self.summary.workers_reported += 1
        elif kind == "failed":
            self.store.match_failed(msg[1], msg[2])
            self.summary.failed.append((msg[1], msg[2]))
            if self.tally is not None:
                self.tally.failures += 1
            if self.summary.matches == 0 and len(self.summary.failed) >= EARLY_FAILURES:
                raise TournamentAbortedError(
                    f"the first {EARLY_FAILURES} matches failed; stopping. First error: "
                    f"{self.summary.failed[0][1]}")

    def open_run(self, pending: int) -> Run:
        """The run that plays the matches: worker processes here, or tasks on Ray."""
        s = self.summary
        settings = self.cfg.table_settings()
        show_hands = None if self.publishing is None else self.publishing.show_hands
        if self.backend.kind == "local":
            s.jobs, slots = plan_concurrency(self.cfg, pending)
            s.tables = sum(slots)
            return open_run(self.backend, settings, slots, show_hands)
        asked = (self.cfg.jobs if self.cfg.transport in ("in-process", "numba")
                 else self.cfg.tables or DEFAULT_TABLES_PER_WORKER * self.cfg.jobs)
        run = open_run(self.backend, settings, (), show_hands, job=ray_job(self.cfg),
                       in_flight=min(asked, pending))  # 0: as many as the cluster holds
        s.jobs = s.tables = min(run.tables, pending)
        return run

    def run(self, pending: list[ScheduledMatch]) -> RunSummary:
        s = self.summary
        if self.sprt is not None and self.sprt.verdict is not None:
            s.decided = True  # decided in an earlier run: nothing more to play
            return s
        if not pending:
            return s
        pool = self.open_run(len(pending))  # a cluster's connection is not the games' time
        start, cpu0 = time.perf_counter(), cpu_times(resource.RUSAGE_SELF)
        run_id = self.store.begin_run(self.cfg.transport, s.jobs, s.tables)
        if self.publishing is not None:
            assert self.tally is not None, "publishing shows the live standings"
            self.relay = TournamentRelay(self.publishing, self.cfg.ruleset(),
                                         self.cfg.games_per_match, self.tally)
            self.relay.start()
        try:
            pool.start([match_spec(self.cfg, m) for m in pending])
            while not pool.finished and not s.decided:
                for msg in pool.poll(0.25):
                    self.handle(msg)
            if not s.decided:
                for msg in pool.poll(0.0):  # anything sent just before the last exit
                    self.handle(msg)
                pool.join()
        except (KeyboardInterrupt, TournamentAbortedError):
            s.interrupted = True
            raise
        finally:
            pool.stop()
            if self.relay is not None:
                self.relay.close(finished=not s.interrupted)
            self.fail_orphans()
            s.wall_seconds = time.perf_counter() - start
            s.cpu_dispatcher = cpu_times(resource.RUSAGE_SELF) - cpu0
            self.store.end_run(run_id, s.games, s.wall_seconds, s.cpu_dispatcher,
                               s.cpu_workers, s.interrupted)
        return s

    def fail_orphans(self) -> None:
        """Matches still running after every worker stopped: their worker died."""
        if self.summary.interrupted:
            return  # left running; --resume replays them
        if self.summary.decided:  # stopped on purpose: what was left is not needed
            self.store.reset_unfinished(retry_failed=False)
            return
        for (mid,) in self.store.con.execute(
                "SELECT id FROM matches WHERE status = 'running'").fetchall():
            error = "the worker process running this match died"
            self.store.match_failed(mid, error)
            self.summary.failed.append((mid, error))


def run_tournament(store: TournamentStore, cfg: TournamentConfig,
                   tally: LiveTally | None = None,
                   publishing: Publishing | None = None,
                   backend: Backend | None = None) -> RunSummary:
    """Replay what a crash left unfinished, then play every pending match on ``backend``
    (default: this machine); ``publishing`` (which needs ``tally``) shows the tables and
    standings in ``daihinmin web``."""
    preflight(cfg)
    if cfg.log_dir is not None:  # logs of a killed run that the database never heard of
        store.adopt_logs(logs_in(cfg.log_dir))
    store.reset_unfinished()
    return Dispatcher(store, cfg, tally, publishing, backend).run(store.pending())
