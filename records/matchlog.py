"""The match log: JSON Lines, one file per match, enough to re-simulate every game exactly.

Line 1 is the header (schema, rules, seed, players, fault policy); then one ``game`` line per
game, written, flushed and fsynced when the game ends (before the next deal); then an ``end``
line.  A match continued with ``--resume`` appends a ``resume`` line and goes on in the same
file.  Cards and moves are the strings of :class:`CardSet` / :class:`Move`
(``"S9 ST JK@SJ"``, ``"pass"``), so a log is readable as text.

Schema 2 adds, all optional: per turn the ``fault`` (TIMEOUT, MALFORMED, ILLEGAL) and ``by``
(``fallback``/``forfeit`` when a stand-in played it); per exchange choice the same two; per
game the seat ``events`` (hand-overs), the players a stand-in played (``stand_in``), the
time banks left (``bank_ms``) and the reports so far of the seats that met a fault
(``seat_reports``: what ``--resume`` carries over); in the end record each seat's report; in
the header a ``start`` (game, classes, seats) for a match that begins at a later game
(``duplicate``'s positions); for a log read from a kifu (:mod:`daihinmin.records.kifu`),
``deals: "recorded"`` (each game's logged deal is its deal: no seed re-creates it) and the
kifu's own header lines (``kifu``).
Schema 1 logs read as before.  A last line cut short (the process was killed while writing)
is dropped on reading.

>>> import io
>>> out = io.StringIO()
>>> w = MatchLogWriter(out)
>>> w.write_header(MatchHeader(rules={"name": "uecda"}, seed=1, games=1, started="now",
...                            players=[PlayerInfo(p, "a", 20070) for p in range(5)]))
>>> out.getvalue().startswith('{"type": "header", "schema": "daihinmin.matchlog/2"')
True
>>> parse_lines([out.getvalue(), '{"type": "game", "ga']).torn
True
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import os
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from daihinmin.driver.faults import SeatEvent, SeatReport

# The game's records are the driver's (every way of playing builds them); this module
# reads and writes them.
from daihinmin.driver.record import (
    GameRecord,
    TurnRecord,
)
from daihinmin.rules.ruleset import RuleSet, ruleset_from_dict, ruleset_to_dict

from . import logcheck
from .errors import MatchLogError

SCHEMA = "daihinmin.matchlog/2"
READABLE_SCHEMAS = ("daihinmin.matchlog/1", SCHEMA)

def utc_now() -> str:
    """The time a log's header or resume line says it started: UTC, to the second."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@dataclass
class PlayerInfo:
    number: int
    name: str  # from the profile: data only, never part of a path
    protocol: int
    stand_in: str | None = None  # the seat was played by a stand-in from the start
    person: bool = False  # a person played it, without move deadlines (its profile said so)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"number": self.number, "name": self.name,
                             "protocol": self.protocol}
        if self.stand_in is not None:
            d["stand_in"] = self.stand_in
        if self.person:
            d["person"] = True
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PlayerInfo:
        return cls(int(d["number"]), str(d["name"]), int(d["protocol"]), d.get("stand_in"),
                   bool(d.get("person", False)))


