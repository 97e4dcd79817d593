"""``match --jobs``: the parent's reading of its workers' messages, with real worker
processes (no timing: the state a slow parent meets is made directly)."""

from __future__ import annotations

from daihinmin.records.standings import Standings
from daihinmin.runs.pool import WorkerPool, mp_context
from daihinmin.runs.tables import TablesRun, note_crashed
from pool_targets import tables_when_told


def test_a_worker_that_said_goodbye_after_the_last_poll_is_not_taken_for_dead() -> None:
    """The parent read that the table started; the worker then finished it, said goodbye
    and exited while the parent was busy.  Its table is played, not failed as a dead
    worker's."""
    go = mp_context().Event()
    pool = WorkerPool(go, [1], target=tables_when_told, name="test")
    run = TablesRun([], Standings([]), {})
    try:
        pool.start([1])
        while not run.worker_of:
            for msg in pool.poll(60):
                run.handle(msg)
        go.set()
        pool.join()  # it ended; its done and goodbye are not read yet
        assert pool.crashed() == [(0, 0)]  # as the parent sees it before reading them
        note_crashed(pool, run)
        assert run.failures == {}
        assert run.outcomes == {1: "table 1 played"}
        assert pool.crashed() == [] and pool.finished
    finally:
        pool.stop()
