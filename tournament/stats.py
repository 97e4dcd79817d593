"""Ratings and intervals from multiplayer results.

* Rating (what ranks): the Plackett–Luce fit over all games at once
  (:mod:`.plfit`, Elo scale, 0 = the field's mean, 95 % intervals from the Hessian), so it
  does not depend on the order the games were played in; neighbours the fit cannot tell
  apart are marked.  Also the online OpenSkill Plackett-Luce ``mu``/``sigma``, games fed in
  schedule order (match id, game number), kept in the JSON and CSV.
* Mean points and place frequencies: cluster bootstrap (2000 resamples, fixed seed).  The
  cluster is the *deal set* (every rotation and table that shared a seed), because games
  of one match are linked by classes and the exchange, and rotations by their deals.  With
  fewer than ``MIN_CLUSTERS`` deal sets the cluster is the *deal* (one game number of one
  deal set, over its rotations); the report says which unit it used.
* Head-to-head: for every game where A and B both sat (A ≠ B), whether A finished above B.
* Under card scoring (13th floor, fewer points are better) a game's ranks come from its
  points, not its finishing places (:func:`game_ranks`).

A participant may sit at a table more than once (fewer participants than seats): every
copy counts as one seat-game; its rating moves by the mean of the copies' updates.

>>> rows = [GameRow(0, g, 0, (0, 1, 2, 3, 4), (0, 1, 2, 3, 4), (5, 4, 3, 2, 1))
...         for g in range(1, 5)]
>>> st = compute_stats(rows, ["a", "b", "c", "d", "e"], table_size=5)
>>> [p.mean_points for p in st.participants]
[5.0, 4.0, 3.0, 2.0, 1.0]
>>> st.participants[0].mu > st.participants[1].mu > st.participants[4].mu
True
>>> st.pairwise.above[0][4], st.pairwise.meetings[0][4]
(4, 4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from openskill.models import PlackettLuce

from .plfit import PlackettLuceFit, fit_plackett_luce
from .store import GameRow

Z95 = 1.959963984540054
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20070
MIN_CLUSTERS = 5


@dataclass
class ParticipantStats:
    name: str
    games: int  # seat-games (a participant with two seats in a game counts twice)
    mean_points: float
    points_ci: tuple[float, float]
    mu: float
    sigma: float
    places: list[float]  # share of seat-games finished at each place (0 = first)
    places_ci: list[tuple[float, float]]
    elo: float = float("nan")  # the all-games fit (Elo scale, 0 = the field)
    elo_ci: tuple[float, float] = (float("nan"), float("nan"))

    @property
    def rating_ci(self) -> tuple[float, float]:
        return (self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma)


@dataclass
class Pairwise:
    above: list[list[int]]  # above[a][b]: games where a finished above b
    meetings: list[list[int]]  # games (seat pairs) where a and b both played
    ci: list[list[tuple[float, float] | None]]  # bootstrap interval of above/meetings

    def rate(self, a: int, b: int) -> float | None:
        m = self.meetings[a][b]
        return self.above[a][b] / m if m else None


@dataclass
class TournamentStats:
    participants: list[ParticipantStats]
    pairwise: Pairwise
    games: int
    clusters: int
    cluster_unit: str  # "deal set" or "deal"
    table_size: int
    notes: list[str] = field(default_factory=list)
    lower_is_better: bool = False  # card scoring: fewer points are better
    fit: PlackettLuceFit | None = None

    def ranking(self) -> list[int]:
        """Participant indices, best fitted rating first (ties: mean points, more first, or
        fewer under card scoring)."""
        sign = 1 if self.lower_is_better else -1
        return sorted(range(len(self.participants)),
                      key=lambda i: (-_or_low(self.participants[i].elo),
                                     sign * _or_low(self.participants[i].mean_points)))

    def told_apart(self, a: int, b: int) -> bool | None:
        """Whether the fit tells ``a`` and ``b`` apart (None: one has no game)."""
        if self.fit is None or not (self.participants[a].games and self.participants[b].games):
            return None
        return self.fit.apart(a, b)


def _or_low(x: float) -> float:
    return -1e18 if math.isnan(x) else x


def game_ranks(places: Sequence[int], points: Sequence[int], lower_is_better: bool
               ) -> list[float]:
    """Who did better in one game, 0 = best: the finishing places, or under card scoring
    (13th floor: fewer points are better) the points, ties sharing a rank.

    >>> game_ranks((0, 1, 2, 3), (-30, 12, 12, 4), lower_is_better=True)
    [0, 2, 2, 1]
    """
    if not lower_is_better:
        return [*places]
    return [sum(q < p for q in points) for p in points]


def rate_games(rows: Sequence[GameRow], n: int, lower_is_better: bool = False
               ) -> list[tuple[float, float]]:
    """(mu, sigma) per participant after feeding the games in order."""
    model = PlackettLuce()
    state = [(model.mu, model.sigma) for _ in range(n)]
    for row in rows:
        teams = [[model.rating(mu=state[i][0], sigma=state[i][1])] for i in row.lineup]
        new = model.rate(teams, ranks=game_ranks(row.places, row.points, lower_is_better))
        sums: dict[int, list[float]] = {}
        for i, team in zip(row.lineup, new, strict=True):
            acc = sums.setdefault(i, [0.0, 0.0, 0.0])
            acc[0] += team[0].mu
            acc[1] += team[0].sigma
            acc[2] += 1
        for i, (mu, sigma, k) in sums.items():
            state[i] = (mu / k, sigma / k)
    return state


def cluster_features(rows: Sequence[GameRow], n: int, table_size: int, by_deal: bool,
                     lower_is_better: bool = False) -> np.ndarray:
    """Per cluster: seat-games, points, place counts, head-to-head above and meetings."""
    keys: dict[tuple[int, ...], int] = {}
    width = n + n + n * table_size + n * n + n * n
    data: list[np.ndarray] = []
    off_pts, off_pl = n, 2 * n
    off_ab = off_pl + n * table_size
    off_me = off_ab + n * n
    for row in rows:
        key = (row.deal_set, row.game) if by_deal else (row.deal_set,)
        c = keys.get(key)
        if c is None:
            c = keys[key] = len(data)
            data.append(np.zeros(width))
        v = data[c]
        ranks = game_ranks(row.places, row.points, lower_is_better)
        for p, i in enumerate(row.lineup):
            v[i] += 1
            v[off_pts + i] += row.points[p]
            v[off_pl + i * table_size + min(row.places[p], table_size - 1)] += 1
            for q, j in enumerate(row.lineup):
                if i != j:
                    v[off_me + i * n + j] += 1
                    if ranks[p] < ranks[q]:
                        v[off_ab + i * n + j] += 1
    return np.array(data) if data else np.zeros((0, width))


def bootstrap_totals(x: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Totals of ``resamples`` cluster resamples (with replacement): shape (B, features)."""
    c = x.shape[0]
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(c, np.full(c, 1.0 / c), size=resamples)
    totals: np.ndarray = weights @ x
    return totals


