"""Strength of the mc player: one ``mc`` against four copies of another player, in process.

Runs ``--games`` games (split into ``--jobs`` matches with their own seeds, one process each)
with :func:`daihinmin.local.runner.play_local_match` (the same engine and views as a
networked match) and reports mc's mean points per game with two 95% confidence intervals (one
treating the games as independent, one resampling 25-game blocks, which keeps together the
games that the classes and the exchange link), its place histogram, how often it comes first
from each class it starts a game in (a lost first place costs the next games too: a lower
class gives its best cards away), and its decision times::

    daihinmin mc-strength --games 500 --opponent default --jobs 2

``--opponent-opt KEY=VALUE`` gives the opponents options, so mc can play copies of itself
(the harness check: ``--opponent mc --opponent-opt time_ms=0 --opponent-opt playouts=300``
with the same options for mc should score the equal seat's share, 3.0 points at ``uecda``)
or a differently set mc, an opponent its models do not know.  Every opponent has its own
seed (``seed * 10 + seat``), so copies of mc never share a random stream with mc.

``--oracle`` tells mc the true hands before each of its plays (the exchange stays sampled):
the score it reaches then is the ceiling that better inference of the hidden cards could
approach, and the difference is what the hidden cards cost.  ``--oracle-deal`` tells it only
the cards of each opponent's deal that the opponent still holds (draw-pile tables: not the
cards drawn since, which no record shows; those worlds are sampled as usual): the ceiling of
inferring the deal from what the opponents did.

This is an experiment, not a test: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from daihinmin.local.parallel import split_count
from daihinmin.players.registry import parse_options
from daihinmin.records.exit_codes import OUTPUT_REFUSED
from daihinmin.rules.ruleset import UECDA, RuleConfigError, RuleSet, ruleset_from
from daihinmin.rules.scoring import class_title
from daihinmin.runs.backend import add_backend_options
from daihinmin.runs.parallel import map_jobs
from daihinmin.values.cards import CardSet

from .tool_args import add_preset_option, local_only_checked, tool_parser


@dataclass
class JobResult:
    points: list[int] = field(default_factory=list)
    places: list[int] = field(default_factory=list)
    start_classes: list[int] = field(default_factory=list)  # -1: a class block's first game
    decision_ms: list[float] = field(default_factory=list)
    decision_cpu_ms: list[float] = field(default_factory=list)
    playouts: list[int] = field(default_factory=list)
    opponent_points: list[list[int]] = field(default_factory=list)  # per game, seats 1..


#: (games, seed, opponent, mc's options, oracle, preset, log path, the opponents' options,
#: rule overrides on the preset)
JobArgs = tuple[int, int, str, dict[str, Any], str, str, str | None, dict[str, Any], list[str]]


def run_job(args: JobArgs) -> JobResult:
    games, seed, opponent, options, oracle, preset, log_path, opponent_options, overrides = args
    from daihinmin.driver.record import GameRecord
    from daihinmin.local.runner import play_local_match
    from daihinmin.players.mc.bot import MCBot
    from daihinmin.players.registry import make_bot
    from daihinmin.rules.game import GameState

    rules = ruleset_from(preset, overrides)
    mc = MCBot(seed=seed, **options)
    bots = [mc] + [make_bot(opponent, seed=seed * 10 + i, **opponent_options)
                   for i in range(1, rules.players)]
    out = JobResult()

    def on_game(record: GameRecord) -> None:
        out.places.append(record.places[0])
        out.points.append(record.points[0])
        out.opponent_points.append(list(record.points[1:]))
        classes = record.classes
        out.start_classes.append(classes[0] if classes is not None else -1)

    dealt: list[Any] = [None, []]  # the game being played, each player's dealt hand

    def reveal_to_mc(state: GameState) -> None:
        if dealt[0] is not state:  # a new game: its first turn comes before any draw
            dealt[0], dealt[1] = state, [set(h) for h in state.hands]
        if state.turn != 0:
            return
        if oracle == "deal":  # the dealt cards each still holds; not the cards drawn
            mc.reveal([CardSet.of(c for c in h if c in d)
                       for h, d in zip(state.hands, dealt[1], strict=True)], partial=True)
        else:
            mc.reveal(state.hands)

    before_play = reveal_to_mc if oracle else None
    if log_path is None:
        play_local_match(rules, seed=seed, games=games, bots=bots, on_game=on_game,
                         before_play=before_play)
    else:
        from daihinmin.records.inprocess_log import LocalMatchLog

        names = ["mc"] + [f"{opponent}-{i}" for i in range(1, rules.players)]
        with LocalMatchLog.open(Path(log_path), rules, seed, games, names) as log:

            def log_game(record: GameRecord) -> None:
                log.game(record)
                on_game(record)

            log.finish(play_local_match(rules, seed=seed, games=games, bots=bots,
                                        on_game=log_game, before_play=before_play))
    out.decision_ms = [d.elapsed_ms for d in mc.decisions if d.kind == "play"]
    out.playouts = [d.playouts for d in mc.decisions if d.kind == "play"]
    out.decision_cpu_ms = [d.cpu_ms for d in mc.decisions if d.kind == "play"]
    return out


def check_options(name: str, options: dict[str, Any], flag: str) -> None:
    """Raise ``TypeError`` (or ``UnknownBotError``) unless player ``name`` takes ``options``,
    so a misspelt option is a usage error before any game, not a crash in a job."""
    import inspect

    from daihinmin.players.registry import resolve

    try:
        inspect.signature(resolve(name)).bind(**options)
    except TypeError as exc:
        raise TypeError(f"{flag} for {name}: {exc}") from None


def policy_options(items: list[str]) -> dict[str, float]:
    """``NAME=VALUE`` pairs of mc's policy parameters (``rollout.PARAM_NAMES``), checked.

    >>> policy_options(["place=1", "role=2.5"])
    {'place': 1.0, 'role': 2.5}
    """
    from daihinmin.players.mc.rollout import PARAM_NAMES

    out: dict[str, float] = {}
    for name, value in parse_options(items).items():
        if name not in PARAM_NAMES:
            raise ValueError(f"--policy: unknown parameter {name!r}; known: "
                             f"{', '.join(PARAM_NAMES)}")
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError(f"--policy {name}: expected a number, got {value!r}")
        out[name] = float(value)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


BLOCK_GAMES = 25  # games per bootstrap block: classes carry a loss over a few games


def block_interval(points_by_job: list[list[int]], block: int = BLOCK_GAMES,
                   resamples: int = 2000, seed: int = 1) -> tuple[float, float]:
    """95% bootstrap interval of the mean points, resampling blocks of ``block`` consecutive
    games of one job: games linked by the classes and the exchange stay together.

    >>> block_interval([[5] * 50, [4] * 50])
    (4.0, 5.0)
    >>> block_interval([[5, 4] * 50], block=2)
    (4.5, 4.5)
    """
    from daihinmin.tournament.stats import bootstrap_totals, ratio_interval

    rows = [(sum(pts[k:k + block]), len(pts[k:k + block]))
            for pts in points_by_job for k in range(0, len(pts), block)]
    if len(rows) < 2:
        return (float("nan"), float("nan"))
    totals = bootstrap_totals(np.array(rows, dtype=float), resamples, seed)
    return ratio_interval(totals[:, 0], totals[:, 1])


def firsts_by_start_class(start_classes: list[int], places: list[int],
                          rules: RuleSet = UECDA) -> dict[str, tuple[int, int]]:
    """Per class held at a game's start: (games, first places), classes in order, titled as
    ``rules`` title them (at four players the fourth class is the daihinmin).

    >>> firsts_by_start_class([-1, 0, 0, 1], [0, 0, 2, 0])
    {'new block': (1, 1), 'daifugo': (2, 1), 'fugo': (1, 1)}
    >>> from daihinmin.rules.ruleset import WEB
    >>> firsts_by_start_class([3], [3], WEB)
    {'daihinmin': (1, 0)}
    """
    out: dict[str, tuple[int, int]] = {}
    for c in sorted(set(start_classes)):
        got = [p for s, p in zip(start_classes, places, strict=True) if s == c]
        out["new block" if c < 0 else class_title(rules, c)] = (len(got), got.count(0))
    return out


def share_interval(hits: int, n: int) -> list[float]:
    """95% Wilson interval of a share ``hits / n``."""
    if n == 0:
        return [0.0, 1.0]
    z = 1.96
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(centre - half, 3), round(centre + half, 3)]


def summarise(results: list[JobResult], opponent: str, wall: float,
              oracle: str = "", preset: str = "uecda",
              players: int = 5, rules: RuleSet | None = None) -> dict[str, Any]:  # JSON
    """The figures of the jobs as JSON; ``rules``: the table's (default: the preset)."""
    table = rules if rules is not None else ruleset_from(preset)
    points = [p for r in results for p in r.points]
    places = [p for r in results for p in r.places]
    ranks = [p + 1 for p in places]  # 1 = first
    mean_place = statistics.fmean(ranks)
    place_half = (1.96 * statistics.stdev(ranks) / math.sqrt(len(ranks))
                  if len(ranks) > 1 else 0.0)
    ms = [t for r in results for t in r.decision_ms]
    cpu_ms = [t for r in results for t in r.decision_cpu_ms]
    playouts = [float(p) for r in results for p in r.playouts]
    # per CPU second: the core's rate, which the load does not change
    rates = [p * 1000 / t for p, t in zip(playouts, cpu_ms, strict=True) if p > 0 and t > 0]
    mean = statistics.fmean(points)
    half = 1.96 * statistics.stdev(points) / math.sqrt(len(points)) if len(points) > 1 else 0.0
    return {
        "rules": table.name,
        "opponent": opponent,
        "oracle": bool(oracle),
        "oracle_kind": oracle or None,  # "hands" (--oracle) or "deal" (--oracle-deal)
        "games": len(points),
        "first_share": round(places.count(0) / len(places), 3),
        "first_share_ci95": share_interval(places.count(0), len(places)),
        "mean_place": round(mean_place, 3),  # 1 = first
        "mean_place_ci95": [round(mean_place - place_half, 3),
                            round(mean_place + place_half, 3)],
        "mean_points": round(mean, 3),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "ci95_blocks": [round(x, 3) for x in block_interval([r.points for r in results])],
        "places": [places.count(k) for k in range(players)],  # 1st .. last
        "firsts_by_start_class": firsts_by_start_class(
            [c for r in results for c in r.start_classes], places, table),
        "decisions": len(ms),
        "decision_ms_median": round(percentile(ms, 0.5), 1),
        "decision_ms_p99": round(percentile(ms, 0.99), 1),
        # CPU time per decision: what a decision costs whatever the load (wall time above)
        "decision_cpu_ms_median": round(percentile(cpu_ms, 0.5), 1),
        "decision_cpu_ms_p99": round(percentile(cpu_ms, 0.99), 1),
        "playouts_per_decision_median": round(percentile(playouts, 0.5)),
        # per searched play: its playouts per CPU second of thinking (sampling included)
        "playouts_per_cpu_s_median": round(percentile(rates, 0.5)),
        # each opponent seat's mean points: with copies of mc every seat should be alike
        "opponent_mean_points": [
            round(statistics.fmean(row[k] for r in results for row in r.opponent_points), 3)
            for k in range(players - 1)] if points else [],
        "wall_s": round(wall, 1),
        # each job's places game by game (0 = first): games of one seed are the same deals
        # in every run, so two settings compare game for game (paired)
        "places_by_job": [r.places for r in results],
    }


