"""Ratings fitted over all games at once: a Plackett–Luce model, as Ordo and BayesElo do.

Each participant ``i`` has a strength ``θ_i``; a game's order of finish is the product of
one choice per place: the first is ``i`` with probability ``exp θ_i / Σ exp θ`` over the
table, the second is chosen the same way among the rest, and so on (players who tie share
the same set to be chosen from).  The fit maximises the likelihood of every game together
(with a weak normal prior, so a participant who always wins stays finite), so the ratings do
not depend on the order the games were played in, unlike an online rating.

The ratings are on the Elo scale (``400 / ln 10`` per unit of ``θ``): two participants 100
apart finish in that order in 64 % of the games they share, as in a two-player Elo list.
Without anchors the field's mean is 0; the intervals (95 %, from the curvature of the
log-likelihood, the Hessian) are each participant's uncertainty against the field's mean.
Two participants *cannot be told apart* when the 95 % interval of their difference holds 0.
The intervals assume independent games; games of one match are linked (classes, the card
exchange), so treat them as a little narrow.

*Anchors* (``fixed``) are participants whose strength is given, e.g. a retired version whose
rating is frozen: the others are fitted around them.

>>> games = [((0, 1, 2), (0, 1, 2))] * 20 + [((0, 1, 2), (1, 0, 2))] * 10
>>> fit = fit_plackett_luce(games, 3)
>>> [round(r) for r in fit.ratings], fit.ratings[0] > fit.ratings[1] > fit.ratings[2]
([372, 253, -624], True)
>>> fit.apart(0, 1), fit.apart(1, 2)
(False, True)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ELO = 400 / math.log(10)  # rating points per unit of θ
Z95 = 1.959963984540054
PRIOR_SD = 4.0  # θ units (about 700 rating points): weak, only keeps a perfect record finite
MAX_ITERATIONS = 100

Game = tuple[Sequence[int], Sequence[float]]  # (participant per seat, rank per seat: 0 best)


@dataclass
class PlackettLuceFit:
    """The fitted ratings (Elo scale) with their covariance and per-participant games."""

    ratings: list[float]
    covariance: np.ndarray  # of the ratings, Elo scale squared
    games: list[int]  # seat-games each participant played
    fixed: frozenset[int]
    iterations: int

    def sd(self, i: int) -> float:
        return math.sqrt(max(float(self.covariance[i, i]), 0.0))

    def interval(self, i: int) -> tuple[float, float]:
        """The 95 % interval of participant ``i``'s rating (a point for an anchor)."""
        half = Z95 * self.sd(i)
        return (self.ratings[i] - half, self.ratings[i] + half)

    def difference_sd(self, a: int, b: int) -> float:
        c = self.covariance
        return math.sqrt(max(float(c[a, a] + c[b, b] - 2 * c[a, b]), 0.0))

    def apart(self, a: int, b: int) -> bool:
        """The two can be told apart: the 95 % interval of their difference excludes 0."""
        sd = self.difference_sd(a, b)
        return abs(self.ratings[a] - self.ratings[b]) > Z95 * sd

    def superiority(self, a: int, b: int) -> float:
        """The likelihood that ``a`` is stronger than ``b`` (Ordo's and BayesElo's LOS)."""
        sd = self.difference_sd(a, b)
        diff = self.ratings[a] - self.ratings[b]
        if sd == 0:
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * (1 + math.erf(diff / sd / math.sqrt(2)))


Chunk = tuple[np.ndarray, np.ndarray, np.ndarray]  # participants, ranks, clusters
CHUNK_GAMES = 4096  # games evaluated at once (the Hessian's work array is games x seats³)


def _arrays(games: Iterable[Game], clusters: Sequence[int] | None) -> list[Chunk]:
    """Games grouped by table size, in chunks: (participants, ranks), each of shape
    (games, seats), and each game's cluster (its own index when no clusters are given)."""
    by_size: dict[int, tuple[list[Sequence[int]], list[Sequence[float]], list[int]]] = {}
    for g, (seats, ranks) in enumerate(games):
        who, rk, cl = by_size.setdefault(len(seats), ([], [], []))
        who.append(seats)
        rk.append(ranks)
        cl.append(g if clusters is None else clusters[g])
    return [(np.asarray(w[i:i + CHUNK_GAMES], dtype=np.int64),
             np.asarray(r[i:i + CHUNK_GAMES], dtype=float),
             np.asarray(c[i:i + CHUNK_GAMES], dtype=np.int64))
            for k, (w, r, c) in by_size.items() if k >= 2
            for i in range(0, len(w), CHUNK_GAMES)]


