"""The league's database: one SQLite file (WAL), one writing process, any number of readers.

Entrants are versions: a submission folder whose contents change is a new entrant row (the
same name, its next version) and the old row is *retired*: it keeps its games and its rating,
frozen at the moment it retired, and is never paired again.  A *suspended* entrant (it
failed its check, or crashed ``crash_limit`` matches in a row) keeps its history too, with
the reason.

A match's games are committed one by one as they finish; a match counts once it is ``done``.
A match that a stand-in had to play in (a crash, a timeout, a lobby client that did not come
back) is ``failed``: its games are deleted, the faults are kept on the entrant's record.  On
resume a match left ``running`` by a killed league is played again from its start with the
same lineup and seed (its partial games deleted first, in one transaction), so a game is
never lost nor counted twice.

>>> import tempfile, os
>>> db = LeagueStore.open(os.path.join(tempfile.mkdtemp(), "l.sqlite"), "abc", "{}")
>>> a = db.add_entrant("a", "1", "house", None, "fp-a", {"bot": "random"})
>>> b = db.add_entrant("b", "1", "house", None, "fp-b", {"bot": "default"})
>>> m = db.new_match(seed=7, games=1, lineup=[a, b, a, b, a])
>>> db.record_game(m, 1, (0, 1, 2, 3, 4), (5, 4, 3, 2, 1), turns=20)
>>> db.match_done(m)
>>> db.counted_games()[0].lineup, db.counted_games()[0].points
((1, 2, 1, 2, 1), (5, 4, 3, 2, 1))
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from daihinmin.records.outfile import OutputLockedError
from daihinmin.tournament.store import lock_database
from daihinmin.tournament.walcheck import wal_damage

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, version TEXT NOT NULL,
    kind TEXT NOT NULL,                     -- house, submission, lobby
    folder TEXT, fingerprint TEXT NOT NULL, spec TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',  -- active, retired, suspended
    reason TEXT, added_at REAL NOT NULL, status_at REAL,
    detail TEXT,                            -- what its build or check printed (host only)
    frozen_rating REAL, frozen_sd REAL,     -- a retired version's rating, as it retired
    UNIQUE (name, fingerprint));
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, seed INTEGER NOT NULL, games INTEGER NOT NULL,
    lineup TEXT NOT NULL,                   -- entrant id by player number
    status TEXT NOT NULL DEFAULT 'pending', -- pending, running, done, failed, cancelled
    attempts INTEGER NOT NULL DEFAULT 0, error TEXT, log_path TEXT,
    round INTEGER, grp INTEGER,             -- uecda-groups: the round and group
    created_at REAL NOT NULL, started_at REAL, finished_at REAL);
CREATE TABLE IF NOT EXISTS games (
    match_id INTEGER NOT NULL REFERENCES matches(id), game INTEGER NOT NULL,
    turns INTEGER NOT NULL, finished_at REAL NOT NULL, PRIMARY KEY (match_id, game));
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL, game INTEGER NOT NULL, player INTEGER NOT NULL,
    entrant INTEGER NOT NULL REFERENCES entrants(id),
    place INTEGER NOT NULL, points INTEGER NOT NULL,
    PRIMARY KEY (match_id, game, player),
    FOREIGN KEY (match_id, game) REFERENCES games(match_id, game));
CREATE TABLE IF NOT EXISTS faults (         -- seats that met a fault, every attempt kept
    match_id INTEGER NOT NULL REFERENCES matches(id), attempt INTEGER NOT NULL,
    player INTEGER NOT NULL, entrant INTEGER NOT NULL REFERENCES entrants(id),
    status TEXT NOT NULL, counts TEXT NOT NULL, stand_in TEXT, detail TEXT,
    at REAL NOT NULL, PRIMARY KEY (match_id, attempt, player));
CREATE TABLE IF NOT EXISTS events (         -- what happened to entrants, for the pages
    id INTEGER PRIMARY KEY, at REAL NOT NULL, entrant INTEGER, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS results_entrant ON results (entrant);
CREATE INDEX IF NOT EXISTS faults_entrant ON faults (entrant);
"""


class LeagueStoreError(RuntimeError):
    """The league database cannot be used as asked (exit code 4 when it cannot be read)."""


class LeagueMismatchError(LeagueStoreError):
    """The database holds a league with other rules, games per match or format."""


@dataclass(frozen=True)
class Entrant:
    id: int
    name: str
    version: str
    kind: str
    folder: str | None
    fingerprint: str
    spec: dict[str, Any]
    status: str
    reason: str | None
    added_at: float

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"


