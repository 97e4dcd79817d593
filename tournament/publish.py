"""``tournament --publish URL``: every table of a running tournament, live in ``daihinmin web``,
with the tournament's standings.

The tables play in worker processes and the standings are added up by the dispatcher, so
the snapshots travel the way the results do.  In a worker each table's match has a
:class:`~daihinmin.watch.publish.TableWatcher` (the observer ``serve``/``match --publish`` use)
and :func:`relay_views` hands its newest snapshot to the result queue at most
``VIEW_SECONDS`` apart (``("view", key, snapshot)``, latest only: a spectator needs no stale
one, and the queue never fills with them).  In the dispatcher a :class:`TournamentRelay`
thread keeps one websocket per table slot to the web app and sends each table's newest
snapshot with the live standings added (``"tournament"``).  Nothing of this can stop or slow
the tournament: a web app that cannot be reached is warned about and retried, and the
results (database, report) never depend on it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio
from daihinmin.rules.ruleset import RuleSet
from daihinmin.watch.publish import TablePublisher, TableWatcher

from .config import TournamentConfig
from .live import LiveTally
from .schedule import MatchSpec

VIEW_SECONDS = 0.1  # a table's snapshots reach the dispatcher at most this often
STANDINGS_SECONDS = 1.0  # the standings are re-sent at most this often
STANDINGS_ROWS = 100  # participants listed (a snapshot stays far below the web app's limit)
START_SECONDS = 10.0


@dataclass(frozen=True)
class Publishing:
    """What ``--publish``/``--publish-hands`` asked for (sent to the workers: picklable)."""

    url: str
    show_hands: bool = False


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


def watch_match(views: Views | None, key: str, cfg: TournamentConfig, rules: RuleSet,
                spec: MatchSpec) -> TableWatcher | None:
    """The observer publishing this match's table (``--publish``), if any."""
    if views is None:
        return None
    names = [cfg.participants[i].name for i in spec.lineup]
    return views.watch(key, rules, spec.games, names,
                       {"number": spec.index, "key": spec.key, "table": key})


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


def start_relay_thread(views: Views, put: Callable[[tuple[Any, ...]], None]) -> None:
    """:func:`relay_views` for a worker without a Trio loop (in process): a daemon thread,
    so a table that plays without a pause is still shown as it is now."""
    def relay() -> None:
        while True:
            time.sleep(VIEW_SECONDS)
            relay_due(views, put)

    threading.Thread(target=relay, name="tournament-views", daemon=True).start()


def standings_json(tally: LiveTally) -> dict[str, Any]:
    """The live standings as the watch page shows them (the order of the live ratings)."""
    names, ratings = list(tally.names), list(tally.ratings)
    order = sorted(range(len(names)), key=lambda i: -ratings[i][0])
    rows = []
    for i in order[:STANDINGS_ROWS]:
        g = tally.seat_games[i]
        rows.append({"name": names[i], "games": g,
                     "mean": round(tally.points[i] / g, 3) if g else None,
                     "first": round(100 * tally.wins[i] / g, 1) if g else None,
                     "mu": round(ratings[i][0], 2), "sigma": round(ratings[i][1], 2),
                     "faults": tally.faults[i].text() if tally.faults[i].counts else ""})
    return {"done": min(tally.done_before + tally.played, tally.total_games),
            "total": tally.total_games, "matches_done": tally.matches_done,
            "failed": tally.failures, "lower_is_better": tally.lower_is_better,
            "more": max(0, len(names) - STANDINGS_ROWS), "rows": rows}


class RelayedTable(TablePublisher):
    """One table slot of the tournament, as one published table: the snapshots of the
    matches the slot plays one after another, each with the standings."""

    def __init__(self, url: str, rules: RuleSet, games: int, show_hands: bool) -> None:
        super().__init__(url, rules, games, "tournament", show_hands)
        self.table: dict[str, Any] = dict(self.latest)
        self.standings: dict[str, Any] = {}

    def relay(self, snapshot: dict[str, Any]) -> None:
        self.table = snapshot
        self.status = "playing"
        self._show()

    def show_standings(self, standings: dict[str, Any]) -> None:
        self.standings = standings
        self._show()

    def _show(self) -> None:
        self.latest = {**self.table, "tournament": self.standings}
        self._update()


class TournamentRelay:
    """The dispatcher's publisher: a thread with its own Trio loop and one websocket per
    table slot.  :meth:`view` and :meth:`close` are called from the dispatcher's thread."""

    def __init__(self, publishing: Publishing, rules: RuleSet, games: int,
                 tally: LiveTally) -> None:
        self.publishing = publishing
        self.rules = rules
        self.games = games
        self.tally = tally
        self.tables: dict[str, RelayedTable] = {}
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main,),
                                        name="tournament-publish", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._started.wait(START_SECONDS)

    def view(self, key: str, snapshot: dict[str, Any]) -> None:
        if self._token is not None:
            try:
                trio.from_thread.run_sync(self._view, key, snapshot, trio_token=self._token)
            except trio.RunFinishedError:
                self._token = None

    def close(self, finished: bool) -> None:
        """Stop publishing; ``finished``: the tournament ran to its end (else the tables are
        left to show "ended", never "over")."""
        if self._token is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run(self._close, finished, trio_token=self._token)
        self._token = None
        self._thread.join(START_SECONDS)

    # --- in the relay's Trio loop -------------------------------------------------------------
    async def _main(self) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._token = trio.lowlevel.current_trio_token()
            self._started.set()
            nursery.start_soon(self._standings)

    def _view(self, key: str, snapshot: dict[str, Any]) -> None:
        table = self.tables.get(key)
        if table is None:
            assert self._nursery is not None
            table = self.tables[key] = RelayedTable(self.publishing.url, self.rules,
                                                    self.games, self.publishing.show_hands)
            table.standings = standings_json(self.tally)
            self._nursery.start_soon(table.run)
        table.relay(snapshot)

    async def _standings(self) -> None:
        seen: tuple[int, int, int] | None = None
        while True:
            now = (self.tally.played, self.tally.failures, self.tally.matches_done)
            if now != seen:
                seen = now
                standings = standings_json(self.tally)
                for table in self.tables.values():
                    table.show_standings(standings)
            await trio.sleep(STANDINGS_SECONDS)

    async def _close(self, finished: bool) -> None:
        assert self._nursery is not None
        if finished:
            standings = standings_json(self.tally)
            async with trio.open_nursery() as last:
                for table in self.tables.values():
                    table.show_standings(standings)
                    last.start_soon(table.finish)
        self._nursery.cancel_scope.cancel()


__all__ = ["Publishing", "TournamentRelay", "Views",
           "relay_due", "relay_views", "standings_json", "start_relay_thread", "watch_match"]
