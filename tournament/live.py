"""Running totals while a tournament plays, and their rich live display.

The live rating is updated in the order games arrive (fast, approximate); the final report
recomputes everything from the database in schedule order.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from daihinmin.local.terminal_text import markup_safe
from openskill.models import PlackettLuce
from rich import box
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from .stats import game_ranks
from .store import ParticipantFaults


class LiveTally:
    def __init__(self, names: Sequence[str], total_games: int, done_games: int,
                 transport: str, lower_is_better: bool = False) -> None:
        self.names = list(names)
        self.lower_is_better = lower_is_better
        self.faults = [ParticipantFaults() for _ in names]
        self.total_games = total_games
        self.done_before = done_games
        self.transport = transport
        self.played = 0  # games finished in this run (including ones later replayed)
        self.matches_done = 0
        self.failures = 0
        self.started = time.perf_counter()
        n = len(names)
        self.seat_games = [0] * n
        self.points = [0] * n
        self.wins = [0] * n
        self.model = PlackettLuce()
        self.ratings = [(self.model.mu, self.model.sigma)] * n

    def add_game(self, lineup: Sequence[int], places: Sequence[int],
                 points: Sequence[int]) -> None:
        self.played += 1
        for p, i in enumerate(lineup):
            self.seat_games[i] += 1
            self.points[i] += points[p]
            self.wins[i] += places[p] == 0
        teams = [[self.model.rating(mu=self.ratings[i][0], sigma=self.ratings[i][1])]
                 for i in lineup]
        new = self.model.rate(teams, ranks=game_ranks(places, points, self.lower_is_better))
        for i, team in zip(lineup, new, strict=True):  # copies: the last one wins (live only)
            self.ratings[i] = (team[0].mu, team[0].sigma)

    def add_faults(self, lineup: Sequence[int], rows: Sequence[tuple[Any, ...]]) -> None:
        for player, status, counts, by, _ in rows:
            f = self.faults[lineup[player]]
            for kind, k in (counts or {status: 1}).items():
                f.counts[kind] = f.counts.get(kind, 0) + int(k)
            f.replaced_matches += by is not None

    @property
    def games_per_second(self) -> float:
        wall = time.perf_counter() - self.started
        return self.played / wall if wall > 0 else 0.0

    def render(self) -> RenderableType:
        done = min(self.done_before + self.played, self.total_games)
        rate = self.games_per_second
        left = self.total_games - done
        eta = f"{left / rate:,.0f} s" if rate > 0 else "?"
        head = Text(f"{done:,}/{self.total_games:,} games  {rate:,.1f} games/s  ETA {eta}  "
                    f"[{self.transport}]" + (f"  failed matches: {self.failures}"
                                             if self.failures else ""))
        bar = ProgressBar(total=max(self.total_games, 1), completed=done)
        table = Table(show_edge=False, pad_edge=False, box=box.SIMPLE_HEAD,
                      padding=(0, 1), collapse_padding=True)  # 80 columns
        faulty = any(f.counts for f in self.faults)
        cols = ["participant", "seat-games", "mean pts", "1st %", "mu", "sigma"]
        for col in cols + (["faults"] if faulty else []):
            table.add_column(col, justify="left" if col in ("participant", "faults")
                             else "right", no_wrap=True,
                             overflow="ellipsis", max_width=24 if col == "participant"
                             else None)
        order = sorted(range(len(self.names)), key=lambda i: -self.ratings[i][0])
        for i in order:
            g = self.seat_games[i]
            row = [markup_safe(self.names[i], newlines=False), f"{g:,}",
                   f"{self.points[i] / g:.3f}" if g else "-",
                   f"{100 * self.wins[i] / g:.1f}" if g else "-",
                   f"{self.ratings[i][0]:.2f}", f"{self.ratings[i][1]:.2f}"]
            table.add_row(*row, *([markup_safe(self.faults[i].text(), False)]
                                  if faulty else []))
        return Group(head, bar, table)


class LiveDisplay:
    """A rich live view of a :class:`LiveTally` (refreshed by rich's own thread)."""

    def __init__(self, tally: LiveTally, console: Console | None = None) -> None:
        self.live = Live(get_renderable=tally.render, console=console or Console(),
                         refresh_per_second=2, transient=False)

    def __enter__(self) -> LiveDisplay:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.__exit__(None, None, None)
