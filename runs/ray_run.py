"""The Ray run: every task (a match, or a ``match --jobs`` table) a Ray task on some node of a
cluster, streaming the same messages a local worker sends back to the driver.

On the node, :func:`play_task` runs the run's own worker function (:func:`.worker.worker_main`
or :func:`.tables.table_worker`) for that one task in a thread and yields what it posts, in
batches, as it goes (a Ray streaming generator); so in-process and TCP tables play exactly as
they do locally (a TCP table's server and player processes all on that node, over its
loopback).  Files the task writes (match logs) go to a private folder on the node and travel
back as ``("file", name, bytes)`` at the end, before the message that ends the task (a
match is never done before its log is in); the driver writes them where they belong
(``--log-dir`` names picked on the driver, so a retried match never clobbers a log).

Faults: a task whose worker process or node dies is played again from its start, up to
``RayJob.attempts`` times (``("retry", key, attempt, why)`` tells the caller, whose next
``("started", key)`` discards the lost attempt's games); an error of the task itself is a
failed task, never retried here.  The driver is the only one that reads the results.

Ray never listens on more than loopback unless the user names an address: with no
``--address`` the driver starts a one-machine cluster on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .match_logs import next_log_path
from .pool import worker_main
from .spec import MatchSpec, Message, TableSettings
from .worker import describe_error, own_cpu_seconds

BATCH_SECONDS = 0.05  # a node gathers its task's messages this long before sending them
ENDING = ("done", "failed", "stopped")  # the messages that end a task
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


# --- how one kind of task is played on a node (module-level functions: they pickle) ---------


def settings_on_node(setup: TableSettings, task: Any, folder: str) -> tuple[Any, Any]:
    """A tournament match on a node: its log goes to the node's private folder."""
    if setup.log_dir is None:
        return setup, task
    return replace(setup, log_dir=folder), task


def settings_log_dir(setup: TableSettings) -> str | None:
    return setup.log_dir


def no_destinations(setup: Any, task: Any) -> dict[str, str]:
    return {}


def match_key(task: MatchSpec) -> int:
    return task.id


def lost_match(task: MatchSpec, why: str) -> Message:
    return ("failed", task.id, why)


@dataclass(frozen=True)
class RayJob:
    """What a Ray run plays: the worker function and how its tasks are named, moved to a
    node (``on_node``: the node's private folder for files), failed when lost, and where
    their files go on the driver (``destinations``: by file name; or, for ``("log", key,
    path)`` messages, a fresh name in ``log_dir_of(setup)``)."""

    target: Callable[..., None] = worker_main
    on_node: Callable[[Any, Any, str], tuple[Any, Any]] = settings_on_node
    destinations: Callable[[Any, Any], dict[str, str]] = no_destinations
    log_dir_of: Callable[[Any], str | None] = settings_log_dir
    key: Callable[[Any], int] = match_key
    lost: Callable[[Any, str], Message] = lost_match
    attempts: int = 3  # plays of a task whose worker or node died, before it is failed
    num_cpus: float = 1.0  # Ray CPUs a task takes (TCP tables: less, their bots wait a lot)