def ratio_interval(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    ok = den > 0
    if not ok.any():
        return (float("nan"), float("nan"))
    r = num[ok] / den[ok]
    lo, hi = np.percentile(r, [2.5, 97.5])
    return (float(lo), float(hi))


def compute_stats(rows: Sequence[GameRow], names: Sequence[str], table_size: int,
                  resamples: int = BOOTSTRAP_RESAMPLES, lower_is_better: bool = False
                  ) -> TournamentStats:
    """``lower_is_better``: card scoring (13th floor), where fewer points rank higher in a
    game, in the ratings, head to head and the ranking."""
    n = len(names)
    deal_sets = len({r.deal_set for r in rows})
    by_deal = deal_sets < MIN_CLUSTERS
    x = cluster_features(rows, n, table_size, by_deal, lower_is_better)
    total = x.sum(axis=0) if len(x) else np.zeros(x.shape[1])
    boot = bootstrap_totals(x, resamples, BOOTSTRAP_SEED) if len(x) >= 2 else None
    ratings = rate_games(rows, n, lower_is_better)
    fitted = fit_plackett_luce([(r.lineup, game_ranks(r.places, r.points, lower_is_better))
                                for r in rows], n, clusters=[r.match_id for r in rows])
    off_pts, off_pl = n, 2 * n
    off_ab = off_pl + n * table_size
    off_me = off_ab + n * n

    def interval(num: int, den: int) -> tuple[float, float]:
        if boot is None:
            return (float("nan"), float("nan"))
        return ratio_interval(boot[:, num], boot[:, den])

    parts = []
    for i, name in enumerate(names):
        games = int(total[i])
        mean = float(total[off_pts + i] / games) if games else float("nan")
        places = [float(total[off_pl + i * table_size + k] / games) if games else float("nan")
                  for k in range(table_size)]
        parts.append(ParticipantStats(
            name=name, games=games, mean_points=mean, points_ci=interval(off_pts + i, i),
            mu=ratings[i][0], sigma=ratings[i][1], places=places,
            places_ci=[interval(off_pl + i * table_size + k, i) for k in range(table_size)],
            elo=fitted.ratings[i] if games else float("nan"),
            elo_ci=fitted.interval(i) if games else (float("nan"), float("nan"))))
    above = [[int(total[off_ab + a * n + b]) for b in range(n)] for a in range(n)]
    meet = [[int(total[off_me + a * n + b]) for b in range(n)] for a in range(n)]
    ci: list[list[tuple[float, float] | None]] = [
        [interval(off_ab + a * n + b, off_me + a * n + b) if meet[a][b] else None
         for b in range(n)] for a in range(n)]
    notes = []
    if by_deal:
        notes.append(f"only {deal_sets} deal set(s): intervals resample deals, ignoring the "
                     "carry-over (classes, exchange) between games of a match")
    if boot is None:
        notes.append("fewer than 2 clusters: no bootstrap intervals")
    return TournamentStats(parts, Pairwise(above, meet, ci), games=len(rows),
                           clusters=len(x), cluster_unit="deal" if by_deal else "deal set",
                           table_size=table_size, notes=notes, lower_is_better=lower_is_better,
                           fit=fitted)
