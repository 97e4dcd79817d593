"""Ratings, intervals, place shares and head-to-head on known data."""

from __future__ import annotations

import math
import random

import numpy as np
from daihinmin.tournament.stats import (
    Z95,
    bootstrap_totals,
    compute_stats,
    rate_games,
)
from daihinmin.tournament.store import GameRow
from openskill.models import PlackettLuce

NAMES = ["a", "b", "c", "d", "e"]
POINTS = (5, 4, 3, 2, 1)


def row(match: int, game: int, deal_set: int, lineup, order) -> GameRow:
    """A game where ``order`` lists player numbers from first to last."""
    places = [0] * len(lineup)
    for place, player in enumerate(order):
        places[player] = place
    return GameRow(match, game, deal_set, tuple(lineup), tuple(places),
                   tuple(POINTS[p] for p in places))


def random_rows(n_sets: int, seed: int) -> list[GameRow]:
    rng = random.Random(seed)
    rows = []
    for d in range(n_sets):
        for g in range(1, 4):
            order = list(range(5))
            rng.shuffle(order)
            rows.append(row(d, g, d, range(5), order))
    return rows


def test_counts_means_places_and_head_to_head_are_exact() -> None:
    rows = [row(0, 1, 0, range(5), [0, 1, 2, 3, 4]),
            row(0, 2, 0, range(5), [1, 0, 2, 3, 4]),
            row(1, 1, 1, range(5), [4, 3, 2, 1, 0])]
    st = compute_stats(rows, NAMES, table_size=5)
    a, b, e = st.participants[0], st.participants[1], st.participants[4]
    assert (a.games, a.mean_points) == (3, (5 + 4 + 1) / 3)
    assert a.places == [1 / 3, 1 / 3, 0, 0, 1 / 3]
    assert e.places == [1 / 3, 0, 0, 0, 2 / 3]
    assert st.pairwise.above[0][1] == 1 and st.pairwise.above[1][0] == 2
    assert st.pairwise.meetings[0][1] == 3
    assert st.pairwise.rate(4, 0) == 1 / 3
    assert math.isclose(sum(p.mean_points for p in st.participants), 15.0)
    assert b.mean_points > a.mean_points


def test_rating_equals_feeding_the_model_in_schedule_order() -> None:
    rows = random_rows(6, seed=4)
    model = PlackettLuce()
    teams = [[model.rating()] for _ in range(5)]
    for r in rows:
        teams = model.rate(teams, ranks=list(r.places))
    got = rate_games(rows, 5)
    for i in range(5):
        assert math.isclose(got[i][0], teams[i][0].mu)
        assert math.isclose(got[i][1], teams[i][0].sigma)
    st = compute_stats(rows, NAMES, 5)
    p = st.participants[0]
    assert math.isclose(p.rating_ci[1] - p.rating_ci[0], 2 * Z95 * p.sigma)


def test_a_stronger_player_is_rated_and_ranked_first() -> None:
    rng = random.Random(1)
    rows = []
    for d in range(40):
        order = [1, 2, 3, 4]
        rng.shuffle(order)
        rows.append(row(d, 1, d, range(5), [0, *order]))  # "a" always wins
    st = compute_stats(rows, NAMES, 5)
    assert st.ranking()[0] == 0
    a = st.participants[0]
    assert a.points_ci == (5.0, 5.0)
    assert a.rating_ci[0] > max(p.rating_ci[1] for p in st.participants[1:])
    assert st.cluster_unit == "deal set" and st.clusters == 40


def test_bootstrap_interval_covers_the_mean_and_shrinks_with_data() -> None:
    small = compute_stats(random_rows(10, seed=2), NAMES, 5)
    large = compute_stats(random_rows(160, seed=2), NAMES, 5)
    for st in (small, large):
        for p in st.participants:
            assert p.points_ci[0] <= p.mean_points <= p.points_ci[1]
            for share, ci in zip(p.places, p.places_ci, strict=True):
                assert ci[0] <= share <= ci[1]
    width = [p.points_ci[1] - p.points_ci[0] for p in small.participants]
    width_large = [p.points_ci[1] - p.points_ci[0] for p in large.participants]
    assert np.mean(width_large) < np.mean(width) / 2  # ~1/4 with 16x the data
    # uniformly random places: every mean is near 3 and the intervals are honest about it
    assert all(p.points_ci[0] < 3.0 < p.points_ci[1] for p in large.participants)


def test_few_deal_sets_fall_back_to_deals_and_say_so() -> None:
    st = compute_stats(random_rows(2, seed=3), NAMES, 5)
    assert st.cluster_unit == "deal" and st.clusters == 6
    assert st.notes and "deal set" in st.notes[0]


def test_bootstrap_resamples_whole_clusters() -> None:
    x = np.array([[1.0, 10.0], [1.0, 20.0], [1.0, 30.0]])
    boot = bootstrap_totals(x, 500, seed=1)
    assert np.all(boot[:, 0] == 3)  # always three clusters drawn
    assert set(np.unique(boot[:, 1])) <= {30, 40, 50, 60, 70, 80, 90}


def test_copies_of_a_participant_count_each_seat() -> None:
    rows = [row(0, 1, 0, (0, 0, 0, 1, 1), [0, 3, 1, 2, 4])]
    st = compute_stats(rows, ["a", "b"], 5)
    a, b = st.participants
    assert (a.games, b.games) == (3, 2)
    assert math.isclose(a.mean_points, (5 + 3 + 2) / 3)
    assert st.pairwise.meetings[0][1] == 6
    assert st.pairwise.above[0][1] == 4  # 1st beats both b; 3rd and 4th beat the 5th
    assert not any(math.isnan(v) for v in (a.mu, b.mu))
