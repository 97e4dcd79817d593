"""Fit the mc player's learned playout policy to its own searches.

Plays ``--games`` games of one ``mc`` against copies of ``--opponent`` (the other seats of
the ``--rules`` preset, four at ``uecda``) in process (split
into ``--jobs`` matches, one process each), records every searched play (a sampled world, the
candidates, the visit counts), and fits the linear-softmax weights of
:mod:`daihinmin.players.mc.learned` to the visit shares (:mod:`daihinmin.players.mc.fit`)::

    daihinmin mc-fit --games 1100 --jobs 2 --playouts 3000 --out w.json

It prints the held-out cross-entropy and top-1 agreement with the search (the current
weights beside the fitted ones) and the fitted weights; ``--out`` writes them as JSON
(``{"w_<feature>": value}``), which ``mc`` takes as its ``policy`` option.  The shipped
weights (:data:`daihinmin.players.mc.weights.FITTED_WEIGHTS`) came from this command.
This is an experiment, not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from daihinmin.local.parallel import run_parallel, split_count

if TYPE_CHECKING:
    from daihinmin.players.mc.search import ArmStats


def run_job(args: tuple[int, int, str, dict[str, Any], str]
            ) -> list[tuple[np.ndarray, np.ndarray]]:
    games, seed, opponent, options, preset = args
    from daihinmin.local.runner import play_local_match
    from daihinmin.players.mc.bot import MCBot
    from daihinmin.players.mc.fit import decision_sample
    from daihinmin.players.registry import make_bot
    from daihinmin.rules.ruleset import PRESETS

    rules = PRESETS[preset]
    mc = MCBot(seed=seed, **options)
    samples: list[tuple[np.ndarray, np.ndarray]] = []

    def record(st: np.ndarray, me: int, cand_c: np.ndarray, cand_i: np.ndarray,
               stats: ArmStats) -> None:
        sample = decision_sample(st, me, cand_c, cand_i, stats.visits, mc.prm)
        if sample is not None:
            samples.append(sample)

    mc.on_search = record
    bots = [mc] + [make_bot(opponent, seed=seed * 10 + i) for i in range(1, rules.players)]
    play_local_match(rules, seed=seed, games=games, bots=bots)
    return samples


def top1(weights: np.ndarray, rows: np.ndarray, mask: np.ndarray,
         targets: np.ndarray) -> float:
    """Share of decisions where the policy's likeliest move is the search's most visited."""
    scores = np.where(mask, rows @ weights, -np.inf)
    return float(np.mean(np.argmax(scores, axis=1) == np.argmax(targets, axis=1)))


def main(argv: list[str] | None = None, prog: str | None = None,
         formatter: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
         ) -> int:
    """Run the tool on ``argv``; ``daihinmin`` passes its ``prog`` and its help
    ``formatter`` (how the command line shows help: plain text, defaults said)."""
    from daihinmin.players.mc.fit import cross_entropy, fit_weights, stack_samples
    from daihinmin.players.mc.rollout import DEFAULT_PARAMS, P_WEIGHTS
    from daihinmin.players.mc.weights import FEATURE_NAMES, N_FEATURES, save_weights
    from daihinmin.research.mc_strength import policy_options
    from daihinmin.research.tool_args import add_preset_option, tool_parser

    p = tool_parser(prog, formatter, __doc__)
    p.add_argument("--games", type=int, default=1100, help="games of searches to learn from")
    p.add_argument("--opponent", default="default", help="the bot in the other seats")
    add_preset_option(p)
    p.add_argument("--policy", action="append", default=[], metavar="NAME=VALUE",
                   help="mc's other policy or value parameters (as mc-strength --policy)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--seed", type=int, default=1, help="the first game's seed")
    p.add_argument("--playouts", type=int, default=3000, help="playouts per decision")
    p.add_argument("--self-policy", type=int, default=1, choices=(0, 1),
                   help="the searches' own playouts: 1 learned policy, 0 heuristic")
    p.add_argument("--l2", type=float, default=1e-4, help="L2 regularisation of the fit")
    p.add_argument("--out", help="write the fitted weights here (JSON)")
    args = p.parse_args(argv)
    try:
        policy = policy_options(args.policy)
    except ValueError as exc:
        p.error(str(exc))
    options: dict[str, Any] = {"time_ms": 0.0, "playouts": args.playouts,
                               "policy": {**policy, "self": float(args.self_policy)}}
    tasks = [(n, args.seed + 1000 * j, args.opponent, options, args.rules)
             for j, n in enumerate(split_count(args.games, args.jobs)) if n]
    start = time.perf_counter()
    parts = run_parallel(run_job, tasks, args.jobs)
    samples = [s for part in parts for s in part]
    played = time.perf_counter() - start
    order = np.random.default_rng(args.seed).permutation(len(samples))
    cut = int(0.8 * len(samples))
    train = stack_samples([samples[k] for k in order[:cut]])
    test = stack_samples([samples[k] for k in order[cut:]])
    w = fit_weights(train.rows, train.mask, train.targets, l2=args.l2)
    current = DEFAULT_PARAMS[P_WEIGHTS:P_WEIGHTS + N_FEATURES]
    print(f"{len(samples)} decisions from {args.games} games in {played:.0f} s "
          f"(train {cut}, test {len(samples) - cut})")
    for label, weights in (("current", current), ("fitted", w)):
        print(f"  {label}: test cross-entropy "
              f"{cross_entropy(weights, test.rows, test.mask, test.targets):.3f}, "
              f"top-1 {top1(weights, test.rows, test.mask, test.targets):.3f}")
    print("  weights: " + ", ".join(f"{name}={x:.2f}" for name, x in
                                     zip(FEATURE_NAMES, w, strict=True)))
    if args.out:
        save_weights(args.out, [float(x) for x in w])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
