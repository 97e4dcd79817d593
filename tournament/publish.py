"""``tournament --publish URL``: every table of a running tournament, live in ``daihinmin web``,
with the tournament's standings.

The tables play in a run's workers (local processes or Ray nodes) and the standings are added
up by the dispatcher, so the snapshots travel the way the results do
(:mod:`daihinmin.runs.views`: ``("view", key, snapshot)`` messages).  In the dispatcher a
:class:`TournamentRelay` thread keeps one websocket per table slot to the web app and sends
each table's newest snapshot with the live standings added (``"tournament"``).  Nothing of
this can stop or slow the tournament: a web app that cannot be reached is warned about and
retried, and the results (database, report) never depend on it.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import Any

import trio
from daihinmin.rules.ruleset import RuleSet
from daihinmin.watch.publish import TablePublisher

from .live import LiveTally

STANDINGS_SECONDS = 1.0  # the standings are re-sent at most this often
STANDINGS_ROWS = 100  # participants listed (a snapshot stays far below the web app's limit)
START_SECONDS = 10.0


@dataclass(frozen=True)
class Publishing:
    """What ``--publish``/``--publish-hands`` asked for (sent to the workers: picklable)."""

    url: str
    show_hands: bool = False


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


__all__ = ["Publishing", "TournamentRelay", "standings_json"]
