"""The seats of a game that met a fault, as rows a results store keeps: what a table
reports when a stand-in played (the runs' tables and the league's matches alike)."""

from __future__ import annotations

from collections.abc import Sequence

from daihinmin.driver.faults import SeatReport
from daihinmin.driver.record import GameRecord

FaultRow = tuple[int, str, dict[str, int], str | None, str]  # player, status, counts, by, why


def fault_rows(reports: Sequence[SeatReport], detail_chars: int) -> list[FaultRow]:
    """A row for each seat that met a fault, its detail cut to ``detail_chars``."""
    return [(r.player, str(r.status), dict(r.faults), r.stand_in, r.detail[:detail_chars])
            for r in reports if not r.pristine]


def stand_in_rows(record: GameRecord, detail_chars: int) -> list[FaultRow]:
    """A row for each seat a stand-in played in the game: its seat report, else its
    hand-over event, else a bare CRASHED (in the order the game found them)."""
    rows: dict[int, FaultRow] = {}
    for e in record.events:
        if e.player in record.stand_in:
            rows[e.player] = (e.player, str(e.status), {str(e.status): 1}, e.action,
                              e.detail[:detail_chars])
    for row in fault_rows(record.reports, detail_chars):
        if row[0] in record.stand_in:
            rows[row[0]] = row
    for p in record.stand_in:
        rows.setdefault(p, (p, "CRASHED", {}, "fallback", "a stand-in played the seat"))
    return list(rows.values())
