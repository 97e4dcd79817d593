"""Standings of a match: points, places and move times per player, from the game records.

>>> from daihinmin.server.matchlog import GameRecord, PlayerInfo, TurnRecord
>>> s = Standings([PlayerInfo(0, "a", 20070), PlayerInfo(1, "b", 20070)])
>>> s.add_game(GameRecord(1, [0, 1], 0, None, [], places=[1, 0], points=[1, 2],
...                       turns=[TurnRecord(0, "S3", 9, 2.0), TurnRecord(1, "pass", 9, 4.0)]))
>>> [(p.name, p.points, p.mean_place, p.places, p.mean_move_ms) for p in s.ranked()]
[('b', 2, 1.0, [1, 0], 4.0), ('a', 1, 2.0, [0, 1], 2.0)]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .matchlog import GameRecord, PlayerInfo


@dataclass
class PlayerStanding:
    number: int
    name: str
    label: str = ""  # how the player was launched (bot kind or command), if known
    points: int = 0
    places: list[int] = field(default_factory=list)  # games finished 1st, 2nd, ...
    moves: int = 0
    think_ms: float = 0.0

    @property
    def games(self) -> int:
        return sum(self.places)

    @property
    def mean_place(self) -> float:
        """Mean finishing place, 1 = first."""
        if not self.games:
            return 0.0
        return sum((i + 1) * k for i, k in enumerate(self.places)) / self.games

    @property
    def mean_move_ms(self) -> float:
        return self.think_ms / self.moves if self.moves else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "name": self.name, "label": self.label,
                "points": self.points, "mean_place": round(self.mean_place, 4),
                "places": self.places, "mean_move_ms": round(self.mean_move_ms, 3)}


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
            self.players[turn.player].moves += 1
            self.players[turn.player].think_ms += turn.think_ms

    def ranked(self) -> list[PlayerStanding]:
        """Most points first; ties by mean place, then player number."""
        return sorted(self.players, key=lambda s: (-s.points, s.mean_place, s.number))
