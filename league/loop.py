"""The league itself: pick up entrants, pair them, play, record; stop and resume.

One Trio loop holds everything: a scanner that looks at the submissions folder every
``scan_seconds`` (new folders enter, a changed folder is the entrant's next version and
retires the old one, a removed folder retires its entrant), and ``tables`` table tasks that
each take the next match (left over from a killed run first, else a new one from
:mod:`.pairing` or the groups format), hand it to the runner, and write its games as they
end.  The league is the database's only writer.

Stopping: Ctrl-C or SIGTERM stop at once (the matches in play are played again on resume);
a stopping rule in the config lets the matches in play finish and starts no new one.
"""

from __future__ import annotations

import hmac
import importlib.util
import random
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio
from daihinmin.server.errors import MatchInterruptedError
from daihinmin.tournament.schedule import derive_seed

from .config import LeagueConfig
from .entrants import EntrantError, FolderEntry, FolderWatch, build, house_argv
from .groups import GroupsSource
from .lobby import Lobby, issue_secrets, secret_hash
from .pairing import OnlineRatings
from .runner import MatchEnd, MatchOrder, Runner, Seat
from .source import LadderSource, MatchSource
from .standings import entrant_rating, lower_is_better
from .store import Entrant, LeagueStore

Checker = Callable[[Path], "tuple[str, str] | None"]  # folder -> (reason, detail) or None
IDLE_SECONDS = 0.5  # a table with nothing to play looks again after this long
CHECK_TIMEOUT = 300.0


@dataclass
class Progress:
    """What this run did (printed when it stops)."""

    matches: int = 0
    failed: int = 0
    games: int = 0
    stopped_by: str = ""
    started: float = field(default_factory=time.monotonic)


