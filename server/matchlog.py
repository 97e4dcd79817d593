"""The match log: JSON Lines, one file per match, enough to re-simulate every game exactly.

Line 1 is the header (schema, rules, seed, players); then one ``game`` line per game,
written and flushed when the game ends; then an ``end`` line.  Cards and moves are the
strings of :class:`CardSet` / :class:`Move` (``"S9 ST JK@SJ"``, ``"pass"``), so a log is
readable as text.

>>> import io
>>> out = io.StringIO()
>>> w = MatchLogWriter(out)
>>> w.write_header(MatchHeader(rules={"name": "uecda"}, seed=1, games=1,
...                            players=[PlayerInfo(0, "a", 20070)], started="now"))
>>> out.getvalue().startswith('{"type": "header", "schema": "daihinmin.matchlog/1"')
True
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from daihinmin.rules.ruleset import RuleSet, ruleset_from_dict

from .errors import MatchLogError

SCHEMA = "daihinmin.matchlog/1"

RawCells = list[list[int]]  # [[row, col, value], ...]: the non-zero card cells of a bad table


@dataclass
class PlayerInfo:
    number: int
    name: str
    protocol: int


@dataclass
class MatchHeader:
    rules: dict[str, Any]
    seed: int
    games: int
    players: list[PlayerInfo]
    started: str
    schema: str = SCHEMA
    write_mode: str = "exact"  # or "coalesced" (server.outbox): same bytes, fewer writes

    def ruleset(self) -> RuleSet:
        return ruleset_from_dict(self.rules).validate()

    def to_json(self) -> dict[str, Any]:
        return {"type": "header", "schema": self.schema, "rules": self.rules, "seed": self.seed,
                "games": self.games, "started": self.started, "write_mode": self.write_mode,
                "players": [{"number": p.number, "name": p.name, "protocol": p.protocol}
                            for p in self.players]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MatchHeader:
        players = [PlayerInfo(int(p["number"]), str(p["name"]), int(p["protocol"]))
                   for p in d["players"]]
        return cls(dict(d["rules"]), int(d["seed"]), int(d["games"]), players,
                   str(d.get("started", "")), str(d["schema"]), str(d.get("write_mode", "exact")))


@dataclass
class TransferRecord:
    """Cards passed in the exchange: automatic (lower gives its strongest) or chosen."""

    giver: int
    receiver: int
    cards: str
    automatic: bool
    substituted: bool = False  # the chosen table was invalid; the server picked instead
    error: str | None = None  # why the chosen table was invalid
    raw: RawCells | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"giver": self.giver, "receiver": self.receiver,
                             "cards": self.cards, "automatic": self.automatic,
                             "substituted": self.substituted}
        if self.error is not None:
            d["error"] = self.error
        if self.raw is not None:
            d["raw"] = self.raw
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TransferRecord:
        return cls(int(d["giver"]), int(d["receiver"]), str(d["cards"]), bool(d["automatic"]),
                   bool(d.get("substituted", False)), d.get("error"), d.get("raw"))


@dataclass
class TurnRecord:
    """One turn: who moved, what they sent, the answer, and how long they thought."""

    player: int
    move: str  # the move as judged; "pass" for a malformed table
    answer: int
    think_ms: float
    error: str | None = None  # set when the move table could not be read as a move
    raw: RawCells | None = None

    @property
    def malformed(self) -> bool:
        return self.error is not None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "move": self.move, "answer": self.answer,
                             "think_ms": self.think_ms}
        if self.error is not None:
            d["error"] = self.error
            d["raw"] = self.raw
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TurnRecord:
        return cls(int(d["player"]), str(d["move"]), int(d["answer"]), float(d["think_ms"]),
                   d.get("error"), d.get("raw"))


@dataclass
class GameRecord:
    game: int
    seats: list[int]
    dealer: int
    classes: list[int] | None  # None in the first game of a class block
    dealt: list[str]  # hands right after the deal
    transfers: list[TransferRecord] = field(default_factory=list)
    hands: list[str] = field(default_factory=list)  # hands after the exchange
    first: int = -1  # the player who leads
    turns: list[TurnRecord] = field(default_factory=list)
    places: list[int] = field(default_factory=list)  # 0 = first
    points: list[int] = field(default_factory=list)  # earned in this game
    totals: list[int] = field(default_factory=list)  # cumulative after this game

    def to_json(self) -> dict[str, Any]:
        return {"type": "game", "game": self.game, "seats": self.seats, "dealer": self.dealer,
                "classes": self.classes, "dealt": self.dealt,
                "transfers": [t.to_json() for t in self.transfers], "hands": self.hands,
                "first": self.first, "turns": [t.to_json() for t in self.turns],
                "places": self.places, "points": self.points, "totals": self.totals}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameRecord:
        return cls(int(d["game"]), list(d["seats"]), int(d["dealer"]),
                   None if d["classes"] is None else list(d["classes"]), list(d["dealt"]),
                   [TransferRecord.from_json(t) for t in d["transfers"]], list(d["hands"]),
                   int(d["first"]), [TurnRecord.from_json(t) for t in d["turns"]],
                   list(d["places"]), list(d["points"]), list(d["totals"]))


@dataclass
class MatchEnd:
    games_played: int
    totals: list[int]
    status: str = "complete"  # or "aborted"
    error: str | None = None
    wall_seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "end", "status": self.status,
                             "games_played": self.games_played, "totals": self.totals,
                             "wall_seconds": self.wall_seconds}
        if self.error is not None:
            d["error"] = self.error
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MatchEnd:
        return cls(int(d["games_played"]), list(d["totals"]), str(d["status"]), d.get("error"),
                   float(d.get("wall_seconds", 0.0)))


@dataclass
class MatchLog:
    header: MatchHeader
    games: list[GameRecord]
    end: MatchEnd | None  # None if the writer never finished (crash, kill)


class MatchLogWriter:
    """Writes the lines of one match; each line is flushed as soon as it is written."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    @classmethod
    def open(cls, path: Path) -> MatchLogWriter:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(path.open("w", encoding="utf-8"))

    def _line(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, separators=(", ", ": ")) + "\n")
        self.out.flush()

    def write_header(self, header: MatchHeader) -> None:
        self._line(header.to_json())

    def write_game(self, game: GameRecord) -> None:
        self._line(game.to_json())

    def write_end(self, end: MatchEnd) -> None:
        self._line(end.to_json())

    def close(self) -> None:
        self.out.close()


