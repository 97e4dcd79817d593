"""The sequential test of the test: simulated observations with a known mean difference.

1,000 tests per setting on seeded data (the same every run: nothing here is flaky).  When H0
holds, H1 is accepted in about ``alpha`` of the tests; when H1 holds, H0 in about ``beta``:
the stated rate may not lie above the 95% interval of the measured one.  For a difference of
twice ``d1`` the test stops long before a fixed-length test of the same error rates.
"""

from __future__ import annotations

import math

import pytest
from daihinmin.tournament.sprt import (
    MIN_OBSERVATIONS,
    Sprt,
    SprtError,
    SprtHypotheses,
    fixed_length,
    simulate,
    tilted,
    wilson,
)

RUNS = 1000
SETTINGS = [  # (hypotheses, model, games per observation)
    (SprtHypotheses(0.0, 0.5), "multinomial", 1),  # duplicate: one position's difference
    (SprtHypotheses(0.0, 0.2), "normal", 10),  # tournament: a deal set's mean
]


@pytest.mark.parametrize(("h", "model", "per"), SETTINGS)
def test_error_rates_are_the_stated_ones(h: SprtHypotheses, model: str, per: int) -> None:
    under_h0 = simulate(h, h.d0, RUNS, seed=11, model=model, per_observation=per)
    under_h1 = simulate(h, h.d1, RUNS, seed=12, model=model, per_observation=per)
    assert under_h0.undecided == under_h1.undecided == 0
    false_positive, false_negative = wilson(under_h0.h1, RUNS), wilson(under_h1.h0, RUNS)
    assert false_positive[0] <= h.alpha, false_positive
    assert false_negative[0] <= h.beta, false_negative
    # and not a test that never errs by never deciding: both rates are near what was asked
    assert under_h0.rate("H1") > h.alpha / 3 and under_h1.rate("H0") > h.beta / 3


@pytest.mark.parametrize(("h", "model", "per"), SETTINGS)
def test_a_clear_difference_saves_most_games(h: SprtHypotheses, model: str, per: int) -> None:
    clear = simulate(h, 2 * h.d1 - h.d0, RUNS, seed=13, model=model, per_observation=per)
    assert clear.rate("H1") > 0.99
    assert clear.mean_n < 0.4 * fixed_length(h, clear.sd)


def test_known_means_and_bounds() -> None:
    p = tilted(0.37)
    assert math.isclose(sum(q * v for q, v in zip(p, range(-4, 5), strict=True)), 0.37)
    h = SprtHypotheses(0.0, 0.5, 0.05, 0.05)
    assert math.isclose(h.upper, math.log(19)) and math.isclose(h.lower, -math.log(19))


def test_no_verdict_before_the_minimum_and_none_after_the_verdict() -> None:
    test = Sprt(SprtHypotheses(0.0, 0.5), "normal")
    verdicts = [test.add(0.45 + 0.1 * (i % 2)) for i in range(MIN_OBSERVATIONS)]
    assert verdicts[:-1] == [None] * (MIN_OBSERVATIONS - 1) and verdicts[-1] == "H1"
    with pytest.raises(SprtError, match="over"):
        test.add(0)
    summary = test.summary(trace_points=3)
    assert summary["verdict"] == "H1" and summary["observations"] == MIN_OBSERVATIONS
    assert summary["trace"][-1][0] == MIN_OBSERVATIONS and len(summary["trace"]) <= 4


def test_far_from_both_hypotheses_the_multinomial_test_is_slow_but_right() -> None:
    """Every position +4: both hypotheses are far off; the test still accepts H1, after
    a few more observations than the minimum (the likelihoods of both are tiny)."""
    test = Sprt(SprtHypotheses(0.0, 0.5))
    n = next(i for i in range(1, 100) if test.add(4) is not None)
    assert test.verdict == "H1" and MIN_OBSERVATIONS < n < 40


@pytest.mark.parametrize(("d0", "d1", "alpha", "beta", "words"), [
    (0.5, 0.0, 0.05, 0.05, "d0 < d1"), (0.0, 0.5, 0.0, 0.05, "alpha"),
    (0.0, 0.5, 0.05, 0.6, "beta"), (0.0, 5.0, 0.05, 0.05, "inside")])
def test_bad_hypotheses_are_refused(d0: float, d1: float, alpha: float, beta: float,
                                    words: str) -> None:
    with pytest.raises(SprtError, match=words):
        Sprt(SprtHypotheses(d0, d1, alpha, beta))
