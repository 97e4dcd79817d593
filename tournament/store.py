"""The results database: one SQLite file (WAL) holding the config, schedule and every game.

Unit of scheduling: a match.  Each game is written in its own transaction as soon as it
finishes, so a live run can be watched and a crash loses at most the game in flight.

Resume rule (chosen): a match that did not finish is replayed *from its start*; its partial
game rows are deleted first (in one transaction).  Replaying is exact for the engine (per-
game seeds) and keeps a match the product of one run, even for bots that keep state across
games; continuing mid-match would splice two runs of a stateful bot together.  A game is
never lost (replayed) nor counted twice (old rows deleted; the primary key forbids
duplicates).  WAL with ``synchronous=NORMAL`` is durable against a killed process (commits
are in the OS cache); only a power cut may lose the last commits.

>>> import tempfile, os
>>> from daihinmin.tournament.config import config_from_dict
>>> cfg = config_from_dict({"games": 10, "transport": "in-process", "participant": [
...     {"bot": "a"}, {"bot": "b"}]})
>>> path = os.path.join(tempfile.mkdtemp(), "t.sqlite")
>>> store = TournamentStore.create(path, cfg)
>>> len(store.pending()), store.counts()
(10, {'pending': 10})
>>> store.record_game(0, 1, seats=(0, 1, 2, 3, 4), places=(0, 1, 2, 3, 4),
...                   points=(5, 4, 3, 2, 1), turns=30)
>>> store.reset_unfinished()  # as after a crash: the started match is replayed
1
>>> store.game_count(done_only=False)
0
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from daihinmin.records.outfile import OutputRefusedError

from .config import TournamentConfig, config_from_dict
from .schedule import ScheduledMatch, build_schedule
from .walcheck import wal_damage

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, deal_set INTEGER NOT NULL,
    table_no INTEGER NOT NULL, rotation INTEGER NOT NULL, seed INTEGER NOT NULL,
    games INTEGER NOT NULL, lineup TEXT NOT NULL,
    transport TEXT NOT NULL,               -- 'in-process' or 'tcp'
    status TEXT NOT NULL DEFAULT 'pending', -- pending, running, done, failed
    attempts INTEGER NOT NULL DEFAULT 0, error TEXT,
    started_at REAL, finished_at REAL, cpu_seconds REAL);
CREATE TABLE IF NOT EXISTS games (
    match_id INTEGER NOT NULL REFERENCES matches(id), game INTEGER NOT NULL,
    seats TEXT NOT NULL, turns INTEGER NOT NULL, finished_at REAL NOT NULL,
    PRIMARY KEY (match_id, game));
CREATE TABLE IF NOT EXISTS results (
    match_id INTEGER NOT NULL, game INTEGER NOT NULL, player INTEGER NOT NULL,
    participant INTEGER NOT NULL REFERENCES participants(id),
    place INTEGER NOT NULL, points INTEGER NOT NULL,
    PRIMARY KEY (match_id, game, player),
    FOREIGN KEY (match_id, game) REFERENCES games(match_id, game));
CREATE TABLE IF NOT EXISTS seat_faults (      -- seats that met a fault, every attempt kept
    match_id INTEGER NOT NULL REFERENCES matches(id), attempt INTEGER NOT NULL,
    player INTEGER NOT NULL, participant INTEGER NOT NULL REFERENCES participants(id),
    status TEXT NOT NULL, faults TEXT NOT NULL, stand_in TEXT, detail TEXT,
    PRIMARY KEY (match_id, attempt, player));
CREATE TABLE IF NOT EXISTS match_logs (       -- --log-dir: each attempt's match log file
    match_id INTEGER NOT NULL REFERENCES matches(id), attempt INTEGER NOT NULL,
    path TEXT NOT NULL, PRIMARY KEY (match_id, attempt));
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, started_at REAL NOT NULL, finished_at REAL, transport TEXT,
    jobs INTEGER, tables INTEGER, games INTEGER, wall_seconds REAL,
    cpu_parent REAL, cpu_children REAL, interrupted INTEGER);
"""
# The tables a tournament's games are in (the later ones, seat_faults, match_logs and runs,
# are made when missing: databases of older versions lack them).
TABLES = ("meta", "participants", "matches", "games", "results")


