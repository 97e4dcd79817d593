"""The tables a worker plays, watched (``--publish``): their newest snapshots, relayed the way
the results travel.

In a worker each table's match has a :class:`~daihinmin.watch.publish.TableWatcher` and
:func:`relay_views` (or :func:`start_relay_thread`) hands its newest snapshot to the result
queue at most ``VIEW_SECONDS`` apart (``("view", key, snapshot)``, latest only: a spectator
needs no stale one, and the queue never fills with them).  Whoever reads the results (the
tournament's dispatcher) publishes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import trio
from daihinmin.rules.ruleset import RuleSet
from daihinmin.watch.publish import TableWatcher

from .spec import MatchSpec

VIEW_SECONDS = 0.1  # a table's snapshots reach the dispatcher at most this often


class Views:
    """A worker's tables being watched now, by slot key; :func:`relay_views` (a TCP worker's
    Trio task) or :func:`start_relay_thread` (an in-process worker) sends them."""

    def __init__(self, show_hands: bool) -> None:
        self.show_hands = show_hands
        self.watchers: dict[str, TableWatcher] = {}
        self.sent: dict[str, int] = {}
        self._lock = threading.Lock()  # the in-process relay reads from its own thread

    def watch(self, key: str, rules: RuleSet, games: int, names: list[str],
              match: dict[str, Any]) -> TableWatcher:
        watcher = TableWatcher(rules, games, "tournament", self.show_hands,
                               names=[f"p{p} {n}" for p, n in enumerate(names)],
                               extra={"match": match})
        with self._lock:
            self.watchers[key] = watcher
            self.sent.pop(key, None)
        return watcher

    def due(self) -> list[tuple[str, dict[str, Any]]]:
        """The snapshots that changed since last asked (each ``latest`` is replaced whole,
        never changed in place, so it may be read while the table plays on)."""
        out = []
        with self._lock:
            for key, watcher in self.watchers.items():
                version = watcher.version
                if self.sent.get(key) != version:
                    self.sent[key] = version
                    out.append((key, watcher.latest))
        return out


def watch_match(views: Views | None, key: str, rules: RuleSet,
                spec: MatchSpec) -> TableWatcher | None:
    """The observer publishing this match's table (``--publish``), if any."""
    if views is None:
        return None
    return views.watch(key, rules, spec.games, spec.names(),
                       {"number": spec.id, "key": spec.label, "table": key})


def relay_due(views: Views, put: Callable[[tuple[Any, ...]], None]) -> None:
    """Hand the snapshots that changed to ``put`` now (also when a match or worker ends, so
    the last state of a table is never lost to the timer)."""
    for key, latest in views.due():
        put(("view", key, latest))


async def relay_views(views: Views, put: Callable[[tuple[Any, ...]], None]) -> None:
    """:func:`relay_due` every ``VIEW_SECONDS`` until cancelled."""
    while True:
        await trio.sleep(VIEW_SECONDS)
        relay_due(views, put)


def start_relay_thread(views: Views, put: Callable[[tuple[Any, ...]], None]
                       ) -> threading.Event:
    """:func:`relay_views` for a worker without a Trio loop (in process): a daemon thread,
    so a table that plays without a pause is still shown as it is now; it ends when the
    returned event is set (a Ray worker process plays many tasks, each with its relay)."""
    done = threading.Event()

    def relay() -> None:
        while not done.wait(VIEW_SECONDS):
            relay_due(views, put)

    threading.Thread(target=relay, name="tournament-views", daemon=True).start()
    return done


__all__ = ["VIEW_SECONDS", "Views", "relay_due", "relay_views", "start_relay_thread",
           "watch_match"]
