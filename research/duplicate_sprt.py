"""``duplicate --sprt D0 D1``: paired positions played until a sequential test decides.

The positions are the same as without ``--sprt`` (:mod:`daihinmin.research.duplicate`);
each job plays its positions for A and for B in turn, so the pairs finish together.  The
pairs enter the test (:mod:`daihinmin.tournament.sprt`, the multinomial model of the
differences -4..4) in position order, whichever job finished them first, so the verdict
does not depend on the number of jobs.  The run stops when the test decides, or after
``--positions`` pairs without a verdict; positions other jobs were still playing are not
used (their logs, with ``--log-dir``, may be cut short).
"""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from daihinmin.tournament.sprt import Sprt, SprtHypotheses

from .positions import PositionResult, Task, play_positions

POINTS_SPREAD = 4  # a position's difference of points (5..1) lies in -4..4


def alternate(task_a: Task, task_b: Task) -> Iterator[tuple[str, PositionResult]]:
    """One job's positions for A and for B, a position of each in turn."""
    side_a, side_b = play_positions(task_a), play_positions(task_b)
    for result_a, result_b in zip(side_a, side_b, strict=True):
        yield "a", result_a
        yield "b", result_b


def job_main(task_a: Task, task_b: Task, results: Any) -> None:
    """A job process: every result to the parent as soon as its game ends."""
    for side, result in alternate(task_a, task_b):
        results.put((side, result))
    results.put(("end", None))


def results_of(jobs: Sequence[tuple[Task, Task]]
               ) -> Generator[tuple[str, PositionResult], None, None]:
    """The results of every job as they come: in this process for one job, else one
    process per job (stopped when the caller stops reading)."""
    if len(jobs) == 1:
        yield from alternate(*jobs[0])
        return
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=job_main, args=(a, b, results), daemon=True,
                         name=f"duplicate-sprt-{j}") for j, (a, b) in enumerate(jobs)]
    for p in procs:
        p.start()
    try:
        running = len(procs)
        while running:
            try:
                side, result = results.get(timeout=1.0)
            except queue.Empty:
                if any(p.exitcode not in (None, 0) for p in procs):
                    raise RuntimeError("a duplicate job process failed") from None
                continue
            if side == "end":
                running -= 1
            else:
                yield side, result
    finally:  # the verdict came (or an error): the jobs still playing are not needed
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(10)
        results.cancel_join_thread()
        results.close()


@dataclass
class SprtRun:
    test: Sprt
    used: list[int]  # the positions the test used, in order
    a: dict[int, PositionResult]  # every result that came, used or not
    b: dict[int, PositionResult]


def run_sprt(jobs: Sequence[tuple[Task, Task]], positions: Sequence[int],
             hypotheses: SprtHypotheses) -> SprtRun:
    """Feed the pairs to the test in position order until it decides."""
    test = Sprt(hypotheses, "multinomial", bound=POINTS_SPREAD)
    a: dict[int, PositionResult] = {}
    b: dict[int, PositionResult] = {}
    used: list[int] = []
    stream = results_of(jobs)
    try:
        for side, result in stream:
            (a if side == "a" else b)[result.position] = result
            while len(used) < len(positions) and test.verdict is None:
                k = positions[len(used)]
                if k not in a or k not in b:
                    break
                test.add(b[k].points - a[k].points)
                used.append(k)
            if test.verdict is not None:
                break
    finally:
        stream.close()
    return SprtRun(test, used, a, b)


__all__ = ["SprtRun", "alternate", "results_of", "run_sprt"]
