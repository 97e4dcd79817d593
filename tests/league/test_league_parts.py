"""The league's parts on their own: the all-games rating fit, pairing, the config reader and
the submission folders (no process, no socket)."""

from __future__ import annotations

import contextlib
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from daihinmin.league.config import LeagueConfigError, config_from_dict, load_config
from daihinmin.league.entrants import FolderWatch, look_at
from daihinmin.league.pairing import OnlineRatings, choose_table
from daihinmin.tournament.plfit import ELO, fit_plackett_luce
from hypothesis import given, settings
from hypothesis import strategies as st


def plackett_luce_games(strength: list[float], games: int, seats: int, seed: int
                        ) -> list[tuple[list[int], list[int]]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        table = list(rng.choice(len(strength), seats, replace=False))
        left, order = list(table), []
        while left:
            w = np.exp([strength[i] for i in left])
            order.append(left.pop(int(rng.choice(len(left), p=w / w.sum()))))
        out.append((table, [order.index(p) for p in table]))
    return out


def test_the_fit_finds_known_strengths_and_its_intervals_cover_them() -> None:
    truth = [0.8, 0.4, 0.0, -0.4, -0.8, 0.0]
    fit = fit_plackett_luce(plackett_luce_games(truth, 1500, 5, seed=3), 6)
    for i, t in enumerate(truth):
        lo, hi = fit.interval(i)
        assert lo - 5 <= t * ELO <= hi + 5, (i, t * ELO, lo, hi)
    assert sorted(range(6), key=lambda i: -fit.ratings[i])[:2] == [0, 1]
    assert abs(sum(fit.ratings)) < 1e-6  # against the field's mean
    assert not fit.apart(2, 5) and fit.apart(0, 4)


def test_the_fit_does_not_depend_on_the_order_of_the_games() -> None:
    games = plackett_luce_games([0.5, 0.0, -0.5, 0.2, 0.1], 300, 5, seed=4)
    shuffled = list(games)
    random.Random(1).shuffle(shuffled)
    a, b = fit_plackett_luce(games, 5), fit_plackett_luce(shuffled, 5)
    assert np.allclose(a.ratings, b.ratings) and np.allclose(a.covariance, b.covariance)


def test_games_linked_in_a_match_widen_the_intervals() -> None:
    """Each game five times over in one cluster is worth one game: the sandwich widens the
    intervals by about √5; told as independent games they would be √5 too narrow."""
    games = plackett_luce_games([0.4, 0.0, -0.4, 0.2, -0.2], 300, 5, seed=6)
    once = fit_plackett_luce(games, 5, clusters=list(range(len(games))))
    copies = [g for g in games for _ in range(5)]
    naive = fit_plackett_luce(copies, 5)
    linked = fit_plackett_luce(copies, 5, clusters=[i // 5 for i in range(len(copies))])
    for i in range(5):
        assert math.isclose(naive.sd(i) * math.sqrt(5), linked.sd(i), rel_tol=0.2)
        assert math.isclose(once.sd(i), linked.sd(i), rel_tol=0.2)


def test_an_anchor_keeps_its_rating_and_a_perfect_record_stays_finite() -> None:
    games = [([0, 1, 2], [0, 1, 2])] * 30  # 0 always first, 2 always last
    fit = fit_plackett_luce(games, 3, fixed={1: 100.0})
    assert fit.ratings[1] == 100.0 and fit.sd(1) == 0.0
    assert all(math.isfinite(r) for r in fit.ratings)
    assert fit.ratings[0] > 100.0 > fit.ratings[2]


def test_ties_share_a_rank() -> None:
    games = [([0, 1, 2], [0, 0, 1])] * 20
    fit = fit_plackett_luce(games, 3)
    assert abs(fit.ratings[0] - fit.ratings[1]) < 1e-6 and fit.ratings[2] < fit.ratings[0]


def table_of(*args: Any, **kwargs: Any) -> list[int]:
    lineup = choose_table(*args, **kwargs)
    assert lineup is not None
    return lineup


def test_pairing_seats_a_new_entrant_soon_and_near_its_rating() -> None:
    ratings = OnlineRatings()
    rng = random.Random(2)
    field = list(range(1, 11))
    for _ in range(300):  # an old field, strong to weak
        table = rng.sample(field, 5)
        ratings.add_game(table, sorted(range(5), key=lambda p: table[p]))
    matches = {e: 60 for e in field}
    newcomer = 11
    tables = [table_of([*field, newcomer], 5, ratings, matches, set(), rng)
              for _ in range(10)]
    assert sum(newcomer in t for t in tables) >= 7  # most of the next tables
    strong = [table_of(field, 5, ratings, {**matches, 1: 0}, set(), rng)
              for _ in range(40)]
    with_one = [t for t in strong if 1 in t]
    assert with_one and np.mean([np.mean(t) for t in with_one]) < 5.5  # near the strong end


def test_pairing_prefers_entrants_not_at_a_table_and_fills_short_fields() -> None:
    rng = random.Random(3)
    ratings = OnlineRatings()
    table = table_of([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5, ratings, {}, {1, 2, 3, 4, 5}, rng)
    assert set(table) == {6, 7, 8, 9, 10}
    assert sorted(table_of([1, 2], 5, ratings, {}, set(), rng)) in ([1, 1, 1, 2, 2],
                                                                     [1, 1, 2, 2, 2])
    # a lobby client sits once a table: the copies are of the others
    assert sorted(table_of([1, 2], 5, ratings, {}, set(), rng, frozenset({2}))) == [
        1, 1, 1, 1, 2]
    assert choose_table([2], 5, ratings, {}, set(), rng, frozenset({2})) is None


def test_config_paths_and_errors(tmp_path: Path) -> None:
    (tmp_path / "l.toml").write_text('house = ["default"]\nsubmissions = "in"\n'
                                     "[stop]\ngames = 10\n", encoding="utf-8")
    cfg = load_config(tmp_path / "l.toml")
    assert cfg.database_path == tmp_path / "league.sqlite" and cfg.stop.games == 10
    cases: list[tuple[dict[str, Any], str]] = [
        ({"house": ["x"], "tables": "two"}, "tables must be a int"),
        ({"house": ["x"], "colour": 1}, "unknown keys colour"),
        ({}, "no entrants"), ({"house": ["x"], "format": "swiss"}, "format"),
        ({"house": ["x"], "stop": {"games": -1}}, "[stop]")]
    for bad, says in cases:
        with pytest.raises(LeagueConfigError, match=r".*" + says.replace("[", r"\[")
                           .replace("]", r"\]")):
            config_from_dict(bad, tmp_path)


values = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**7) | st.floats()
                      | st.text(max_size=8), lambda c: st.lists(c, max_size=3)
                      | st.dictionaries(st.text(max_size=8), c, max_size=3), max_leaves=6)
keys = st.sampled_from(["name", "rules", "rule", "house", "submissions", "tables", "seed",
                        "games_per_match", "format", "stop", "groups", "lobby", "web_port",
                        "move_time", "crash_limit", "show_errors", "x"])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_any_config_is_read_or_refused_with_one_error(data: dict[str, Any]) -> None:
    with contextlib.suppress(LeagueConfigError):
        config_from_dict(data, Path("/tmp"))


def test_a_folder_enters_once_it_is_stable_and_a_broken_manifest_says_why(
        tmp_path: Path) -> None:
    watch = FolderWatch(tmp_path)
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "daihinmin-bot.toml").write_text(
        'name = "bot"\nversion = "1"\nauthor = "me"\ncommand = "./bot {port}"\n',
        encoding="utf-8")
    assert watch.stable() == []  # seen once
    [entry] = watch.stable()
    assert (entry.name, entry.version, entry.problem) == ("bot", "1", None)
    (bot / "weights.bin").write_bytes(b"\0" * 10)
    assert watch.stable() == [] and str(bot) in watch.present()  # changing: not yet
    assert watch.stable()[0].fingerprint != entry.fingerprint
    (bot / "daihinmin-bot.toml").write_text(
        'name = "<b>"\nversion = "1"\nauthor = "me"\ncommand = "./bot {port}"\n',
        encoding="utf-8")
    assert look_at(bot).problem == ("daihinmin-bot.toml: name '<b>' must be 1-15 letters, "
                                    "digits, '_', '-' or '.'")


def test_lobby_secrets_can_be_typed_after_secret(tmp_path: Path) -> None:
    """A secret starting with '-' would be read by the client's parser as an option, and
    that entrant's client could never connect: none is issued."""
    from daihinmin.league.lobby import issue_secrets
    from daihinmin.league.lobby_client import main as lobby_client

    names = [f"e{i}" for i in range(400)]  # token_urlsafe gave 1 in 64 a leading '-'
    issued = issue_secrets(tmp_path / "secrets", names, {})
    assert set(issued) == set(names)
    assert not [s for s in issued.values() if s.startswith("-") or len(s) < 16]
    with pytest.raises(SystemExit) as refused:  # what such a secret did
        lobby_client(["--lobby", "127.0.0.1:1", "--name", "x", "--secret", "-1b1YLj", "--",
                      "true"])
    assert refused.value.code == 2
