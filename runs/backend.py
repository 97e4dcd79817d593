"""Where a run plays: this machine's cores (``local``) or a Ray cluster (``ray``), behind one
:class:`Run` interface, so whoever stores the results never cares which.

>>> Backend.parse("ray", "127.0.0.1:6379")
Backend(kind='ray', address='127.0.0.1:6379')
>>> Backend.parse("local", "auto")
Traceback (most recent call last):
...
daihinmin.runs.backend.BackendError: --address is for --backend ray
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .spec import Message

BACKENDS = ("local", "ray")
RAY_MISSING = "--backend ray needs Ray on this machine: pip install 'daihinmin[ray]'"



class BackendError(ValueError):
    """The backend asked for cannot be used (a usage error: exit code 2)."""


@dataclass(frozen=True)
class Backend:
    """``kind`` local or ray; ``address`` (ray): ``auto`` (the cluster this machine belongs
    to), ``HOST:PORT`` (its head), or None (a one-machine cluster started for this run,
    listening on 127.0.0.1 only)."""

    kind: str = "local"
    address: str | None = None

    @classmethod
    def parse(cls, kind: str | None, address: str | None) -> Backend:
        kind = kind or "local"
        if kind not in BACKENDS:
            raise BackendError(f"--backend is one of {', '.join(BACKENDS)}, got {kind!r}")
        if address is not None and kind != "ray":
            raise BackendError("--address is for --backend ray")
        return cls(kind, address)

    def check(self) -> None:
        """Ray is there when asked for (one clear line, not an ImportError, if not)."""
        # Not imported here: Ray reads its settings from the environment when imported,
        # and the run sets them first (.ray_run.connect).
        if self.kind == "ray" and importlib.util.find_spec("ray") is None:
            raise BackendError(RAY_MISSING)


def add_backend_options(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--backend local|ray`` and ``--address`` (for every command that plays many games)."""
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="where the games are played: this machine's cores, or a Ray cluster "
                        "(pip install 'daihinmin[ray]'; see docs/CLUSTER.md)")
    p.add_argument("--address", metavar="auto|HOST:PORT",
                   help="--backend ray: the cluster's head (default: a one-machine cluster "
                        "on 127.0.0.1 for this run)")


def backend_from(args: argparse.Namespace) -> Backend:
    """The backend the options ask for, checked (:class:`BackendError`: exit code 2)."""
    backend = Backend.parse(args.backend, args.address)
    backend.check()
    return backend


class Run(Protocol):
    """Plays tasks (match specs, or ``match --jobs`` tables) and hands back the workers'
    messages (:mod:`.worker`) as they arrive, in order per task."""

    @property
    def tables(self) -> int:
        """Tasks played at once."""
        ...

    def start(self, tasks: Sequence[Any]) -> None: ...

    def poll(self, timeout: float) -> list[Message]:
        """The messages that arrived within ``timeout`` seconds."""
        ...

    @property
    def finished(self) -> bool:
        """Every task has ended (played, failed or lost) and its messages were handed out."""
        ...

    def crashed(self) -> list[tuple[int, int | None]]:
        """Local workers that died without a word, with their exit codes (their tasks are
        lost); on Ray a lost task is retried or failed by :meth:`poll` instead."""
        ...

    def interrupt(self, signum: int) -> None:
        """Stop the tasks (locally the signal reaches every worker, which stops its tables;
        on Ray they are cancelled)."""
        ...

    def stop(self) -> None: ...

    def join(self) -> None: ...


def open_run(backend: Backend, setup: Any, slots: Sequence[int], show_hands: bool | None,
             target: Callable[..., None] | None = None, name: str = "tournament",
             job: Any = None, in_flight: int = 0) -> Run:
    """A run on ``backend``: on this machine ``target`` (default
    :func:`.worker.worker_main`) in one worker process per entry of ``slots`` (that many
    tables each); on Ray ``job`` (a :class:`.ray_run.RayJob`) says how a task is played on a
    node, ``in_flight`` how many at once (0: what the cluster holds)."""
    from .pool import WorkerPool, worker_main

    if backend.kind == "ray":
        from .ray_run import RayJob, RayRun

        return RayRun(backend.address, setup, job or RayJob(), show_hands, in_flight)
    return WorkerPool(setup, slots, show_hands, target or worker_main, name)


__all__ = ["BACKENDS", "RAY_MISSING", "Backend", "BackendError", "Message", "Run",
           "add_backend_options", "backend_from", "open_run"]
