"""Root search: a UCB1 bandit over the candidate moves, each pull one playout in one world.

The k-th playout of every candidate uses world ``k mod W`` (common random numbers), so
candidates are compared on the same deals.  Playouts run in Numba in batches; between batches
Python checks the clock and the stop rules:

- only one candidate: no playouts at all;
- the playout or time budget is spent;
- *no change possible*: even if every remaining playout went to a rival and scored first
  place while the leader's scored last, the leader would still have the best mean;
- *clear lead*: every rival's mean is below the leader's by more than ``z`` standard errors
  (both with enough playouts).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .bits import D3_BIT
from .deadline import Deadline
from .endgame import SolverScratch
from .playout import playout
from .rollout import BUFFER, P_TREE
from .state import (
    MAX_PLAYERS,
    N_SEATS,
    PLACE_VALUES,
    STATE_SIZE,
    add_cards,
    apply_choice,
    apply_pass,
    apply_play,
    deal_pile,
    new_state,
    take_cards,
)
from .tree import TreeScratch, tree_playout
from .worlds import world_pile

#: A playout's value is players - place (state.place_value): 1 for last place.
MIN_POINTS = 1.0
#: playouts of the first batch on the clock (before the search knows its rate)
FIRST_TIMED_BATCH = 16


@njit(cache=True)
def select_arm(sums: np.ndarray, visits: np.ndarray, c_explore: float, min_visits: int,
               players: int) -> int:
    """UCB1 over the arms, means scaled to 0..1 (a playout scores 1..``players``)."""
    n = sums.shape[0]
    fewest = 0
    total = 0
    for a in range(n):
        total += visits[a]
        if visits[a] < visits[fewest]:
            fewest = a
    if visits[fewest] < min_visits:
        return fewest
    log_total = np.log(total)
    best = 0
    best_u = -1e18
    for a in range(n):
        mean = (sums[a] / visits[a] - 1.0) / (players - 1.0)
        u = mean + c_explore * np.sqrt(log_total / visits[a])
        if u > best_u:
            best_u = u
            best = a
    return best


@njit(cache=True)
def play_batch(bases: np.ndarray, cand_c: np.ndarray, cand_i: np.ndarray, sums: np.ndarray,
               squares: np.ndarray, visits: np.ndarray, me: int, count: int,
               models: np.ndarray, prm: np.ndarray,
               c_explore: float, min_visits: int, st: np.ndarray, bufc: np.ndarray,
               bufi: np.ndarray, solver: tuple[np.ndarray, ...],
               tree: tuple[np.ndarray, ...]) -> None:
    """``count`` playouts of candidate plays (``cand_i == 0``: pass) for ``me`` to move;
    with ``prm[P_TREE]`` its later decisions by the tree (:mod:`.tree`)."""
    n_worlds = bases.shape[0]
    players = bases[0, N_SEATS]
    use_tree = prm[P_TREE] > 0.0
    for _ in range(count):
        a = select_arm(sums, visits, c_explore, min_visits, players)
        st[:] = bases[visits[a] % n_worlds]
        if cand_i[a] == 0:
            apply_pass(st)
        else:
            apply_play(st, cand_c[a], cand_i[a])
        if use_tree:
            v = tree_playout(st, me, models, prm, bufc, bufi, solver, tree)
        else:
            v = playout(st, me, models, prm, bufc, bufi, solver)
        sums[a] += v
        squares[a] += v * v
        visits[a] += 1


@njit(cache=True)
def choice_batch(bases: np.ndarray, cand: np.ndarray, sums: np.ndarray, squares: np.ndarray,
                 visits: np.ndarray, me: int, count: int, models: np.ndarray, prm: np.ndarray,
                 c_explore: float, min_visits: int, st: np.ndarray, bufc: np.ndarray,
                 bufi: np.ndarray, solver: tuple[np.ndarray, ...]) -> None:
    """``count`` playouts of candidate answers ``cand`` (card masks) to ``me``'s pending
    7-pass or 10-discard choice."""
    n_worlds = bases.shape[0]
    players = bases[0, N_SEATS]
    for _ in range(count):
        a = select_arm(sums, visits, c_explore, min_visits, players)
        st[:] = bases[visits[a] % n_worlds]
        apply_choice(st, cand[a])
        v = playout(st, me, models, prm, bufc, bufi, solver)
        sums[a] += v
        squares[a] += v * v
        visits[a] += 1


@njit(cache=True)
def exchange_batch(worlds: np.ndarray, seats: np.ndarray, owner_answers: bool, me: int,
                   lower: int, cand: np.ndarray, sums: np.ndarray, squares: np.ndarray,
                   visits: np.ndarray,
                   count: int, models: np.ndarray, prm: np.ndarray, c_explore: float,
                   min_visits: int,
                   bufc: np.ndarray, bufi: np.ndarray,
                   solver: tuple[np.ndarray, ...], values: np.ndarray,
                   rules_word: int = 0, prev_top: int = -1, leader: int = -1,
                   unknown: int = 0, pile: int = 0) -> None:
    """``count`` playouts from the game start of candidate returns ``cand`` (card masks);
    ``leader`` leads the game (-1: the holder of the ♦3); ``pile`` cards of ``unknown``
    that no world hand holds are the draw pile; ``values``: the state's PLACE_VALUES."""
    n_worlds = worlds.shape[0]
    hands = np.empty(MAX_PLAYERS, dtype=np.int64)
    for _ in range(count):
        a = select_arm(sums, visits, c_explore, min_visits, seats.shape[0])
        hands[:] = worlds[visits[a] % n_worlds]
        hands[me] = take_cards(hands[me], cand[a])
        hands[lower] = add_cards(hands[lower], cand[a])
        first = leader if leader >= 0 else 0
        for q in range(MAX_PLAYERS):
            if leader < 0 and hands[q] & D3_BIT:
                first = q
        st = new_state(hands, seats, first, owner_answers, rules_word, prev_top)
        st[PLACE_VALUES:PLACE_VALUES + values.shape[0]] = values
        if pile:
            deal_pile(st, world_pile(unknown, worlds[visits[a] % n_worlds], me), pile)
        v = playout(st, me, models, prm, bufc, bufi, solver)
        sums[a] += v
        squares[a] += v * v
        visits[a] += 1


