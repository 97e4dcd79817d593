"""The sequential probability ratio test (SPRT) on a mean difference of points per game.

A comparison of two players (``duplicate``'s paired positions, a two-participant
``tournament``'s deal sets) gives one observation at a time: B's points per game minus A's.
Two hypotheses about their mean, ``H0: mean = d0`` and ``H1: mean = d1`` (``d0 < d1``, in
points per game), and the error rates ``alpha`` (accepting H1 when H0 holds) and ``beta``
(accepting H0 when H1 holds) give Wald's bounds ``log(beta / (1 - alpha))`` and
``log((1 - beta) / alpha)``.  After each observation the log-likelihood ratio (LLR) of H1 to
H0 is compared with them: above the upper bound H1 is accepted, below the lower H0, in
between the test goes on.  Each hypothesis' likelihood is that of the most likely
distribution with its mean (the generalized SPRT of engine testers), in one of two models:

* ``multinomial``, for observations of a few values (a duplicate position's difference,
  -4..4): the distributions on the observed values (the pentanomial model of chess testers,
  for any values).  With ``w_i`` the share of observations of value ``x_i``,
  ``LLR = n * (l(d0) - l(d1))``, ``l(m) = sum(w_i * log(1 + t_m * (x_i - m)))`` where
  ``t_m`` solves ``sum(w_i * (x_i - m) / (1 + t_m * (x_i - m))) = 0``.  A tiny weight at the
  largest possible differences (``-bound``, ``+bound``) keeps every mean between them
  possible.
* ``normal``, for observations that are means of many games (a tournament's deal sets):
  normal distributions of unknown variance, ``LLR = n / 2 * log(sum((x - d0)^2) /
  sum((x - d1)^2))``.

No verdict is taken on fewer than :data:`MIN_OBSERVATIONS` observations.  :func:`simulate`
measures the error rates and the number of observations on data with a known difference
(``tests/tournament/test_sprt.py`` checks them).

>>> test = Sprt(SprtHypotheses(0.0, 0.5))
>>> for x in [1, 2, 2, 3, 2, 3, -1, 1, 4, 1, 3, 0, 1, 0, 1, 1, -2, 0, 0, 3, 2, 0, 2, 0, 1, 0]:
...     verdict = test.add(x)
>>> verdict, test.n, round(test.llr, 2), round(test.hypotheses.upper, 2)
('H1', 26, 3.06, 2.94)
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MIN_OBSERVATIONS = 10
EDGE_WEIGHT = 1e-3  # observations' worth put at -bound and +bound (see the module text)
VARIANCE_FLOOR = 1e-9  # observations all equal still have a finite normal likelihood
# Paired differences of points (-4..4) as duplicate positions of two close players give
# them (default against greedy, 300 positions: about half the positions tie).
DUPLICATE_VALUES = tuple(range(-4, 5))
DUPLICATE_SHAPE = (1.0, 4.0, 7.0, 15.0, 46.0, 15.0, 7.0, 4.0, 1.0)


class SprtError(ValueError):
    """Hypotheses or error rates that make no test."""


@dataclass(frozen=True, slots=True)
class SprtHypotheses:
    d0: float  # H0: the mean difference (B - A) in points per game
    d1: float  # H1
    alpha: float = 0.05  # accepting H1 when H0 holds
    beta: float = 0.05  # accepting H0 when H1 holds

    def check(self) -> SprtHypotheses:
        if not self.d0 < self.d1:
            raise SprtError(f"the hypotheses need d0 < d1, got {self.d0} and {self.d1}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5, got {rate}")
        return self

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def to_json(self) -> dict[str, float]:
        return {"d0": self.d0, "d1": self.d1, "alpha": self.alpha, "beta": self.beta,
                "lower": round(self.lower, 4), "upper": round(self.upper, 4)}


def profile(w: Sequence[tuple[float, float]], mean: float, start: float = 0.0
            ) -> tuple[float, float]:
    """``(l(mean), t_mean)``: the log-likelihood the observations (value, share) lose when
    their distribution must have this mean (0 at their own mean; see the module text), and
    the ``t`` that gives it (``start``: a guess, e.g. the last one)."""
    d = [(x - mean, wi) for x, wi in w]
    lo = -1 / max(x for x, _ in d)  # where 1 + t * (x - mean) reaches 0 for some x
    hi = -1 / min(x for x, _ in d)
    t = start if lo < start < hi else 0.0
    for _ in range(100):  # Newton's method, kept inside (lo, hi) by bisection
        f = slope = 0.0
        for x, wi in d:
            q = x / (1 + t * x)
            f += wi * q
            slope -= wi * q * q
        if f > 0:
            lo = t
        else:
            hi = t
        if abs(f) < 1e-12 or hi - lo < 1e-15:
            break
        step = t - f / slope
        t = step if lo < step < hi else (lo + hi) / 2
    return sum(wi * math.log1p(t * x) for x, wi in d), t


@dataclass
class Sprt:
    """One running test: :meth:`add` each observation in order until it returns a verdict
    (``"H1"`` or ``"H0"``); later observations are refused.  ``bound``: the largest
    difference one observation can show."""

    hypotheses: SprtHypotheses
    model: str = "multinomial"  # or "normal" (see the module text)
    bound: float = 4.0
    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    counts: dict[float, int] = field(default_factory=dict)  # observations by value
    trace: list[float] = field(default_factory=list)  # the LLR after each observation
    verdict: str | None = None
    _t0: float = 0.0  # the last solutions of the profile likelihoods (a start for the next)
    _t1: float = 0.0

    def __post_init__(self) -> None:
        h = self.hypotheses.check()
        if not -self.bound < h.d0 < h.d1 < self.bound:
            raise SprtError(f"the hypotheses must lie inside -{self.bound:g}..{self.bound:g}")
        if self.model not in ("multinomial", "normal"):
            raise SprtError(f"no model {self.model!r}: multinomial or normal")

    @property
    def llr(self) -> float:
        return self.trace[-1] if self.trace else 0.0

    def _llr(self) -> float:
        h = self.hypotheses
        if self.model == "normal":
            if self.n < 2:
                return 0.0
            return self.n / 2 * math.log(self._spread(h.d0) / self._spread(h.d1))
        weights: dict[float, float] = dict(self.counts)
        for edge in (-self.bound, self.bound):
            weights[edge] = weights.get(edge, 0) + EDGE_WEIGHT
        total = sum(weights.values())
        w = [(x, c / total) for x, c in weights.items()]
        l0, self._t0 = profile(w, h.d0, self._t0)
        l1, self._t1 = profile(w, h.d1, self._t1)
        return self.n * (l0 - l1)

    def _spread(self, mean: float) -> float:
        """The mean square deviation of the observations from ``mean``."""
        return max(VARIANCE_FLOOR, (self.squares - 2 * mean * self.total) / self.n + mean * mean)

    def add(self, x: float) -> str | None:
        if self.verdict is not None:
            raise SprtError(f"the test is over ({self.verdict} accepted)")
        if not -self.bound <= x <= self.bound:
            raise SprtError(f"observation {x} is outside -{self.bound:g}..{self.bound:g}")
        self.n += 1
        self.total += x
        self.squares += x * x
        if self.model == "multinomial":
            self.counts[x] = self.counts.get(x, 0) + 1
        llr = self._llr()
        self.trace.append(llr)
        if self.n >= MIN_OBSERVATIONS:
            if llr >= self.hypotheses.upper:
                self.verdict = "H1"
            elif llr <= self.hypotheses.lower:
                self.verdict = "H0"
        return self.verdict

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    def interval(self) -> tuple[float, float]:
        """The 95% interval of the mean difference (normal approximation)."""
        if self.n < 2:
            return (-math.inf, math.inf)
        var = max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - 1))
        half = 1.96 * math.sqrt(var / self.n)
        return (self.mean - half, self.mean + half)

    def summary(self, trace_points: int | None = None) -> dict[str, Any]:
        """The verdict, the LLR and its bounds, the observations used, the mean and its 95%
        interval, and the LLR trace (every value, or about ``trace_points`` of them)."""
        lo, hi = self.interval()
        return {"verdict": self.verdict, "llr": round(self.llr, 4), **self.hypotheses.to_json(),
                "observations": self.n, "mean": round(self.mean, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "trace": [[i + 1, round(v, 4)] for i, v in thin(self.trace, trace_points)]}

    def verdict_text(self) -> str:
        h = self.hypotheses
        if self.verdict == "H1":
            return f"H1 accepted: the difference is {h.d1:+g} rather than {h.d0:+g}"
        if self.verdict == "H0":
            return f"H0 accepted: the difference is {h.d0:+g} rather than {h.d1:+g}"
        return "no verdict yet: the LLR is between its bounds"


def thin(values: Sequence[float], points: int | None) -> list[tuple[int, float]]:
    """(index, value) of about ``points`` evenly spaced values, the last always kept."""
    indexed = list(enumerate(values))
    if points is None or len(indexed) <= points:
        return indexed
    step = len(indexed) / points
    keep = sorted({int(i * step) for i in range(points)} | {len(indexed) - 1})
    return [indexed[i] for i in keep]


# --- the test of the test -------------------------------------------------------------------
def tilted(mean: float, values: Sequence[int] = DUPLICATE_VALUES,
           shape: Sequence[float] = DUPLICATE_SHAPE) -> list[float]:
    """Probabilities of ``values`` proportional to ``shape * exp(t * value)``, ``t`` chosen so
    that their mean is ``mean`` exactly (a known difference)."""
    if not min(values) < mean < max(values):
        raise SprtError(f"no distribution of {min(values)}..{max(values)} has mean {mean}")

    def probabilities(t: float) -> list[float]:
        top = max(t * v for v in values)
        w = [s * math.exp(t * v - top) for s, v in zip(shape, values, strict=True)]
        total = sum(w)
        return [x / total for x in w]

    lo, hi = -50.0, 50.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(p * v for p, v in zip(probabilities(mid), values, strict=True)) < mean:
            lo = mid
        else:
            hi = mid
    return probabilities((lo + hi) / 2)


@dataclass(frozen=True)
class Simulated:
    runs: int
    true_mean: float
    h1: int  # runs that accepted H1
    h0: int
    undecided: int  # runs that reached ``max_n`` without a verdict
    mean_n: float  # observations per run (undecided runs count ``max_n``)
    sd: float  # the standard deviation of one observation

    def rate(self, verdict: str) -> float:
        return (self.h1 if verdict == "H1" else self.h0) / self.runs


def simulate(h: SprtHypotheses, true_mean: float, runs: int, seed: int,
             max_n: int = 100_000, model: str = "multinomial", per_observation: int = 1,
             values: Sequence[int] = DUPLICATE_VALUES,
             shape: Sequence[float] = DUPLICATE_SHAPE) -> Simulated:
    """``runs`` tests on independent observations with mean ``true_mean``, each the mean
    of ``per_observation`` draws from :func:`tilted`; each test stops at its verdict or
    at ``max_n`` observations."""
    p = tilted(true_mean, values, shape)
    rng = random.Random(seed)
    counts: dict[str | None, int] = {"H1": 0, "H0": 0, None: 0}
    used = 0
    for _ in range(runs):
        test = Sprt(h, model)
        verdict = None
        while verdict is None and test.n < max_n:
            draws = rng.choices(values, p, k=per_observation)
            verdict = test.add(draws[0] if per_observation == 1
                               else sum(draws) / per_observation)
        counts[verdict] += 1
        used += test.n
    sd = math.sqrt(sum(q * (v - true_mean) ** 2 for q, v in zip(p, values, strict=True))
                   / per_observation)
    return Simulated(runs, true_mean, counts["H1"], counts["H0"], counts[None], used / runs, sd)


def fixed_length(h: SprtHypotheses, sd: float) -> int:
    """Observations a fixed-length test needs for the same error rates: the one-sided
    z-test of d0 against d1 at level alpha with power 1 - beta."""
    z = statistics.NormalDist().inv_cdf
    return math.ceil(((z(1 - h.alpha) + z(1 - h.beta)) * sd / (h.d1 - h.d0)) ** 2)


def wilson(successes: int, runs: int) -> tuple[float, float]:
    """The 95% Wilson interval of a rate."""
    if runs == 0:
        return (0.0, 1.0)
    z, p = 1.96, successes / runs
    centre = (p + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    return (max(0.0, centre - half), min(1.0, centre + half))


__all__ = ["MIN_OBSERVATIONS", "Simulated", "Sprt", "SprtError", "SprtHypotheses",
           "fixed_length", "simulate", "tilted", "wilson"]
