"""daihinmin.runs: play match specs somewhere and stream their results back as they come.

The interface (what a tournament, a league or ``match --jobs`` builds on):

- :class:`~daihinmin.runs.spec.MatchSpec`: one match as plain data that pickles and crosses
  to a worker process or a Ray node unchanged: ``id`` (the caller's, echoed in every
  message), ``rules`` and ``rule`` (preset and overrides), ``seed``, ``games``, ``lineup``
  (one :class:`~daihinmin.runs.spec.Participant` per player number), ``bot_seeds`` (the
  seed each bundled bot gets) and a ``label`` for spectators.  A participant has a
  ``kind``: ``bot`` (a bundled bot with options) or ``command`` (a program the user typed or
  wrote in their own config, with ``{host}``/``{port}``); a new kind (a submission folder
  started in a sandbox) adds its field and its case where players are started
  (:mod:`~daihinmin.runs.tcp_table`).
- :class:`~daihinmin.runs.spec.TableSettings`: how every table of the run plays (transport
  ``in-process`` or ``tcp``, a folder for match logs, a TCP match timeout).
- :class:`~daihinmin.runs.backend.Run` (``open_run(backend, settings, slots, show_hands)``):
  ``start(specs)``, then ``poll(timeout)`` until ``finished``, then ``stop()``.  Each poll
  hands back the messages of :mod:`~daihinmin.runs.worker` in order per match:
  ``("started", id)``, ``("game", id, game, seats, places, points, turns)`` per game,
  ``("faults", id, rows)``, ``("log", id, path)``, then ``("done", id, cpu)`` or
  ``("failed", id, why)``; on Ray also ``("retry", id, attempt, why)`` when a match's worker
  or node died and it is played again from its start (its next ``started`` means: drop the
  lost attempt's games).  The reader of these messages is the only writer of its database
  and never cares where the matches were played.
- :class:`~daihinmin.runs.backend.Backend`: ``local`` (:class:`~daihinmin.runs.pool.WorkerPool`,
  worker processes on this machine's cores) or ``ray`` (:class:`~daihinmin.runs.ray_run.RayRun`,
  a task per match on a Ray cluster, docs/CLUSTER.md).

Modules: ``spec`` (the data), ``backend`` (the interface and its choice), ``pool`` and
``worker`` (the local run), ``ray_run`` (the Ray run), ``local_table`` and ``tcp_table`` (one
match in process or over TCP), ``views`` (the tables' snapshots for ``--publish``),
``match_logs`` (log names that are never reused), ``tables`` (``match --jobs``: one match's
games over several tables), ``parallel`` (experiments' jobs on either backend).
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what __getattr__ gives, for the type checker (a user's too)
    from daihinmin.runs.backend import Backend, BackendError, Run, open_run
    from daihinmin.runs.ray_run import RayConnectError, RayJob, RayRun
    from daihinmin.runs.spec import MatchSpec, Participant, TableSettings

# Each name is imported from its module on first use: the command line names the backend
# options without importing the tables, and nothing here imports Ray before a run asks.
_MODULES = {
    "backend": ("Backend", "BackendError", "Run", "open_run"),
    "ray_run": ("RayConnectError", "RayJob", "RayRun"),
    "spec": ("MatchSpec", "Participant", "TableSettings"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Backend", "BackendError", "MatchSpec", "Participant", "RayConnectError", "RayJob",
           "RayRun", "Run", "TableSettings", "open_run"]