def play_task(job: RayJob, setup: Any, task: Any, show_hands: bool | None,
              slot: int) -> Iterator[list[Message]]:
    """On a node: play ``task`` with ``job.target`` and yield its messages in batches, then
    the files it wrote."""
    folder = tempfile.mkdtemp(prefix="daihinmin-task-")
    try:
        setup, task = job.on_node(setup, task, folder)
        tasks: queue.Queue[Any] = queue.Queue()
        tasks.put(task)
        tasks.put(None)
        results: queue.Queue[Message] = queue.Queue()
        errors: list[str] = []
        cpu = own_cpu_seconds()

        def body() -> None:
            try:
                job.target(slot, setup, tasks, results, 1, show_hands)
            except BaseException as exc:  # reported as the task's failure below
                errors.append(describe_error(exc))

        worker = threading.Thread(target=body, name="daihinmin-task", daemon=True)
        worker.start()
        # The task's end (done, failed, stopped, and what follows it) is held back until its
        # files are sent: a driver killed in between must not have counted a match whose
        # log it never received (its resume plays the match again instead).
        ending: list[Message] = []
        while True:
            batch = drain(results, BATCH_SECONDS)
            if batch:
                going: list[Message] = []
                for m in batch:
                    if m[0] == "exit":
                        m = ("exit", slot, own_cpu_seconds() - cpu)
                    (ending if ending or m[0] in ENDING else going).append(m)
                if going:
                    yield going
            elif not worker.is_alive() and results.empty():
                break
        if errors:
            ending.append(job.lost(task, errors[0]))
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                yield [("file", name, f.read())]
        if ending:
            yield ending
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def drain(results: queue.Queue[Message], wait: float) -> list[Message]:
    """What is waiting, after up to ``wait`` seconds for the first message."""
    out = []
    try:
        out.append(results.get(timeout=wait))
        while True:
            out.append(results.get_nowait())
    except queue.Empty:
        pass
    return out


# --- on the driver ------------------------------------------------------------------------


class RayConnectError(RuntimeError):
    """The Ray cluster cannot be reached or started (exit code 1: the run cannot go on)."""


