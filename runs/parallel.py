"""Experiments' jobs (``mc-strength``, ``duplicate``) side by side, here or on Ray.

A job is a pure function of its task (its games are fixed by the task's seeds), so a job
whose Ray worker or node died is simply run again (Ray retries it, up to ``RETRIES`` times)
and its result is still counted once: results come back only when a job has finished.

>>> map_jobs(abs, [-1, 2, -3], jobs=1)
[1, 2, 3]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from daihinmin.local.parallel import run_parallel

from .backend import Backend

T = TypeVar("T")
R = TypeVar("R")
RETRIES = 3


def map_jobs(func: Callable[[T], R], tasks: Sequence[T], jobs: int,
             backend: Backend | None = None) -> list[R]:
    """``func`` over ``tasks``, results in order: in up to ``jobs`` processes here, or one
    Ray task each on the cluster of ``backend`` (as many at once as it has CPUs)."""
    if backend is None or backend.kind == "local":
        return run_parallel(func, tasks, jobs)
    from .ray_run import connect

    connect(backend.address)
    import ray

    remote: Any = ray.remote(func).options(num_cpus=1, max_retries=RETRIES)
    refs = [remote.remote(t) for t in tasks]
    results: list[R] = ray.get(refs)
    return results


__all__ = ["map_jobs"]
