"""A headless match: the server in this process, every player a separate OS process.

Players are started one at a time and each must connect before the next starts, so player
number ``i`` is always ``specs[i]``.  A player process that fails before the match is over
stops the match; when the server is done, players get a grace period to exit and are then
stopped.  Every process is stopped whatever happens (errors, Ctrl-C).
"""

from __future__ import annotations

import logging
import math
import signal
import threading
from collections.abc import Callable
from dataclasses import replace

import trio

from .bots import PlayerSpec, run_player_process, stderr_tail
from .config import CONNECT_TIMEOUT_SECONDS, ServerConfig
from .errors import (
    BotProcessError,
    MatchInterruptedError,
    PlayerConnectionError,
    ServerConfigError,
)
from .match_server import MatchObserver, MatchOutcome, MatchServer
from .matchlog import GameRecord, PlayerInfo

log = logging.getLogger("daihinmin.server")

EXIT_GRACE_SECONDS = 5.0
PROCESS_ERROR_WAIT_SECONDS = 1.0


def explain(message: str, stderr: str) -> str:
    return message + (f"; its stderr ends:\n{stderr}" if stderr else "")


async def stop_on_signals() -> None:
    """Turn SIGTERM/SIGHUP into an error, so the match unwinds and stops its players
    (Ctrl-C already arrives as KeyboardInterrupt).  Signals can only be caught on the
    main thread; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
        async for signum in signals:
            raise MatchInterruptedError(f"stopped by {signal.Signals(signum).name}")


class _Seating(MatchObserver):
    """Tracks seated players and process exits so the launcher can wait on either."""

    def __init__(self, on_game: Callable[[GameRecord], None] | None) -> None:
        self.on_game = on_game
        self.seated = 0
        self.exited: dict[int, tuple[int, str]] = {}  # player -> (exit code, stderr tail)
        self.changed = trio.Event()

    def notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def player_joined(self, info: PlayerInfo) -> None:
        self.seated += 1
        self.notify()

    def game_finished(self, record: GameRecord) -> None:
        if self.on_game is not None:
            self.on_game(record)


async def run_headless_match(config: ServerConfig, specs: list[PlayerSpec], *,
                             on_game: Callable[[GameRecord], None] | None = None,
                             connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
                             exit_grace: float = EXIT_GRACE_SECONDS) -> MatchOutcome:
    """Serve ``config`` on 127.0.0.1 (ephemeral port) to one process per spec."""
    if len(specs) != config.rules.players:
        raise ServerConfigError(f"the rules seat {config.rules.players} players; "
                                f"{len(specs)} were given")
    config = replace(config, host="127.0.0.1", port=0)
    seating = _Seating(on_game)
    server = MatchServer(config, seating)
    server_done = trio.Event()
    players_done = [trio.Event() for _ in specs]

    async def serve(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            await server.run(task_status=task_status)
        except PlayerConnectionError as exc:
            # Give the player's process a moment to exit, so its own error (stderr) is
            # reported along with the broken connection.
            with trio.move_on_after(PROCESS_ERROR_WAIT_SECONDS):
                await players_done[exc.player].wait()
            raise
        finally:
            server_done.set()

    async def supervise(number: int, argv: list[str],
                        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        spec = specs[number]
        try:
            try:
                result = await run_player_process(argv, task_status=task_status)
            except OSError as exc:
                raise BotProcessError(f"player {number} ({spec.label}) could not start: "
                                      f"{exc}") from exc
        finally:
            players_done[number].set()
        tail = stderr_tail(result.stderr)
        seating.exited[number] = (result.returncode, tail)
        seating.notify()
        if result.returncode != 0 and number < seating.seated:  # unseated: the launcher reports
            message = f"player {number} ({spec.label}) exited with code {result.returncode}"
            if not server_done.is_set():
                raise BotProcessError(explain(message, tail))
            log.warning("%s after the match", message)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(stop_on_signals)
        port = await nursery.start(serve)
        for number, spec in enumerate(specs):
            await nursery.start(supervise, number, spec.resolve("127.0.0.1", port))
            with trio.move_on_after(connect_timeout if connect_timeout else math.inf) as scope:
                while seating.seated <= number:
                    if number in seating.exited:
                        code, tail = seating.exited[number]
                        raise BotProcessError(explain(f"player {number} ({spec.label}) exited "
                                                      f"with code {code} before connecting", tail))
                    await seating.changed.wait()
            if scope.cancelled_caught:
                raise BotProcessError(f"player {number} ({spec.label}) did not connect within "
                                      f"{connect_timeout} s")
        await server_done.wait()
        with trio.move_on_after(exit_grace):
            for done in players_done:
                await done.wait()
        nursery.cancel_scope.cancel()
    assert server.outcome is not None
    return server.outcome
