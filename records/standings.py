"""Standings of a match: points, places, move times and seat status per player.

A game is the participant's own when no stand-in played any of its turns; only own games
count for its points, places and mean place.  The games a stand-in played (at least in part)
are counted apart with the points the seat earned in them (``stand_in_points``), so a
stand-in's play is never credited to the participant (docs/RESULTS.md).

>>> from daihinmin.driver.record import GameRecord, TurnRecord
>>> from daihinmin.records.matchlog import PlayerInfo
>>> s = Standings([PlayerInfo(0, "a", 20070), PlayerInfo(1, "b", 20070)])
>>> s.add_game(GameRecord(1, [0, 1], 0, None, [], places=[1, 0], points=[1, 2],
...                       turns=[TurnRecord(0, "S3", 9, 2.0), TurnRecord(1, "pass", 9, 4.0)]))
>>> [(p.name, p.points, p.mean_place, p.places, p.mean_move_ms) for p in s.ranked()]
[('b', 2, 1.0, [1, 0], 4.0), ('a', 1, 2.0, [0, 1], 2.0)]

Equal points rank by the better place in the last game, the rule every preset takes
(:func:`daihinmin.rules.scoring.outcome_key`, which the engine's standings use too):

>>> tie = Standings([PlayerInfo(0, "a", 20070), PlayerInfo(1, "b", 20070)])
>>> tie.add_game(GameRecord(1, [0, 1], 0, None, [], places=[0, 1], points=[2, 1]))
>>> tie.add_game(GameRecord(2, [0, 1], 0, None, [], places=[1, 0], points=[1, 2]))
>>> [p.name for p in tie.ranked()]
['b', 'a']

A seat a stand-in played ranks below every seat its own participant played throughout,
whatever its points; among such seats, the later hand-over ranks higher.  A game the
stand-in played does not count as the participant's:

>>> s.add_game(GameRecord(2, [0, 1], 0, None, [], places=[0, 1], points=[2, 1],
...                       stand_in=[0]))
>>> [(p.name, p.points, p.own_games, p.stand_in_games, p.stand_in_points)
...  for p in s.ranked()]
[('b', 3, 2, 0, 0), ('a', 1, 1, 1, 2)]

Under card scoring (13th floor) fewer points are better:

>>> from daihinmin.rules.ruleset import THIRTEENTH_FLOOR
>>> low = Standings([PlayerInfo(0, "a", 20070), PlayerInfo(1, "b", 20070)],
...                 rules=THIRTEENTH_FLOOR.with_rules(players=2, min_players=2))
>>> low.add_game(GameRecord(1, [0, 1], 0, None, [], places=[0, 1], points=[-30, 40]))
>>> [p.name for p in low.ranked()]
['a', 'b']

The seats' final reports from the server give each status and stand-in:

>>> from daihinmin.driver.faults import SeatReport, SeatStatus
>>> s.apply_reports([SeatReport(0, SeatStatus.CRASHED, {}, "fallback", 2, 0),
...                  SeatReport(1, SeatStatus.TIMEOUT, {"TIMEOUT": 2})])
>>> [(p.name, p.status_text()) for p in s.ranked()]
[('b', 'TIMEOUT x2'), ('a', 'CRASHED, fallback from game 2')]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from daihinmin.driver.faults import SeatReport
from daihinmin.driver.record import GameRecord
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.rules.scoring import lower_is_better, outcome_key

from .matchlog import PlayerInfo

FORFEIT = "forfeit"


@dataclass
class PlayerStanding:
    number: int
    name: str
    label: str = ""  # how the player was launched (bot kind or command), if known
    points: int = 0  # earned in the participant's own games only
    places: list[int] = field(default_factory=list)  # own games finished 1st, 2nd, ...
    last_place: int = 0  # its place in the match's last game (0 = first): breaks ties
    moves: int = 0
    think_ms: float = 0.0
    status: str = "OK"  # see daihinmin.driver.faults
    faults: dict[str, int] = field(default_factory=dict)
    stand_in: str | None = None  # "fallback" / "forfeit": who played the seat at the end
    since: tuple[int, int] | None = None  # (game, turn) the stand-in took over
    stand_in_games: int = 0  # games a stand-in played, at least in part
    stand_in_points: int = 0  # what the seat earned in those games
    detail: str = ""

    @property
    def own_games(self) -> int:
        return sum(self.places)

    games = own_games

    @property
    def seat_points(self) -> int:
        """The seat's match total, as the engine counts it (the stand-in's part included)."""
        return self.points + self.stand_in_points

    @property
    def forfeited(self) -> bool:
        return self.stand_in == FORFEIT

    @property
    def replaced(self) -> bool:
        """A stand-in played some of this seat's games."""
        return self.stand_in is not None or self.stand_in_games > 0

    @property
    def mean_place(self) -> float:
        """Mean finishing place over the own games, 1 = first (0.0: no own game; shown as
        :meth:`mean_place_text`)."""
        if not self.own_games:
            return 0.0
        return sum((i + 1) * k for i, k in enumerate(self.places)) / self.own_games

    def mean_place_text(self) -> str:
        """``1.40``, or ``-`` for a seat that played no game itself (a stand-in played them)."""
        return f"{self.mean_place:.2f}" if self.own_games else "-"

    @property
    def mean_move_ms(self) -> float:
        return self.think_ms / self.moves if self.moves else 0.0

    def status_text(self) -> str:
        """E.g. ``OK``, ``TIMEOUT x2``, ``CRASHED, fallback from game 3 turn 12``."""
        text = self.status
        if self.faults.get(self.status, 0) > 1:
            text += f" x{self.faults[self.status]}"
        if self.stand_in is not None:
            text += f", {self.stand_in}"
            if self.since is not None:
                text += f" from game {self.since[0]}" + (f" turn {self.since[1]}"
                                                         if self.since[1] else "")
        return text

    def short_status(self) -> str:
        """The status for a narrow table: ``OK``, ``TIMEOUT x2``, ``CRASHED g3``."""
        text = self.status
        if self.faults.get(self.status, 0) > 1:
            text += f" x{self.faults[self.status]}"
        if self.stand_in is not None and self.since is not None:
            text += f" g{max(self.since[0], 1)}"
        return text

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"number": self.number, "name": self.name, "label": self.label,
                             "points": self.points, "own_games": self.own_games,
                             "seat_points": self.seat_points,
                             "mean_place": round(self.mean_place, 4) if self.own_games
                             else None,
                             "places": self.places, "mean_move_ms": round(self.mean_move_ms, 3),
                             "status": self.status, "faults": self.faults,
                             "stand_in": self.stand_in, "stand_in_games": self.stand_in_games,
                             "stand_in_points": self.stand_in_points,
                             "forfeited": self.forfeited}
        if self.since is not None:
            d["since_game"], d["since_turn"] = self.since
        if self.detail:
            d["detail"] = self.detail
        return d


