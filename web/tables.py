"""Tables (rooms): who sits where, the match being played, and who is watching.

A table is made by its host with the settings from the menu, in one of three modes:

* ``cpu``: the host plays seat 0, CPUs the rest; the match starts at once;
* ``hotseat``: every seat is a person at the host's one device, a curtain between turns;
* ``room``: seats are claimed by the people who open the room's URL; the host starts, and
  the seats still empty are given to CPUs.

Each person holds a seat token (a secret in their browser); every page of the table is a
websocket connection that is sent a fresh snapshot whenever the table changes.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio
from daihinmin.driver.record import GameRecord
from daihinmin.players.levels import UnknownLevelError, level_for
from daihinmin.players.registry import make_bot
from daihinmin.records.inprocess_log import LocalMatchLog
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet

from .driver import LiveGame, Seat, play_game
from .feeds import Feed
from .limits import WebLimits
from .seats import CpuSeat, PersonSeat
from .watched import Watched

log = logging.getLogger("daihinmin.web")

MODES = ("cpu", "hotseat", "room")
WEB_PROTOCOL = 0  # the header's protocol number of a seat played in the browser


class TableError(ValueError):
    """A request about a table that cannot be done (full, started, unknown seat...)."""


@dataclass
class Place:
    """One seat: a person (with their token), a CPU, or still open."""

    number: int
    name: str = ""
    token: str | None = None  # None: a CPU or an open seat
    cpu: str | None = None  # the bundled bot playing it, for CPU seats
    person: PersonSeat | None = None
    connections: int = 0  # open pages holding this seat's token

    @property
    def open(self) -> bool:
        return self.token is None and self.cpu is None


@dataclass
class Table(Watched):
    id: str
    mode: str
    rules: RuleSet
    games: int
    level: str
    cpu_kind: str
    seed: int
    cpu_delay: float = 0.0
    log_dir: Path | None = None
    places: list[Place] = field(default_factory=list)
    host_token: str = ""
    status: str = "lobby"  # lobby, playing, over, failed
    error: str | None = None
    notice: str | None = None  # what the table is waiting for, when it is not a person
    match: MatchState | None = None
    live: LiveGame | None = None
    records: list[GameRecord] = field(default_factory=list)
    revealed: int | None = None  # hot-seat: the player whose hand the curtain shows
    log_path: Path | None = None
    client: str = ""  # the address that made it (tables per client are limited)
    pages: int = 0  # open pages (seats and spectators)
    idle_since: float = field(default_factory=time.monotonic)  # since when no page is open
    spectator_text: tuple[int, str] | None = None  # (version, snapshot) shared by spectators
    scope: trio.CancelScope = field(default_factory=trio.CancelScope, repr=False)
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def page_opened(self) -> None:
        self.pages += 1

    def page_closed(self) -> None:
        self.pages -= 1
        if not self.pages:
            self.idle_since = time.monotonic()

    # --- seats -------------------------------------------------------------------------------
    def place_of(self, token: str | None) -> Place | None:
        if not token:
            return None
        return next((p for p in self.places if p.token == token), None)

    def claim(self, name: str) -> Place:
        """Give the first open seat to a person joining the room."""
        if self.mode != "room":
            raise TableError("this table takes no more players")
        if self.status != "lobby":
            raise TableError("the match has started: you can watch it")
        place = next((p for p in self.places if p.open), None)
        if place is None:
            raise TableError("every seat is taken: you can watch")
        place.name = clean_name(name, f"player {place.number + 1}")
        place.token = secrets.token_urlsafe(16)
        self.changed()
        return place

    def hot_seat_player(self) -> int | None:
        """Hot-seat: the player asked something now (whose hand may be shown)."""
        for place in self.places:
            if place.person is not None and place.person.prompt is not None:
                return place.number
        return None

    # --- the match ---------------------------------------------------------------------------
    def _cpu_options(self) -> dict[str, Any]:
        """The level's options for its bot (mc's thinking time at the advanced level)."""
        try:
            level = level_for(self.level, self.rules)
        except UnknownLevelError:
            return {}
        return dict(level.options) if level.bot == self.cpu_kind else {}

    def _seats(self) -> list[Seat]:
        seats: list[Seat] = []
        for place in self.places:
            bot = make_bot(self.cpu_kind, seed=self.seed + place.number, **self._cpu_options())
            cpu = CpuSeat(bot, self.cpu_delay)
            if place.token is None:
                place.cpu = place.cpu or self.cpu_kind
                place.name = place.name or f"CPU {place.number + 1}"
                seats.append(cpu)
            else:
                place.person = PersonSeat(place.name, cpu, self.changed)
                place.person.connected = place.connections > 0
                seats.append(place.person)
        return seats

    def start(self, token: str | None) -> None:
        if token != self.host_token:
            raise TableError("only the host can start the match")
        if self.status != "lobby":
            raise TableError("the match has already started")
        self.status = "playing"
        self.changed()

    async def run(self) -> None:
        """Wait for the start, then play every game (and write the log when asked)."""
        # A room waits for its host's start; a CPU or hot-seat table for its device, so
        # that nobody's first turns are played by the stand-in.
        while self.status == "lobby" or (self.mode != "room"
                                         and not self.places[0].connections):
            await self.wait_change(self.version)
        if self.cpu_kind == "mc":  # before the seats: making an MCBot warms it up too
            from daihinmin.players.registry import prepare, prepare_notice

            notice = await trio.to_thread.run_sync(prepare_notice, "mc")
            if notice is not None:  # a compile, not a load from the cache
                self.notice = f"the advanced CPU is {notice}"
                self.changed()
            await trio.to_thread.run_sync(prepare, "mc")
            self.notice = None
        seats = self._seats()
        self.match = MatchState(self.rules, seed=self.seed, games=self.games)
        match_log = self._open_log()
        try:
            while not self.match.finished:
                record = await play_game(self.match, seats, self._publish)
                self.records.append(record)
                if match_log is not None:
                    match_log.game(record)
            self.status = "over"
        except Exception as exc:  # one table's failure must not stop the others
            log.exception("table %s failed", self.id)
            self.status, self.error = "failed", f"the match stopped: {exc}"
        finally:
            if match_log is not None:
                match_log.close(self.match, self.error)
            self.changed()

    def _publish(self, live: LiveGame) -> None:
        self.live = live
        if self.mode == "hotseat" and self.hot_seat_player() != self.revealed:
            self.revealed = None  # the turn moved on: the curtain comes down
        self.changed()

    def reveal(self, token: str | None) -> None:
        """Hot-seat: the next person lifted the curtain."""
        if self.mode != "hotseat" or token != self.host_token:
            raise TableError("there is no curtain on this table")
        self.revealed = self.hot_seat_player()
        self.changed()

    def _open_log(self) -> LocalMatchLog | None:
        if self.log_dir is None:
            return None
        self.log_path = self.log_dir / f"web-{self.id}.jsonl"
        names = [f"{p.name} ({p.cpu})" if p.cpu else p.name for p in self.places]
        return LocalMatchLog.open(self.log_path, self.rules, self.seed, self.games, names,
                                  protocol=WEB_PROTOCOL)


def clean_name(name: object, default: str) -> str:
    """A display name: printable, at most 24 characters."""
    text = "".join(ch for ch in str(name or "") if ch.isprintable()).strip()[:24]
    return text or default


class TableLimitError(TableError):
    """No more tables now: the app or this client holds as many as allowed."""


class Lobby:
    """Every table of one ``daihinmin web`` process, run in its nursery.

    At most ``limits.max_tables`` tables, ``limits.tables_per_client`` per client address;
    a table that no page has had open for ``limits.table_idle_seconds`` is closed (its match
    stopped, its log ended as aborted) and forgotten, so rooms never pile up."""

    def __init__(self, nursery: trio.Nursery, cpu_delay: float = 0.6,
                 log_dir: Path | None = None,
                 seed_source: Callable[[], int] = lambda: secrets.randbelow(2**31),
                 limits: WebLimits | None = None) -> None:
        self.nursery = nursery
        self.cpu_delay = cpu_delay
        self.log_dir = log_dir
        self.seed_source = seed_source
        self.limits = limits or WebLimits()
        self.tables: dict[str, Table] = {}
        self.feeds: dict[str, Feed] = {}  # tables published by serve/match (--publish)

    def check_room(self, client: str) -> None:
        """Refuse a new table past the limits (:class:`TableLimitError`)."""
        limits = self.limits
        if len(self.tables) >= limits.max_tables:
            raise TableLimitError(f"this server holds {limits.max_tables} tables already; "
                                  "try again later")
        if sum(t.client == client for t in self.tables.values()) >= limits.tables_per_client:
            raise TableLimitError(f"you have {limits.tables_per_client} tables open already; "
                                  "close one (or wait for it to expire)")

    def create(self, mode: str, rules: RuleSet, games: int, level: str, cpu_kind: str,
               name: str, client: str = "") -> tuple[Table, Place]:
        if mode not in MODES:
            raise TableError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
        self.check_room(client)
        table_id = secrets.token_urlsafe(6)
        table = Table(table_id, mode, rules, games, level, cpu_kind, self.seed_source(),
                      self.cpu_delay, self.log_dir)
        table.host_token = secrets.token_urlsafe(16)
        n = rules.players
        table.places = [Place(i) for i in range(n)]
        host = table.places[0]
        if mode != "cpu" and str(name).strip().lower() == "you":
            name = ""  # the menu's default: "you" names nobody at a shared table
        host.name, host.token = clean_name(name, "you" if mode == "cpu" else "player 1"), \
            table.host_token
        if mode == "hotseat":
            for place in table.places[1:]:
                place.name, place.token = f"player {place.number + 1}", table.host_token
        if mode == "cpu":
            for place in table.places[1:]:
                place.cpu = cpu_kind
        if mode != "room":
            table.status = "playing"
        table.client = client
        self.tables[table_id] = table
        self.nursery.start_soon(self._run, table)
        return table, host

    async def _run(self, table: Table) -> None:
        with table.scope:
            await table.run()

    def expire(self) -> list[str]:
        """Close and forget the tables no page has had open for the idle time."""
        cutoff = time.monotonic() - self.limits.table_idle_seconds
        gone = [t.id for t in self.tables.values() if not t.pages and t.idle_since <= cutoff]
        for table_id in gone:
            self.tables.pop(table_id).scope.cancel()
        return gone

    async def expire_forever(self) -> None:
        period = max(0.05, min(30.0, self.limits.table_idle_seconds / 4))
        while True:
            await trio.sleep(period)
            for table_id in self.expire():
                log.info("table %s closed: no page open for %g s", table_id,
                         self.limits.table_idle_seconds)

    def get(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def listing(self) -> list[dict[str, Any]]:
        return [{"id": t.id, "mode": t.mode, "rules": t.rules.name, "status": t.status,
                 "game": t.match.game if t.match else 0, "games": t.games,
                 "players": [p.name or "(open)" for p in t.places], "started": t.started}
                for t in self.tables.values()]


__all__ = ["MODES", "Lobby", "Place", "Table", "TableError", "TableLimitError", "clean_name"]
