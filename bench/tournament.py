"""``daihinmin bench tournament``: games per second of whole tournaments (five bots).

Plays a throw-away tournament (a temporary database) with ``--bot`` (default: five
``default`` bots) and reports wall-clock speed and CPU per game, for the in-process path or
over TCP with a given number of tables at once.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported when the bench runs, so `daihinmin` itself starts fast
    from daihinmin.tournament.config import TournamentConfig


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    t = bench_sub.add_parser("tournament", help="tournament games per second (TCP or in process)")
    t.add_argument("--transport", choices=["tcp", "in-process"], default="tcp",
                   help="bots as processes over TCP, or in this process")
    t.add_argument("--games", type=int, default=100, help="games to play")
    t.add_argument("--games-per-match", type=int, default=10, help="games in each match")
    t.add_argument("--tables", type=int, default=1, help="TCP: tables at once")
    t.add_argument("--jobs", type=int, default=0, help="worker processes (0: all cores)")
    t.add_argument("--bot", action="append", default=[], help="default: five 'default' bots")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.set_defaults(func=bench_tournament)


def measure(cfg: TournamentConfig) -> dict[str, Any]:
    from daihinmin.tournament.run import run_tournament
    from daihinmin.tournament.store import TournamentStore

    with tempfile.TemporaryDirectory() as tmp:
        store = TournamentStore.create(Path(tmp) / "bench.sqlite", cfg)
        try:
            s = run_tournament(store, cfg)
        finally:
            store.close()
    cpu = s.cpu_per_game
    return {"transport": cfg.transport, "games": s.games, "jobs": s.jobs, "tables": s.tables,
            "seconds": round(s.wall_seconds, 3),
            "games_per_second": round(s.games_per_second, 2),
            "cpu_ms_per_game": None if cpu is None else round(1000 * cpu, 2),
            "cpu_ms_dispatcher_per_game": round(1000 * s.cpu_dispatcher / max(s.games, 1), 2),
            "failed_matches": len(s.failed)}


def bench_tournament(args: argparse.Namespace) -> int:
    from daihinmin.tournament.config import TournamentConfig, parse_bot_arg, unique_names, validate

    bots = args.bot or ["default"] * 5
    cfg = validate(replace(TournamentConfig(participants=unique_names(
        [parse_bot_arg(b) for b in bots])), transport=args.transport, games=args.games,
        games_per_match=args.games_per_match, jobs=args.jobs, tables=args.tables))
    from daihinmin.tournament.run import TournamentAbortedError

    try:
        result = measure(cfg)
    except TournamentAbortedError as exc:
        print(f"daihinmin bench tournament: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"bench": "tournament", **result}))
    else:
        print(f"tournament ({result['transport']}): {result['games']} games on "
              f"{result['jobs']} worker(s), {result['tables']} table(s) at once in "
              f"{result['seconds']:.2f} s = {result['games_per_second']:.1f} games/s; "
              f"CPU {result['cpu_ms_per_game']} ms/game")
    return 1 if result["failed_matches"] else 0