class StoreError(RuntimeError):
    """The results database cannot be used as asked."""


class DatabaseExistsError(StoreError, OutputRefusedError):
    """A new tournament was asked for on a database that already holds one (exit 5)."""


class StoreReadError(StoreError):
    """The database to read is missing, damaged (file or WAL) or holds no tournament (exit
    code 4: a bad input file)."""


class ResumeMismatchError(StoreError):
    """The database holds a different tournament than the one asked to resume."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """One finished game for the statistics: who played which player number, and how."""

    match_id: int
    game: int
    deal_set: int
    lineup: tuple[int, ...]  # participant index by player number
    places: tuple[int, ...]  # place by player number (0 = first)
    points: tuple[int, ...]


class TournamentStore:
    def __init__(self, path: str | Path, writer: bool = False) -> None:
        self.path = Path(path)
        self._lock: IO[bytes] | None = None
        if writer:  # one writing process per database: an OS lock, refused at once
            self._lock = lock_database(self.path)
        try:
            self._open()
        except BaseException:  # no half-open store: its connection and lock go now, not at GC
            self.close()
            raise
        self._lineups: dict[int, list[int]] = {}

    def _open(self) -> None:
        existing = self.path.exists()
        damage = wal_damage(self.path) if existing else None
        if damage is not None:  # SQLite itself would drop the games after it without a word
            raise StoreReadError(f"{damage}; move the -wal file away to open the database "
                                 "without them")
        try:
            # The dispatcher is the only writer; isolation_level=None: explicit transactions.
            self.con = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.use_wal()
            self.con.execute("PRAGMA synchronous=NORMAL")
            self.con.execute("PRAGMA foreign_keys=ON")
            if existing:
                self.check_integrity()
                self.check_tables()
            self.con.executescript(SCHEMA)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            if not existing:
                raise
            raise StoreReadError(f"{self.path}: not a usable tournament database "
                                 f"({exc})") from None

    def check_integrity(self) -> None:
        """SQLite's quick check of every page; a damaged file is refused, not half read."""
        problems = [r[0] for r in self.con.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise StoreReadError(f"{self.path}: the database is damaged: "
                                 f"{'; '.join(map(str, problems))}")

    def check_tables(self) -> None:
        """A database that holds a tournament has every table of it: one that lost a table
        is refused, not filled with an empty one (its games would silently be gone)."""
        have = {r[0] for r in self.con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not have:
            return  # a new, empty file (create() made it)
        missing = [t for t in TABLES if t not in have]
        if missing:
            raise StoreReadError(f"{self.path}: not a whole tournament database: no "
                                 f"{', '.join(missing)} table")

    def use_wal(self, attempts: int = 50) -> None:
        """Switch to WAL; SQLite silently keeps the old mode while a reader holds the file."""
        for _ in range(attempts):
            mode = self.con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() == "wal":
                return
            time.sleep(0.1)
        raise StoreError(f"{self.path}: cannot switch the database to WAL mode")

    # -- creating and resuming ---------------------------------------------------------
    @classmethod
    def create(cls, path: str | Path, cfg: TournamentConfig) -> TournamentStore:
        """A new database: the file is created exclusively (an existing one is refused,
        :class:`~daihinmin.records.outfile.OutputRefusedError`) and locked."""
        from daihinmin.records.outfile import check_output_path

        path = Path(path)
        check_output_path(path, what="results database", existing=path.exists())
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            if path.stat().st_size > 0:
                raise DatabaseExistsError(f"results database {path} exists; pass --resume "
                                          "to continue it") from None
        store = cls(path, writer=True)
        if store.stored_config() is not None:  # filled by another process meanwhile
            store.close()
            raise DatabaseExistsError(f"results database {path} exists; pass --resume to "
                                      "continue it")
        store.write_tournament(cfg)
        return store

    @classmethod
    def resume(cls, path: str | Path, cfg: TournamentConfig | None) -> TournamentStore:
        """Open an existing database; ``cfg`` (if given) must match and may add games (or is
        written into a database whose creation was killed before it held a tournament)."""
        if not Path(path).exists():
            if cfg is None:
                raise StoreReadError(f"{path} does not exist and no tournament was given")
            return cls.create(path, cfg)
        from daihinmin.records.outfile import check_output_path

        check_output_path(Path(path), what="results database", existing=True)
        store = cls(path, writer=True)
        try:
            stored = store.stored_config()
            if stored is None and cfg is not None and store.blank():
                store.write_tournament(cfg)  # a creation that was killed before it was done
                return store
            if stored is None:
                raise StoreReadError(f"{path} holds no tournament")
            if cfg is not None and cfg.fingerprint() != stored.fingerprint():
                raise ResumeMismatchError(
                    f"{path} holds a different tournament (fingerprint "
                    f"{stored.fingerprint()}, asked {cfg.fingerprint()}); only games, jobs "
                    "and tables may change")
            if cfg is not None and cfg.games > stored.games:
                store.write_tournament(cfg)  # appends the extra deal sets
        except BaseException:
            store.close()
            raise
        return store

    def blank(self) -> bool:
        """Whether the file holds this schema's tables and nothing else, all empty: a
        database whose creation was cut short (a kill between the file and its tournament),
        not another program's file."""
        with self.reading():
            tables = [r[0] for r in self.con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            ours = set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))
            return set(tables) <= ours and not any(
                self.con.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() for t in tables)

    def write_tournament(self, cfg: TournamentConfig) -> None:
        rules = cfg.ruleset()
        names = [p.name for p in cfg.participants]
        hero = names.index(cfg.hero) if cfg.hero is not None else None
        specs = build_schedule(len(names), rules.players, cfg.games, cfg.games_per_match,
                               cfg.seed, hero=hero, duplicate=cfg.duplicate,
                               schedule=cfg.schedule, exact=cfg.games_exact)
        with self.transaction():
            self.set_meta("schema", SCHEMA_VERSION)
            self.set_meta("config", json.dumps(cfg.to_dict(), sort_keys=True))
            self.set_meta("fingerprint", cfg.fingerprint())
            self.set_meta("rules", rules.name)
            for i, p in enumerate(cfg.participants):
                self.con.execute(
                    "INSERT OR IGNORE INTO participants (id, name, spec) VALUES (?, ?, ?)",
                    (i, p.name, p.describe()))
            existing = {row[0]: row[1:] for row in self.con.execute(
                "SELECT id, key, seed, lineup, games, status FROM matches")}
            for s in specs:
                row = (s.key, s.seed, json.dumps(s.lineup))
                if s.index in existing:
                    if tuple(existing[s.index][:3]) != row:
                        raise ResumeMismatchError(f"match {s.index} differs from the schedule")
                    if existing[s.index][3] != s.games:
                        self.lengthen(s, existing[s.index][4])
                    continue
                self.con.execute(
                    "INSERT INTO matches (id, key, deal_set, table_no, rotation, seed, games,"
                    " lineup, transport) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (s.index, s.key, s.deal_set, s.table, s.rotation, s.seed, s.games,
                     json.dumps(s.lineup), cfg.transport))

    def lengthen(self, spec: ScheduledMatch, status: str) -> None:
        """A match of a round cut short (``games_exact``) that more games make longer: only
        while it is not done (an unfinished one is replayed from its start anyway)."""
        if status == "done":
            raise ResumeMismatchError(
                f"match {spec.index}, in the round cut short by --games-exact, is played "
                "already; an exact tournament grows only until that round's matches are "
                "done: start a new one")
        self.delete_games(spec.index)  # (an interrupted attempt's rows, if any)
        self.con.execute("UPDATE matches SET games = ? WHERE id = ?", (spec.games, spec.index))

    def stored_config(self) -> TournamentConfig | None:
        with self.reading():
            raw = self.get_meta("config")
            schema = self.get_meta("schema")
        if raw is None:
            return None
        if schema != SCHEMA_VERSION:
            raise StoreReadError(f"{self.path}: database schema {schema!r:.20} is not "
                                 f"{SCHEMA_VERSION!r}, the one this version reads")
        try:
            return config_from_dict(json.loads(raw))
        except (ValueError, RecursionError) as exc:  # TournamentConfigError is a ValueError
            raise StoreReadError(f"{self.path}: the stored config is not valid ({exc})") from None

    # -- helpers -----------------------------------------------------------------------
    def transaction(self) -> _Transaction:
        return _Transaction(self.con)

    def set_meta(self, key: str, value: str) -> None:
        self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def get_meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        if hasattr(self, "con"):  # (not yet connected when opening failed early)
            self.con.close()
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None

    # -- scheduling state --------------------------------------------------------------
    def reset_unfinished(self, retry_failed: bool = True) -> int:
        """Forget partial games of matches that did not finish; they will be replayed."""
        states = ("running", "failed") if retry_failed else ("running",)
        marks = ",".join("?" * len(states))
        with self.transaction():
            ids = [r[0] for r in self.con.execute(
                f"SELECT id FROM matches WHERE status IN ({marks}) OR (status = 'pending' AND"
                f" EXISTS (SELECT 1 FROM games g WHERE g.match_id = matches.id))", states)]
            for mid in ids:
                self.delete_games(mid)
            self.con.executemany("UPDATE matches SET status = 'pending', error = NULL,"
                                 " started_at = NULL WHERE id = ?", [(m,) for m in ids])
        return len(ids)

    def delete_games(self, match_id: int) -> None:
        self.con.execute("DELETE FROM results WHERE match_id = ?", (match_id,))
        self.con.execute("DELETE FROM games WHERE match_id = ?", (match_id,))

    def pending(self) -> list[ScheduledMatch]:
        rows = self.con.execute(
            "SELECT id, deal_set, table_no, rotation, seed, games, lineup FROM matches"
            " WHERE status = 'pending' ORDER BY id")
        return [ScheduledMatch(r[0], r[1], r[2], r[3], r[4], r[5], tuple(json.loads(r[6])))
                for r in rows]

    def counts(self) -> dict[str, int]:
        return {s: n for s, n in self.con.execute(
            "SELECT status, COUNT(*) FROM matches GROUP BY status ORDER BY status")}

    def total_games(self) -> int:
        return int(self.con.execute("SELECT COALESCE(SUM(games), 0) FROM matches")
                   .fetchone()[0])

    def game_count(self, done_only: bool = True) -> int:
        sql = "SELECT COUNT(*) FROM games"
        if done_only:
            sql += " JOIN matches m ON m.id = games.match_id WHERE m.status = 'done'"
        return int(self.con.execute(sql).fetchone()[0])

    def transports(self) -> list[str]:
        return [r[0] for r in self.con.execute(
            "SELECT DISTINCT transport FROM matches ORDER BY transport")]

    # -- recording ---------------------------------------------------------------------
    def match_started(self, match_id: int) -> None:
        with self.transaction():
            self.delete_games(match_id)  # a retried match starts clean
            self.con.execute("UPDATE matches SET status = 'running', started_at = ?,"
                             " attempts = attempts + 1 WHERE id = ?", (time.time(), match_id))

    def record_game(self, match_id: int, game: int, seats: tuple[int, ...],
                    places: tuple[int, ...], points: tuple[int, ...], turns: int) -> None:
        lineup = self.lineup(match_id)
        with self.transaction():
            self.con.execute("INSERT INTO games (match_id, game, seats, turns, finished_at)"
                             " VALUES (?, ?, ?, ?, ?)",
                             (match_id, game, json.dumps(list(seats)), turns, time.time()))
            self.con.executemany(
                "INSERT INTO results (match_id, game, player, participant, place, points)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(match_id, game, p, lineup[p], places[p], points[p])
                 for p in range(len(places))])

    def lineup(self, match_id: int) -> list[int]:
        cached = self._lineups.get(match_id)
        if cached is None:
            row = self.con.execute("SELECT lineup FROM matches WHERE id = ?",
                                   (match_id,)).fetchone()
            if row is None:
                raise StoreError(f"no match {match_id}")
            cached = self._lineups[match_id] = json.loads(row[0])
        return cached

    def match_done(self, match_id: int, cpu_seconds: float | None) -> None:
        with self.transaction():
            played, wanted = self.con.execute(
                "SELECT (SELECT COUNT(*) FROM games WHERE match_id = ?), games FROM matches"
                " WHERE id = ?", (match_id, match_id)).fetchone()
            if played != wanted:
                raise StoreError(f"match {match_id} finished with {played}/{wanted} games")
            self.con.execute("UPDATE matches SET status = 'done', finished_at = ?,"
                             " cpu_seconds = ? WHERE id = ?",
                             (time.time(), cpu_seconds, match_id))

    def match_failed(self, match_id: int, error: str) -> None:
        with self.transaction():
            self.delete_games(match_id)
            self.con.execute("UPDATE matches SET status = 'failed', error = ?,"
                             " finished_at = ? WHERE id = ?", (error, time.time(), match_id))

    def record_faults(self, match_id: int, rows: list[tuple[Any, ...]]) -> None:
        """The seats of this attempt of the match that met a fault (kept when the match is
        retried, so the report shows every fault)."""
        lineup = self.lineup(match_id)
        with self.transaction():
            (attempt,) = self.con.execute("SELECT attempts FROM matches WHERE id = ?",
                                          (match_id,)).fetchone()
            self.con.executemany(
                "INSERT OR REPLACE INTO seat_faults (match_id, attempt, player, participant,"
                " status, faults, stand_in, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(match_id, attempt, p, lineup[p], status, json.dumps(counts, sort_keys=True),
                  by, detail) for p, status, counts, by, detail in rows])

    def record_log(self, match_id: int, path: str) -> None:
        """The log file of this attempt of the match (``started`` came first)."""
        with self.transaction():
            self.con.execute(
                "INSERT OR REPLACE INTO match_logs (match_id, attempt, path) SELECT id,"
                " attempts, ? FROM matches WHERE id = ?", (path, match_id))

    def adopt_logs(self, found: list[tuple[int, int, Path]]) -> int:
        """Make the database name the logs in the log folder as they are, after a killed or
        interrupted run (call it before :meth:`reset_unfinished`, whose reset of the start
        times it reads).  Returns how many logs were recorded.

        - A log no attempt names: a run killed after a worker opened a match's log and
          before this database heard of it leaves one.  It is the log of its unfinished
          match's last attempt when the killed run started that attempt and it names no log
          yet (the ``log`` message was lost after its ``started``: a run plays a match once,
          and each run clears the start times of what it does not finish); else an attempt
          of its own (its ``started`` was lost too).  Never counted.  Only files made since
          this tournament's first run are taken, so an older run's logs in the same folder
          are not.
        - A named log that is not there (an attempt stopped before its log was made, or a
          server that removed a log it never wrote a header to): that attempt left no log,
          and the name is free for the next attempt, which must not be named twice."""
        with self.reading():
            (since,) = self.con.execute("SELECT MIN(started_at) FROM runs").fetchone()
            named = self.con.execute(
                "SELECT l.match_id, l.attempt, l.path FROM match_logs l JOIN matches m"
                " ON m.id = l.match_id WHERE m.status != 'done'").fetchall()
            known = {p for (p,) in self.con.execute("SELECT path FROM match_logs")}
            unfinished = {int(m): (int(a), t) for m, a, t in self.con.execute(
                "SELECT id, attempts, started_at FROM matches WHERE status != 'done'")}
        gone = [(m, a) for m, a, path in named if not os.path.lexists(path)]
        if gone:
            with self.transaction():
                self.con.executemany("DELETE FROM match_logs WHERE match_id = ? AND"
                                     " attempt = ?", gone)
        if since is None:
            return 0
        logged = {(m, a) for m, a, _ in named} - set(gone)
        adopted = 0
        for match_id, _, path in found:
            if str(path) in known or match_id not in unfinished:
                continue
            try:
                made = path.stat().st_mtime
            except OSError:
                continue
            if made < since - 1:  # (file times may lag the clock a little)
                continue
            attempt, started = unfinished[match_id]
            if attempt > 0 and started is not None and (match_id, attempt) not in logged:
                own = attempt  # the log of the attempt the killed run started
            else:
                own = attempt = attempt + 1
            with self.transaction():
                self.con.execute("UPDATE matches SET attempts = ? WHERE id = ?",
                                 (attempt, match_id))
                self.con.execute("INSERT INTO match_logs (match_id, attempt, path)"
                                 " VALUES (?, ?, ?)", (match_id, own, str(path)))
            unfinished[match_id] = (attempt, started)
            logged.add((match_id, own))
            adopted += 1
        return adopted

    def match_logs(self) -> list[MatchLogRow]:
        """Every attempt's log, by match and attempt; ``counted``: its games are the ones
        in the standings (the match is done and this was its last attempt)."""
        with self.reading():
            rows = self.con.execute(
                "SELECT l.match_id, l.attempt, l.path, m.status = 'done' AND l.attempt ="
                " m.attempts FROM match_logs l JOIN matches m ON m.id = l.match_id"
                " ORDER BY l.match_id, l.attempt").fetchall()
        return [MatchLogRow(int(m), int(a), str(path), bool(c)) for m, a, path, c in rows]

    def participant_faults(self) -> list[ParticipantFaults]:
        """Per participant (by index): fault counts by kind, and matches a stand-in played
        for it (those failed: none of their games count)."""
        out = [ParticipantFaults() for _ in self.participant_names()]
        for part, status, counts, by in self.con.execute(
                "SELECT participant, status, faults, stand_in FROM seat_faults"):
            f = out[part]
            for kind, k in (json.loads(counts) or {status: 1}).items():
                f.counts[kind] = f.counts.get(kind, 0) + int(k)
            if by is not None:
                f.replaced_matches += 1
        return out

    def failures(self) -> list[tuple[int, str]]:
        return [(r[0], r[1]) for r in self.con.execute(
            "SELECT id, error FROM matches WHERE status = 'failed' ORDER BY id")]

    def begin_run(self, transport: str, jobs: int, tables: int) -> int:
        with self.transaction():
            cur = self.con.execute("INSERT INTO runs (started_at, transport, jobs, tables)"
                                   " VALUES (?, ?, ?, ?)",
                                   (time.time(), transport, jobs, tables))
        return int(cur.lastrowid or 0)

    def end_run(self, run_id: int, games: int, wall: float, cpu_parent: float,
                cpu_children: float, interrupted: bool) -> None:
        with self.transaction():
            self.con.execute(
                "UPDATE runs SET finished_at = ?, games = ?, wall_seconds = ?, cpu_parent = ?,"
                " cpu_children = ?, interrupted = ? WHERE id = ?",
                (time.time(), games, wall, cpu_parent, cpu_children, int(interrupted),
                 run_id))

    # -- reading -----------------------------------------------------------------------
    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Errors of a damaged file met while reading become one :class:`StoreReadError`."""
        try:
            yield
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise StoreReadError(f"{self.path}: the database cannot be read ({exc})") from None

    def participant_names(self) -> list[str]:
        with self.reading():
            names = [r[0] for r in self.con.execute(
                "SELECT name FROM participants ORDER BY id")]
        if not all(isinstance(n, str) for n in names):
            raise StoreReadError(f"{self.path}: a participant name is not a text")
        return names

    def games(self, done_only: bool = True) -> list[GameRow]:
        """Finished games in schedule order (match id, game number), each row checked."""
        where = "WHERE m.status = 'done'" if done_only else ""
        with self.reading():
            rows = list(group_games(self.con.execute(
                "SELECT r.match_id, r.game, m.deal_set, r.player, r.participant, r.place,"
                f" r.points FROM results r JOIN matches m ON m.id = r.match_id {where}"
                " ORDER BY r.match_id, r.game, r.player")))
            participants = int(self.con.execute("SELECT COUNT(*) FROM participants")
                               .fetchone()[0])
        for row in rows:
            check_row(row, participants, self.path)
        return rows

    def deal_sets(self) -> int:
        """How many deal sets (rounds) the schedule has."""
        return int(self.con.execute("SELECT COALESCE(MAX(deal_set) + 1, 0) FROM matches")
                   .fetchone()[0])

    def deal_set_points(self, deal_set: int) -> DealSetPoints | None:
        """Each participant's points and seat-games in one deal set, once every match of it
        is done (None before)."""
        with self.reading():
            total, done = self.con.execute(
                "SELECT COUNT(*), COALESCE(SUM(status = 'done'), 0) FROM matches"
                " WHERE deal_set = ?", (deal_set,)).fetchone()
            if total == 0 or done < total:
                return None
            rows = self.con.execute(
                "SELECT r.participant, SUM(r.points), COUNT(*) FROM results r JOIN matches m"
                " ON m.id = r.match_id WHERE m.deal_set = ? GROUP BY r.participant",
                (deal_set,)).fetchall()
            games = int(self.con.execute(
                "SELECT COUNT(*) FROM games g JOIN matches m ON m.id = g.match_id"
                " WHERE m.deal_set = ?", (deal_set,)).fetchone()[0])
        return DealSetPoints({int(p): int(points) for p, points, _ in rows},
                             {int(p): int(n) for p, _, n in rows}, games)

    def game_results(self) -> list[tuple[Any, ...]]:
        """Every stored game row (for comparing runs): match, game, seats, places, points."""
        out = []
        for mid, game, seats in self.con.execute(
                "SELECT match_id, game, seats FROM games ORDER BY match_id, game").fetchall():
            res = self.con.execute("SELECT participant, place, points FROM results WHERE"
                                   " match_id = ? AND game = ? ORDER BY player",
                                   (mid, game)).fetchall()
            out.append((mid, game, seats, tuple(res)))
        return out


@dataclass(frozen=True, slots=True)
class DealSetPoints:
    points: dict[int, int]  # participant -> points over the deal set
    seat_games: dict[int, int]  # participant -> seats it held, summed over the games
    games: int


@dataclass(frozen=True, slots=True)
class MatchLogRow:
    match_id: int
    attempt: int
    path: str
    counted: bool  # its games are those in the standings


@dataclass
class ParticipantFaults:
    counts: dict[str, int] = field(default_factory=dict)  # kind -> count, over all attempts
    replaced_matches: int = 0  # match attempts a stand-in played for it (they failed)

    def text(self) -> str:
        """``CRASHED 2, TIMEOUT 1`` (most first), or ``-``."""
        parts = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return ", ".join(f"{k} {v}" for k, v in parts) or "-"


def lock_database(path: Path) -> IO[bytes]:
    """The exclusive OS lock of a results database (a lock on the file itself, which
    SQLite's own POSIX locks do not touch)."""
    from daihinmin.records.outfile import OutputLockedError, lock_file

    f = path.open("rb")
    try:
        lock_file(f, path, "results database")
    except OutputLockedError:
        f.close()
        raise OutputLockedError(f"results database {path} is in use by another tournament "
                                "process; wait for it to finish (one writer at a time)"
                                ) from None
    return f


def group_games(rows: Any) -> Iterator[GameRow]:
    key = None
    buf: list[tuple[int, int, int, int]] = []
    deal_set = 0
    for mid, game, ds, player, part, place, pts in rows:
        if (mid, game) != key:
            if buf:
                yield make_row(key, deal_set, buf)
            key, buf, deal_set = (mid, game), [], ds
        buf.append((player, part, place, pts))
    if buf:
        yield make_row(key, deal_set, buf)


def check_row(row: GameRow, participants: int, path: Path) -> None:
    """A stored game row the statistics can use (a damaged file may hold anything)."""
    n = len(row.places)
    ints = (row.match_id, row.game, row.deal_set, *row.lineup, *row.places, *row.points)
    if (not all(type(v) is int for v in ints) or sorted(row.places) != list(range(n))
            or len(row.lineup) != n or not all(0 <= p < participants for p in row.lineup)
            or not all(abs(v) <= 10**12 for v in row.points)):
        raise StoreReadError(f"{path}: match {row.match_id!r:.20} game {row.game!r:.20}: "
                             "not a valid result row (the database is damaged)")


def make_row(key: Any, deal_set: int, buf: list[tuple[int, int, int, int]]) -> GameRow:
    buf.sort()
    return GameRow(key[0], key[1], deal_set, tuple(b[1] for b in buf),
                   tuple(b[2] for b in buf), tuple(b[3] for b in buf))


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def __enter__(self) -> sqlite3.Connection:
        self.con.execute("BEGIN IMMEDIATE")
        return self.con

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.con.execute("ROLLBACK" if exc_type is not None else "COMMIT")
