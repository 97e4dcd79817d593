"""The seam between the league and where its matches are played.

The league only ever asks a runner for *a match between these entrants*: a
:class:`MatchOrder` (plain data: rules, seed, games, deadlines, and per player number how to
start that entrant) and a callback for each game as it ends.  The runner answers with a
:class:`MatchEnd`: played through, or failed with the reason, plus the seats that met a
fault.  A game a stand-in played in is never handed to the callback: the runner stops the
match there (:class:`StandInPlayedError`) and the league keeps none of its games.

:class:`LoopbackRunner` plays on this machine: the match server in the league's own Trio
loop on 127.0.0.1, each entrant its own process (the headless runner of ``daihinmin
match``).  A runner on a cluster (``backend = "ray"``) takes the same orders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import trio
from daihinmin.driver.record import GameRecord
from daihinmin.launch.process import LaunchOptions, PlayerSpec
from daihinmin.rules.ruleset import ruleset_from
from daihinmin.runs.seat_faults import FaultRow, fault_rows, stand_in_rows
from daihinmin.server.config import ServerConfig, WriteMode
from daihinmin.server.errors import MatchInterruptedError, leaf_errors
from daihinmin.server.runner import run_headless_match

DETAIL_CHARS = 4000  # of a fault's detail, kept in the league's database
OnGame = Callable[[int, Sequence[int], Sequence[int], int], None]  # game, places, points, turns


@dataclass(frozen=True)
class Seat:
    """One player number: the entrant and how its process starts (``{host}``/``{port}``)."""

    entrant: int
    label: str
    argv: tuple[str, ...]
    bot: str | None = None  # a bundled bot: its kind (what an in-process table plays)
    seed: int | None = None  # and its seed
    folder: str | None = None  # a submission: its folder (its working folder)


@dataclass(frozen=True)
class MatchOrder:
    match_id: int
    rules: str
    rule: tuple[str, ...]
    seed: int
    games: int
    seats: tuple[Seat, ...]
    log_path: str | None = None
    move_time: float = 1.0
    time_bank: float = 10.0
    profile_time: float = 10.0
    match_timeout: float = 600.0
    launch: LaunchOptions | None = None  # the processes' limits and sandbox


@dataclass
class MatchEnd:
    error: str | None = None  # None: every game played by the entrants themselves
    faults: list[FaultRow] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


class Runner(Protocol):
    async def play(self, order: MatchOrder, on_game: OnGame) -> MatchEnd: ...


class StandInPlayedError(RuntimeError):
    """A stand-in played a seat in this game: the match stops and keeps no games."""

    def __init__(self, message: str, faults: list[FaultRow]) -> None:
        super().__init__(message)
        self.faults = faults


def stand_in_error(order: MatchOrder, record: GameRecord) -> StandInPlayedError:
    rows = stand_in_rows(record, DETAIL_CHARS)
    names = [f"{order.seats[p].label} (player {p}) {status}: {why.splitlines()[0] if why else ''}"
             for p, status, _, _, why in rows]
    return StandInPlayedError(f"a stand-in played in game {record.game} for "
                              + "; ".join(names), rows)


class LoopbackRunner:
    """Matches on this machine, in the caller's Trio loop (one server per table)."""

    async def play(self, order: MatchOrder, on_game: OnGame) -> MatchEnd:
        def game_ended(record: GameRecord) -> None:
            if record.stand_in:
                raise stand_in_error(order, record)
            on_game(record.game, record.places, record.points, len(record.turns))

        rules = ruleset_from(order.rules, list(order.rule)).validate()
        config = ServerConfig(
            rules=rules, games=order.games, seed=order.seed, port=0,
            log_path=Path(order.log_path) if order.log_path else None, durable=False,
            make_log_folder=True, write_mode=WriteMode.EXACT,
            profile_timeout=order.profile_time, move_timeout=order.move_time,
            exchange_timeout=order.move_time, time_bank=order.time_bank).validate()
        specs = [PlayerSpec(s.label, s.argv, folder=s.folder) for s in order.seats]
        try:
            with trio.fail_after(order.match_timeout):
                outcome = await run_headless_match(config, specs, on_game=game_ended,
                                                   connect_timeout=order.profile_time + 5,
                                                   launch=order.launch)
        except trio.TooSlowError:
            return MatchEnd(f"match timeout ({order.match_timeout:g} s)")
        except Exception as exc:
            for leaf in leaf_errors(exc):
                if isinstance(leaf, MatchInterruptedError):  # SIGTERM: the league stops
                    raise

                if isinstance(leaf, StandInPlayedError):
                    return MatchEnd(str(leaf), leaf.faults)
            first = leaf_errors(exc)[0]
            return MatchEnd(f"{type(first).__name__}: {first}"[:2000])
        return MatchEnd(None, fault_rows(outcome.seats, DETAIL_CHARS))


class InProcessRunner:
    """Matches of bundled bots only, as objects on the same engine (no sockets, no
    processes: ``transport = "in-process"``), one at a time per table in a worker thread."""

    async def play(self, order: MatchOrder, on_game: OnGame) -> MatchEnd:
        return await trio.to_thread.run_sync(self._play, order, on_game,
                                             abandon_on_cancel=True)

    def _play(self, order: MatchOrder, on_game: OnGame) -> MatchEnd:
        from daihinmin.local.runner import play_local_match
        from daihinmin.players.registry import make_bot
        from daihinmin.records.inprocess_log import LocalMatchLog

        rules = ruleset_from(order.rules, list(order.rule)).validate()
        if any(s.bot is None for s in order.seats):
            return MatchEnd("an in-process table plays bundled bots only")
        bots = []
        for s in order.seats:
            try:  # the bot's own seed, where its factory takes one
                bots.append(make_bot(s.bot or "", seed=s.seed))
            except TypeError:
                bots.append(make_bot(s.bot or ""))
        names = [s.label for s in order.seats]

        def each(record: GameRecord) -> None:  # back in the league's loop: its one writer
            trio.from_thread.run_sync(on_game, record.game, record.places, record.points,
                                      len(record.turns))

        if order.log_path is None:
            play_local_match(rules, order.seed, order.games, bots, each)
            return MatchEnd()
        path = Path(order.log_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with LocalMatchLog.open(path, rules, order.seed, order.games, names) as log:
            def log_each(record: GameRecord) -> None:
                log.game(record)
                each(record)

            log.finish(play_local_match(rules, order.seed, order.games, bots, log_each))
        return MatchEnd()


__all__ = ["FaultRow", "InProcessRunner", "LoopbackRunner", "MatchEnd", "MatchOrder", "Runner",
           "Seat",
           "StandInPlayedError"]
