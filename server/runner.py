"""A headless match: the server in this process, every player a separate OS process.

Players are started one at a time and each must be seated before the next starts, so player
number ``i`` is always ``specs[i]``.  A player whose process cannot start, exits before it
is seated, or is not seated within ``connect_timeout`` is stopped and its seat is given to
the stand-in (CRASHED or TIMEOUT); a process that exits abnormally during the match is
reported to the server (CRASHED; the seat is handed over as its connection closes).  So the
match always finishes.  When the server is done, players get a grace period to exit and are
then stopped.  Every process is stopped whatever happens (errors, Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import logging
import math
import signal
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import trio
from daihinmin.driver.faults import SeatStatus
from daihinmin.driver.record import GameRecord, TurnRecord
from daihinmin.launch.process import LaunchOptions, PlayerExit, PlayerSpec, run_player, stderr_tail
from daihinmin.records.matchlog import PlayerInfo
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup

from .config import CONNECT_TIMEOUT_SECONDS, ServerConfig
from .errors import CTRL_C, MatchInterruptedError, ServerConfigError
from .match_server import MatchObserver, MatchOutcome, MatchServer

log = logging.getLogger("daihinmin.server")

EXIT_GRACE_SECONDS = 5.0


def explain(message: str, stderr: str) -> str:
    return message + (f"; its stderr ends:\n{stderr}" if stderr else "")


def exit_text(code: int | None) -> str:
    if code is None:
        return "ended (its guard could not tell how)"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


async def stop_on_signals(scope: trio.CancelScope) -> None:
    """Turn SIGTERM/SIGHUP into an error, so the match unwinds and stops its players
    (Ctrl-C already arrives as KeyboardInterrupt).  ``scope`` is cancelled first with the
    reason, which the server writes in the log's end record.  Signals can only be caught on
    the main thread; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async for signum in signals:
            reason = f"stopped by {signal.Signals(signum).name}"
            scope.cancel(reason=reason)
            raise MatchInterruptedError(reason)


def stderr_path(log_path: Path | None, number: int) -> Path | None:
    """Where player ``number``'s stderr (its end) is kept: beside the log, if there is one.

    >>> str(stderr_path(Path("logs/m.jsonl"), 2)), stderr_path(None, 0)
    ('logs/m.player2.stderr', None)
    """
    return None if log_path is None else log_path.with_name(f"{log_path.stem}.player{number}"
                                                             ".stderr")


def exit_detail(number: int, spec: PlayerSpec, ended: PlayerExit, when: str = "") -> str:
    """``memory limit 512 MiB: player 2 (bot) exited with code 1; its stderr ends: ...``"""
    message = f"player {number} ({spec.label}) {exit_text(ended.returncode)}{when}"
    if ended.reason:
        message = f"{ended.reason}: {message}"
    if ended.left_behind:
        message += f" (its {ended.left_behind} leftover processes were killed)"
    return explain(message, stderr_tail(ended.stderr_tail))


class _Seating(MatchObserver):
    """Tracks seated players and process exits so the launcher can wait on either."""

    def __init__(self, on_game: Callable[[GameRecord], None] | None,
                 watcher: MatchObserver | None = None) -> None:
        self.on_game = on_game
        self.watcher = watcher or MatchObserver()  # e.g. publishing the tables live
        self.seated = 0
        self.exited: dict[int, PlayerExit] = {}
        self.changed = trio.Event()

    def notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def player_joined(self, info: PlayerInfo) -> None:
        self.seated += 1
        self.notify()
        self.watcher.player_joined(info)

    def game_finished(self, record: GameRecord) -> None:
        if self.on_game is not None:
            self.on_game(record)
        self.watcher.game_finished(record)

    def turn_played(self, setup: GameSetup, state: GameState, turn: TurnRecord | None) -> None:
        self.watcher.turn_played(setup, state, turn)