def build_parser(prog: str | None, formatter: type[argparse.HelpFormatter]
                 ) -> argparse.ArgumentParser:
    """The tool's options (``--help`` shows them)."""
    p = tool_parser(prog, formatter, __doc__)
    p.add_argument("--games", type=int, default=500, help="games to play")
    p.add_argument("--opponent", default="default", help="registered player for the others")
    add_preset_option(p)
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule of the preset changed, e.g. seven_pass=yes (repeatable)")
    p.add_argument("--jobs", type=int, default=1, help="matches run side by side")
    p.add_argument("--seed", type=int, default=1, help="the first game's seed")
    p.add_argument("--time-ms", type=float, default=250.0,
                   help="mc's thinking time per move, in milliseconds")
    p.add_argument("--playouts", type=int, default=0, help="playout cap per decision")
    p.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE",
                   help="extra MCBot option (numbers and yes/no are converted)")
    p.add_argument("--opponent-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="option of every opponent (as --opt), e.g. for --opponent mc")
    p.add_argument("--policy", action="append", default=[], metavar="NAME=VALUE",
                   help="mc's playout policy or value parameter by name (MCBot's policy=), "
                        "e.g. place=1: over the table's own settings")
    p.add_argument("--oracle", action="store_const", const="hands", default="",
                   help="tell mc the true hands before each play (the inference ceiling)")
    p.add_argument("--oracle-deal", dest="oracle", action="store_const", const="deal",
                   help="tell mc, before each play, the cards of each hand's deal it still "
                        "holds, not the cards drawn since (the ceiling of inferring the deal "
                        "from the record; draw-pile tables)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_backend_options(p)
    p.add_argument("--log-dir", metavar="DIR", type=Path,
                   help="write each job's match log into DIR (mc-strength-J.jsonl; checked by "
                        "'daihinmin replay --verify')")
    return p


def checked_options(p: argparse.ArgumentParser, args: argparse.Namespace
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """mc's options and the opponents', each checked against its bot (else a usage error)."""
    options: dict[str, Any] = {"time_ms": args.time_ms, "playouts": args.playouts}
    try:
        options.update(parse_options(args.opt))
        if args.policy:
            options["policy"] = policy_options(args.policy)
        opponent_options = parse_options(args.opponent_opt)
        check_options("mc", {"seed": 0, **options}, "--opt")
        check_options(args.opponent, {"seed": 0, **opponent_options}, "--opponent-opt")
    except (ValueError, TypeError, LookupError) as exc:
        p.error(str(exc))
    return options, opponent_options


def simulated_rules(p: argparse.ArgumentParser, args: argparse.Namespace) -> RuleSet:
    """``--rules`` with its ``--rule`` changes; a usage error where mc does not simulate
    them (mc would play its fallback there, and the figures would not be mc's)."""
    from daihinmin.players.mc.observe import simulator_gaps

    try:
        rules = ruleset_from(args.rules, args.rule)
    except RuleConfigError as exc:
        p.error(str(exc))
    gaps = simulator_gaps(rules)
    if gaps:
        p.error(f"mc does not simulate the {rules.name} rules ({', '.join(gaps[:3])}"
                f"{', ...' if len(gaps) > 3 else ''})")
    return rules


def checked_logs(log_dir: Path, jobs: int) -> list[str | None]:
    """Each job's match log in ``log_dir``, every one checked before any game is played
    (OutputRefusedError)."""
    from daihinmin.records.outfile import check_output_path

    logs: list[str | None] = [str(log_dir / f"mc-strength-{j}.jsonl") for j in range(jobs)]
    for path in logs:
        check_output_path(Path(str(path)), what="match log")
    return logs


def result_text(summary: dict[str, Any], oracle: str, opponent: str, rules: RuleSet
                ) -> list[str]:
    """The result in words: the figures, then first places by the class a game starts in."""
    lo, hi = summary["ci95"]
    blo, bhi = summary["ci95_blocks"]
    seeing = {"hands": " (seeing the true hands)",
              "deal": " (seeing what each still holds of its deal)"}.get(oracle, "")
    by_class = summary["firsts_by_start_class"]
    return [f"mc{seeing} vs {rules.players - 1}x {opponent} at {rules.name}: "
            f"{summary['games']} games, mean "
            f"{summary['mean_points']} points (95% CI {lo}..{hi} as independent games, "
            f"{blo}..{bhi} by {BLOCK_GAMES}-game blocks), first in "
            f"{summary['first_share']} {summary['first_share_ci95']}, mean place "
            f"{summary['mean_place']} {summary['mean_place_ci95']}, places 1st..last "
            f"{summary['places']}; {summary['decisions']} decisions, median "
            f"{summary['decision_ms_median']} ms, p99 {summary['decision_ms_p99']} ms "
            f"(CPU {summary['decision_cpu_ms_median']} ms, p99 "
            f"{summary['decision_cpu_ms_p99']} ms), "
            f"median {summary['playouts_per_decision_median']} playouts, "
            f"median {summary['playouts_per_cpu_s_median']} playouts per CPU second; "
            f"opponents' mean points "
            f"{summary['opponent_mean_points']}; "
            f"{summary['wall_s']} s",
            "first place by class at the start: " + ", ".join(
                f"{name} {firsts}/{games}" for name, (games, firsts) in by_class.items())]


def main(argv: list[str] | None = None, prog: str | None = None,
         formatter: type[argparse.HelpFormatter] = argparse.RawDescriptionHelpFormatter
         ) -> int:
    """Play the games ``argv`` asks for and print mc's figures; ``prog`` and ``formatter``
    as ``daihinmin`` passes them (:func:`.tool_args.tool_parser`)."""
    p = build_parser(prog, formatter)
    args = p.parse_args(argv)
    backend = local_only_checked(p, args)
    jobs = max(1, args.jobs)
    options, opponent_options = checked_options(p, args)
    rules = simulated_rules(p, args)
    shares = [n for n in split_count(args.games, jobs) if n]
    logs: list[str | None] = [None] * len(shares)
    if args.log_dir is not None:
        from daihinmin.records.outfile import OutputRefusedError

        try:  # every log is checked before any game is played
            logs = checked_logs(args.log_dir, len(shares))
        except OutputRefusedError as exc:
            print(f"mc_strength: {exc}", file=sys.stderr)
            return OUTPUT_REFUSED
    tasks: list[JobArgs] = [(n, args.seed + 1000 * j, args.opponent, options, args.oracle,
                             args.rules, logs[j], opponent_options, args.rule)
                            for j, n in enumerate(shares)]
    start = time.perf_counter()
    results = map_jobs(run_job, tasks, jobs, backend)
    summary = summarise(results, args.opponent, time.perf_counter() - start, args.oracle,
                        args.rules, rules.players, rules)
    if args.json:
        print(json.dumps(summary))
    else:
        print("\n".join(result_text(summary, args.oracle, args.opponent, rules)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
