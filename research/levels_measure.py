"""How the CPU levels' order was measured (docs/LEVELS.md): one bot in seat 0 against a
table of another kind, mean place with a 95% interval.

``daihinmin levels PRESET BOT FIELD GAMES``
"""

from __future__ import annotations

import argparse
import statistics
import sys

from daihinmin.driver.record import GameRecord
from daihinmin.local.runner import play_local_match
from daihinmin.players.prepare import prepare_kinds
from daihinmin.players.registry import make_bot, names
from daihinmin.rules.ruleset import PRESETS, RuleSet, preset

from .tool_args import tool_parser


def seat_mean_place(rules: RuleSet, bot: str, field: str, games: int,
                    seed: int = 5) -> tuple[float, float]:
    """Mean place (1 = first) of one ``bot`` in seat 0 against ``field`` bots in every other
    seat over ``games`` games, and the half-width of its 95% interval (games taken as
    independent): how the level order was measured."""
    places: list[int] = []

    def record(game: GameRecord) -> None:
        places.append(game.places[0] + 1)  # the record counts from 0

    bots = [make_bot(bot, seed=1)] + [make_bot(field, seed=p) for p in range(2, rules.players + 1)]
    play_local_match(rules, seed=seed, games=games, bots=bots,
                     on_game=record)
    half = 1.96 * statistics.stdev(places) / len(places) ** 0.5 if len(places) > 1 else 0.0
    return statistics.fmean(places), half


def main(argv: list[str] | None = None, prog: str = "daihinmin levels",
         formatter: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
         ) -> int:
    """Run the tool on ``argv``; ``daihinmin`` passes its ``prog`` and its help
    ``formatter`` (how the command line shows help: plain text, defaults said)."""
    p = tool_parser(prog, formatter, __doc__)
    p.add_argument("preset", choices=sorted(PRESETS), help="rule preset")
    bots = [name for name in names() if name != "human"]  # a measurement seats no person
    p.add_argument("bot", choices=bots, help="the bot in seat 0")
    p.add_argument("field", choices=bots, help="the bot in every other seat")
    p.add_argument("games", type=int, help="games to play")
    p.add_argument("--seed", type=int, default=5, help="match seed")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("GAMES must be at least 1")
    prepare_kinds([args.bot, args.field], prog)  # mc's first compile says so, not a hang
    mean, half = seat_mean_place(preset(args.preset), args.bot, args.field, args.games,
                                 args.seed)
    print(f"{args.preset}: {args.bot} against {args.field}: mean place {mean:.2f} ± "
          f"{half:.2f} (1 = first) over {args.games} games")
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="python -m daihinmin.research.levels_measure"))
