"""Standings of a match: points, places, move times and seat status per player.

>>> from daihinmin.server.matchlog import GameRecord, PlayerInfo, TurnRecord
>>> s = Standings([PlayerInfo(0, "a", 20070), PlayerInfo(1, "b", 20070)])
>>> s.add_game(GameRecord(1, [0, 1], 0, None, [], places=[1, 0], points=[1, 2],
...                       turns=[TurnRecord(0, "S3", 9, 2.0), TurnRecord(1, "pass", 9, 4.0)]))
>>> [(p.name, p.points, p.mean_place, p.places, p.mean_move_ms) for p in s.ranked()]
[('b', 2, 1.0, [1, 0], 4.0), ('a', 1, 2.0, [0, 1], 2.0)]

A forfeited player ranks below every player who did not forfeit, whatever its points (its
seat passed every turn after the forfeit and kept the points the engine gave it, normally the
last place's); among forfeited players the later forfeit ranks higher:

>>> from daihinmin.server.faults import SeatReport, SeatStatus
>>> s.apply_reports([SeatReport(0), SeatReport(1, SeatStatus.TIMEOUT, {"TIMEOUT": 5},
...                                             "forfeit", 1, 7)])
>>> [(p.name, p.status, p.forfeited) for p in s.ranked()]
[('a', 'OK', False), ('b', 'TIMEOUT', True)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .faults import SeatReport
from .matchlog import GameRecord, PlayerInfo

FORFEIT = "forfeit"


@dataclass
class PlayerStanding:
    number: int
    name: str
    label: str = ""  # how the player was launched (bot kind or command), if known
    points: int = 0
    places: list[int] = field(default_factory=list)  # games finished 1st, 2nd, ...
    moves: int = 0
    think_ms: float = 0.0
    status: str = "OK"  # see daihinmin.server.faults
    faults: dict[str, int] = field(default_factory=dict)
    stand_in: str | None = None  # "fallback" / "forfeit": who played the seat at the end
    since: tuple[int, int] | None = None  # (game, turn) the stand-in took over
    stand_in_games: int = 0  # games a stand-in played, at least in part
    detail: str = ""

    @property
    def games(self) -> int:
        return sum(self.places)

    @property
    def forfeited(self) -> bool:
        return self.stand_in == FORFEIT

    @property
    def mean_place(self) -> float:
        """Mean finishing place, 1 = first."""
        if not self.games:
            return 0.0
        return sum((i + 1) * k for i, k in enumerate(self.places)) / self.games

    @property
    def mean_move_ms(self) -> float:
        return self.think_ms / self.moves if self.moves else 0.0

    def status_text(self) -> str:
        """E.g. ``OK``, ``TIMEOUT x2``, ``DISCONNECTED -> fallback from game 3 turn 12``."""
        text = self.status
        if self.faults.get(self.status, 0) > 1:
            text += f" x{self.faults[self.status]}"
        if self.stand_in is not None:
            text += f" -> {self.stand_in}"
            if self.since is not None:
                text += f" from game {self.since[0]}" + (f" turn {self.since[1]}"
                                                         if self.since[1] else "")
        return text

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"number": self.number, "name": self.name, "label": self.label,
                             "points": self.points, "mean_place": round(self.mean_place, 4),
                             "places": self.places, "mean_move_ms": round(self.mean_move_ms, 3),
                             "status": self.status, "faults": self.faults,
                             "stand_in": self.stand_in, "stand_in_games": self.stand_in_games,
                             "forfeited": self.forfeited}
        if self.since is not None:
            d["since_game"], d["since_turn"] = self.since
        if self.detail:
            d["detail"] = self.detail
        return d


class Standings:
    def __init__(self, players: Iterable[PlayerInfo], labels: list[str] | None = None) -> None:
        infos = list(players)
        n = len(infos)
        self.games = 0
        self.players = [PlayerStanding(p.number, p.name,
                                       labels[p.number] if labels else "", places=[0] * n)
                        for p in infos]

    def add_game(self, record: GameRecord) -> None:
        self.games += 1
        for p, (place, pts) in enumerate(zip(record.places, record.points, strict=True)):
            self.players[p].points += pts
            self.players[p].places[place] += 1
        for turn in record.turns:
            if turn.by is None:  # only the player's own moves count for its move time
                self.players[turn.player].moves += 1
                self.players[turn.player].think_ms += turn.think_ms
        for p in record.stand_in:
            self.players[p].stand_in_games += 1
        for event in record.events:  # what the log says, for logs without seat reports
            s = self.players[event.player]
            s.status = str(event.status)
            s.detail = event.detail
            if event.action in ("fallback", FORFEIT):
                s.stand_in, s.since = event.action, (event.game, event.turn)

    def apply_reports(self, reports: Iterable[SeatReport]) -> None:
        """The seats' final reports (status, fault counts, stand-in) from the server."""
        for r in reports:
            s = self.players[r.player]
            s.status, s.faults, s.detail = str(r.status), dict(r.faults), r.detail
            s.stand_in = r.stand_in
            s.since = ((r.since_game, r.since_turn or 0) if r.since_game is not None
                       else None)

    def ranked(self) -> list[PlayerStanding]:
        """Most points first; ties by mean place, then player number.  Forfeited players
        come last, the later forfeit first."""
        def key(s: PlayerStanding) -> tuple[Any, ...]:
            late = -(s.since[0] * 10_000 + s.since[1]) if s.forfeited and s.since else 0
            return (s.forfeited, late, -s.points, s.mean_place, s.number)

        return sorted(self.players, key=key)
