"""Which matches a tournament plays: table compositions, seat rotations, deal seeds.

A *round* is one set of table compositions (who sits at which table).  Each round gets a
*deal set*: one match seed shared by all its tables.  With the duplicate format every table
plays that seed once per rotation of its lineup through the player numbers, so each
participant plays each player number (and so each dealt hand of a class-block start) once.

What is exactly duplicated: the shuffled deck of every game (``game_rng(seed, game)``), the
seat order and the first dealer of each class block.  After the first game of a class block
the dealer is the previous daifugo and the exchange follows results, so those deals land
differently in each rotation.  Set ``class_reset_period=1`` (no exchange) for fully
duplicated deals.

The games asked are rounded up to whole rounds, unless ``exact``: then the last round is cut
short, its remaining games spread over its matches (see :func:`spread`).

>>> specs = build_schedule(n_participants=5, table_size=5, games=100, games_per_match=10,
...                        seed=1)
>>> len(specs), specs[0].lineup, specs[1].lineup, specs[1].seed == specs[0].seed
(10, (0, 1, 2, 3, 4), (4, 0, 1, 2, 3), True)
>>> [len(c) for c in round_compositions(2, 5)], round_compositions(2, 5)
([5, 5], [(0, 0, 0, 1, 1), (0, 0, 1, 1, 1)])
>>> exact = build_schedule(3, 5, games=30, games_per_match=10, seed=1, exact=True)
>>> len(exact), {s.games for s in exact}, sum(s.games for s in exact)
(15, {2}, 30)
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass

AUTO_ALL_LIMIT = 30  # up to this many compositions, "auto" plays all of them every round


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of the schedule (its ``index`` is its id in the results database);
    :func:`daihinmin.tournament.run.match_spec` makes the spec a run plays."""

    index: int
    deal_set: int
    table: int
    rotation: int
    seed: int
    games: int
    lineup: tuple[int, ...]  # participant index playing each player number

    @property
    def key(self) -> str:
        return f"d{self.deal_set}-t{self.table}-r{self.rotation}"


