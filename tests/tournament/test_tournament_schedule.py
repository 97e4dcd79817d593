"""Tournament schedules: compositions, duplicate rotations, seeds, balance."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import UECDA, ruleset_from
from daihinmin.tournament.schedule import (
    BalancedPicker,
    build_schedule,
    round_compositions,
    tables_per_round,
)


def by_table(specs):
    groups: dict[tuple[int, int], list] = {}
    for s in specs:
        groups.setdefault((s.deal_set, s.table), []).append(s)
    return groups


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_every_rotation_puts_each_seat_once_with_one_seed(n: int) -> None:
    specs = build_schedule(n, 5, games=400, games_per_match=4, seed=9)
    for group in by_table(specs).values():
        assert len(group) == 5
        assert len({s.seed for s in group}) == 1
        base = group[0].lineup
        # every participant of the table holds every player number exactly as often as it
        # has seats at the table
        for player in range(5):
            assert Counter(s.lineup[player] for s in group) == Counter(base)


def test_deal_sets_share_seeds_across_tables_and_differ_between_sets() -> None:
    specs = build_schedule(6, 5, games=600, games_per_match=10, seed=3)
    seeds: dict[int, set[int]] = {}
    for s in specs:
        seeds.setdefault(s.deal_set, set()).add(s.seed)
    assert all(len(v) == 1 for v in seeds.values())
    assert len({next(iter(v)) for v in seeds.values()}) == len(seeds)


def test_all_five_subsets_when_few_participants() -> None:
    comps = round_compositions(7, 5)
    assert comps == list(itertools.combinations(range(7), 5))


def test_balanced_schedule_evens_out_appearances_and_pairs() -> None:
    specs = build_schedule(12, 5, games=12 * 5 * 3 * 20, games_per_match=1, seed=1)
    rounds: dict[int, set[tuple[int, ...]]] = {}
    for s in specs:
        rounds.setdefault(s.deal_set, set()).add(tuple(sorted(s.lineup)))
    comps = [c for r in rounds.values() for c in r]
    appear = Counter(p for c in comps for p in c)
    assert max(appear.values()) - min(appear.values()) <= 1
    pairs = Counter(pr for c in comps for pr in itertools.combinations(c, 2))
    assert len(pairs) == 66  # every pair has met
    assert max(pairs.values()) - min(pairs.values()) <= 4


def test_gauntlet_puts_the_hero_at_every_table() -> None:
    for n in (2, 3, 5, 6, 9):
        specs = build_schedule(n, 5, games=300, games_per_match=5, seed=2, hero=1)
        assert all(1 in s.lineup for s in specs)
        assert {i for s in specs for i in s.lineup} == set(range(n))
        assert all(Counter(s.lineup)[1] == 1 for s in specs)


def test_more_games_only_append() -> None:
    small = build_schedule(8, 5, games=200, games_per_match=10, seed=5)
    big = build_schedule(8, 5, games=900, games_per_match=10, seed=5)
    assert big[:len(small)] == small
    assert sum(s.games for s in big) >= 900


def test_no_duplicate_means_one_rotation_and_own_seeds() -> None:
    specs = build_schedule(5, 5, games=50, games_per_match=10, seed=1, duplicate=False)
    assert [s.rotation for s in specs] == [0] * 5
    assert len({s.seed for s in specs}) == 5


def deals(rules, seed: int, games: int) -> list[list[str]]:
    """The hands dealt in each game when every game starts a class block (no exchange:
    the results of a game do not change the next deal)."""
    match = MatchState(rules, seed=seed, games=games)
    out = []
    for _ in range(games):
        out.append([str(h) for h in match.setup_game().dealt])
        match.game += 1
    return out


def test_block_start_deals_depend_only_on_seed_and_game() -> None:
    # With class_reset_period=1 every game is dealt from (seed, game) alone, so the rotated
    # lineups of one table give every participant every hand of every deal exactly once.
    rules = ruleset_from("uecda", ["class_reset_period=1"])
    specs = build_schedule(5, 5, games=35, games_per_match=7, seed=11)
    per_game = deals(rules, specs[0].seed, 7)
    for hands in per_game:
        received: dict[int, list[str]] = {}
        for s in specs:
            for player, who in enumerate(s.lineup):
                received.setdefault(who, []).append(hands[player])
        assert all(sorted(v) == sorted(hands) for v in received.values())
    # the standard rules deal game 1 (a block start) the same way
    assert deals(UECDA, specs[0].seed, 1)[0] == per_game[0]


@pytest.mark.parametrize(("n", "hero", "schedule"), [
    (2, None, "auto"), (3, None, "auto"), (5, None, "auto"), (6, None, "auto"),
    (9, None, "auto"), (9, None, "balanced"), (12, None, "auto"), (4, 0, "auto"),
    (8, 2, "auto"), (12, 0, "balanced")])
def test_tables_per_round_counts_what_a_round_seats(n: int, hero: int | None,
                                                    schedule: str) -> None:
    picker = BalancedPicker([p for p in range(n) if p != hero], 5 - (hero is not None), 1)
    assert tables_per_round(n, 5, hero, schedule) == len(
        round_compositions(n, 5, hero, schedule, picker))


@pytest.mark.parametrize("games", [1, 4, 15, 30, 31, 149, 150, 151, 299, 300])
def test_exact_plays_the_games_asked_and_whole_rounds_round_up(games: int) -> None:
    exact = build_schedule(3, 5, games=games, games_per_match=10, seed=1, exact=True)
    rounded = build_schedule(3, 5, games=games, games_per_match=10, seed=1)
    assert sum(s.games for s in exact) == games
    assert sum(s.games for s in rounded) == -(-games // 150) * 150  # 3 tables x 5 x 10
    assert all(s.games == 10 for s in rounded)
    # the whole rounds are the same matches; only the round cut short differs
    whole = games // 150 * 15
    assert exact[:whole] == rounded[:whole]
    cut = exact[whole:]
    assert max((s.games for s in cut), default=0) - min((s.games for s in cut), default=0) <= 1
    assert [s.key for s in cut] == [s.key for s in rounded[whole:whole + len(cut)]]