class Standings:
    """Built up one game at a time (``add_game`` as each game ends), so no list of all the
    games is needed; the seats' reports are applied at the end."""

    def __init__(self, players: Iterable[PlayerInfo], labels: list[str] | None = None, *,
                 rules: RuleSet = UECDA) -> None:
        infos = list(players)
        n = len(infos)
        self.games = 0
        self.rules = rules
        self.lower_is_better = lower_is_better(rules)
        self.players = [PlayerStanding(p.number, p.name,
                                       labels[p.number] if labels else "", places=[0] * n)
                        for p in infos]

    def name_players(self, players: Iterable[PlayerInfo]) -> None:
        """The names from the players' profiles (once they are seated)."""
        for info in players:
            self.players[info.number].name = info.name

    def add_game(self, record: GameRecord, *, last: bool = True) -> None:
        """Add a finished game; ``last``: it is the match's latest game, whose places break
        ties of points (``match --jobs`` adds every table's games, but only table 1's
        decide: the table of the match seed)."""
        self.games += 1
        replaced = set(record.stand_in)
        for p, (place, pts) in enumerate(zip(record.places, record.points, strict=True)):
            s = self.players[p]
            if last:
                s.last_place = place
            if p in replaced:
                s.stand_in_games += 1
                s.stand_in_points += pts
            else:
                s.points += pts
                s.places[place] += 1
        for turn in record.turns:
            if turn.by is None:  # only the player's own moves count for its move time
                self.players[turn.player].moves += 1
                self.players[turn.player].think_ms += turn.think_ms
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

    @property
    def stand_in_games(self) -> int:
        """Seat-games a stand-in played, at least in part (0: every game was its own)."""
        return sum(s.stand_in_games for s in self.players)

    def ranked(self) -> list[PlayerStanding]:
        """Most points first (fewest under card scoring), ties broken by the better place in
        the last game, as the rules rank a match (:func:`outcome_key`).  Seats a stand-in
        played come last, the later hand-over first."""
        rules = self.rules

        def key(s: PlayerStanding) -> tuple[Any, ...]:
            late = -(s.since[0] * 10_000 + s.since[1]) if s.replaced and s.since else 0
            return (s.replaced, late, s.stand_in_games,
                    *outcome_key(rules, s.points, s.last_place, s.number))

        return sorted(self.players, key=key)
