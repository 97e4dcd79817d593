"""The standings of ``match`` and ``serve`` on a terminal (80 columns) and as JSON.

A seat that a stand-in played shows its own games and points apart from the stand-in's
(see :mod:`daihinmin.records.standings` and docs/RESULTS.md); each faulty seat gets a line
under the table saying what happened, so the table itself stays narrow.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from daihinmin.records.standings import PlayerStanding, Standings
    from daihinmin.server.config import ServerConfig
    from rich.console import Console

LABEL_CHARS = 14


def short_label(label: str) -> str:
    """A bundled bot's kind as is; a command by its program's file name (``./bots/x.py
    {host} {port}`` -> ``x.py``), cut with an ellipsis past ``LABEL_CHARS``."""
    try:
        words = shlex.split(label)
    except ValueError:
        words = label.split()
    text = Path(words[0]).name if len(words) > 1 or "/" in label else label
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def who(s: PlayerStanding) -> str:
    label = short_label(s.label) if s.label else ""
    name = s.name if len(s.name) <= LABEL_CHARS else s.name[:LABEL_CHARS - 1] + "…"
    return f"#{s.number} {name}" + (f" ({label})" if label and label != s.name else "")


def standings_json(standings: Standings, config: ServerConfig, *, log_path: Path | None,
                   wall_seconds: float, resumed_after: int, totals: list[int],
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"games": standings.games, "seed": config.seed, "rules": config.rules.name,
            "lower_is_better": standings.lower_is_better,
            "players": [p.to_json() for p in sorted(standings.players, key=lambda s: s.number)],
            "ranking": [p.number for p in standings.ranked()],
            "stand_in_games": standings.stand_in_games,
            "totals": totals, "resumed_after": resumed_after,
            "log": str(log_path) if log_path else None,
            "wall_seconds": round(wall_seconds, 3), **(extra or {})}


def stand_in_line(s: PlayerStanding) -> str:
    """What happened to a faulty seat, in words."""
    text = f"#{s.number} {s.status_text()}"
    if s.stand_in_games:
        text += (f"; a stand-in played {s.stand_in_games} of its games ({s.stand_in_points} "
                 f"points, not counted as its own)")
    return text + (f": {s.detail}" if s.detail else "")


def print_standings(standings: Standings, console: Console, *, wall_seconds: float,
                    resumed_after: int = 0, log_path: Path | None = None,
                    title: str | None = None) -> None:
    from daihinmin.local.terminal_text import markup_safe
    from daihinmin.values.words import counted
    from rich import box
    from rich.table import Table as RichTable

    n = len(standings.players)
    lower = standings.lower_is_better
    table = RichTable(title=title or f"Standings after {counted(standings.games, 'game')}"
                      + (" (fewer points are better)" if lower else ""),
                      box=box.SIMPLE_HEAD, padding=(0, 0), show_edge=False)  # 80 columns

    def number(header: str) -> None:
        table.add_column(header, justify="right", no_wrap=True)

    number("#")
    table.add_column("player", no_wrap=True, overflow="ellipsis", max_width=22)
    number("points")
    replaced = standings.stand_in_games > 0
    if replaced:
        number("games")  # own + played by a stand-in
    number("mean place")
    for place in range(n):
        number(f"{place + 1}.")
    number("ms/mv")
    faulty = any(s.status != "OK" for s in standings.players)
    if faulty:
        table.add_column("status", no_wrap=True)
    for rank, s in enumerate(standings.ranked(), 1):
        # Names come from the players' profiles: shown as text, never as markup.
        row = [str(rank), markup_safe(who(s), newlines=False), str(s.points)]
        if replaced:
            row.append(f"{s.own_games}+{s.stand_in_games}")
        row += [s.mean_place_text(), *[str(k) for k in s.places], f"{s.mean_move_ms:.1f}"]
        if faulty:
            row.append(markup_safe(s.short_status(), newlines=False))
        table.add_row(*row)
    console.print(table)
    for s in standings.players:
        if s.status != "OK" or s.stand_in_games:
            console.print(markup_safe(stand_in_line(s)), highlight=False)
    if replaced:
        console.print("games: own + played by a stand-in.  Points and places count only "
                      "the games a participant played itself; seats a stand-in played rank "
                      "last.", highlight=False)
    rate = standings.games / wall_seconds if wall_seconds else 0.0
    resumed = f" (resumed after game {resumed_after})" if resumed_after else ""
    console.print(f"{counted(standings.games, 'game')} in {wall_seconds:.1f} s "
                  f"({rate:.1f} games/s){resumed}" +
                  (f"; log: {markup_safe(str(log_path))}" if log_path else ""), highlight=False)
