"""Worker functions for tests of :class:`daihinmin.runs.pool.WorkerPool` (importable by the
pool's worker processes, which start from a fresh interpreter)."""

from __future__ import annotations

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
