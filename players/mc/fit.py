"""Fitting the learned playout policy (:mod:`~daihinmin.players.mc.learned`) to searches.

One searched decision becomes a *sample*: the feature rows of every move the policy could
make there, and the search's visit shares as the target distribution.  The weights are then
fitted by maximum likelihood of a linear softmax (cross-entropy to the visit shares, a small
L2 penalty), with Adam on full batches: a few thousand decisions and twenty features fit in
seconds.  Decisions the policy never decides itself (a play that wins the lead race at once is
forced) are left out.

>>> rng = np.random.default_rng(0)
>>> true_w = np.array([1.0, -2.0, 0.5])
>>> rows = rng.normal(size=(3000, 6, 3))
>>> mask = np.ones((3000, 6), dtype=bool)
>>> chance = softmax_rows(rows @ true_w, mask)
>>> picks = np.array([rng.choice(6, p=c) for c in chance])
>>> targets = np.eye(6)[picks]
>>> w = fit_weights(rows, mask, targets, l2=0.0, iterations=1500)
>>> bool(np.allclose(w, true_w, atol=0.15))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .learned import move_features
from .moves import MAX_MOVES
from .rollout import plays_or_forced
from .weights import N_FEATURES


class UnmatchedCandidateError(ValueError):
    """A recorded candidate is not among the moves the policy generates in that state."""


@dataclass
class Samples:
    """Decisions as padded arrays: ``rows`` (n x moves x features), ``mask`` (real moves),
    ``targets`` (the search's visit shares)."""

    rows: np.ndarray
    mask: np.ndarray
    targets: np.ndarray


def decision_sample(st: np.ndarray, me: int, cand_c: np.ndarray, cand_i: np.ndarray,
                    visits: np.ndarray, prm: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Feature rows and visit shares of one searched decision of ``me`` in ``st`` (candidates
    as the bot lists them: the pass is ``(0, 0)``); ``None`` when the policy's choice there
    is forced."""
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    n, forced = plays_or_forced(st, me, prm, bufc, bufi)
    if n == 0 or forced >= 0:
        return None
    rows = np.zeros((n + 1, N_FEATURES))
    used = move_features(st, me, bufc, bufi, n, rows)
    index = {(int(bufc[i]), int(bufi[i])): i for i in range(n)}
    target = np.zeros(used)
    for c, i, v in zip(cand_c, cand_i, visits, strict=True):
        r = n if (c == 0 and i == 0) else index.get((int(c), int(i)), -1)
        if r < 0 or r >= used:
            raise UnmatchedCandidateError(f"candidate ({int(c):#x}, {int(i):#x}) not generated")
        target[r] += float(v)
    if target.sum() <= 0:
        return None
    return rows[:used], target / target.sum()


def stack_samples(samples: list[tuple[np.ndarray, np.ndarray]]) -> Samples:
    """Pad decisions with different numbers of moves into one batch."""
    width = max(len(t) for _, t in samples)
    n = len(samples)
    rows = np.zeros((n, width, N_FEATURES))
    mask = np.zeros((n, width), dtype=bool)
    targets = np.zeros((n, width))
    for k, (r, t) in enumerate(samples):
        rows[k, :len(t)] = r
        mask[k, :len(t)] = True
        targets[k, :len(t)] = t
    return Samples(rows, mask, targets)


def softmax_rows(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the masked entries."""
    z = np.where(mask, scores, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def cross_entropy(weights: np.ndarray, rows: np.ndarray, mask: np.ndarray,
                  targets: np.ndarray) -> float:
    """Mean cross-entropy of the targets under the softmax policy with ``weights``."""
    chance = softmax_rows(rows @ weights, mask)
    return float(-(targets * np.log(np.where(mask, chance, 1.0))).sum() / len(rows))


def fit_weights(rows: np.ndarray, mask: np.ndarray, targets: np.ndarray, l2: float = 1e-4,
                iterations: int = 2000, rate: float = 0.05) -> np.ndarray:
    """Weights of the linear softmax that best explains ``targets`` (Adam, full batch)."""
    w = np.zeros(rows.shape[2])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    n = len(rows)
    for step in range(1, iterations + 1):
        chance = softmax_rows(rows @ w, mask)
        grad = np.einsum("nr,nrf->f", chance - targets, rows) / n + 2.0 * l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w