def parse_lines(lines: Iterable[str], source: str = "log") -> MatchLog:
    header: MatchHeader | None = None
    games: list[GameRecord] = []
    end: MatchEnd | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            kind = obj["type"]
            if kind == "header":
                if obj.get("schema") != SCHEMA:
                    raise MatchLogError(f"{source}:{number}: schema {obj.get('schema')!r} "
                                        f"is not {SCHEMA!r}")
                header = MatchHeader.from_json(obj)
            elif kind == "game":
                games.append(GameRecord.from_json(obj))
            elif kind == "end":
                end = MatchEnd.from_json(obj)
            else:
                raise MatchLogError(f"{source}:{number}: unknown record type {kind!r}")
        except (ValueError, KeyError, TypeError) as exc:
            raise MatchLogError(f"{source}:{number}: not a match log record ({exc})") from exc
        if number == 1 and header is None:
            raise MatchLogError(f"{source}:1: the first line must be the header")
    if header is None:
        raise MatchLogError(f"{source}: empty match log")
    return MatchLog(header, games, end)


def read_match_log(path: Path) -> MatchLog:
    try:
        with path.open(encoding="utf-8") as f:
            return parse_lines(f, str(path))
    except OSError as exc:
        raise MatchLogError(f"cannot read {path}: {exc}") from exc


def iter_turns(log: MatchLog) -> Iterator[tuple[GameRecord, TurnRecord]]:
    for game in log.games:
        for turn in game.turns:
            yield game, turn
