"""``daihinmin bench mc``: playouts per second per core and decision times of the mc player."""

from __future__ import annotations

import argparse
import json


def register_bench_mc(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    m = bench_sub.add_parser("mc", help="mc player: playouts/s/core and decision times")
    m.add_argument("--decisions", type=int, default=40, help="positions to decide from")
    m.add_argument("--time-ms", type=float, default=250.0, help="thinking time per decision")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=bench_mc)


def bench_mc(args: argparse.Namespace) -> int:
    from daihinmin.players.prepare import prepare_kinds
    from daihinmin.tools.mc_bench import run_bench  # Numba loads only when asked

    prepare_kinds(["mc"], "daihinmin bench mc")  # the first compile, not timed
    result = run_bench(decisions=args.decisions, time_ms=args.time_ms, seed=args.seed)
    if args.json:
        print(json.dumps({"bench": "mc", **result.as_dict()}))
    else:
        print(f"mc: {result.playouts_per_second_per_core:,.0f} playouts/s/core; "
              f"{result.decisions} decisions at {result.time_ms:.0f} ms budget: median "
              f"{result.decision_ms_median:.0f} ms, p99 {result.decision_ms_p99:.0f} ms, "
              f"median {result.playouts_per_decision_median:.0f} playouts")
    return 0
