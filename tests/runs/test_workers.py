"""Worker processes and the one that reads them (``match --jobs``, a tournament), real
processes, no timing: the state a slow or killed parent meets is made directly."""

from __future__ import annotations

from daihinmin.records.standings import Standings
from daihinmin.runs.pool import WorkerPool, mp_context
from daihinmin.runs.tables import TablesRun, note_crashed
from pool_targets import dispatcher_that_dies, tables_when_told


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


def test_a_worker_takes_no_match_once_its_dispatcher_is_gone() -> None:
    """The dispatcher ended with matches still queued: its worker stops rather than start
    one (a log and players nobody will ever read or stop)."""
    ctx = mp_context()
    said = ctx.Queue()
    dispatcher = ctx.Process(target=dispatcher_that_dies, args=(said,))
    dispatcher.start()
    dispatcher.join(60)
    assert said.get(timeout=60) == ("gone", None)
