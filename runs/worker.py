"""A worker process: takes matches from the task queue, posts results to the result queue.

Messages (tuples, in order per worker):
``("started", match)``, ``("game", match, game, seats, places, points, turns)``,
``("done", match, cpu_seconds)``, ``("failed", match, error)``,
``("faults", match, [(player, status, counts, stand_in, detail), ...])`` (TCP: the seats
that met a fault; sent before the match's ``done`` or ``failed``),
``("exit", worker, cpu_seconds_of_worker_and_its_children)``;
with ``--log-dir`` also ``("log", match, path)`` (the match's log file, sent after its
``started`` and before the file is created);
with ``--publish`` also ``("view", table_key, snapshot)`` (a table's newest public snapshot,
at most every ``views.VIEW_SECONDS`` per table).

In process, a worker plays one match at a time (it is CPU-bound).  Over TCP it runs
``slots`` tables at once in one Trio loop (server in this process, bots as processes).
A worker whose dispatcher died stops by itself (checked between games and while idle).
"""

from __future__ import annotations

import multiprocessing
import queue
import resource
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .spec import MatchSpec, TableSettings

if TYPE_CHECKING:
    from daihinmin.rules.ruleset import RuleSet
    from daihinmin.watch.publish import TableWatcher

    from .views import Views

POLL_SECONDS = 0.5


class DispatcherGoneError(RuntimeError):
    """The process that started this worker is gone; stop working."""


def dispatcher_alive() -> bool:
    parent = multiprocessing.parent_process()
    return parent is None or parent.is_alive()


def next_task(tasks: Any) -> MatchSpec | None:
    """The next match, or ``None`` when there is no more work.  None is taken once the
    dispatcher is gone, though the queue still holds its matches: their logs and players
    would only be left for nobody."""
    while True:
        if not dispatcher_alive():
            raise DispatcherGoneError
        try:
            spec: MatchSpec | None = tasks.get(timeout=POLL_SECONDS)
            return spec
        except queue.Empty:
            pass


def describe_error(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).strip()[-2000:]


def is_stop(exc: BaseException) -> bool:
    """The dispatcher is gone or asked us to stop (possibly inside an exception group)."""
    if isinstance(exc, BaseExceptionGroup):
        return any(is_stop(e) for e in exc.exceptions)
    return isinstance(exc, DispatcherGoneError | KeyboardInterrupt)


def table_watcher(views: Views | None, rules: RuleSet, spec: MatchSpec,
                  worker: int) -> TableWatcher | None:
    """``--publish``: the observer of this in-process worker's one table (key ``W-1``)."""
    if views is None:
        return None
    from .views import watch_match

    return watch_match(views, f"{worker + 1}-1", rules, spec)


def own_cpu_seconds() -> float:
    """CPU of this worker and of every process it waited for (its bot processes)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def announce_log(results: Any, match_id: int) -> Callable[[Path], None]:
    """Tell the dispatcher where this attempt of the match writes its log."""
    return lambda path: results.put(("log", match_id, str(path)))


def local_loop(settings: TableSettings, tasks: Any, results: Any, worker: int = 0,
               show_hands: bool | None = None) -> None:
    from .local_table import play_local

    views: Views | None = None
    relaying = None
    if show_hands is not None:  # --publish: this worker's one table, relayed by a thread
        from .views import Views, relay_due, start_relay_thread

        views = Views(show_hands)
        relaying = start_relay_thread(views, results.put)

    def on_game(*row: Any) -> None:
        if not dispatcher_alive():
            raise DispatcherGoneError
        results.put(("game", *row))

    try:
        while (spec := next_task(tasks)) is not None:
            results.put(("started", spec.id))
            try:
                rules = spec.ruleset()
                cpu = play_local(settings, rules, spec, on_game,
                                 table_watcher(views, rules, spec, worker),
                                 announce_log(results, spec.id))
            except DispatcherGoneError:
                raise
            except Exception as exc:  # one broken match must not stop the others
                results.put(("failed", spec.id, describe_error(exc)))
                continue
            finally:
                if views is not None:
                    relay_due(views, results.put)  # the match's last state, before the next
            results.put(("done", spec.id, cpu))
    finally:
        if relaying is not None:
            relaying.set()
