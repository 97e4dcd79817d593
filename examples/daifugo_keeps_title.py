"""How often does the daifugo keep the title?  A rule-design question over many games.

Plays five (four at ``web``) ``default`` bots on the Numba simulator, the engine's games at
the simulator's speed (``daihinmin.env.play_numba_match``), under a few rule sets, and prints
the share of games whose first place was first in the previous game too, with a 95%
confidence interval.

    python examples/daifugo_keeps_title.py --games 200000
"""

from __future__ import annotations

import argparse
import math
import time

from daihinmin.env import play_numba_match
from daihinmin.rules.ruleset import ruleset_from

RULE_SETS = [("uecda", []), ("uecda", ["exchange=no"]), ("uecda", ["seat_change_period=0"]),
             ("web", []), ("web", ["miyako_ochi=no"]), ("web", ["exchange=no"])]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200_000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    for preset, overrides in RULE_SETS:
        rules = ruleset_from(preset, overrides)
        started = time.perf_counter()
        places = play_numba_match(rules, args.seed, args.games,
                                  ["default"] * rules.players).places
        was_first = places[:-1] == 0
        kept = places[1:][was_first] == 0
        share, n = float(kept.mean()), int(kept.size)
        half = 1.96 * math.sqrt(share * (1 - share) / n)
        print(f"{rules.name:32} daifugo first again: {share:.3f} "
              f"[{share - half:.3f}, {share + half:.3f}] over {n} games "
              f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