def _scores(chooser: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Each seat's share of its game's gradient: (games, seats)."""
    out: np.ndarray = chooser.astype(float) - p.sum(axis=1)
    return out


def _choice_probabilities(theta: np.ndarray, who: np.ndarray, ranks: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """(chooser, p) of :func:`_terms`, for the per-game scores."""
    worst = ranks.max(axis=1, keepdims=True)
    chooser = ranks < worst
    risk = (ranks[:, None, :] >= ranks[:, :, None]) & chooser[:, :, None]
    th = theta[who]
    w = np.where(risk, np.exp(th - th.max(axis=1, keepdims=True))[:, None, :], 0.0)
    safe = np.where(chooser, w.sum(axis=2), 1.0)
    return chooser, w / safe[:, :, None]


def _cluster_meat(theta: np.ndarray, data: list[Chunk], n: int) -> np.ndarray:
    """Σ over clusters of (the cluster's score)(its score)ᵀ: the sandwich's filling."""
    ids = np.unique(np.concatenate([c for _, _, c in data]))
    sums = np.zeros((ids.size, n))
    for who, ranks, cl in data:
        chooser, p = _choice_probabilities(theta, who, ranks)
        rows = np.searchsorted(ids, cl)
        np.add.at(sums, (np.repeat(rows, who.shape[1]), who.ravel()),
                  _scores(chooser, p).ravel())
    meat: np.ndarray = sums.T @ sums
    return meat


def _terms(theta: np.ndarray, who: np.ndarray, ranks: np.ndarray, n: int,
           hessian: bool) -> tuple[float, np.ndarray, np.ndarray | None]:
    """Log-likelihood, gradient and (optionally) Hessian of one table size's games."""
    # chooser[g, j]: seat j is chosen at its place (the worst place chooses nothing);
    # risk[g, j, l]: seat l was still to be chosen from when seat j was chosen.
    worst = ranks.max(axis=1, keepdims=True)
    chooser = ranks < worst
    risk = (ranks[:, None, :] >= ranks[:, :, None]) & chooser[:, :, None]
    th = theta[who]  # (g, k)
    w = np.where(risk, np.exp(th - th.max(axis=1, keepdims=True))[:, None, :], 0.0)
    total = w.sum(axis=2)  # (g, k)
    safe = np.where(chooser, total, 1.0)
    p = w / safe[:, :, None]  # (g, j, l): probability of seat l at seat j's choice
    loglik = float((np.where(chooser, th, 0.0)).sum()
                   - (np.where(chooser, np.log(safe) + th.max(axis=1, keepdims=True), 0.0)).sum())
    grad = np.zeros(n)
    np.add.at(grad, who, _scores(chooser, p))
    if not hessian:
        return loglik, grad, None
    # Each choice adds -(diag(p) - p pᵀ) over the seats still to be chosen from.
    outer = p[:, :, :, None] * p[:, :, None, :]  # (g, j, l, m)
    block = outer.sum(axis=1)  # (g, l, m)
    diag = p.sum(axis=1)  # (g, l)
    h = np.zeros(n * n)
    rows = who[:, :, None] * n + who[:, None, :]  # (g, l, m) flat indices
    np.add.at(h, rows, block)
    np.add.at(h, who * n + who, -diag)
    return loglik, grad, h.reshape(n, n)


def fit_plackett_luce(games: Iterable[Game], n: int, fixed: Mapping[int, float] | None = None,
                      prior_sd: float = PRIOR_SD, clusters: Sequence[int] | None = None
                      ) -> PlackettLuceFit:
    """Fit ``n`` participants' ratings to ``games`` (seats and ranks, 0 = best, ties equal).

    ``fixed``: participant -> rating (Elo scale) held as given.  Without anchors the ratings
    are centred on the field's mean (the prior is centred on it too).  ``clusters``: per
    game, the group of games it is linked with (its match): the intervals then come from the
    cluster-robust (sandwich) covariance: the Hessian's, widened by the design effect (the
    sandwich's total variance over the Hessian's, at least 1) as much as the games of one
    match agree with each other; without, from the Hessian alone (independent games)."""
    fixed = dict(fixed or {})
    data = _arrays(games, clusters)
    played = np.zeros(n, dtype=np.int64)
    for who, _, _ in data:
        np.add.at(played, who, 1)
    free = np.array([i for i in range(n) if i not in fixed], dtype=np.int64)
    theta = np.zeros(n)
    for i, r in fixed.items():
        theta[i] = r / ELO
    # An anchored field's prior is centred on the anchors' mean; else on 0 (the field's mean).
    centre = float(np.mean([theta[i] for i in fixed])) if fixed else 0.0
    theta[free] = centre

    def evaluate(th: np.ndarray, hessian: bool) -> tuple[float, np.ndarray, np.ndarray | None]:
        ll, grad, h = 0.0, np.zeros(n), np.zeros((n, n)) if hessian else None
        for who, ranks, _ in data:
            a, b, c = _terms(th, who, ranks, n, hessian)
            ll, grad = ll + a, grad + b
            if h is not None and c is not None:
                h += c
        dev = th - centre
        ll -= float((dev[free] ** 2).sum()) / (2 * prior_sd ** 2)
        grad -= dev / prior_sd ** 2
        if h is not None:
            h -= np.eye(n) / prior_sd ** 2
        return ll, grad, h

    iterations = 0
    ll, grad, h = evaluate(theta, True)
    while free.size and iterations < MAX_ITERATIONS:
        iterations += 1
        assert h is not None
        hf = h[np.ix_(free, free)]
        step = np.linalg.solve(-hf, grad[free])
        scale = 1.0
        while True:  # the log-likelihood is concave: halve the step until it rises
            trial = theta.copy()
            trial[free] += scale * step
            ll_new, _, _ = evaluate(trial, False)
            if ll_new >= ll - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta = trial
        ll, grad, h = evaluate(theta, True)
        if float(np.abs(scale * step).max()) < 1e-9:
            break
    cov = np.zeros((n, n))
    if free.size:
        assert h is not None
        inv = np.linalg.inv(-h[np.ix_(free, free)])
        if clusters is not None and data:
            meat = _cluster_meat(theta, data, n)[np.ix_(free, free)]
            robust = inv @ meat @ inv
            if fixed:
                inv = inv * design_effect(robust, inv)
            else:  # compared against the field's mean (the prior's common shift left out)
                inv = inv * design_effect(_centred(robust), _centred(inv))
        if not fixed:  # against the field's mean: take the common shift out
            inv = _centred(inv)
            theta[free] -= theta[free].mean()
        cov[np.ix_(free, free)] = inv
    ratings = [float(fixed.get(i, t * ELO)) for i, t in enumerate(theta)]  # anchors exact
    return PlackettLuceFit(ratings=ratings, covariance=cov * ELO ** 2,
                           games=[int(x) for x in played], fixed=frozenset(fixed),
                           iterations=iterations)


def design_effect(robust: np.ndarray, model: np.ndarray) -> float:
    """How much wider linked games make the variances: the sandwich's total over the model's,
    at least 1 (a few clusters can make the sandwich small by chance)."""
    return max(1.0, float(np.trace(robust) / np.trace(model)))


def _centred(cov: np.ndarray) -> np.ndarray:
    """The covariance of ``θ - mean(θ)``."""
    m = cov.shape[0]
    c = np.eye(m) - np.full((m, m), 1.0 / m)
    out: np.ndarray = c @ cov @ c
    return out


def indistinct_groups(fit: PlackettLuceFit, order: Sequence[int]) -> list[tuple[int, int]]:
    """Neighbours in ``order`` (best first) that cannot be told apart.

    >>> fit = fit_plackett_luce([((0, 1), (0, 1)), ((0, 1), (1, 0))], 2)
    >>> indistinct_groups(fit, [0, 1])
    [(0, 1)]
    """
    return [(a, b) for a, b in itertools.pairwise(order) if not fit.apart(a, b)]


__all__ = ["ELO", "PlackettLuceFit", "fit_plackett_luce", "indistinct_groups"]