@dataclass(frozen=True)
class CountedGame:
    """A game of a done match: entrant id, place and points by player number."""

    match_id: int
    game: int
    lineup: tuple[int, ...]
    places: tuple[int, ...]
    points: tuple[int, ...]


@dataclass(frozen=True)
class MatchRow:
    id: int
    seed: int
    games: int
    lineup: tuple[int, ...]
    status: str
    attempts: int
    round: int | None
    group: int | None


class LeagueStore:
    def __init__(self, path: str | Path, writer: bool) -> None:
        self.path = Path(path)
        self._lock: IO[bytes] | None = None
        try:
            if writer:
                self.path.touch(exist_ok=True)
                try:
                    self._lock = lock_database(self.path)
                except OutputLockedError:
                    raise OutputLockedError(f"league database {self.path} is in use by another"
                                            " league process (one writer at a time)") from None
            damage = wal_damage(self.path)
            if damage is not None:
                raise LeagueStoreError(f"{damage}; move the -wal file away to open it")
            uri = self.path.resolve().as_uri() + ("" if writer else "?mode=ro")
            self.con = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30,
                                       check_same_thread=False)
            if writer:
                self.con.execute("PRAGMA journal_mode=WAL")
                self.con.execute("PRAGMA synchronous=NORMAL")
                self.con.execute("PRAGMA foreign_keys=ON")
                self.con.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise LeagueStoreError(f"{self.path}: not a usable league database ({exc})") from None
        except BaseException:
            self.close()
            raise

    @classmethod
    def open(cls, path: str | Path, fingerprint: str, config_json: str) -> LeagueStore:
        """The writer's store: created if missing, else resumed (same fingerprint)."""
        store = cls(path, writer=True)
        try:
            stored = store.get_meta("fingerprint")
            if stored is not None and stored != fingerprint:
                raise LeagueMismatchError(
                    f"{path} holds a league with other rules, games per match, format or "
                    "seed; keep the config's, or give another database")
            with store.transaction():
                store.set_meta("schema", SCHEMA_VERSION)
                store.set_meta("fingerprint", fingerprint)
                store.set_meta("config", config_json)
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def reader(cls, path: str | Path) -> LeagueStore:
        """A read-only connection (the web pages, exports): never blocks the writer."""
        if not Path(path).is_file():
            raise LeagueStoreError(f"{path}: no league database there")
        store = cls(path, writer=False)
        try:
            if store.get_meta("schema") != SCHEMA_VERSION:
                raise LeagueStoreError(f"{path}: not a league database")
        except sqlite3.DatabaseError as exc:
            store.close()
            raise LeagueStoreError(f"{path}: not a league database ({exc})") from None
        except BaseException:
            store.close()
            raise
        return store

    def close(self) -> None:
        if hasattr(self, "con"):
            self.con.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.con.execute("BEGIN IMMEDIATE")
        try:
            yield self.con
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    def set_meta(self, key: str, value: str) -> None:
        self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def get_meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # -- entrants --------------------------------------------------------------------------
    def add_entrant(self, name: str, version: str, kind: str, folder: str | None,
                    fingerprint: str, spec: dict[str, Any], status: str = "active",
                    reason: str | None = None, detail: str | None = None) -> int:
        now = time.time()
        with self.transaction():
            cur = self.con.execute(
                "INSERT INTO entrants (name, version, kind, folder, fingerprint, spec, status,"
                " reason, added_at, status_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, version, kind, folder, fingerprint, json.dumps(spec, sort_keys=True),
                 status, reason, now, now, detail))
            eid = int(cur.lastrowid or 0)
            label = f"{name} (house bot)" if kind == "house" else f"{name} {version}"
            self._event(eid, f"{label} entered" + (f" ({status}: {reason})"
                                                   if status != "active" else ""))
        return eid

    def _event(self, entrant: int | None, text: str) -> None:
        self.con.execute("INSERT INTO events (at, entrant, text) VALUES (?, ?, ?)",
                         (time.time(), entrant, text))

    def event(self, entrant: int | None, text: str) -> None:
        with self.transaction():
            self._event(entrant, text)

    def set_status(self, entrant: int, status: str, reason: str | None,
                   frozen: tuple[float, float] | None = None) -> None:
        """Retire or suspend (or reinstate) an entrant; ``frozen``: its rating and sd."""
        with self.transaction():
            self.con.execute(
                "UPDATE entrants SET status = ?, reason = ?, status_at = ?,"
                " frozen_rating = COALESCE(?, frozen_rating), frozen_sd = COALESCE(?, frozen_sd)"
                " WHERE id = ?", (status, reason, time.time(),
                                  None if frozen is None else frozen[0],
                                  None if frozen is None else frozen[1], entrant))
            (name,) = self.con.execute(
                "SELECT CASE kind WHEN 'house' THEN name ELSE name || ' ' || version END FROM"
                " entrants WHERE id = ?", (entrant,)).fetchone()
            self._event(entrant, f"{name} {status}" + (f": {reason}" if reason else ""))

    def entrants(self) -> list[Entrant]:
        return [Entrant(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8], r[9])
                for r in self.con.execute(
                    "SELECT id, name, version, kind, folder, fingerprint, spec, status, reason,"
                    " added_at FROM entrants ORDER BY id")]

    def detail(self, entrant: int) -> str | None:
        """What the entrant's build or check printed when it entered (the host's to see)."""
        row = self.con.execute("SELECT detail FROM entrants WHERE id = ?", (entrant,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def frozen_ratings(self) -> dict[int, tuple[float, float]]:
        return {int(r[0]): (float(r[1]), float(r[2] or 0.0)) for r in self.con.execute(
            "SELECT id, frozen_rating, frozen_sd FROM entrants WHERE status = 'retired' AND"
            " frozen_rating IS NOT NULL")}

    # -- matches ---------------------------------------------------------------------------
    def new_match(self, seed: int, games: int, lineup: Sequence[int],
                  round_: int | None = None, group: int | None = None) -> int:
        with self.transaction():
            cur = self.con.execute(
                "INSERT INTO matches (seed, games, lineup, round, grp, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (seed, games, json.dumps(list(lineup)), round_, group, time.time()))
        return int(cur.lastrowid or 0)

    def match(self, match_id: int) -> MatchRow:
        r = self.con.execute("SELECT id, seed, games, lineup, status, attempts, round, grp"
                             " FROM matches WHERE id = ?", (match_id,)).fetchone()
        if r is None:
            raise LeagueStoreError(f"no match {match_id}")
        return MatchRow(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4], r[5], r[6], r[7])

    def matches(self, status: str) -> list[MatchRow]:
        return [self.match(r[0]) for r in self.con.execute(
            "SELECT id FROM matches WHERE status = ? ORDER BY id", (status,))]

    def reset_unfinished(self) -> int:
        """Matches a killed league left running: their partial games go, they are pending
        again (played first, from their start)."""
        with self.transaction():
            ids = [r[0] for r in self.con.execute(
                "SELECT id FROM matches WHERE status = 'running'")]
            for mid in ids:
                self._delete_games(mid)
            self.con.executemany("UPDATE matches SET status = 'pending' WHERE id = ?",
                                 [(m,) for m in ids])
        return len(ids)

    def _delete_games(self, match_id: int) -> None:
        self.con.execute("DELETE FROM results WHERE match_id = ?", (match_id,))
        self.con.execute("DELETE FROM games WHERE match_id = ?", (match_id,))

    def match_started(self, match_id: int, log_path: str | None) -> int:
        """The attempt number."""
        with self.transaction():
            self._delete_games(match_id)
            self.con.execute("UPDATE matches SET status = 'running', started_at = ?,"
                             " attempts = attempts + 1, log_path = ? WHERE id = ?",
                             (time.time(), log_path, match_id))
            (attempt,) = self.con.execute("SELECT attempts FROM matches WHERE id = ?",
                                          (match_id,)).fetchone()
        return int(attempt)

    def record_game(self, match_id: int, game: int, places: Sequence[int],
                    points: Sequence[int], turns: int) -> None:
        lineup = self.match(match_id).lineup
        now = time.time()
        with self.transaction():
            self.con.execute("INSERT INTO games (match_id, game, turns, finished_at) VALUES"
                             " (?, ?, ?, ?)", (match_id, game, turns, now))
            self.con.executemany(
                "INSERT INTO results (match_id, game, player, entrant, place, points)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(match_id, game, p, lineup[p], places[p], points[p])
                 for p in range(len(places))])

    def match_done(self, match_id: int) -> None:
        with self.transaction():
            played, wanted = self.con.execute(
                "SELECT (SELECT COUNT(*) FROM games WHERE match_id = ?), games FROM matches"
                " WHERE id = ?", (match_id, match_id)).fetchone()
            if played != wanted:
                raise LeagueStoreError(f"match {match_id} ended with {played}/{wanted} games")
            self.con.execute("UPDATE matches SET status = 'done', finished_at = ?, error = NULL"
                             " WHERE id = ?", (time.time(), match_id))

    def match_failed(self, match_id: int, error: str, status: str = "failed") -> None:
        """Failed (a stand-in played, or the table broke) or cancelled: no game counts."""
        with self.transaction():
            self._delete_games(match_id)
            self.con.execute("UPDATE matches SET status = ?, error = ?, finished_at = ?"
                             " WHERE id = ?", (status, error[:4000], time.time(), match_id))

    def record_faults(self, match_id: int, attempt: int,
                      rows: Sequence[tuple[int, str, dict[str, int], str | None, str]]) -> None:
        """Seats of this attempt that met a fault: (player, status, counts, stand-in, why)."""
        lineup = self.match(match_id).lineup
        now = time.time()
        with self.transaction():
            self.con.executemany(
                "INSERT OR REPLACE INTO faults (match_id, attempt, player, entrant, status,"
                " counts, stand_in, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(match_id, attempt, p, lineup[p], status, json.dumps(counts, sort_keys=True),
                  by, detail[:8000], now) for p, status, counts, by, detail in rows])

    # -- reading ---------------------------------------------------------------------------
    def counted_games(self) -> list[CountedGame]:
        """Every game of a done match, in the order they were committed."""
        out: list[CountedGame] = []
        key: tuple[int, int] | None = None
        buf: list[tuple[int, int, int, int]] = []

        def flush() -> None:
            if key is not None and buf:
                buf.sort()
                out.append(CountedGame(key[0], key[1], tuple(b[1] for b in buf),
                                       tuple(b[2] for b in buf), tuple(b[3] for b in buf)))

        for mid, game, player, entrant, place, points in self.con.execute(
                "SELECT r.match_id, r.game, r.player, r.entrant, r.place, r.points FROM games g"
                " JOIN matches m ON m.id = g.match_id JOIN results r ON r.match_id = g.match_id"
                " AND r.game = g.game WHERE m.status = 'done' ORDER BY g.rowid, r.player"):
            if (mid, game) != key:
                flush()
                key, buf = (mid, game), []
            buf.append((player, entrant, place, points))
        flush()
        return out

    def count(self, sql: str, *args: Any) -> int:
        return int(self.con.execute(sql, args).fetchone()[0])

    def counted_game_total(self) -> int:
        return self.count("SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id"
                          " WHERE m.status = 'done'")

    def done_matches(self) -> int:
        return self.count("SELECT COUNT(*) FROM matches WHERE status = 'done'")

    def failed_in_a_row(self, entrant: int) -> int:
        """Ended matches of this entrant, newest first, that failed through its own seat."""
        n = 0
        for mid, status, attempts in self.con.execute(
                "SELECT id, status, attempts FROM matches WHERE status IN ('done', 'failed')"
                " AND EXISTS (SELECT 1 FROM json_each(matches.lineup) WHERE value = ?)"
                " ORDER BY finished_at DESC, id DESC", (entrant,)):
            if status == "done":
                break
            own = self.count("SELECT COUNT(*) FROM faults WHERE match_id = ? AND attempt = ?"
                             " AND entrant = ? AND stand_in IS NOT NULL", mid, attempts, entrant)
            if own:
                n += 1
            # a match failed through another entrant's seat says nothing about this one
        return n

    def ended_since_status(self, entrant: int) -> bool:
        """Whether a match of this entrant ended after its status was last set (a host's
        reinstatement, say, is later than the failures it forgave)."""
        return bool(self.count(
            "SELECT EXISTS (SELECT 1 FROM matches m, entrants e WHERE e.id = ? AND"
            " m.status IN ('done', 'failed') AND m.finished_at > COALESCE(e.status_at, 0)"
            " AND EXISTS (SELECT 1 FROM json_each(m.lineup) WHERE value = e.id))", entrant))

    def version(self) -> str:
        """Changes whenever anything on the pages would: games, matches, entrants, events."""
        row = self.con.execute(
            "SELECT (SELECT COUNT(*) FROM games), (SELECT COALESCE(MAX(rowid), 0) FROM games),"
            " (SELECT COUNT(*) FROM matches WHERE status != 'pending'),"
            " (SELECT COALESCE(MAX(id), 0) FROM events), (SELECT COUNT(*) FROM faults)"
        ).fetchone()
        return "-".join(map(str, row))


__all__ = ["CountedGame", "Entrant", "LeagueMismatchError", "LeagueStore", "LeagueStoreError",
           "MatchRow"]
