"""The positions of a duplicate evaluation and one side's games on them.

Position ``k`` is game ``position_game(k)`` of a match seeded ``seed``, in which the tested
player (player 0, against four copies of the opponent) holds the class asked for it and the
others a seeded permutation of the rest (:func:`position_classes`).  A *task* is one side's
positions of one job: :func:`play_positions` plays them, each result as soon as its game
ends.  :mod:`daihinmin.research.duplicate` compares the two sides over all positions,
:mod:`daihinmin.research.duplicate_sprt` until a sequential test decides.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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
    return list(play_positions(task))


def play_positions(task: Task) -> Iterator[PositionResult]:
    """One side's positions of one job, each result as soon as its game ends (the bots are
    made once and keep what they learn from game to game)."""
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
        yield PositionResult(k, record.points[0], record.places[0])


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


__all__ = ["WARM_SEED", "PositionResult", "Task", "play_positions", "position_classes",
           "position_game", "position_log", "run_task", "warm_up_log"]