def derive_seed(*parts: object) -> int:
    """A 62-bit seed from the master seed and indices (fits SQLite's signed integers)."""
    digest = hashlib.sha256(":".join(map(str, ("tournament", *parts))).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def filled(members: list[int], size: int, extra_from: int) -> tuple[int, ...]:
    """``members`` repeated to fill ``size`` seats; the spare seats go to members from
    ``extra_from`` on (so over all offsets every member gets the extra copies equally)."""
    base, extra = divmod(size, len(members))
    counts = Counter({m: base for m in members})
    for i in range(extra):
        counts[members[(extra_from + i) % len(members)]] += 1
    return tuple(sorted(counts.elements()))


def copies_compositions(members: list[int], size: int) -> list[tuple[int, ...]]:
    """Fewer members than seats: copies, balanced so every member has the extras in turn."""
    if size % len(members) == 0:
        return [filled(members, size, 0)]
    return [filled(members, size, off) for off in range(len(members))]


class BalancedPicker:
    """Greedy compositions that even out appearances, then pair co-occurrences."""

    def __init__(self, members: list[int], size: int, seed: int) -> None:
        self.members = members
        self.size = size
        self.rng = random.Random(derive_seed(seed, "balanced"))
        self.appearances = Counter[int]()
        self.pairs = Counter[tuple[int, int]]()
        total = math.comb(len(members), size)
        self.exhaustive = total <= 5000

    def candidates(self) -> list[tuple[int, ...]]:
        if self.exhaustive:
            cands = list(itertools.combinations(self.members, self.size))
        else:
            cands = [tuple(sorted(self.rng.sample(self.members, self.size)))
                     for _ in range(400)]
        self.rng.shuffle(cands)  # ties broken at random, reproducibly
        return cands

    def score(self, comp: tuple[int, ...]) -> tuple[int, int]:
        return (sum(self.appearances[m] for m in comp),
                sum(self.pairs[p] for p in itertools.combinations(comp, 2)))

    def pick(self) -> tuple[int, ...]:
        comp = min(self.candidates(), key=self.score)
        self.appearances.update(comp)
        self.pairs.update(itertools.combinations(comp, 2))
        return comp


def round_compositions(n_participants: int, table_size: int, hero: int | None = None,
                       schedule: str = "auto", picker: BalancedPicker | None = None
                       ) -> list[tuple[int, ...]]:
    """The table compositions of one round (sorted participant indices, hero first)."""
    head: tuple[int, ...] = ()
    if hero is None:
        members, seats = list(range(n_participants)), table_size
    else:
        members = [p for p in range(n_participants) if p != hero]
        seats, head = table_size - 1, (hero,)
    if len(members) < seats:
        return [head + c for c in copies_compositions(members, seats)]
    total = math.comb(len(members), seats)
    if schedule == "all" or (schedule == "auto" and total <= AUTO_ALL_LIMIT):
        return [head + c for c in itertools.combinations(members, seats)]
    if picker is None:
        raise ValueError("a balanced schedule needs a picker")
    per_round = math.ceil(len(members) / seats)
    return [head + picker.pick() for _ in range(per_round)]


def tables_per_round(n_participants: int, table_size: int, hero: int | None = None,
                     schedule: str = "auto") -> int:
    """How many tables :func:`round_compositions` seats in one round (without picking them)."""
    members = n_participants - (hero is not None)
    seats = table_size - (hero is not None)
    if members < seats:
        return 1 if seats % members == 0 else members
    total = math.comb(members, seats)
    if schedule == "all" or (schedule == "auto" and total <= AUTO_ALL_LIMIT):
        return total
    return math.ceil(members / seats)


def spread(games: int, matches: int) -> list[int]:
    """``games`` over ``matches`` as evenly as can be, the earlier ones one longer; a match
    that gets none is left out.

    >>> spread(30, 15), spread(31, 15)[:2], spread(4, 15)
    ([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], [3, 2], [1, 1, 1, 1])
    """
    base, extra = divmod(games, matches)
    return [n for n in (base + (i < extra) for i in range(matches)) if n]


def rotated(lineup: tuple[int, ...], r: int) -> tuple[int, ...]:
    """Lineup with everyone moved ``r`` player numbers on."""
    n = len(lineup)
    return tuple(lineup[(p - r) % n] for p in range(n))


def build_schedule(n_participants: int, table_size: int, games: int, games_per_match: int,
                   seed: int, hero: int | None = None, duplicate: bool = True,
                   schedule: str = "auto", exact: bool = False) -> list[ScheduledMatch]:
    """Every match, in a fixed order; growing ``games`` only appends matches (``exact``: and
    lengthens those of the round that was cut short)."""
    picker = None
    if hero is None:
        picker = BalancedPicker(list(range(n_participants)), table_size, seed)
    else:
        picker = BalancedPicker([p for p in range(n_participants) if p != hero],
                                table_size - 1, seed)
    rotations = table_size if duplicate else 1
    specs: list[ScheduledMatch] = []
    deal_set = planned = 0
    while planned < games:
        comps = round_compositions(n_participants, table_size, hero, schedule, picker)
        slots = [(table, comp, r) for table, comp in enumerate(comps) for r in range(rotations)]
        lengths = [games_per_match] * len(slots)
        if exact and games - planned < len(slots) * games_per_match:
            lengths = spread(games - planned, len(slots))
        for (table, comp, r), length in zip(slots, lengths, strict=False):
            match_seed = (derive_seed(seed, deal_set) if duplicate
                          else derive_seed(seed, deal_set, table))
            specs.append(ScheduledMatch(len(specs), deal_set, table, r, match_seed, length,
                                        rotated(comp, r)))
            planned += length
        deal_set += 1
    return specs