class League:
    def __init__(self, cfg: LeagueConfig, store: LeagueStore, runner: Runner,
                 say: Callable[[str], None] = print, checker: Checker | None = None) -> None:
        self.cfg = cfg
        self.store = store
        self.runner = runner
        self.say = say
        self.checker = checker
        self.rng = random.Random(derive_seed(cfg.seed, "league-pairing", time.time_ns()))
        self.ratings = OnlineRatings()
        self.lower = lower_is_better(store)
        self.busy: dict[int, int] = {}  # entrant -> tables it sits at now
        self.matches_of: dict[int, int] = {}
        self.progress = Progress()
        self.watch = FolderWatch(cfg.path(cfg.submissions) if cfg.submissions else None)
        self.draining = False  # a stopping rule is met: no new match starts
        self.changed = trio.Event()  # entrants changed (a table waiting may go on)
        self.claimed: set[int] = set()  # matches a table has taken
        self.source = self.make_source()
        self.lobby: Lobby | None = None
        if cfg.lobby_port is not None or cfg.lobby:
            self.lobby = Lobby(self.lobby_check, self.signal_change)

    def make_source(self) -> MatchSource:
        if self.cfg.format == "uecda-groups":
            return GroupsSource(self)
        return LadderSource(self)

    # -- start-up --------------------------------------------------------------------------
    def restore(self) -> int:
        """Replay what the database holds into the online ratings; reset unfinished matches."""
        unfinished = self.store.reset_unfinished()
        for g in self.store.counted_games():
            self.ratings.add_game(g.lineup, g.places, g.points, self.lower)
        for e, k in self.store.con.execute(
                "SELECT j.value, COUNT(DISTINCT m.id) FROM matches m, json_each(m.lineup) j"
                " WHERE m.status = 'done' GROUP BY j.value"):
            self.matches_of[int(e)] = int(k)
        self.sync_house()
        self.sync_lobby()
        for e in self.active():  # killed after a match failed, before the suspension it earned
            if self.store.ended_since_status(e.id):
                self.suspend_crashers((e.id,))
        return unfinished

    def sync_lobby(self) -> None:
        """A lobby entrant for each name in the config (a secret issued to a new one)."""
        known = {e.name: e.spec.get("secret_sha256", "") for e in self.store.entrants()
                 if e.kind == "lobby"}
        secrets_file = self.cfg.database_path.with_name(self.cfg.database_path.name
                                                        + ".lobby-secrets")
        for name, secret in issue_secrets(secrets_file, list(self.cfg.lobby), known).items():
            self.store.add_entrant(name, "lobby", "lobby", None, f"lobby:{name}",
                                   {"secret_sha256": secret_hash(secret)})
            self.say(f"lobby entrant {name}: its secret is {secret} (also in {secrets_file})")
        for e in self.store.entrants():
            if e.kind == "lobby" and e.status == "active" and e.name not in self.cfg.lobby:
                self.retire(e, "no longer in the config's lobby entrants")

    def lobby_check(self, name: str, secret: str) -> str | None:
        """Why this client may not wait in the lobby (None: it may)."""
        for e in self.store.entrants():
            if e.kind == "lobby" and e.name == name and e.status != "retired":
                if not hmac.compare_digest(secret_hash(secret),
                                           str(e.spec.get("secret_sha256", ""))):
                    break
                if e.status != "active":
                    return f"{name} is {e.status}: {e.reason}"
                return None
        return "unknown name or wrong secret"

    def pairable(self) -> list[Entrant]:
        """Active entrants that can sit at a new table now (a lobby entrant: its client is
        waiting in the lobby and it is at no table)."""
        waiting = self.lobby.present() if self.lobby is not None else set()
        return [e for e in self.active() if e.kind != "lobby"
                or (e.name in waiting and not self.busy.get(e.id))]

    def sync_house(self) -> None:
        wanted = {}
        for spec in self.cfg.house:  # "bot" or "name=bot" (a name may hold '=' itself)
            name, _, bot = spec.rpartition("=")
            wanted[name or bot] = bot
        for e in self.store.entrants():
            if e.kind == "house" and e.status == "active" and e.name not in wanted:
                self.retire(e, "no longer in the config's house bots")
        known = {(e.name, e.fingerprint) for e in self.store.entrants() if e.kind == "house"}
        for name, bot in wanted.items():
            fp = f"house:{bot}"
            if (name, fp) not in known:
                for old in self.store.entrants():
                    if old.name == name and old.status == "active":
                        self.retire(old, f"replaced by the house bot {bot}")
                self.store.add_entrant(name, "house", "house", None, fp, {"bot": bot})

    # -- entrants ----------------------------------------------------------------------------
    def active(self) -> list[Entrant]:
        return [e for e in self.store.entrants() if e.status == "active"]

    def retire(self, entrant: Entrant, reason: str) -> None:
        frozen = entrant_rating(self.store, entrant.id)
        self.store.set_status(entrant.id, "retired", reason, frozen)
        if self.lobby is not None and entrant.kind == "lobby":
            self.lobby.dismiss(entrant.name, f"{entrant.name} is retired: {reason}")
        self.say(f"retired {entrant.label}: {reason}")
        self.signal_change()

    def suspend(self, entrant: Entrant, reason: str) -> None:
        self.store.set_status(entrant.id, "suspended", reason)
        if self.lobby is not None and entrant.kind == "lobby":
            self.lobby.dismiss(entrant.name, f"{entrant.name} is suspended: {reason}")
        self.say(f"suspended {entrant.label}: {reason}")
        self.signal_change()

    def signal_change(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def scan(self) -> None:
        """Look at the submissions folder once: enter new versions, retire old ones."""
        entries = await trio.to_thread.run_sync(self.watch.stable)
        by_name: dict[str, FolderEntry] = {}
        for entry in entries:
            key = entry.name or entry.folder.name[:40]
            if key in by_name:
                continue  # two folders with one name: the first (by folder name) plays
            by_name[key] = entry
        entrants = self.store.entrants()
        present = self.watch.present()
        for e in entrants:
            if e.kind == "submission" and e.status == "active" and e.folder not in present:
                self.retire(e, "its folder was removed")
        for key, entry in by_name.items():
            if any(e.name == key and e.fingerprint == entry.fingerprint for e in entrants):
                continue
            await self.enter(key, entry)

    async def enter(self, name: str, entry: FolderEntry) -> None:
        """A new folder or version: check it, retire the version it replaces, enter it (a
        version that fails its check enters suspended, and the one before plays on)."""
        old = [e for e in self.store.entrants() if e.name == name and e.status == "active"]
        reason, detail = entry.problem, None
        if reason is None and entry.submission is not None:
            try:
                await trio.to_thread.run_sync(build, entry.submission)
            except EntrantError as exc:
                reason, detail = str(exc), exc.detail
        if reason is None and self.checker is not None:
            failed = await trio.to_thread.run_sync(self.checker, entry.folder)
            if failed is not None:
                reason, detail = failed
        if reason is None:  # a version that cannot play leaves the one before it playing
            for e in old:
                self.retire(e, f"replaced by version {entry.version}")
        versions = {e.version for e in self.store.entrants() if e.name == name}
        version = entry.version
        k = 2
        while version in versions:
            version = f"{entry.version}#{k}"
            k += 1
        sub = entry.submission
        spec = {"command": sub.command, "author": sub.author} if sub is not None else {}
        status = "active" if reason is None else "suspended"
        eid = self.store.add_entrant(name, version, "submission", str(entry.folder),
                                     entry.fingerprint, spec, status, reason, detail)
        self.say(f"entered {name} {version}" + (f" (suspended: {reason})" if reason else "")
                 + f" [#{eid}]")
        self.signal_change()

    async def scanner(self) -> None:
        while True:
            await self.scan()
            await trio.sleep(self.cfg.scan_seconds)

    # -- matches -----------------------------------------------------------------------------
    def seat(self, entrant: Entrant, match_seed: int, player: int) -> Seat:
        if entrant.kind == "house":
            argv = house_argv(entrant.spec["bot"], entrant.name, self.cfg.rules, self.cfg.rule,
                              derive_seed(match_seed, "bot", player))
        elif entrant.kind == "submission":  # its command, run in its folder
            argv = shlex.split(entrant.spec["command"])
        elif entrant.kind == "lobby" and self.lobby is not None:
            argv = [sys.executable, "-m", "daihinmin.league.lobby_seat", "127.0.0.1",
                    str(self.lobby.port), self.lobby.seat_token, entrant.name, "{port}"]
        else:
            raise ValueError(f"entrant {entrant.label}: kind {entrant.kind!r} cannot be seated")
        bot = entrant.spec.get("bot") if entrant.kind == "house" else None
        seed = derive_seed(match_seed, "bot", player) if bot is not None else None
        label = entrant.name if entrant.kind == "house" else entrant.label
        folder = entrant.folder if entrant.kind == "submission" else None
        return Seat(entrant.id, label, tuple(argv), bot, seed, folder)

    def order(self, match_id: int, attempt: int) -> MatchOrder:
        row = self.store.match(match_id)
        by_id = {e.id: e for e in self.store.entrants()}
        seats = tuple(self.seat(by_id[e], row.seed, p) for p, e in enumerate(row.lineup))
        log = self.cfg.logs_path / f"match-{match_id:06d}-{attempt}.jsonl"
        return MatchOrder(match_id, self.cfg.rules, self.cfg.rule, row.seed, row.games, seats,
                          str(log), self.cfg.move_time, self.cfg.time_bank,
                          self.cfg.profile_time, self.cfg.match_timeout,
                          self.cfg.launch_options())

    async def play(self, match_id: int) -> None:
        row = self.store.match(match_id)
        attempt = row.attempts + 1
        order = self.order(match_id, attempt)
        self.store.match_started(match_id, order.log_path)
        games: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

        def on_game(game: int, places: Sequence[int], points: Sequence[int], turns: int) -> None:
            pl, pt = tuple(places), tuple(points)
            self.store.record_game(match_id, game, pl, pt, turns)
            games.append((pl, pt))

        for e in set(row.lineup):
            self.busy[e] = self.busy.get(e, 0) + 1
        try:
            end: MatchEnd = await self.runner.play(order, on_game)
        finally:
            for e in set(row.lineup):
                self.busy[e] -= 1
        if end.faults:
            self.store.record_faults(match_id, attempt, end.faults)
        if end.ok:
            self.store.match_done(match_id)
            for places, points in games:
                self.ratings.add_game(row.lineup, places, points, self.lower)
            for e in set(row.lineup):
                self.matches_of[e] = self.matches_of.get(e, 0) + 1
            self.progress.matches += 1
            self.progress.games += len(games)
            self.source.match_done(match_id)
        else:
            self.store.match_failed(match_id, end.error or "failed")
            self.progress.failed += 1
            self.say(f"match {match_id} failed: {(end.error or '').splitlines()[0][:300]}")
            self.suspend_crashers(row.lineup)
            self.source.match_failed(match_id)

    def suspend_crashers(self, lineup: tuple[int, ...]) -> None:
        by_id = {e.id: e for e in self.store.entrants()}
        for e in set(lineup):
            n = self.store.failed_in_a_row(e)
            if n >= self.cfg.crash_limit and by_id[e].status == "active":
                self.suspend(by_id[e], f"a stand-in had to play for it in {n} match"
                                       f"{'es' if n != 1 else ''} in a row (see its faults)")

    def stop_rule_met(self) -> str | None:
        rule = self.cfg.stop
        if rule.matches and self.store.done_matches() >= rule.matches:
            return f"{rule.matches} matches played"
        if rule.games and self.store.counted_game_total() >= rule.games:
            return f"{rule.games} games played"
        if rule.hours and time.monotonic() - self.progress.started >= rule.hours * 3600:
            return f"{rule.hours:g} hours passed"
        return self.source.finished()

    def next_match(self) -> int | None:
        pending = [m for m in self.store.matches("pending")
                   if m.id not in self.claimed]
        by_id = {e.id: e for e in self.store.entrants()}
        waiting = {e.id for e in self.pairable()}
        for m in pending:
            if all(by_id[e].status in ("active", "filler") for e in m.lineup):
                if all(by_id[e].kind != "lobby" or e in waiting for e in m.lineup):
                    return m.id
                continue  # its lobby clients are not all back yet
            if self.source.cancels_unplayable:
                self.store.match_failed(m.id, "an entrant of this match left the league",
                                        status="cancelled")
        if self.cfg.stop.matches and (self.store.done_matches() + len(self.claimed)
                                      >= self.cfg.stop.matches):
            return None
        return self.source.new_match()

    async def table(self, slot: int) -> None:
        while not self.draining:
            reason = self.stop_rule_met()
            if reason is not None:
                self.draining = True
                self.progress.stopped_by = reason
                break
            match_id = self.next_match()
            if match_id is None:
                with trio.move_on_after(IDLE_SECONDS):
                    await self.changed.wait()
                continue
            self.claimed.add(match_id)
            try:
                await self.play(match_id)
            finally:
                self.claimed.discard(match_id)

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> Progress:
        """Until stopped (Ctrl-C, SIGTERM: :class:`~daihinmin.server.errors.
        MatchInterruptedError`) or until the stopping rule is met."""
        unfinished = self.restore()
        if unfinished:
            self.say(f"resuming: {unfinished} match(es) a stopped run left unfinished are "
                     "played again from their start")
        for _ in range(2):  # two looks: the folders there now, if they stay the same, enter
            await self.scan()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.watch_signals, nursery.cancel_scope)
            nursery.start_soon(self.scanner)
            if self.lobby is not None:
                port = await nursery.start(self.lobby.serve, self.cfg.lobby_port or 0)
                self.say(f"lobby: 127.0.0.1:{port}")
            task_status.started()
            async with trio.open_nursery() as tables:
                for slot in range(self.cfg.tables):
                    tables.start_soon(self.table, slot)
            nursery.cancel_scope.cancel()
        return self.progress

    async def watch_signals(self, scope: trio.CancelScope) -> None:
        if not _main_thread():
            return
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                self.progress.stopped_by = f"stopped by {signal.Signals(signum).name}"
                raise MatchInterruptedError(self.progress.stopped_by)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def check_bot_checker(cfg: LeagueConfig, timeout: float = CHECK_TIMEOUT) -> Checker | None:
    """``daihinmin check-bot DIR`` (with the league's sandbox and limits) as the check of a
    new version, where that command exists: why it failed (the step, for everyone) and what
    it printed (for the host), or None when it passed."""
    if not cfg.check_bot or importlib.util.find_spec("daihinmin.tools.cmd_check_bot") is None:
        return None
    import subprocess

    launch = ["--sandbox", cfg.sandbox] + [a for k, v in cfg.limits
                                           for a in ("--limit", f"{k}={v:g}")]

    def check(folder: Path) -> tuple[str, str] | None:
        try:
            done = subprocess.run([sys.executable, "-m", "daihinmin.tools", "check-bot",
                                   str(folder), *launch], capture_output=True,
                                  timeout=timeout, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            return f"check-bot took more than {timeout:g} s", ""
        if done.returncode == 0:
            return None
        text = (done.stdout + done.stderr).decode("utf-8", "replace").strip()
        steps = [line.split()[0] for line in text.splitlines() if " FAILED " in f"{line} "]
        step = f" at its {steps[0]} step" if steps else f" (exit code {done.returncode})"
        return f"check-bot failed{step}", text[-4000:]

    return check


__all__ = ["League", "Progress", "check_bot_checker"]