@dataclass
class MatchHeader:
    rules: dict[str, Any]
    seed: int
    games: int
    players: list[PlayerInfo]
    started: str
    schema: str = SCHEMA
    write_mode: str = "exact"  # "coalesced", "deferred" (server.outbox): same bytes, fewer writes
    policy: dict[str, Any] | None = None  # deadlines and fault policy (schema 2)
    lineup: list[dict[str, str]] | None = None  # how each player was started (``match``)
    # A match that starts at a later game (``duplicate``'s positions): {"game": k, "classes":
    # [...] or None, "seats": [...]}; None: at game 1 (checked by logcheck.check_header).
    start: dict[str, Any] | None = None
    # Where the deals come from: "seed" (every deal re-created from the seed) or "recorded"
    # (each game record's seats, dealer and dealt hands are the deal: a log read from a kifu).
    deals: str = "seed"
    # The header lines of the kifu a log was read from that it has no field for (the host
    # name, the window settings, ...), kept so that writing the kifu again gives them back.
    kifu: dict[str, str] | None = None

    @classmethod
    def starting_now(cls, rules: RuleSet, seed: int, games: int, players: list[PlayerInfo],
                     **fields: Any) -> MatchHeader:
        """The header of a match that starts now, its rules as the log stores them: every
        writer of a log (the server, the in-process runner, the browser) builds it here."""
        return cls(ruleset_to_dict(rules), seed, games, players, utc_now(), **fields)

    def ruleset(self) -> RuleSet:
        return ruleset_from_dict(self.rules).validate()

    def lineup_programs(self) -> list[str]:
        """The players the logged lineup would start with code of their own: external
        commands, submissions and bots given as ``module:factory`` (a log never runs them on
        its own)."""
        out = []
        for number, entry in enumerate(self.lineup or []):
            for kind, value in entry.items():
                if kind != "bot":
                    out.append(f"player {number}: --{kind} {value!r}")
                elif ":" in value:
                    out.append(f"player {number}: bot {value!r}")
        return out

    @property
    def first_game(self) -> int:
        return 1 if self.start is None else int(self.start["game"])

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "header", "schema": self.schema, "rules": self.rules,
                             "seed": self.seed, "games": self.games, "started": self.started,
                             "write_mode": self.write_mode,
                             "players": [p.to_json() for p in self.players]}
        if self.policy is not None:
            d["policy"] = self.policy
        if self.lineup is not None:
            d["lineup"] = self.lineup
        if self.start is not None:
            d["start"] = self.start
        if self.deals != "seed":
            d["deals"] = self.deals
        if self.kifu is not None:
            d["kifu"] = self.kifu
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MatchHeader:
        players = [PlayerInfo.from_json(p) for p in d["players"]]
        lineup = d.get("lineup")
        return cls(dict(d["rules"]), int(d["seed"]), int(d["games"]), players,
                   str(d.get("started", "")), str(d["schema"]), str(d.get("write_mode", "exact")),
                   d.get("policy"),
                   lineup, d.get("start"),  # lineup types: logcheck.check_header
                   d.get("deals", "seed"), d.get("kifu"))


@dataclass
class MatchEnd:
    games_played: int
    totals: list[int]
    status: str = "complete"  # or "aborted"
    error: str | None = None
    wall_seconds: float = 0.0
    seats: list[SeatReport] = field(default_factory=list)  # schema 2: each seat's report
    events: list[SeatEvent] = field(default_factory=list)  # found after the last game

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "end", "status": self.status,
                             "games_played": self.games_played, "totals": self.totals,
                             "wall_seconds": self.wall_seconds}
        if self.error is not None:
            d["error"] = self.error
        if self.seats:
            d["seats"] = [r.to_json() for r in self.seats]
        if self.events:
            d["events"] = [e.to_json() for e in self.events]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MatchEnd:
        return cls(int(d["games_played"]), list(d["totals"]), str(d["status"]), d.get("error"),
                   float(d.get("wall_seconds", 0.0)),
                   [SeatReport.from_json(r) for r in d.get("seats", [])],
                   [SeatEvent.from_json(e) for e in d.get("events", [])])


@dataclass
class ResumeRecord:
    """The match went on in a new server run after its last finished game."""

    after_game: int
    players: list[PlayerInfo]
    started: str
    policy: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "resume", "after_game": self.after_game,
                             "started": self.started,
                             "players": [p.to_json() for p in self.players]}
        if self.policy is not None:
            d["policy"] = self.policy
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ResumeRecord:
        return cls(int(d["after_game"]), [PlayerInfo.from_json(p) for p in d["players"]],
                   str(d.get("started", "")), d.get("policy"))


@dataclass
class MatchLog:
    header: MatchHeader
    games: Collection[GameRecord]  # a list, or :class:`LoggedGames` read from the file anew
    end: MatchEnd | None  # None if the writer never finished (crash, kill)
    resumes: list[ResumeRecord] = field(default_factory=list)
    torn: bool = False  # the last line was cut short and dropped

    @property
    def players(self) -> list[PlayerInfo]:
        """The players of the latest run (the header's, or the last resume's)."""
        return self.resumes[-1].players if self.resumes else self.header.players


@dataclass
class LoadedMatchLog(MatchLog):
    """A log read whole: its games are a list (:func:`read_match_log`, :func:`parse_lines`)."""

    games: list[GameRecord]


