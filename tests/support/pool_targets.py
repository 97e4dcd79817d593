"""Worker functions for tests of :class:`daihinmin.runs.pool.WorkerPool` (importable by the
pool's worker processes, which start from a fresh interpreter)."""

from __future__ import annotations

import os
from typing import Any


def tables_when_told(worker: int, go: Any, tasks: Any, results: Any, slots: int,
                     show_hands: bool | None = None) -> None:
    """Starts each table it takes, finishes it once ``go`` (an event) is set (``done`` with
    a text as its outcome), then says goodbye, as
    :func:`daihinmin.runs.tables.table_worker` does."""
    while (table := tasks.get()) is not None:
        results.put(("started", table, worker))
        go.wait(120)
        results.put(("done", table, f"table {table} played"))
    results.put(("exit", worker, 0.0))


def orphaned_worker(tasks: Any, said: Any, up: Any) -> None:
    """Waits until the process that started it is gone, then asks for its next task and
    says what it got (``gone``: it stopped instead)."""
    import multiprocessing

    from daihinmin.runs.worker import DispatcherGoneError, next_task

    up.set()
    parent = multiprocessing.parent_process()
    assert parent is not None
    parent.join()  # (its sentinel: returns once the parent has ended)
    try:
        said.put(("task", next_task(tasks)))
    except DispatcherGoneError:
        said.put(("gone", None))


def dispatcher_that_dies(said: Any) -> None:
    """Queues two matches, starts a worker for them, and ends at once when it is up."""
    from daihinmin.runs.pool import mp_context

    ctx = mp_context()
    tasks, up = ctx.Queue(), ctx.Event()
    tasks.put("match 1")
    tasks.put("match 2")
    ctx.Process(target=orphaned_worker, args=(tasks, said, up)).start()
    up.wait(120)
    tasks.close()
    tasks.join_thread()  # the matches are in the pipe
    os._exit(0)  # as a killed dispatcher ends: no waiting for its worker
