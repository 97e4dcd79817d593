"""How the CPU levels' order was measured (docs/LEVELS.md): one bot in seat 0 against a
table of another kind, mean place with a 95% interval.

``python -m daihinmin.tools.levels_measure PRESET BOT FIELD GAMES``
"""

from __future__ import annotations

import statistics

from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.rules.ruleset import RuleSet


def seat_mean_place(rules: RuleSet, bot: str, field: str, games: int,
                    seed: int = 5) -> tuple[float, float]:
    """Mean place (0 = first) of one ``bot`` in seat 0 against ``field`` bots in every other
    seat over ``games`` games, and the half-width of its 95% interval (games taken as
    independent): how the level order was measured."""
    places: list[int] = []
    bots = [make_bot(bot, seed=1)] + [make_bot(field, seed=p) for p in range(2, rules.players + 1)]
    play_local_match(rules, seed=seed, games=games, bots=bots,
                     on_game=lambda r: places.append(r.result.places[0]))  # type: ignore[union-attr]
    half = 1.96 * statistics.stdev(places) / len(places) ** 0.5 if len(places) > 1 else 0.0
    return statistics.fmean(places), half


if __name__ == "__main__":  # python -m daihinmin.tools.levels_measure PRESET BOT FIELD GAMES
    import sys

    from daihinmin.rules.ruleset import preset

    name, hero, others, count = sys.argv[1:5]
    mean, half = seat_mean_place(preset(name), hero, others, int(count))
    print(f"{name}: {hero} against {others}: mean place {mean:.2f} ± {half:.2f} "
          f"(0 = first) over {count} games")
