"""The local run: worker processes on this machine's cores, fed from one task queue
(forkserver where available).

:func:`worker_main` is what each worker runs by default: the in-process loop
(:mod:`.worker`) or the TCP tables' loop (:mod:`.tcp_table`), by the run's transport.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
from collections.abc import Callable, Sequence
from typing import Any

from .spec import TableSettings
from .tcp_table import tcp_loop
from .worker import is_stop, local_loop, own_cpu_seconds


def mp_context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    # Not "fork": the dispatcher may hold threads (rich live display) and an open database.
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def split_slots(total: int, workers: int) -> list[int]:
    """``total`` table slots over ``workers`` processes, as evenly as possible."""
    base, extra = divmod(total, workers)
    return [base + (1 if w < extra else 0) for w in range(workers)]


def worker_main(worker: int, settings: TableSettings, tasks: Any, results: Any,
                slots: int, show_hands: bool | None = None) -> None:
    """``show_hands`` None: not published; else publish the tables (with hands or not)."""
    # Seat faults reach the dispatcher as messages (stored, in the live view and the
    # report); the server's warnings on stderr would only scroll the live view away.
    logging.getLogger("daihinmin.server").setLevel(logging.ERROR)
    try:
        if settings.transport == "in-process":
            local_loop(settings, tasks, results, worker, show_hands)
        else:
            import trio

            from .views import Views
            views = None if show_hands is None else Views(show_hands)
            trio.run(tcp_loop, settings, tasks, results, slots, worker, views)
    except BaseException as exc:
        if is_stop(exc):
            os._exit(1)  # nobody to report to; the dispatcher replays unfinished matches
        raise
    results.put(("exit", worker, own_cpu_seconds()))


class WorkerPool:
    """Starts the workers, hands out tasks in order, relays their messages.

    ``target(worker, setup, tasks, results, slots, show_hands)`` runs in each worker; by
    default :func:`worker_main` with :class:`~.spec.TableSettings` and match specs as tasks
    (``daihinmin match --jobs`` gives its own, one table a task).  It must end with an
    ``("exit", worker, cpu_seconds)`` message."""

    def __init__(self, setup: Any, slots: Sequence[int], show_hands: bool | None = None,
                 target: Callable[..., None] = worker_main, name: str = "tournament") -> None:
        self.setup = setup
        self.slots = [s for s in slots if s > 0]
        ctx = mp_context()
        self.tasks = ctx.Queue()
        self.results = ctx.Queue()
        self.procs = [ctx.Process(target=target, name=f"{name}-worker-{w}",
                                  args=(w, setup, self.tasks, self.results, s, show_hands),
                                  daemon=True)
                      for w, s in enumerate(self.slots)]
        self.exited: set[int] = set()

    @property
    def tables(self) -> int:
        return sum(self.slots)

    def start(self, specs: Sequence[Any]) -> None:
        for spec in specs:
            self.tasks.put(spec)
        for _ in range(sum(self.slots)):
            self.tasks.put(None)  # one end marker per table slot
        for p in self.procs:
            p.start()

    def poll(self, timeout: float) -> list[tuple[Any, ...]]:
        """Messages that arrived within ``timeout`` seconds (all that are waiting)."""
        out = []
        try:
            out.append(self.results.get(timeout=timeout))
            while True:
                out.append(self.results.get_nowait())
        except queue.Empty:
            pass
        for msg in out:
            if msg[0] == "exit":
                self.exited.add(msg[1])
        return out

    def crashed(self) -> list[tuple[int, int | None]]:
        """Workers that died without saying goodbye, with their exit codes."""
        return [(w, p.exitcode) for w, p in enumerate(self.procs)
                if w not in self.exited and p.exitcode is not None]

    def interrupt(self, signum: int) -> None:
        """Pass a stop on to every worker (each stops its tables and says so)."""
        for p in self.procs:
            if p.is_alive() and p.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signum)

    @property
    def finished(self) -> bool:
        return all(w in self.exited or p.exitcode is not None for w, p in enumerate(self.procs))

    def stop(self, timeout: float = 5.0) -> None:
        for p in self.procs:
            if p.is_alive():
                p.terminate()
        for p in self.procs:
            p.join(timeout)
            if p.is_alive():
                p.kill()
                p.join()
        for q in (self.tasks, self.results):
            q.cancel_join_thread()
            q.close()

    def join(self) -> None:
        for p in self.procs:
            p.join()
