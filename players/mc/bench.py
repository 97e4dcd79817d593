"""Speed of the mc player: playouts per second per core and decision times.

Positions come from a few games between ``default`` players (every turn with a real choice);
the player then decides from each of them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from daihinmin.client.view import GameView
from daihinmin.players.default_bot import DefaultBot
from daihinmin.protocol.moves import Move
from daihinmin.rules.ruleset import UECDA

from .bot import MCBot, _candidates, world_states
from .observe import knowledge_from_view
from .search import ArmStats, play_batch
from .state import N_PLAYERS


class ViewRecorder(DefaultBot):
    """The default player, keeping every view it plays from that offers a real choice."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[GameView] = []

    def play(self, view: GameView) -> Move:
        if len(view.legal_moves()) > 1:
            self.views.append(view)
        return super().play(view)


def sample_positions(count: int, seed: int) -> list[GameView]:
    """``count`` decision points from games between default players (games 2+ have an
    exchange, so its facts are in the views)."""
    from daihinmin.tools.local_match import play_local_match

    bots = [ViewRecorder() for _ in range(N_PLAYERS)]
    games = 2
    views: list[GameView] = []
    while len(views) < count:
        for b in bots:
            b.views.clear()
        play_local_match(UECDA, seed=seed, games=games, bots=bots)
        views = [v for pair in zip(*(b.views for b in bots), strict=False) for v in pair]
        games += 2
    step = len(views) / count
    return [views[int(i * step)] for i in range(count)]


@dataclass
class BenchResult:
    playouts_per_second_per_core: float
    decision_ms_median: float
    decision_ms_p99: float
    decisions: int
    time_ms: float
    playouts_per_decision_median: float

    def as_dict(self) -> dict[str, float]:
        return {k: (round(v, 2) if isinstance(v, float) else v) for k, v in vars(self).items()}


def playout_rate(bot: MCBot, views: list[GameView], per_position: int = 2000) -> float:
    """Playouts per second of the search loop (one core), sampling excluded."""
    total = 0
    spent = 0.0
    ws = bot.ws
    for view in views:
        kn = knowledge_from_view(view)
        cand_c, cand_i = _candidates(kn.my_hand, view)
        if len(cand_c) < 2:
            continue
        worlds, _ = bot._sample(kn)
        bases = world_states(view, kn, worlds)
        stats = ArmStats.empty(len(cand_c))
        start = time.perf_counter()
        play_batch(bases, cand_c, cand_i, stats.sums, stats.squares, stats.visits, kn.me,
                   per_position, bot.models, bot.prm, bot.c_explore, bot.min_visits, ws.state,
                   ws.bufc, ws.bufi, ws.solver.arrays())
        spent += time.perf_counter() - start
        total += per_position
    return total / spent if spent else 0.0


def run_bench(decisions: int = 40, time_ms: float = 250.0, seed: int = 1) -> BenchResult:
    views = sample_positions(decisions, seed)
    bot = MCBot(time_ms=time_ms, seed=seed)
    rate = playout_rate(bot, views[: max(4, decisions // 4)])
    times, playouts = [], []
    for view in views:
        start = time.perf_counter()
        bot.last = None
        bot.play(view)
        times.append((time.perf_counter() - start) * 1000)
        playouts.append(bot.last.playouts if bot.last else 0)
    return BenchResult(rate, float(np.median(times)), float(np.percentile(times, 99)),
                       len(times), time_ms, float(np.median(playouts)))
