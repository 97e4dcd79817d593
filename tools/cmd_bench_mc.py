"""``daihinmin bench mc``: playouts per second per core and decision times of the mc player."""

from __future__ import annotations

import argparse
import json
import sys

from daihinmin.records.exit_codes import USAGE
from daihinmin.rules.ruleset import PRESETS


def register_bench_mc(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    m = bench_sub.add_parser("mc", help="mc player: playouts/s/core and decision times")
    m.add_argument("--decisions", type=int, default=40, help="positions to decide from")
    m.add_argument("--time-ms", type=float, default=250.0, help="thinking time per decision")
    m.add_argument("--seed", type=int, default=1, help="the seed of the positions")
    m.add_argument("--rules", default="uecda", choices=sorted(PRESETS),
                   help="preset the positions are played at")
    m.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change one rule of the preset, e.g. double_stairs=no (repeatable)")
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.set_defaults(func=bench_mc)


def bench_mc(args: argparse.Namespace) -> int:
    from daihinmin.bench.mc import run_bench  # Numba loads only when asked
    from daihinmin.players.mc.observe import simulator_gaps
    from daihinmin.players.prepare import prepare_kinds
    from daihinmin.rules.ruleset import RuleConfigError, ruleset_from

    try:
        rules = ruleset_from(args.rules, args.rule)
    except RuleConfigError as exc:
        print(f"daihinmin bench mc: {exc}", file=sys.stderr)
        return USAGE
    gaps = simulator_gaps(rules)
    if gaps:  # mc would play its fallback there: no figure of the search to give
        print(f"daihinmin bench mc: mc does not simulate the {rules.name} rules "
              f"({', '.join(gaps[:3])}{', ...' if len(gaps) > 3 else ''})", file=sys.stderr)
        return USAGE
    prepare_kinds(["mc"], "daihinmin bench mc")  # the first compile, not timed
    result = run_bench(decisions=args.decisions, time_ms=args.time_ms, seed=args.seed,
                       rules=rules)
    if args.json:
        print(json.dumps({"bench": "mc", "rules": rules.name, **result.as_dict()}))
    else:
        r = result
        print(f"mc at {rules.name}: {r.playouts_per_second_per_core:,.0f} playouts/s/core "
              f"({r.playouts_per_cpu_second:,.0f} per CPU second); {r.decisions} decisions at "
              f"{r.time_ms:.0f} ms budget: wall p50/p90/p99/max {r.decision_ms_median:.0f}/"
              f"{r.decision_ms_p90:.0f}/{r.decision_ms_p99:.0f}/{r.decision_ms_max:.0f} ms, "
              f"CPU {r.decision_cpu_ms_median:.0f}/{r.decision_cpu_ms_p90:.0f}/"
              f"{r.decision_cpu_ms_p99:.0f}/{r.decision_cpu_ms_max:.0f} ms, median "
              f"{r.playouts_per_decision_median:.0f} playouts (load {r.load:.1f})")
    return 0
