"""Speed of the mc player: the search loop's playouts per second on given positions.

``daihinmin.bench.mc`` finds the positions (games between ``default`` players) and
times whole decisions; this module only measures, so the player does not depend on the
match runner.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from daihinmin.contract.view import GameView

from .bot import MCBot, _candidates, world_states
from .deadline import Deadline
from .observe import knowledge_from_view
from .search import ArmStats, play_batch


@dataclass
class BenchResult:
    playouts_per_second_per_core: float  # wall clock: a loaded machine lowers it
    decision_ms_median: float
    decision_ms_p99: float
    decisions: int
    time_ms: float
    playouts_per_decision_median: float
    #: the search loop's playouts per second of this process's CPU (load barely moves it)
    playouts_per_cpu_second: float = 0.0
    decision_ms_p90: float = 0.0
    decision_ms_max: float = 0.0
    decision_cpu_ms_median: float = 0.0
    decision_cpu_ms_p90: float = 0.0
    decision_cpu_ms_p99: float = 0.0
    decision_cpu_ms_max: float = 0.0
    load: float = 0.0  # the 1-minute load average when the run ended

    def as_dict(self) -> dict[str, float]:
        return {k: (round(v, 2) if isinstance(v, float) else v) for k, v in vars(self).items()}


def playout_rates(bot: MCBot, views: list[GameView],
                  per_position: int = 2000) -> tuple[float, float]:
    """Playouts per second of the search loop (one core), sampling excluded: per second of
    wall clock and per second of this process's CPU time."""
    total = 0
    spent = cpu = 0.0
    ws = bot.ws
    for view in views:
        kn = knowledge_from_view(view)
        cand_c, cand_i = _candidates(kn.my_hand, view)
        if len(cand_c) < 2:
            continue
        worlds, _ = bot._sample(kn, Deadline.start(0.0))
        bases = world_states(view, kn, worlds)
        stats = ArmStats.empty(len(cand_c))
        ws.tree.reset()
        start, cpu_start = time.perf_counter(), time.process_time()
        play_batch(bases, cand_c, cand_i, stats.sums, stats.squares, stats.visits, kn.me,
                   per_position, bot.models, bot.prm, bot.c_explore, bot.min_visits, ws.state,
                   ws.bufc, ws.bufi, ws.solver.arrays(), ws.tree.arrays())
        spent += time.perf_counter() - start
        cpu += time.process_time() - cpu_start
        total += per_position
    return (total / spent if spent else 0.0), (total / cpu if cpu else 0.0)
