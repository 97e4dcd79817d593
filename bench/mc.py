"""``daihinmin bench mc``'s measurement: decision points from games between ``default``
players (every turn with a real choice), then the mc player's playout rate and decision times
on them (tests take their positions from here too).
"""

from __future__ import annotations

import os
import time

import numpy as np
from daihinmin.contract.view import GameView
from daihinmin.local.runner import play_local_match
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.mc.bench import BenchResult, playout_rates
from daihinmin.players.mc.bot import MCBot
from daihinmin.rules.ruleset import UECDA, RuleSet
from daihinmin.values.moves import Move


class ViewRecorder(DefaultBot):
    """The default player, keeping every view it plays from that offers a real choice."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[GameView] = []

    def play(self, view: GameView) -> Move:
        if len(view.legal_moves()) > 1:
            self.views.append(view)
        return super().play(view)


def sample_positions(count: int, seed: int, rules: RuleSet = UECDA) -> list[GameView]:
    """``count`` decision points from games between default players under ``rules`` (games
    2+ have an exchange, so its facts are in the views)."""
    bots = [ViewRecorder() for _ in range(rules.players)]
    games = 2
    views: list[GameView] = []
    while len(views) < count:
        for b in bots:
            b.views.clear()
        play_local_match(rules, seed=seed, games=games, bots=bots)
        views = [v for pair in zip(*(b.views for b in bots), strict=False) for v in pair]
        games += 2
    step = len(views) / count
    return [views[int(i * step)] for i in range(count)]


def run_bench(decisions: int = 40, time_ms: float = 250.0, seed: int = 1,
              rules: RuleSet = UECDA) -> BenchResult:
    views = sample_positions(decisions, seed, rules)
    bot = MCBot(time_ms=time_ms, seed=seed)
    rate, cpu_rate = playout_rates(bot, views[: max(4, decisions // 4)])
    times, cpu_times, playouts = [], [], []
    for view in views:
        start, cpu_start = time.perf_counter(), time.process_time()
        bot.last = None
        bot.play(view)
        times.append((time.perf_counter() - start) * 1000)
        cpu_times.append((time.process_time() - cpu_start) * 1000)
        playouts.append(bot.last.playouts if bot.last else 0)
    wall = np.percentile(times, [50, 90, 99, 100])
    cpu = np.percentile(cpu_times, [50, 90, 99, 100])
    return BenchResult(rate, float(wall[0]), float(wall[2]), len(times), time_ms,
                       float(np.median(playouts)), cpu_rate, float(wall[1]), float(wall[3]),
                       float(cpu[0]), float(cpu[1]), float(cpu[2]), float(cpu[3]),
                       os.getloadavg()[0])