class MatchLogWriter:
    """Writes the lines of one match: each line in one write, flushed at once; with
    ``durable`` also fsynced (a game is on disk before the next deal)."""

    def __init__(self, out: IO[str], durable: bool = False) -> None:
        self.out = out
        self.durable = durable

    @classmethod
    def open(cls, path: Path, durable: bool = True, append: bool = False,
             overwrite: bool = False, make_folder: bool = False) -> MatchLogWriter:
        """Created exclusively (an existing file is refused unless ``overwrite``) or, with
        ``append``, an existing log; locked for as long as it is open (one writer at a
        time; :mod:`daihinmin.records.outfile`)."""
        from .outfile import claim_output

        created = not append
        out = claim_output(path, what="match log", overwrite=overwrite, append=append,
                           make_folder=make_folder)
        writer = cls(out, durable)
        if durable and created:
            sync_folder(path.parent)  # the new file's name must survive a crash too
        return writer

    def _line(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, separators=(", ", ": ")) + "\n")
        self.out.flush()
        if self.durable:
            os.fsync(self.out.fileno())

    def write_header(self, header: MatchHeader) -> None:
        self._line(header.to_json())

    def write_game(self, game: GameRecord) -> None:
        self._line(game.to_json())

    def write_resume(self, resume: ResumeRecord) -> None:
        self._line(resume.to_json())

    def write_end(self, end: MatchEnd) -> None:
        self._line(end.to_json())

    def close(self) -> None:
        self.out.close()


def sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not possible on this platform or file system; the data itself is synced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# A game record is 5-20 KB; a longer line is no log.  Parsed, a line of tiny JSON objects
# takes up to ~40 times its size, so this bounds a reader's memory to tens of megabytes.
MAX_LINE_BYTES = 1024 * 1024
LogRecord = MatchHeader | GameRecord | MatchEnd | ResumeRecord


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 reads as inf: no count, time or score is that
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number a log holds")


def load_json(line: str) -> Any:
    """One JSON value with finite numbers only (``NaN``, ``Infinity``, ``1e999`` refused)."""
    return json.loads(line, parse_float=_finite, parse_constant=_no_constant)


class RecordReader:
    """The records of a log one at a time, checked (:mod:`daihinmin.records.logcheck`), so a
    log of any length is read in bounded memory.  Iterate once; afterwards ``torn`` says
    whether a last line cut short was dropped."""

    def __init__(self, lines: Iterable[str], source: str = "log") -> None:
        self.lines = lines
        self.source = source
        self.header: MatchHeader | None = None
        self.players = 0  # seats at the logged table
        self.games = 0  # game records so far
        self.torn = False

    def __iter__(self) -> Iterator[LogRecord]:
        for number, line in enumerate(self.lines, 1):
            if self.torn:  # the cut line was not the last one after all
                raise MatchLogError(f"{self.source}:{number - 1}: a line without its end")
            if not line.strip():
                continue
            try:
                try:
                    obj = load_json(line)
                except ValueError:
                    if line.endswith("\n"):
                        raise
                    self.torn = True  # the writer was stopped in the middle of this line
                    continue
                record = self._record(obj, number)
            except MatchLogError:
                raise
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                why = "nested too deeply" if isinstance(exc, RecursionError) else exc
                raise MatchLogError(f"{self.source}:{number}: not a match log record "
                                    f"({why})") from None
            yield record
        if self.header is None:
            raise MatchLogError(f"{self.source}: empty match log")

    def _record(self, obj: Any, number: int) -> LogRecord:
        if not isinstance(obj, dict):
            raise MatchLogError(f"{self.source}:{number}: not a JSON object")
        kind = obj.get("type")
        if self.header is None and kind != "header":
            raise MatchLogError(f"{self.source}:{number}: the first line must be the header")
        record: LogRecord
        if kind == "header":
            if self.header is not None:
                raise MatchLogError(f"{self.source}:{number}: a second header")
            if obj.get("schema") not in READABLE_SCHEMAS:
                raise MatchLogError(f"{self.source}:{number}: schema {obj.get('schema')!r:.60} "
                                    f"is not one of {', '.join(READABLE_SCHEMAS)}")
            header = MatchHeader.from_json(obj)
            self.players = logcheck.check_header(header)
            self.header = record = header
        elif kind == "game":
            record = GameRecord.from_json(obj)
            logcheck.check_game(record, self.players)
            self.games += 1
            assert self.header is not None
            if self.games > self.header.games:
                raise MatchLogError(f"{self.source}:{number}: more games than the "
                                    f"{self.header.games} of the match")
        elif kind == "end":
            record = MatchEnd.from_json(obj)
            logcheck.check_end(record, self.players)
        elif kind == "resume":
            record = ResumeRecord.from_json(obj)
            logcheck.check_resume(record, self.players)
        else:
            raise MatchLogError(f"{self.source}:{number}: unknown record type {kind!r:.60}")
        return record


def parse_lines(lines: Iterable[str], source: str = "log") -> LoadedMatchLog:
    """Read the records; a last line cut short (no newline, not whole JSON) is dropped."""
    reader = RecordReader(lines, source)
    games: list[GameRecord] = []
    end, resumes = _read_records(reader, games.append)
    assert reader.header is not None
    return LoadedMatchLog(reader.header, games, end, resumes, reader.torn)


