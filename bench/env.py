"""``daihinmin bench env``: the research environments' speed on one core.

* ``aec``: steps per second of the PettingZoo AEC environment (random legal actions);
* ``batched``: agent steps per second of the batched environment at a batch size (the agent
  acting as ``default``; the time of ``step`` alone), opponents by their Numba models;
* ``match``: games per second of ``daihinmin match --engine numba`` with five ``default``,
  and whether its first ``--check`` games are the engine's (places, turns, points).

Each figure is given per second of wall time and per second of the process's CPU time (the
machine may be shared: the CPU figure is what one core gives), with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

TARGETS = ("aec", "batched", "match")


def register_bench_env(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]
                       ) -> None:
    p = bench_sub.add_parser("env", help="research environments: AEC steps/s, batched "
                                         "steps/s, Numba match games/s")
    p.add_argument("targets", nargs="*", metavar="TARGET",
                   help=f"what to measure: {', '.join(TARGETS)} (default all)")
    p.add_argument("--rules", default="uecda", help="rules preset (default uecda)")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule of --rules (repeatable)")
    p.add_argument("--seed", type=int, default=1, help="the first seed (default 1)")
    p.add_argument("--aec-steps", type=int, default=50_000, metavar="N",
                   help="aec: steps to time (default 50000)")
    p.add_argument("--batch", type=int, default=1024,
                   help="batched: games stepped at once (default 1024)")
    p.add_argument("--batched-steps", type=int, default=500, metavar="N",
                   help="batched: steps of the whole batch (default 500)")
    p.add_argument("--games", type=int, default=200_000,
                   help="match: games of the Numba match (default 200000)")
    p.add_argument("--check", type=int, default=1000, metavar="N",
                   help="match: games compared with the engine's (default 1000; 0: none)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=bench_env)


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def _rates(count: int, wall: float, cpu: float, unit: str) -> dict[str, Any]:
    return {unit: count, "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
            f"{unit}_per_second": round(count / wall, 1) if wall > 0 else None,
            f"{unit}_per_cpu_second": round(count / cpu, 1) if cpu > 0 else None}


def bench_aec(rules: str, overrides: list[str], seed: int, steps: int) -> dict[str, Any]:
    from daihinmin.env.aec import DaihinminEnv

    env = DaihinminEnv(rules, rule_overrides=overrides)
    rng = np.random.default_rng(seed)
    done = 0
    episode = seed
    with Clock() as clock:
        while done < steps:
            env.reset(seed=episode)
            episode += 1
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                done += 1
    return {"rules": env.rules.name, **_rates(done, clock.wall, clock.cpu, "steps"),
            "episodes": episode - seed}


def bench_batched(rules: str, overrides: list[str], seed: int, batch: int, steps: int
                  ) -> dict[str, Any]:
    from daihinmin.env.batched import BatchedEnv

    env = BatchedEnv(rules, batch=batch, seed=seed, rule_overrides=overrides)
    env.reset()
    env.step(env.expert_actions("default"))  # (compiled or loaded before timing)
    wall = cpu = 0.0
    for _ in range(steps):
        actions = env.expert_actions("default")
        with Clock() as clock:
            env.step(actions)
        wall += clock.wall
        cpu += clock.cpu
    return {"rules": env.rules.name, "batch": batch, "opponents": env.opponents,
            **_rates(steps * batch, wall, cpu, "steps"),
            "games": int(env.games_played().sum())}


def bench_match(rules: str, overrides: list[str], seed: int, games: int, check: int
                ) -> dict[str, Any]:
    from daihinmin.local.numba_match import play_numba_match
    from daihinmin.local.runner import play_local_match
    from daihinmin.players.registry import make_bot
    from daihinmin.rules.ruleset import ruleset_from

    ruleset = ruleset_from(rules, overrides)
    bots = ["default"] * ruleset.players
    play_numba_match(ruleset, seed, 2, bots)  # (compiled or loaded before timing)
    with Clock() as clock:
        result = play_numba_match(ruleset, seed, games, bots)
    out: dict[str, Any] = {"rules": ruleset.name, "bots": bots,
                           **_rates(games, clock.wall, clock.cpu, "games")}
    if check:
        records: list[Any] = []
        play_local_match(ruleset, seed, min(check, games),
                         [make_bot(b) for b in bots], on_game=records.append)
        same = sum(list(r.places) == result.places[i].tolist()
                   and len(r.turns) == int(result.turns[i]) for i, r in enumerate(records))
        out["checked_games"] = len(records)
        out["identical_to_engine"] = same
    return out


def bench_env(args: argparse.Namespace) -> int:
    targets = args.targets or list(TARGETS)
    unknown = sorted(set(targets) - set(TARGETS))
    if unknown:
        print(f"daihinmin bench env: unknown target {', '.join(unknown)}; "
              f"known: {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    result: dict[str, Any] = {"bench": "env", "load_average": list(os.getloadavg())}
    if "aec" in targets:
        result["aec"] = bench_aec(args.rules, args.rule, args.seed, args.aec_steps)
    if "batched" in targets:
        result["batched"] = bench_batched(args.rules, args.rule, args.seed, args.batch,
                                          args.batched_steps)
    if "match" in targets:
        result["match"] = bench_match(args.rules, args.rule, args.seed, args.games,
                                      args.check)
    result["load_average_after"] = list(os.getloadavg())
    if args.json:
        print(json.dumps(result))
        return 0
    for name in TARGETS:
        if name in result:
            r = result[name]
            unit = "games" if name == "match" else "steps"
            line = (f"{name} ({r['rules']}): {r[unit]} {unit} in {r['wall_seconds']} s = "
                    f"{r[unit + '_per_second']:,.0f} {unit}/s wall, "
                    f"{r[unit + '_per_cpu_second']:,.0f} per CPU second")
            if "identical_to_engine" in r:
                line += (f"; {r['identical_to_engine']} of the first {r['checked_games']} "
                         f"games identical to the engine's")
            print(line)
    print(f"load average {result['load_average']} -> {result['load_average_after']}")
    return 0


__all__ = ["TARGETS", "bench_aec", "bench_batched", "bench_env", "bench_match",
           "register_bench_env"]
