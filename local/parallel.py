"""Running in-process experiment jobs side by side, one process each.

>>> split_count(10, 3)
[4, 3, 3]
>>> run_parallel(abs, [-1, 2, -3], processes=1)
[1, 2, 3]
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def split_count(total: int, jobs: int) -> list[int]:
    """``total`` split into ``jobs`` shares as even as possible (larger shares first)."""
    jobs = max(1, jobs)
    return [total // jobs + (1 if j < total % jobs else 0) for j in range(jobs)]


def run_parallel(func: Callable[[T], R], tasks: Sequence[T], processes: int) -> list[R]:
    """``func`` over ``tasks`` in order, in up to ``processes`` fresh (spawned) processes;
    in this process when one is enough."""
    if processes <= 1 or len(tasks) <= 1:
        return [func(t) for t in tasks]
    with multiprocessing.get_context("spawn").Pool(min(processes, len(tasks))) as pool:
        return pool.map(func, tasks)
