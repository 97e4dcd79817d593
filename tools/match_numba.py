"""``daihinmin match --engine numba``: the match of bundled bots on the Numba simulator.

The same games as the engine (the same seed gives the same deals, exchanges, moves and
places as ``daihinmin match`` and ``tournament --in-process``), at the simulator's speed, for
statistics over many games: no processes, no sockets, no match log.  Only bots whose Numba
model plays exactly as they do, and rules the simulator plays as the engine does
(:mod:`daihinmin.local.numba_match`); anything else is refused (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

# Options of ``match`` that the Numba engine has no use for: (attribute, flag, unset value).
_TCP_ONLY: tuple[tuple[str, str, object], ...] = (
    ("cmd", "--cmd", []), ("resume", "--resume", None), ("log", "--log", None),
    ("publish", "--publish", None), ("jobs", "--jobs", 1), ("backend", "--backend", "local"),
    ("address", "--address", None))


def refuse_tcp_options(args: argparse.Namespace) -> None:
    given = [flag for attr, flag, unset in _TCP_ONLY if getattr(args, attr, unset) != unset]
    if given:
        raise ValueError(f"--engine numba plays no processes and writes no log: "
                         f"not with {', '.join(given)}")


def summary(result: Any, bots: list[str], rules: Any, seed: int, wall: float
            ) -> dict[str, Any]:
    """The match as one JSON object: per player its points and places, the ranking."""
    from daihinmin.rules.scoring import standings

    games, n = result.places.shape
    totals = [int(t) for t in result.totals]
    last = [int(p) for p in result.places[-1]] if games else list(range(n))
    players = []
    for p in range(n):
        counts = [int((result.places[:, p] == place).sum()) for place in range(n)]
        mean = float(result.places[:, p].mean()) + 1 if games else 0.0
        players.append({"number": p, "bot": bots[p], "points": totals[p],
                        "mean_place": round(mean, 4), "places": counts})
    return {"engine": "numba", "games": games, "seed": seed, "rules": rules.name,
            "players": players, "ranking": standings(rules, totals, last), "totals": totals,
            "turns": int(result.turns.sum()), "wall_seconds": round(wall, 3),
            "games_per_second": round(games / wall, 1) if wall > 0 else None}


def print_summary(data: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{data['rules']}, seed {data['seed']}: {data['games']} games "
                        f"on the Numba engine ({data['wall_seconds']} s, "
                        f"{data['games_per_second']} games/s)")
    for column in ("rank", "player", "bot", "points", "mean place", "places 1st.."):
        table.add_column(column, justify="left" if column == "bot" else "right")
    by_number = {p["number"]: p for p in data["players"]}
    for rank, number in enumerate(data["ranking"], 1):
        p = by_number[number]
        table.add_row(str(rank), f"#{number}", p["bot"], str(p["points"]),
                      f"{p['mean_place']:.3f}", " ".join(map(str, p["places"])))
    Console().print(table)


def numba_match_command(args: argparse.Namespace, default_table: Sequence[str],
                        check_bot_names: Callable[[list[str]], None]) -> int:
    """``match --engine numba`` (``default_table``: the lineup when no bot is named)."""
    from daihinmin.records.exit_codes import USAGE
    from daihinmin.rules.ruleset import RuleConfigError, ruleset_from

    from .match_options import DEFAULT_GAMES

    prog = "daihinmin match"
    try:
        refuse_tcp_options(args)
        rules = ruleset_from(args.rules or "uecda", args.rule)
        check_bot_names(args.bots)
        bots = list(args.bots) or [default_table[i % len(default_table)]
                                   for i in range(rules.players)]
        games = DEFAULT_GAMES if args.games is None else args.games
        if games < 1:
            raise ValueError(f"--games must be 1 or more, got {games}")
        from daihinmin.local.numba_match import NumbaMatchError, check_numba_match

        check_numba_match(rules, bots)
    except (RuleConfigError, ValueError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return USAGE
    except NumbaMatchError as exc:  # pragma: no cover - a ValueError, caught above
        print(f"{prog}: {exc}", file=sys.stderr)
        return USAGE
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    from daihinmin.local.numba_match import play_numba_match

    started = time.perf_counter()
    result = play_numba_match(rules, seed, games, bots)
    data = summary(result, bots, rules, seed, time.perf_counter() - started)
    if args.json:
        print(json.dumps(data))
    else:
        print_summary(data)
    return 0


__all__ = ["numba_match_command", "refuse_tcp_options", "summary"]