@dataclass
class Budget:
    """When to stop thinking: ``time_ms`` of wall clock and/or ``playouts`` (0 = no cap)."""

    time_ms: float = 250.0
    playouts: int = 0
    batch: int = 64
    z: float = 3.0  # standard errors for the clear-lead stop
    min_for_z: int = 40  # playouts each of leader and rival before the clear-lead stop

    def __post_init__(self) -> None:
        if self.time_ms <= 0 and self.playouts <= 0:
            raise ValueError("a search budget needs time_ms > 0 or playouts > 0")


@dataclass
class ArmStats:
    sums: np.ndarray
    squares: np.ndarray
    visits: np.ndarray
    playouts: int = 0
    stop: str = ""
    elapsed_ms: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)
    max_points: float = 5.0  # a playout's best value: the player count

    @classmethod
    def empty(cls, n: int, players: int = 5) -> ArmStats:
        return cls(np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64),
                   max_points=float(players))

    def means(self) -> np.ndarray:
        return self.sums / np.maximum(self.visits, 1)

    def best(self) -> int:
        """The highest mean among candidates with at least a third of the top visit count."""
        means = self.means()
        floor = max(1, self.visits.max() // 3)
        eligible = np.where(self.visits >= floor, means, -np.inf)
        return int(np.argmax(eligible))

    def settled(self, remaining: int, z: float, min_for_z: int) -> str:
        """Why no further playout could (or is likely to) change the choice; '' if none."""
        b = self.best()
        n_b, s_b = self.visits[b], self.sums[b]
        worst_b = (s_b + MIN_POINTS * remaining) / (n_b + remaining)
        means = self.means()
        var = np.maximum(self.squares / np.maximum(self.visits, 1) - means**2, 1e-6)
        certain = True
        clear = n_b >= min_for_z
        for a in range(len(self.visits)):
            if a == b:
                continue
            n_a = self.visits[a]
            if (self.sums[a] + self.max_points * remaining) / (n_a + remaining) >= worst_b:
                certain = False
            if n_a < min_for_z or means[b] - means[a] <= z * math.sqrt(
                    var[b] / n_b + var[a] / n_a):
                clear = False
        if certain:
            return "no change possible"
        if clear:
            return "clear lead"
        return ""


def run_bandit(n_cand: int, budget: Budget, batch: Callable[[ArmStats, int], None],
               players: int = 5, deadline: Deadline | None = None) -> ArmStats:
    """Pull arms with ``batch(stats, count)`` until the budget or a stop rule ends it.

    ``deadline``: the decision's (the search then stops by its end, not ``budget.time_ms``
    from now).  On the clock the first batch is small and each later one is sized by the
    rate so far to end by the deadline: a batch is never what overruns it."""
    if deadline is None:
        deadline = Deadline.start(budget.time_ms)
    stats = ArmStats.empty(n_cand, players)
    start = deadline.clock()
    if n_cand <= 1:
        stats.stop = "single candidate"
        return stats
    timed = budget.time_ms > 0 and deadline.timed
    count = min(budget.batch, FIRST_TIMED_BATCH) if timed else budget.batch
    while True:
        if budget.playouts:
            count = min(count, budget.playouts - stats.playouts)
        batch(stats, count)
        stats.playouts += count
        now = deadline.clock()
        elapsed = now - start
        if budget.playouts and stats.playouts >= budget.playouts:
            stats.stop = "playout budget"
            break
        if timed and now >= deadline.end:
            stats.stop = "time budget"
            break
        remaining = budget.playouts - stats.playouts if budget.playouts else 10**9
        count = budget.batch
        if timed:
            rate = stats.playouts / max(elapsed, 1e-6)
            fit = int(rate * (deadline.end - now))
            if fit < 1:
                stats.stop = "time budget"  # not one more playout fits
                break
            remaining = min(remaining, fit + 1)
            count = min(count, fit)
        reason = stats.settled(remaining, budget.z, budget.min_for_z)
        if reason:
            stats.stop = reason
            break
    stats.elapsed_ms = (deadline.clock() - start) * 1000
    return stats


class Workspace:
    """Buffers shared by every search of one bot (allocated once)."""

    def __init__(self) -> None:
        self.solver = SolverScratch()
        self.tree = TreeScratch()
        self.bufc = np.zeros(BUFFER, dtype=np.int64)
        self.bufi = np.zeros(BUFFER, dtype=np.int64)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)


