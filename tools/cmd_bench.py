"""``daihinmin bench engine``: speed of the pure-Python rules engine."""

from __future__ import annotations

import argparse
import json
import random
import time

from daihinmin.bench.cluster import register_bench_cluster
from daihinmin.bench.sandbox import register_bench_sandbox
from daihinmin.bench.tcp import register_bench_tcp
from daihinmin.bench.tournament import register_bench
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import ruleset_from
from daihinmin.tools.cmd_bench_mc import register_bench_mc
from daihinmin.tools.cmd_bench_server import register_bench_server


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("bench", help="measure speed (engine, ...)")
    bench_sub = p.add_subparsers(dest="bench_target", metavar="TARGET")
    bench_sub.required = True
    e = bench_sub.add_parser("engine", help="random-vs-random full games per second")
    e.add_argument("--games", type=int, default=200, help="games to play")
    e.add_argument("--seed", type=int, default=1, help="the first game's seed")
    e.add_argument("--rules", default="uecda", help="rules preset")
    e.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule (repeatable)")
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.set_defaults(func=bench_engine)
    register_bench(bench_sub)  # ``bench tournament`` (daihinmin.bench.tournament)
    register_bench_mc(bench_sub)  # ``bench mc`` (daihinmin.tools.cmd_bench_mc)
    register_bench_server(bench_sub)  # ``bench server`` (daihinmin.tools.cmd_bench_server)
    register_bench_tcp(bench_sub)  # ``bench tcp`` (daihinmin.bench.tcp)
    register_bench_cluster(bench_sub)  # ``bench cluster`` (daihinmin.bench.cluster)
    register_bench_sandbox(bench_sub)  # ``bench sandbox`` (daihinmin.bench.sandbox)


def run_random_games(rules_name: str, overrides: list[str], games: int, seed: int
                     ) -> dict[str, float]:
    rules = ruleset_from(rules_name, overrides)
    pick = random.Random(seed)
    match = MatchState(rules, seed=seed, games=games)
    turns = 0
    start = time.perf_counter()
    while not match.finished:
        setup = match.setup_game()
        for player in setup.exchange_order():
            count, _ = setup.owed[player]
            choice = pick.sample(list(setup.hands[player]), count)
            setup.give_back(player, type(setup.hands[player]).of(choice))
        game = setup.start()
        while not game.over:
            if game.pending is not None:  # 7-pass / 10-discard: a random valid answer
                game.step_choice(pick.choice(game.legal_choices()))
                continue
            game.step(pick.choice(game.legal_moves()))
            turns += 1
        match.finish_game(game)
    wall = time.perf_counter() - start
    return {"games": games, "turns": turns, "seconds": round(wall, 4),
            "games_per_second": round(games / wall, 2),
            "turns_per_second": round(turns / wall, 1)}


def bench_engine(args: argparse.Namespace) -> int:
    result = run_random_games(args.rules, args.rule, args.games, args.seed)
    if args.json:
        print(json.dumps({"bench": "engine", "rules": args.rules, **result}))
    else:
        print(f"engine ({args.rules}): {result['games']} random games, {result['turns']} turns "
              f"in {result['seconds']:.2f} s = {result['games_per_second']:.1f} games/s, "
              f"{result['turns_per_second']:.0f} turns/s")
    return 0
