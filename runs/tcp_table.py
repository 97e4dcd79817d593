"""Matches over TCP: the real server in the worker's Trio loop, every player an OS process.

Player ``i`` of a match is ``lineup[i]``: the headless runner starts the processes one at a
time and waits for each to connect (the server numbers players by connection order).
A match of bundled bots only is served with deferred writes (``server.outbox``: the same
bytes, far fewer writes and wake-ups); one with an external command with exact writes, as
``daihinmin match`` does.  Watching a match reads the game driver, not the sockets.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import trio
from daihinmin.driver.record import GameRecord
from daihinmin.launch.process import PlayerSpec
from daihinmin.launch.submission import load_submission
from daihinmin.rules.ruleset import RuleSet
from daihinmin.server.config import ServerConfig, WriteMode
from daihinmin.server.errors import leaf_errors
from daihinmin.server.runner import run_headless_match
from daihinmin.watch.publish import TableWatcher

from .local_table import bot_options
from .match_logs import next_log_path
from .seat_faults import FaultRow, fault_rows, stand_in_rows
from .spec import MatchSpec, TableSettings
from .views import Views, relay_due, relay_views, watch_match
from .worker import POLL_SECONDS, announce_log, describe_error, dispatcher_alive, next_task


def option_args(options: dict[str, Any]) -> list[str]:
    """Bundled-bot options as ``daihinmin bot`` flags (``seed`` has its own flag).

    ``--opt`` converts ints and floats only, so booleans travel as 1/0 (same truth value).
    """
    args = []
    for key, value in sorted(options.items()):
        if key == "seed":
            args += ["--seed", str(value)]
        else:
            text = str(int(value)) if isinstance(value, bool) else str(value)
            args += ["--opt", f"{key}={text}"]
    return args


def rules_args(spec: MatchSpec) -> list[str]:
    """The match's rules, so the bot lists legal moves as the server judges them."""
    args = ["--rules", spec.rules]
    for item in spec.rule:
        args += ["--rule", item]
    return args


def player_spec(spec: MatchSpec, player: int) -> PlayerSpec:
    """How the participant of this player number is started (by its kind)."""
    p = spec.lineup[player]
    if p.kind == "submission":  # loaded (and built) by the command before any match
        assert p.submission is not None
        return load_submission(p.submission).spec(p.name)
    if p.kind == "command":
        assert p.command is not None
        return PlayerSpec.command(p.command)
    if p.kind != "bot" or p.bot is None:
        raise ValueError(f"{p.name}: no table starts a participant of kind {p.kind!r}")
    argv = [sys.executable, "-m", "daihinmin.tools.botproc", p.bot, "-q",
            "--host", "{host}", "--port", "{port}", "--name", p.name[:15],
            *rules_args(spec), *option_args(bot_options(p, spec, player))]
    return PlayerSpec(p.name, tuple(argv))


def match_write_mode(spec: MatchSpec) -> WriteMode:
    """Deferred when every player is a bundled bot, else exact."""
    external = any(p.external for p in spec.lineup)
    return WriteMode.EXACT if external else WriteMode.DEFERRED


DETAIL_CHARS = 500  # of a fault's detail in the match's result


class StandInPlayedError(RuntimeError):
    """A stand-in played for a participant (it could not start, crashed, timed out): the
    match fails and keeps no games (docs/RESULTS.md); ``--resume`` retries it."""

    def __init__(self, message: str, faults: list[FaultRow]) -> None:
        super().__init__(message)
        self.faults = faults


def stand_in_error(spec: MatchSpec, record: GameRecord) -> StandInPlayedError:
    """What the game's seat reports (or hand-over events) say about the seats a stand-in
    played."""
    rows = stand_in_rows(record, DETAIL_CHARS)
    names = [f"{spec.lineup[p].name} (player {p}) {status}: {why}"
             for p, status, _, _, why in rows]
    return StandInPlayedError(f"a stand-in played in game {record.game} for "
                              + "; ".join(names), rows)


async def play_tcp(settings: TableSettings, rules: RuleSet, spec: MatchSpec,
                   results: Any, watcher: TableWatcher | None = None) -> None:
    def on_game(record: GameRecord) -> None:
        if not dispatcher_alive():
            os._exit(1)  # bots see the sockets close and stop; the match is replayed later
        if record.stand_in:  # never credited to the participant: the match fails
            raise stand_in_error(spec, record)
        results.put(("game", spec.id, record.game, tuple(record.seats),
                     tuple(record.places), tuple(record.points), len(record.turns)))

    specs = [player_spec(spec, p) for p in range(len(spec.lineup))]
    log_path = None
    if settings.log_dir is not None:  # --log-dir: the server's own log, as `serve` writes it
        log_path = next_log_path(settings.log_dir, spec.id)
        announce_log(results, spec.id)(log_path)
    # durable=False: the results database, not the log, is what a crash must not lose
    config = ServerConfig(rules=rules, games=spec.games, seed=spec.seed, port=0,
                          log_path=log_path, durable=False, make_log_folder=False,
                          write_mode=match_write_mode(spec))
    outcome = await run_headless_match(config, specs, on_game=on_game, watcher=watcher,
                                       launch=settings.launch)
    # faults short of a hand-over (a timeout or two)
    faults = fault_rows(outcome.seats, DETAIL_CHARS)
    if faults:
        results.put(("faults", spec.id, faults))


def stand_in_failure(exc: BaseException) -> StandInPlayedError | None:
    for leaf in leaf_errors(exc):
        if isinstance(leaf, StandInPlayedError):
            return leaf
    return None


def flatten(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (what the report should say)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def table_slot(settings: TableSettings, tasks: Any, results: Any,
                     key: str = "", views: Views | None = None) -> None:
    while (spec := await trio.to_thread.run_sync(next_task, tasks)) is not None:
        results.put(("started", spec.id))
        try:
            rules = spec.ruleset()
            with trio.fail_after(settings.match_timeout):
                await play_tcp(settings, rules, spec, results,
                               watch_match(views, key, rules, spec))
        except trio.TooSlowError:
            results.put(("failed", spec.id, f"match timeout ({settings.match_timeout} s)"))
            continue
        except Exception as exc:  # one broken match must not stop the tournament
            stand_in = stand_in_failure(exc)
            if stand_in is not None:
                results.put(("faults", spec.id, stand_in.faults))
                results.put(("failed", spec.id, str(stand_in)))
            else:
                results.put(("failed", spec.id, describe_error(flatten(exc))))
            continue
        results.put(("done", spec.id, None))  # CPU is shared by concurrent tables


async def watch_dispatcher() -> None:
    """Leave at once when the dispatcher is gone (bots then see their sockets close)."""
    while True:
        await trio.sleep(POLL_SECONDS)
        if not dispatcher_alive():
            os._exit(1)


async def tcp_loop(settings: TableSettings, tasks: Any, results: Any, slots: int,
                   worker: int = 0, views: Views | None = None) -> None:
    """``slots`` tables at once; with ``views`` (``--publish``) their snapshots are relayed
    to the dispatcher, each table slot keyed ``WORKER-SLOT``."""
    async with trio.open_nursery() as outer:
        outer.start_soon(watch_dispatcher)
        if views is not None:
            outer.start_soon(relay_views, views, results.put)
        async with trio.open_nursery() as nursery:
            for slot in range(slots):
                nursery.start_soon(table_slot, settings, tasks, results,
                                   f"{worker + 1}-{slot + 1}", views)
        if views is not None:
            relay_due(views, results.put)  # the tables' last states
        outer.cancel_scope.cancel()