def search_play(ws: Workspace, bases: np.ndarray, cand_c: np.ndarray, cand_i: np.ndarray,
                me: int, models: np.ndarray, prm: np.ndarray, budget: Budget, c_explore: float,
                min_visits: int, deadline: Deadline | None = None) -> ArmStats:
    s = ws.solver
    ws.tree.reset()
    tree = ws.tree.arrays()

    def batch(stats: ArmStats, count: int) -> None:
        play_batch(bases, cand_c, cand_i, stats.sums, stats.squares, stats.visits, me, count,
                   models, prm, c_explore, min_visits, ws.state, ws.bufc, ws.bufi, s.arrays(),
                   tree)

    return run_bandit(len(cand_c), budget, batch, int(bases[0, N_SEATS]), deadline)


def search_choice(ws: Workspace, bases: np.ndarray, cand: np.ndarray, me: int,
                  models: np.ndarray, prm: np.ndarray, budget: Budget, c_explore: float,
                  min_visits: int, deadline: Deadline | None = None) -> ArmStats:
    s = ws.solver

    def batch(stats: ArmStats, count: int) -> None:
        choice_batch(bases, cand, stats.sums, stats.squares, stats.visits, me, count, models,
                     prm, c_explore, min_visits, ws.state, ws.bufc, ws.bufi, s.arrays())

    return run_bandit(len(cand), budget, batch, int(bases[0, N_SEATS]), deadline)


def search_exchange(ws: Workspace, worlds: np.ndarray, seats: np.ndarray, owner_answers: bool,
                    me: int, lower: int, cand: np.ndarray, models: np.ndarray, prm: np.ndarray,
                    budget: Budget, c_explore: float, min_visits: int, rules_word: int = 0,
                    prev_top: int = -1, leader: int = -1, unknown: int = 0,
                    pile: int = 0, deadline: Deadline | None = None,
                    values: np.ndarray | None = None) -> ArmStats:
    """Search the returns ``cand``; ``values``: the place values of the rules
    (convert.place_values; None: evenly spaced points)."""
    s = ws.solver
    place = np.zeros(MAX_PLAYERS, dtype=np.int64) if values is None else values

    def batch(stats: ArmStats, count: int) -> None:
        exchange_batch(worlds, seats, owner_answers, me, lower, cand, stats.sums, stats.squares,
                       stats.visits, count, models, prm, c_explore, min_visits, ws.bufc, ws.bufi,
                       s.arrays(), place, rules_word, prev_top, leader, unknown, pile)

    return run_bandit(len(cand), budget, batch, len(seats), deadline)


__all__ = ["ArmStats", "Budget", "Workspace", "search_choice", "search_exchange",
           "search_play"]
