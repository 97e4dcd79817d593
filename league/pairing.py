"""Who plays next: tables of entrants with close ratings, the uncertain and the new first.

The online rating (OpenSkill Plackett–Luce, updated game by game as results are committed)
is for pairing only; the leaderboard fits all games at once (:mod:`.standings`).

Choosing a table: the *focus* is drawn with weight ``σ² / √(1 + matches)`` (uncertain and
little-played entrants are drawn more often; a new entrant has the model's largest σ and no
match, so it plays at once), preferring entrants not at a table now.  The other seats go to
entrants drawn with weight ``exp(-(μ - μ_focus)² / (2 w²))`` where ``w`` is the focus's σ
plus ``NEIGHBOURHOOD``: players of similar strength, whose games tell the most.  With fewer
active entrants than seats, the lineup repeats entrants.

>>> ratings = OnlineRatings()
>>> ratings.add_game((1, 2, 3), (0, 1, 2))
>>> ratings.mu(1) > ratings.mu(2) > ratings.mu(3)
True
>>> rng = random.Random(1)
>>> sorted(choose_table([1, 2, 3, 4, 5, 6], 5, ratings, {}, set(), rng))
[1, 2, 4, 5, 6]
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from daihinmin.tournament.stats import game_ranks
from openskill.models import PlackettLuce

NEIGHBOURHOOD = 4.0  # μ units: how far apart the seats of one table may be, beyond σ


class OnlineRatings:
    """OpenSkill μ and σ per entrant, fed game by game."""

    def __init__(self) -> None:
        self.model = PlackettLuce()
        self.state: dict[int, tuple[float, float]] = {}

    def get(self, entrant: int) -> tuple[float, float]:
        return self.state.get(entrant, (self.model.mu, self.model.sigma))

    def mu(self, entrant: int) -> float:
        return self.get(entrant)[0]

    def sigma(self, entrant: int) -> float:
        return self.get(entrant)[1]

    def add_game(self, lineup: Sequence[int], places: Sequence[int],
                 points: Sequence[int] | None = None, lower_is_better: bool = False) -> None:
        ranks: list[float] = (game_ranks(places, points, lower_is_better)
                              if points is not None else [float(p) for p in places])
        teams = [[self.model.rating(mu=self.get(e)[0], sigma=self.get(e)[1])] for e in lineup]
        new = self.model.rate(teams, ranks=ranks)
        sums: dict[int, list[float]] = {}
        for e, team in zip(lineup, new, strict=True):  # copies: the mean of their updates
            acc = sums.setdefault(e, [0.0, 0.0, 0.0])
            acc[0] += team[0].mu
            acc[1] += team[0].sigma
            acc[2] += 1
        for e, (mu, sigma, k) in sums.items():
            self.state[e] = (mu / k, sigma / k)


def focus_weight(sigma: float, matches: int) -> float:
    return sigma * sigma / math.sqrt(1 + matches)


def choose_table(active: Sequence[int], seats: int, ratings: OnlineRatings,
                 matches: Mapping[int, int], busy: set[int], rng: random.Random,
                 single: frozenset[int] = frozenset()) -> list[int] | None:
    """``seats`` entrants for the next table (a lineup, in the order drawn); ``single``:
    entrants that may not sit twice at one table (a lobby client); None when the seats
    cannot be filled."""
    if not active:
        raise ValueError("no active entrant to pair")
    free = [e for e in active if e not in busy]
    pool = free if len(free) >= min(seats, len(active)) else list(active)
    focus = rng.choices(pool, [focus_weight(ratings.sigma(e), matches.get(e, 0))
                               for e in pool])[0]
    lineup = [focus]
    width = ratings.sigma(focus) + NEIGHBOURHOOD
    centre = ratings.mu(focus)
    rest = [e for e in pool if e != focus]
    while len(lineup) < seats and rest:
        weights = [math.exp(-((ratings.mu(e) - centre) ** 2) / (2 * width * width)) + 1e-9
                   for e in rest]
        pick = rng.choices(rest, weights)[0]
        rest.remove(pick)
        lineup.append(pick)
    distinct = [e for e in lineup if e not in single]
    if len(lineup) < seats and not distinct:
        return None
    k = 0
    while len(lineup) < seats:  # fewer entrants than seats: copies, in turn
        lineup.append(distinct[k % len(distinct)])
        k += 1
    rng.shuffle(lineup)  # player numbers at random
    return lineup


__all__ = ["OnlineRatings", "choose_table", "focus_weight"]
