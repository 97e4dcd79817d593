"""Matches over TCP: the real server in the worker's Trio loop, every player an OS process.

Player ``i`` of a match is ``lineup[i]``: the headless runner starts the processes one at a
time and waits for each to connect (the server numbers players by connection order).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import trio
from daihinmin.rules.ruleset import RuleSet
from daihinmin.server.bots import PlayerSpec
from daihinmin.server.config import ServerConfig
from daihinmin.server.matchlog import GameRecord
from daihinmin.server.runner import run_headless_match

from .config import TournamentConfig
from .local_table import bot_options
from .schedule import MatchSpec
from .worker import POLL_SECONDS, describe_error, dispatcher_alive, next_task


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


def rules_args(cfg: TournamentConfig) -> list[str]:
    """The tournament's rules, so the bot lists legal moves as the server judges them."""
    args = ["--rules", cfg.rules]
    for item in cfg.rule:
        args += ["--rule", item]
    return args


def player_spec(cfg: TournamentConfig, spec: MatchSpec, player: int) -> PlayerSpec:
    p = cfg.participants[spec.lineup[player]]
    if p.command is not None:
        return PlayerSpec.command(p.command)
    assert p.bot is not None
    argv = [sys.executable, "-m", "daihinmin.tools.tournament.botproc", p.bot, "-q",
            "--host", "{host}", "--port", "{port}", "--name", p.name[:15],
            *rules_args(cfg), *option_args(bot_options(p, spec, player, cfg.bot_seeds))]
    return PlayerSpec(p.name, tuple(argv))


async def play_tcp(cfg: TournamentConfig, rules: RuleSet, spec: MatchSpec,
                   results: Any) -> None:
    def on_game(record: GameRecord) -> None:
        if not dispatcher_alive():
            os._exit(1)  # bots see the sockets close and stop; the match is replayed later
        results.put(("game", spec.index, record.game, tuple(record.seats),
                     tuple(record.places), tuple(record.points), len(record.turns)))

    specs = [player_spec(cfg, spec, p) for p in range(len(spec.lineup))]
    config = ServerConfig(rules=rules, games=spec.games, seed=spec.seed, port=0)
    await run_headless_match(config, specs, on_game=on_game)


def flatten(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (what the report should say)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def table_slot(cfg: TournamentConfig, rules: RuleSet, tasks: Any, results: Any) -> None:
    while (spec := await trio.to_thread.run_sync(next_task, tasks)) is not None:
        results.put(("started", spec.index))
        try:
            with trio.fail_after(cfg.match_timeout):
                await play_tcp(cfg, rules, spec, results)
        except trio.TooSlowError:
            results.put(("failed", spec.index, f"match timeout ({cfg.match_timeout} s)"))
            continue
        except Exception as exc:  # one broken match must not stop the tournament
            results.put(("failed", spec.index, describe_error(flatten(exc))))
            continue
        results.put(("done", spec.index, None))  # CPU is shared by concurrent tables


async def watch_dispatcher() -> None:
    """Leave at once when the dispatcher is gone (bots then see their sockets close)."""
    while True:
        await trio.sleep(POLL_SECONDS)
        if not dispatcher_alive():
            os._exit(1)


async def tcp_loop(cfg: TournamentConfig, tasks: Any, results: Any, slots: int) -> None:
    rules = cfg.ruleset()
    async with trio.open_nursery() as outer:
        outer.start_soon(watch_dispatcher)
        async with trio.open_nursery() as nursery:
            for _ in range(slots):
                nursery.start_soon(table_slot, cfg, rules, tasks, results)
        outer.cancel_scope.cancel()