def connect(address: str | None) -> None:
    """Join the cluster at ``address``, or start a one-machine cluster on 127.0.0.1."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # Ray sends nothing home
    if address is None or address.rpartition(":")[0] in LOOPBACK_HOSTS:
        # Ray looks up "its own" address by a route towards a public resolver unless told
        # that this is a one-machine cluster: loopback, then, and no look-up.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray

    if ray.is_initialized():
        return
    try:
        _init(ray, address)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = "a local Ray cluster" if address is None else f"the Ray cluster at {address}"
        raise RayConnectError(f"cannot reach {where}: {first_line(exc)}") from None


def _ray_notes_to_stderr() -> None:
    """Ray prints the cluster's notes to the driver (a worker died, ...) on standard output,
    which is the command's own (``--json``): they go to standard error instead."""
    import ray._private.worker as ray_worker

    original = getattr(ray_worker, "print_to_stdstream", None)
    if original is None or getattr(original, "daihinmin", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr.daihinmin = True  # type: ignore[attr-defined]
    ray_worker.print_to_stdstream = to_stderr


def _init(ray: Any, address: str | None) -> None:
    _ray_notes_to_stderr()
    opts: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address is None:
        ray.init(address="local", _node_ip_address="127.0.0.1", include_dashboard=False,
                 **opts)
        return
    if address.rpartition(":")[0] in LOOPBACK_HOSTS:
        opts["_node_ip_address"] = "127.0.0.1"  # this node is the cluster's, on loopback
    ray.init(address=address, **opts)


def cluster_cpus() -> float:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return float(resources.get("CPU", 1.0))


@dataclass
class Attempt:
    task: Any
    number: int
    slot: int
    files: dict[str, str] = field(default_factory=dict)  # node file name -> driver path
    ended: bool = False  # the task sent done, failed or stopped


class RayRun:
    """A :class:`~.backend.Run` on a Ray cluster: at most ``in_flight`` tasks at once (0: as
    many as the cluster's CPUs hold, twice over so no node waits for the driver)."""

    def __init__(self, address: str | None, setup: Any, job: RayJob,
                 show_hands: bool | None = None, in_flight: int = 0) -> None:
        import ray

        connect(address)
        self.setup = setup
        self.job = job
        self.show_hands = show_hands
        self.remote = ray.remote(play_task).options(num_cpus=job.num_cpus, max_retries=0)
        capacity = max(1, int(cluster_cpus() / job.num_cpus))
        self.in_flight = in_flight or 2 * capacity
        self.free_slots = list(range(self.in_flight - 1, -1, -1))
        self.waiting: deque[tuple[Any, int]] = deque()
        self.running: dict[Any, Attempt] = {}
        self.retries = 0
        self.stopped = False

    @property
    def tables(self) -> int:
        return self.in_flight

    def start(self, tasks: Sequence[Any]) -> None:
        self.waiting.extend((t, 1) for t in tasks)
        self._submit()

    def _submit(self) -> None:
        while self.waiting and self.free_slots and not self.stopped:
            task, number = self.waiting.popleft()
            slot = self.free_slots.pop()
            gen = self.remote.remote(self.job, self.setup, task, self.show_hands, slot)
            self.running[gen] = Attempt(task, number, slot,
                                        dict(self.job.destinations(self.setup, task)))

    def poll(self, timeout: float) -> list[Message]:
        import ray

        if not self.running:
            time.sleep(min(timeout, 0.05))
            self._submit()
            return []
        out: list[Message] = []
        ready, _ = ray.wait(list(self.running), num_returns=1, timeout=timeout)
        while ready:
            for gen in ready:
                out += self._next(gen)
            if not self.running or len(out) > 10_000:
                break
            ready, _ = ray.wait(list(self.running), num_returns=len(self.running), timeout=0)
        self._submit()
        return out

    def _next(self, gen: Any) -> list[Message]:
        import ray
        from ray.exceptions import RayError, RayTaskError

        attempt = self.running[gen]
        try:
            batch: list[Message] = ray.get(next(gen))
        except StopIteration:
            self._end(gen)
            return [] if attempt.ended else [self.job.lost(attempt.task, "ended without a result")]
        except RayTaskError as exc:  # the task's own code failed: not a lost worker
            self._end(gen)
            return [] if attempt.ended else [self.job.lost(attempt.task, first_line(exc))]
        except RayError as exc:  # its worker process or node died
            self._end(gen)
            return self._lost(attempt, first_line(exc))
        return [m for msg in batch if (m := self._driver_side(attempt, msg)) is not None]

    def _driver_side(self, attempt: Attempt, msg: Message) -> Message | None:
        kind = msg[0]
        if kind in ENDING:
            attempt.ended = True
        elif kind == "log":  # a fresh name in the driver's folder, taken now
            log_dir = self.job.log_dir_of(self.setup)
            if log_dir is None:
                return None
            path = next_log_path(log_dir, msg[1])
            with open(path, "xb"):
                pass
            attempt.files[Path(msg[2]).name] = str(path)
            return ("log", msg[1], str(path))
        elif kind == "file":
            dest = attempt.files.get(msg[1])
            if dest is not None:
                with open(dest, "wb") as f:
                    f.write(msg[2])
            return None
        return msg

    def _lost(self, attempt: Attempt, why: str) -> list[Message]:
        if attempt.ended:
            return []  # its result is in; only files not sent yet were lost
        key = self.job.key(attempt.task)
        if attempt.number < self.job.attempts and not self.stopped:
            self.retries += 1
            self.waiting.appendleft((attempt.task, attempt.number + 1))
            return [("retry", key, attempt.number, why)]
        return [self.job.lost(attempt.task, f"lost with its Ray worker after {attempt.number} "
                                            f"attempt(s): {why}")]

    def _end(self, gen: Any) -> None:
        attempt = self.running.pop(gen)
        self.free_slots.append(attempt.slot)

    @property
    def finished(self) -> bool:
        return not self.running and (not self.waiting or self.stopped)

    def crashed(self) -> list[tuple[int, int | None]]:
        return []  # a lost task is retried or failed by poll()

    def interrupt(self, signum: int) -> None:
        self.stop()

    def stop(self) -> None:
        import ray

        self.stopped = True
        for gen in list(self.running):
            with contextlib.suppress(Exception):  # already over, or its worker gone
                ray.cancel(gen, force=True)
        self.running.clear()

    def join(self) -> None:
        pass


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


__all__ = ["RayConnectError", "RayJob", "RayRun", "connect", "play_task"]
