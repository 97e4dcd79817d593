"""One match in process: bundled bots as objects on the same engine (no sockets).

With ``log_dir`` set, each match writes the server's match log (``match-NNNNN.jsonl``, NNNNN
the match id; a replayed match the next free name, :mod:`.match_logs`), which ``daihinmin
replay --verify`` checks."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.contract.view import Bot
from daihinmin.driver.record import GameRecord
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot, resolve
from daihinmin.records.inprocess_log import LocalMatchLog
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.watch.publish import driver_observer

from .match_logs import next_log_path
from .spec import MatchSpec, Participant, TableSettings

if TYPE_CHECKING:
    from daihinmin.watch.publish import TableWatcher

# (match id, game, seats, places, points, turns)
GameCallback = Callable[[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...], int],
                        None]


def accepts_seed(kind: str) -> bool:
    """Whether the bot's factory takes a ``seed`` keyword (directly or via ``**kwargs``)."""
    try:
        params = inspect.signature(resolve(kind)).parameters
    except (TypeError, ValueError):
        return False
    return "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def bot_options(p: Participant, spec: MatchSpec, player: int) -> dict[str, Any]:
    """The bot's options, with the spec's seed for its player number unless the options
    name one (or the bot takes none)."""
    options = dict(p.options)
    seed = spec.bot_seed(player)
    if seed is not None and "seed" not in options and p.bot is not None and accepts_seed(p.bot):
        options["seed"] = seed
    return options


def make_table_bots(spec: MatchSpec) -> list[Bot]:
    bots = []
    for player, p in enumerate(spec.lineup):
        if p.bot is None:
            raise ValueError(f"{p.name} is not a bundled bot ({p.kind}); it needs transport tcp")
        bots.append(make_bot(p.bot, **bot_options(p, spec, player)))
    return bots


def play_local(settings: TableSettings, rules: RuleSet, spec: MatchSpec,
               on_game: GameCallback, watcher: TableWatcher | None = None,
               on_log: Callable[[Path], None] | None = None) -> float:
    """Play the match; report each game (and every turn to ``watcher``: ``--publish``), and
    the log's path to ``on_log`` before it is written; returns the CPU seconds it took."""
    bots = make_table_bots(spec)
    cpu = time.process_time()

    def report(record: GameRecord) -> None:
        on_game(spec.id, record.game, tuple(record.seats), tuple(record.places),
                tuple(record.points), len(record.turns))

    observer = None if watcher is None else driver_observer(watcher)  # --publish

    def run_match(each_game: Callable[[GameRecord], None]) -> MatchState:
        return play_local_match(rules, seed=spec.seed, games=spec.games, bots=bots,
                                on_game=each_game, observer=observer)

    if settings.log_dir is None:
        run_match(report)
        return time.process_time() - cpu
    names = spec.names()
    path = next_log_path(settings.log_dir, spec.id)
    if on_log is not None:
        on_log(path)
    with LocalMatchLog.open(path, rules, spec.seed, spec.games, names) as log:

        def log_and_report(record: GameRecord) -> None:
            log.game(record)
            report(record)

        log.finish(run_match(log_and_report))
    return time.process_time() - cpu
