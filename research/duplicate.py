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
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from daihinmin.local.parallel import run_parallel
from daihinmin.players.registry import parse_options
from daihinmin.records.exit_codes import OUTPUT_REFUSED

# (player, options, opponent, seed, positions, my classes, warm-up games, log path prefix,
#  the warm-up match's log)
Task = tuple[str, dict[str, object], str, int, list[int], list[int | None], int, str | None,
             str | None]
WARM_SEED = 1_000_003  # added to --seed for the unscored warm-up games


@dataclass
class PositionResult:
    position: int
    points: int
    place: int


def position_classes(k: int, seed: int, mine: int | None) -> tuple[int, ...] | None:
    """The classes of position ``k``: player 0 holds ``mine``, the others a seeded shuffle."""
    if mine is None:
        return None
    rest = [c for c in range(5) if c != mine]
    random.Random(seed * 1_000_003 + k).shuffle(rest)
    return (mine, *rest)


def position_game(k: int, period: int) -> int:
    """Game number of position ``k``: game 2 on, skipping the games that reset the classes.

    >>> [position_game(k, 4) for k in range(7)]
    [2, 3, 4, 6, 7, 8, 10]
    """
    if period <= 1:
        return k + 2
    return k + 2 + k // (period - 1)


def run_task(task: Task) -> list[PositionResult]:
    name, options, opponent, seed, positions, mine, warm_games, log_prefix, warm_log = task
    from daihinmin.local.runner import play_local_game, play_local_match
    from daihinmin.players.registry import make_bot
    from daihinmin.records.inprocess_log import LocalMatchLog
    from daihinmin.rules.match import MatchState
    from daihinmin.rules.ruleset import UECDA

    bots = [make_bot(name, **options)] + [make_bot(opponent, seed=seed * 10 + i)
                                         for i in range(1, 5)]
    names = [name] + [f"{opponent}-{i}" for i in range(1, 5)]
    # The unscored warm-up match also starts the match for the bots.
    if warm_games > 0 and warm_log is not None:  # logged; its name says it is the warm-up
        with LocalMatchLog.open(Path(warm_log), UECDA, seed + WARM_SEED, warm_games,
                                names) as log:
            log.finish(play_local_match(UECDA, seed + WARM_SEED, warm_games, bots,
                                        on_game=log.game))
    elif warm_games > 0:
        play_local_match(UECDA, seed + WARM_SEED, warm_games, bots)
    else:
        for p, bot in enumerate(bots):
            bot.on_match_start(p)
    out = []
    for k, my_class in zip(positions, mine, strict=True):
        game = position_game(k, UECDA.class_reset_period)
        match = MatchState(UECDA, seed=seed, games=game, game=game,
                           classes=position_classes(k, seed, my_class),
                           seats=tuple(range(5)))
        if log_prefix is None:
            record = play_local_game(match, bots)
        else:  # one log per position: a one-game match that starts at game ``game``
            with LocalMatchLog.open(Path(position_log(log_prefix, k)), UECDA, seed, game,
                                    names, start=match) as log:
                record = play_local_game(match, bots)
                log.game(record)
                log.finish(match)
        out.append(PositionResult(k, record.points[0], record.places[0]))
    return out


def position_log(prefix: str, k: int) -> str:
    """The log of position ``k`` of one side (``prefix`` = folder/side).

    >>> position_log("logs/a", 12)
    'logs/a-00012.jsonl'
    """
    return f"{prefix}-{k:05d}.jsonl"


def warm_up_log(prefix: str, job: int) -> str:
    """The log of one job's unscored warm-up match.

    >>> warm_up_log("logs/b", 1)
    'logs/b-warm-1.jsonl'
    """
    return f"{prefix}-warm-{job}.jsonl"


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


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", default="mc", help="registered player A")
    p.add_argument("--b", default="mc", help="registered player B")
    p.add_argument("--a-opt", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--b-opt", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--opponent", default="default")
    p.add_argument("--positions", type=int, default=800)
    p.add_argument("--my-classes", default="0,0,0,0,1",
                   help="classes of the tested player, cycled over the positions "
                        "(0 daifugo .. 4 daihinmin, none: a fresh deal without exchange)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--warm-games", type=int, default=1,
                   help="unscored games each job plays first (0: none)")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--log-dir", metavar="DIR", type=Path,
                   help="write each position's match log into DIR (a-K.jsonl for A, b-K.jsonl "
                        "for B; checked by 'daihinmin replay --verify')")
    args = p.parse_args(argv)
    mine_cycle = _classes(args.my_classes)
    positions = list(range(args.positions))
    jobs = max(1, args.jobs)
    slices = [positions[j::jobs] for j in range(jobs)]
    tasks: list[Task] = []
    try:
        configs = ((args.a, parse_options(args.a_opt)), (args.b, parse_options(args.b_opt)))
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    warm_games = max(0, args.warm_games)
    prefixes: list[str | None] = [None, None]
    warm_logs: list[str] = []
    if args.log_dir is not None:
        from daihinmin.records.outfile import OutputRefusedError, check_output_path

        prefixes = [str(args.log_dir / side) for side in ("a", "b")]
        if warm_games:
            warm_logs = [warm_up_log(str(prefix), j) for prefix in prefixes
                         for j, part in enumerate(slices) if part]
        try:  # every log is checked before any game is played
            for prefix in prefixes:
                for k in positions:
                    check_output_path(Path(position_log(str(prefix), k)), what="match log")
            for path in warm_logs:
                check_output_path(Path(path), what="match log")
        except OutputRefusedError as exc:
            print(f"duplicate: {exc}", file=sys.stderr)
            return OUTPUT_REFUSED
    for (name, opts), prefix in zip(configs, prefixes, strict=True):
        for j, part in enumerate(slices):
            if part:
                warm_log = warm_up_log(prefix, j) if prefix and warm_games else None
                tasks.append((name, opts, args.opponent, args.seed, part,
                              [mine_cycle[k % len(mine_cycle)] for k in part],
                              warm_games, prefix, warm_log))
    start = time.perf_counter()
    results = run_parallel(run_task, tasks, jobs)
    half = len(results) // 2
    a = {r.position: r for part in results[:half] for r in part}
    b = {r.position: r for part in results[half:] for r in part}
    summary = paired_summary([a[k].points for k in positions], [b[k].points for k in positions])
    summary["places_a"] = [sum(1 for r in a.values() if r.place == q) for q in range(5)]
    summary["places_b"] = [sum(1 for r in b.values() if r.place == q) for q in range(5)]
    summary["wall_s"] = round(time.perf_counter() - start, 1)
    if args.log_dir is not None:
        summary["warm_up_logs"] = warm_logs  # unscored: none of their games count
    if args.json:
        print(json.dumps(summary))
    else:
        lo, hi = summary["diff_ci95"]
        print(f"{summary['positions']} positions vs 4x {args.opponent}: A {summary['mean_a']} "
              f"(places {summary['places_a']}), B {summary['mean_b']} (places "
              f"{summary['places_b']}); B - A = {summary['diff']:+} (95% CI {lo:+}..{hi:+}), "
              f"the two differ in {summary['differ']:.0%} of positions; "
              f"{summary['wall_s']} s")
        if warm_logs:
            print(f"logs in {args.log_dir}: a-K/b-K.jsonl per position; the unscored warm-up "
                  f"games in {', '.join(Path(w).name for w in warm_logs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