def _read_records(reader: RecordReader, on_game: Callable[[GameRecord], object]
                  ) -> tuple[MatchEnd | None, list[ResumeRecord]]:
    """Every record of ``reader``: the games to ``on_game``; the match's end and resumes."""
    end: MatchEnd | None = None
    resumes: list[ResumeRecord] = []
    for record in reader:
        if isinstance(record, GameRecord):
            on_game(record)
        elif isinstance(record, MatchEnd):
            end = record
        elif isinstance(record, ResumeRecord):
            resumes.append(record)
            end = None  # an earlier run's (aborted) end no longer ends the match
    return end, resumes


def bounded_lines(f: IO[bytes], source: str) -> Iterator[str]:
    """The lines of a binary file as text, each at most :data:`MAX_LINE_BYTES` (so an endless
    line, e.g. ``/dev/zero``, is refused after that much, not read into memory)."""
    number = 0
    while True:
        raw = f.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise MatchLogError(f"{source}:{number}: a line longer than {MAX_LINE_BYTES} "
                                "bytes: not a match log")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MatchLogError(f"{source}:{number}: not a text file ({exc})") from None


@contextlib.contextmanager
def open_log(path: Path) -> Iterator[RecordReader]:
    """A :class:`RecordReader` over the file at ``path`` (errors: :class:`MatchLogError`)."""
    try:
        f = path.open("rb")
    except OSError as exc:
        raise MatchLogError(f"cannot read {path}: {exc.strerror or exc}") from None
    with f:
        try:
            yield RecordReader(bounded_lines(f, str(path)), str(path))
        except OSError as exc:  # e.g. EISDIR on the first read, EIO
            raise MatchLogError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_header(path: Path) -> MatchHeader:
    """Only the header line of the log at ``path``."""
    with open_log(path) as reader:
        for record in reader:
            assert isinstance(record, MatchHeader)
            return record
    raise MatchLogError(f"{path}: empty match log")  # not reached: the reader raises


def read_match_log(path: Path) -> LoadedMatchLog:
    """The whole log in memory; :func:`scan_match_log` keeps no games, :func:`open_log`
    reads it record by record."""
    with open_log(path) as reader:
        log = parse_lines(reader.lines, str(path))
    return log


class LoggedGames(Collection[GameRecord]):
    """The game records of a log file, read from the file anew on each iteration (so a log
    of any length takes the memory of one game).  There are ``count`` of them: the games the
    first reading found, even if a running match has appended more since."""

    def __init__(self, path: Path, count: int) -> None:
        self.path = path
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[GameRecord]:
        if not self.count:
            return
        seen = 0
        with open_log(self.path) as reader:
            for record in reader:
                if isinstance(record, GameRecord):
                    yield record
                    seen += 1
                    if seen == self.count:
                        return
        raise MatchLogError(f"{self.path}: {seen} games on reading it again, {self.count} "
                            "before: the log changed under the reader")

    def __contains__(self, item: object) -> bool:
        return any(record == item for record in self)


def scan_match_log(path: Path) -> MatchLog:
    """The log read once, checked whole, but keeping only its header, end and resume
    records: its games are :class:`LoggedGames`, read again as they are needed (``replay``)."""
    with open_log(path) as reader:
        end, resumes = _read_records(reader, lambda game: None)  # counted by the reader
        assert reader.header is not None
        return MatchLog(reader.header, LoggedGames(path, reader.games), end, resumes,
                        reader.torn)


def drop_torn_tail(path: Path) -> int:
    """Cut a last line that was written only in part (a whole last record that only lacks
    its newline gets it); returns the bytes removed."""
    with path.open("r+b") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0 or (f.seek(size - 1) >= 0 and f.read(1) == b"\n"):
            return 0  # it ends with a whole line: the rest need not be read again
        start = max(0, size - MAX_LINE_BYTES - 1)  # a last line is never longer
        f.seek(start)
        data = f.read()
        keep = start + data.rfind(b"\n") + 1
        tail = data[keep - start:]
        if not tail.strip():
            return 0
        try:
            load_json(tail.decode("utf-8"))
        except ValueError:
            f.truncate(keep)
            removed = len(tail)
        else:
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
            removed = 0
        f.flush()
        os.fsync(f.fileno())
        return removed


def iter_turns(log: MatchLog) -> Iterator[tuple[GameRecord, TurnRecord]]:
    for game in log.games:
        for turn in game.turns:
            yield game, turn