class _HeadlessMatch:
    """The server and the player processes of one headless match: what its tasks share
    (:func:`run_headless_match` runs them in one nursery)."""

    def __init__(self, config: ServerConfig, specs: list[PlayerSpec], seating: _Seating,
                 connect_timeout: float, launch: LaunchOptions | None) -> None:
        self.config = config
        self.specs = specs
        self.seating = seating
        self.server = MatchServer(config, seating)
        self.connect_timeout = connect_timeout
        self.launch = launch
        self.server_done = trio.Event()
        self.players_done = [trio.Event() for _ in specs]
        self.scopes = [trio.CancelScope() for _ in specs]

    async def serve(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await self.server.run(task_status=task_status)
        finally:
            self.server_done.set()
            self.seating.notify()

    async def supervise(self, number: int, port: int,
                        task_status: trio.TaskStatus[trio.Process | None] = trio.TASK_STATUS_IGNORED
                        ) -> None:
        """Run player ``number``'s process to its end; an abnormal exit during the match is
        reported to the server (its seat is handed over)."""
        spec = self.specs[number]
        seating = self.seating
        try:
            with self.scopes[number]:
                result = await run_player(spec, "127.0.0.1", port, self.launch,
                                          stderr_file=stderr_path(self.config.log_path, number),
                                          on_listener=self.server.add_listener,
                                          task_status=task_status)
        except OSError as exc:
            seating.exited[number] = PlayerExit(-1, stderr_tail=f"could not start: {exc}")
            task_status.started()
            return
        finally:
            self.players_done[number].set()
            seating.notify()
        if self.scopes[number].cancelled_caught:
            return  # stopped by the launcher
        seating.exited[number] = result
        if result.left_behind and not result.failed:
            log.warning("player %d (%s) left %d processes running; they were killed", number,
                        spec.label, result.left_behind)
        if result.failed and number < seating.seated and not self.server_done.is_set():
            detail = exit_detail(number, spec, result)
            log.warning("%s", detail)
            self.server.process_crashed(number, detail, SeatStatus(result.status or "CRASHED"))

    async def seat_players(self, port: int, nursery: trio.Nursery) -> None:
        """Every player in turn, each seated (or stood in for) before the next starts."""
        for number, spec in enumerate(self.specs):
            if self.server_done.is_set():
                break
            await self.seat_or_stand_in(number, spec, port, nursery)

    async def seat_or_stand_in(self, number: int, spec: PlayerSpec, port: int,
                               nursery: trio.Nursery) -> None:
        """Start player ``number`` and wait until it is seated; else a stand-in takes it.

        The seat's status says why: what the server found in its handshake (TIMEOUT, a
        MALFORMED profile, DISCONNECTED), else CRASHED for a process that exited (or could
        not start) and TIMEOUT for one that never got seated."""
        rejected_before = self.server.rejection_count
        await nursery.start(self.supervise, number, port)
        unseated = await self.wait_seated(number, spec)
        if unseated is None:
            return
        status, detail = unseated
        if self.server.rejection_count > rejected_before and self.server.last_rejection is not None:
            status, why = self.server.last_rejection
            detail = f"{why} -- {detail}"
        await self.stand_in_for(number, status, detail)

    async def wait_seated(self, number: int, spec: PlayerSpec) -> tuple[SeatStatus, str] | None:
        """``None`` once player ``number`` is seated (or the server is done); else why it
        was not: its process exited (or could not start), or ``connect_timeout`` passed."""
        seating = self.seating
        timeout = self.connect_timeout
        with trio.move_on_after(timeout if timeout else math.inf) as scope:
            while seating.seated <= number and not self.server_done.is_set():
                if number in seating.exited:
                    ended = seating.exited[number]
                    return (SeatStatus(ended.status or "CRASHED"),
                            f"player {number} ({spec.label}) {ended.stderr_tail}"
                            if ended.returncode == -1
                            else exit_detail(number, spec, ended, " before it was seated"))
                await seating.changed.wait()
        if scope.cancelled_caught:
            return SeatStatus.TIMEOUT, (f"player {number} ({spec.label}) was not seated "
                                        f"within {timeout} s")
        return None

    async def stand_in_for(self, number: int, status: SeatStatus, detail: str) -> None:
        """Stop player ``number``'s process, then (unless it got seated meanwhile) give its
        seat to the stand-in and wait until the stand-in is seated."""
        seating = self.seating
        self.scopes[number].cancel()  # stop the process before its seat is given away
        await self.players_done[number].wait()
        if seating.seated <= number and not self.server_done.is_set():
            log.warning("%s", detail)
            self.server.seat_stand_in(status, detail)
            while seating.seated <= number and not self.server_done.is_set():
                await seating.changed.wait()


async def run_headless_match(config: ServerConfig, specs: list[PlayerSpec], *,
                             on_game: Callable[[GameRecord], None] | None = None,
                             connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
                             exit_grace: float = EXIT_GRACE_SECONDS,
                             watcher: MatchObserver | None = None,
                             launch: LaunchOptions | None = None) -> MatchOutcome:
    """Serve ``config`` on 127.0.0.1 (ephemeral port) to one process per spec; ``watcher``
    is told what the server's observer is told (players, turns, games).  ``launch``: the
    players' limits and sandbox; each player's stderr ends up (the last 64 KiB) beside the
    log, ``LOG.player<i>.stderr``."""
    if len(specs) != config.rules.players:
        raise ServerConfigError(f"the rules seat {config.rules.players} players; "
                                f"{len(specs)} were given")
    config = replace(config, host="127.0.0.1", port=0)
    match = _HeadlessMatch(config, specs, _Seating(on_game, watcher), connect_timeout, launch)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stop_on_signals, nursery.cancel_scope)
        try:
            port = await nursery.start(match.serve)
            await match.seat_players(port, nursery)
            await match.server_done.wait()
        except KeyboardInterrupt:  # the reason the server writes in the log's end record
            nursery.cancel_scope.cancel(reason=CTRL_C)
            raise
        with trio.move_on_after(exit_grace):
            for done in match.players_done:
                await done.wait()
        nursery.cancel_scope.cancel()
    assert match.server.outcome is not None
    return match.server.outcome
