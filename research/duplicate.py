"""Duplicate evaluation: two versions of a player on the same positions, compared pair by pair.

A *position* is one game with a fixed deal and fixed classes (hence a fixed exchange): the
tested player sits at player 0 against four copies of ``--opponent``; position ``k`` is game
``k`` of a match seeded ``--seed`` in which the tested player holds class
``--my-classes[k % len]`` and the others a seeded permutation of the other classes.  Player
``A`` and player ``B`` each play every position once, in process (``--jobs`` processes), and
the difference of their points is averaged over the positions.  Luck of the deal is the same
on both sides, so the paired 95% interval of the difference is much narrower than the
difference of two independent matches of the same length::

    daihinmin duplicate --a mc --b mc --b-opt learned_self=yes \\
        --a-opt playouts=3000 --a-opt time_ms=0 --b-opt playouts=3000 --b-opt time_ms=0 \\
        --positions 800 --jobs 2

Positions where the classes carry no exchange (``none`` in ``--my-classes``) are fresh deals.
Before its positions each job plays ``--warm-games`` unscored games (the same ones for A and
B), so a player that learns its opponents (``mc`` fits a model to each from finished games)
is scored as it plays in a match, not as it plays its first game.  With ``--log-dir`` every
game played is logged: each position as ``a-K.jsonl`` / ``b-K.jsonl``, and each job's
warm-up match (unscored: none of its games count) as ``a-warm-J.jsonl`` / ``b-warm-J.jsonl``;
the summary lists the warm-up logs under ``warm_up_logs``.
This is an experiment, not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from daihinmin.players.registry import parse_options
from daihinmin.records.exit_codes import OUTPUT_REFUSED
from daihinmin.runs.backend import add_backend_options
from daihinmin.runs.parallel import map_jobs
from daihinmin.values.words import counted

from .positions import PositionResult, Task, position_log, run_task, warm_up_log
from .tool_args import local_only_checked, tool_parser

if TYPE_CHECKING:
    from daihinmin.runs.backend import Backend
    from daihinmin.tournament.sprt import SprtHypotheses


def paired_summary(a: list[int], b: list[int]) -> dict[str, Any]:  # JSON
    """Means, the mean difference ``b - a`` with its 95% interval, and how often they differ.

    >>> s = paired_summary([5, 4, 5, 5], [5, 5, 5, 5])
    >>> s["mean_a"], s["mean_b"], s["diff"], s["differ"]
    (4.75, 5.0, 0.25, 0.25)
    """
    d = [y - x for x, y in zip(a, b, strict=True)]
    half = 1.96 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
    mean = statistics.fmean(d)
    return {"positions": len(d), "mean_a": round(statistics.fmean(a), 3),
            "mean_b": round(statistics.fmean(b), 3), "diff": round(mean, 3),
            "diff_ci95": [round(mean - half, 3), round(mean + half, 3)],
            "differ": round(sum(1 for x in d if x) / len(d), 3)}


def side_label(name: str, options: dict[str, object]) -> str:
    """A side as the result names it: its bot and the options it was given.

    >>> side_label("mc", {"playouts": 3000, "learned_self": True})
    'mc (learned_self=yes, playouts=3000)'
    >>> side_label("default", {})
    'default'
    """
    if not options:
        return name
    shown = {k: ("yes" if v else "no") if isinstance(v, bool) else v for k, v in options.items()}
    return f"{name} ({', '.join(f'{k}={v}' for k, v in sorted(shown.items()))})"


def result_text(summary: dict[str, Any], opponent: str) -> list[str]:
    """The result in words: which bot is A and which B, their means and places, B - A."""
    lo, hi = summary["diff_ci95"]
    lines = [f"{counted(summary['positions'], 'position')}, each played by A and by B "
             f"against 4 x {opponent}:"]
    for side in ("a", "b"):
        places = " ".join(str(n) for n in summary[f"places_{side}"])
        lines.append(f"  {side.upper()} = {summary[side]['label']}: mean "
                     f"{summary[f'mean_{side}']} points; places 1st..5th: {places}")
    lines.append(f"  B - A = {summary['diff']:+} points a position (95% CI {lo:+}..{hi:+}); "
                 f"A and B differ in {summary['differ']:.0%} of positions; "
                 f"{summary['wall_s']} s")
    return lines


def _classes(text: str) -> list[int | None]:
    out: list[int | None] = []
    for part in text.split(","):
        part = part.strip()
        if part == "none":
            out.append(None)
        elif part.isdigit() and int(part) < 5:
            out.append(int(part))
        else:
            raise SystemExit(f"--my-classes: {part!r} is not a class 0..4 or 'none'")
    return out


Sides = tuple[tuple[str, dict[str, object]], tuple[str, dict[str, object]]]  # A's, B's bot


def build_parser(prog: str | None, formatter: type[argparse.HelpFormatter]
                 ) -> argparse.ArgumentParser:
    """The tool's options (``--help`` shows them)."""
    p = tool_parser(prog, formatter, __doc__)
    p.add_argument("--a", default="mc", help="registered player A")
    p.add_argument("--b", default="mc", help="registered player B")
    p.add_argument("--a-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="an option for player A's bot (repeatable)")
    p.add_argument("--b-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="an option for player B's bot (repeatable)")
    p.add_argument("--opponent", default="default", help="the bot in the other seats")
    p.add_argument("--positions", type=int, default=800,
                   help="deals to play (each with A and with B in the same seat; with "
                        "--sprt: at most)")
    p.add_argument("--my-classes", default="0,0,0,0,1",
                   help="classes of the tested player, cycled over the positions "
                        "(0 daifugo .. 4 daihinmin, none: a fresh deal without exchange)")
    p.add_argument("--seed", type=int, default=7, help="the first deal's seed")
    p.add_argument("--warm-games", type=int, default=1,
                   help="unscored games each job plays first (0: none)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_backend_options(p)
    p.add_argument("--log-dir", metavar="DIR", type=Path,
                   help="write each position's match log into DIR (a-K.jsonl for A, b-K.jsonl "
                        "for B; checked by 'daihinmin replay --verify')")
    sprt = p.add_argument_group(
        "sequential test", "stop as soon as the answer is known at the error rates asked "
        "(docs/SPRT.md): H0 says B - A is D0 points per game, H1 says D1 (D0 < D1)")
    sprt.add_argument("--sprt", nargs=2, type=float, metavar=("D0", "D1"),
                      help="the two hypotheses, mean points per game of B minus A")
    sprt.add_argument("--alpha", type=float, default=0.05,
                      help="the chance of accepting H1 when H0 holds (default 0.05)")
    sprt.add_argument("--beta", type=float, default=0.05,
                      help="the chance of accepting H0 when H1 holds (default 0.05)")
    return p


def sprt_hypotheses(args: argparse.Namespace) -> SprtHypotheses | None:
    """``--sprt D0 D1`` with ``--alpha``/``--beta``, checked; ``None`` without ``--sprt``."""
    if args.sprt is None:
        return None
    from daihinmin.tournament.sprt import SprtError, SprtHypotheses

    try:
        return SprtHypotheses(args.sprt[0], args.sprt[1], args.alpha, args.beta).check()
    except SprtError as exc:
        raise SystemExit(f"--sprt: {exc}") from None


def side_configs(args: argparse.Namespace) -> Sides:
    """A's and B's bot with their options."""
    try:
        return ((args.a, parse_options(args.a_opt)), (args.b, parse_options(args.b_opt)))
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


def checked_logs(log_dir: Path, positions: list[int], slices: list[list[int]],
                 warm_games: int) -> tuple[list[str | None], list[str]]:
    """The two sides' log prefixes and the warm-up logs, every log checked before any game
    is played (OutputRefusedError)."""
    from daihinmin.records.outfile import check_output_path

    prefixes: list[str | None] = [str(log_dir / side) for side in ("a", "b")]
    warm_logs: list[str] = []
    if warm_games:
        warm_logs = [warm_up_log(str(prefix), j) for prefix in prefixes
                     for j, part in enumerate(slices) if part]
    for prefix in prefixes:
        for k in positions:
            check_output_path(Path(position_log(str(prefix), k)), what="match log")
    for path in warm_logs:
        check_output_path(Path(path), what="match log")
    return prefixes, warm_logs


def side_tasks(args: argparse.Namespace, configs: Sides, prefixes: list[str | None],
               slices: list[list[int]], mine_cycle: list[int | None], warm_games: int
               ) -> list[list[Task]]:
    """Each side's jobs: one task per non-empty slice of the positions."""
    sides: list[list[Task]] = []
    for (name, opts), prefix in zip(configs, prefixes, strict=True):
        sides.append([])
        for j, part in enumerate(slices):
            if part:
                warm_log = warm_up_log(prefix, j) if prefix and warm_games else None
                sides[-1].append((name, opts, args.opponent, args.seed, part,
                                  [mine_cycle[k % len(mine_cycle)] for k in part],
                                  warm_games, prefix, warm_log))
    return sides


def play_sides(sides: list[list[Task]], positions: list[int],
               hypotheses: SprtHypotheses | None, jobs: int, backend: Backend
               ) -> tuple[list[int], dict[int, PositionResult], dict[int, PositionResult],
                          Any]:
    """Play both sides: the positions used, A's and B's results by position, and the
    sequential test (``None`` without one)."""
    if hypotheses is not None:
        from .duplicate_sprt import run_sprt

        run = run_sprt(list(zip(*sides, strict=True)), positions, hypotheses)
        return run.used, run.a, run.b, run.test
    results = map_jobs(run_task, [*sides[0], *sides[1]], jobs, backend)
    half = len(results) // 2
    a = {r.position: r for part in results[:half] for r in part}
    b = {r.position: r for part in results[half:] for r in part}
    return positions, a, b, None


def side_summary(used: list[int], a: dict[int, PositionResult], b: dict[int, PositionResult]
                 ) -> dict[str, Any]:  # JSON
    """The paired summary of the positions used, with each side's places."""
    summary = paired_summary([a[k].points for k in used], [b[k].points for k in used])
    summary["places_a"] = [sum(1 for k in used if a[k].place == q) for q in range(5)]
    summary["places_b"] = [sum(1 for k in used if b[k].place == q) for q in range(5)]
    return summary


def main(argv: list[str] | None = None, prog: str | None = None,
         formatter: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
         ) -> int:
    """Play A and B on the positions ``argv`` asks for and print the paired difference;
    ``prog`` and ``formatter`` as ``daihinmin`` passes them (:func:`.tool_args.tool_parser`)."""
    p = build_parser(prog, formatter)
    args = p.parse_args(argv)
    backend = local_only_checked(p, args)
    mine_cycle = _classes(args.my_classes)
    positions = list(range(args.positions))
    jobs = max(1, args.jobs)
    slices = [positions[j::jobs] for j in range(jobs)]
    hypotheses = sprt_hypotheses(args)
    configs = side_configs(args)
    warm_games = max(0, args.warm_games)
    prefixes: list[str | None] = [None, None]
    warm_logs: list[str] = []
    if args.log_dir is not None:
        from daihinmin.records.outfile import OutputRefusedError

        try:
            prefixes, warm_logs = checked_logs(args.log_dir, positions, slices, warm_games)
        except OutputRefusedError as exc:
            print(f"duplicate: {exc}", file=sys.stderr)
            return OUTPUT_REFUSED
    sides = side_tasks(args, configs, prefixes, slices, mine_cycle, warm_games)
    start = time.perf_counter()
    used, a, b, test = play_sides(sides, positions, hypotheses, jobs, backend)
    summary = side_summary(used, a, b)
    summary["wall_s"] = round(time.perf_counter() - start, 1)
    for side, (name, opts) in zip(("a", "b"), configs, strict=True):
        summary[side] = {"bot": name, "options": opts, "label": side_label(name, opts)}
    summary["opponent"] = args.opponent
    if hypotheses is not None:
        summary["sprt"] = sprt_report(test, args.positions)
    if args.log_dir is not None:
        summary["warm_up_logs"] = warm_logs  # unscored: none of their games count
    if args.json:
        print(json.dumps(summary))
        return 0
    print_result(summary, args.opponent, args.log_dir, warm_logs)
    return 0


def print_result(summary: dict[str, Any], opponent: str, log_dir: Path | None,
                 warm_logs: list[str]) -> None:
    """The result in words, the sequential test's if there was one, where the logs are."""
    print("\n".join(result_text(summary, opponent)))
    if "sprt" in summary:
        print_sprt(summary["sprt"])
    if warm_logs:
        print(f"logs in {log_dir}: a-K/b-K.jsonl per position; the unscored warm-up "
              f"games in {', '.join(Path(w).name for w in warm_logs)}")


def sprt_report(test: Any, limit: int) -> dict[str, Any]:  # JSON
    """The test's verdict, LLR trace (every pair), pairs and games used, and how many
    pairs a fixed-length test of the same error rates would take at the spread seen."""
    from daihinmin.tournament.sprt import fixed_length

    out: dict[str, Any] = test.summary()
    out["text"] = test.verdict_text()
    out["positions_used"] = test.n
    out["games_used"] = 2 * test.n  # one game of A and one of B per position
    out["limit"] = limit
    lo, hi = out["ci95"]
    sd = (hi - lo) / (2 * 1.96) * math.sqrt(test.n) if test.n > 1 else 0.0
    out["fixed_length_positions"] = fixed_length(test.hypotheses, sd) if sd > 0 else None
    return out


def print_sprt(report: dict[str, Any]) -> None:
    from daihinmin.tournament.sprt import thin

    trace = [(i, v) for i, v in report["trace"]]
    shown = "  ".join(f"{i}:{v:+.2f}" for i, v in
                      [(trace[k][0], trace[k][1]) for k, _ in thin([v for _, v in trace], 12)])
    fixed = report["fixed_length_positions"]
    print(f"SPRT H0 {report['d0']:+g} vs H1 {report['d1']:+g} (alpha {report['alpha']:g}, "
          f"beta {report['beta']:g}): {report['text']}; LLR {report['llr']:+.2f} in "
          f"[{report['lower']:+.2f}, {report['upper']:+.2f}] after {report['positions_used']} "
          f"positions ({report['games_used']} games; a fixed-length test: "
          f"{fixed if fixed is not None else '?'} positions)")
    print(f"LLR trace (position:LLR): {shown}")


if __name__ == "__main__":
    raise SystemExit(main())
