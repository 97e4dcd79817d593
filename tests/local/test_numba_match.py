"""Matches on the Numba simulator (daihinmin.local.numba_match, ``match --engine numba``): the
engine's games, game for game; CPython's random inside Numba; what is refused."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from daihinmin.driver.record import GameRecord
from daihinmin.local import pyrandom
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.rules.game import GameState
from daihinmin.rules.ruleset import UECDA, RuleSet, ruleset_from
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), bounds=st.lists(st.integers(1, 2**32 - 1),
                                                      min_size=1, max_size=40))
def test_the_numba_generator_draws_as_cpythons_random(seed: int, bounds: list[int]) -> None:
    mt = pyrandom.new_generator()
    pyrandom.seed(mt, np.uint64(seed))
    reference = random.Random(seed)
    assert [pyrandom.below(mt, n) for n in bounds] == [reference.randrange(n) for n in bounds]
    deck = np.arange(54, dtype=np.int64)
    pyrandom.shuffle(mt, deck, 53)
    expected = list(range(53))
    reference.shuffle(expected)
    assert deck[:53].tolist() == expected and deck[53] == 53
    assert pyrandom.next_uint32(mt) == reference.getrandbits(32)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), count=st.integers(1, 2000))
def test_the_numba_generator_twists_as_cpythons_across_blocks(seed: int, count: int) -> None:
    """The twist is made as the draws reach it: every word is CPython's, in and past the
    first block of 624."""
    mt = pyrandom.new_generator()
    pyrandom.seed(mt, np.uint64(seed))
    reference = random.Random(seed)
    assert ([pyrandom.next_uint32(mt) for _ in range(count)]
            == [reference.getrandbits(32) for _ in range(count)])


pytestmark_mc = pytest.mark.usefixtures("env_compiled")  # conftest.py: compiled once a session


def engine_games(rules: RuleSet, seed: int, games: int) -> list[GameRecord]:
    records: list[GameRecord] = []
    play_local_match(rules, seed, games, [make_bot("default") for _ in range(rules.players)],
                     on_game=records.append)
    return records


@pytestmark_mc
@pytest.mark.parametrize(("preset", "overrides", "games"), [
    ("uecda", (), 130),  # seats redrawn every 5 games, classes reset at game 101
    ("uecda", ("players=3",), 40),
    ("uecda", ("players=6", "points=6,5,4,3,2,1", "owner_answers=no"), 40),
    ("web", (), 60),  # 11-back, miyako-ochi, the last place leads, two jokers
    ("web", ("players=3",), 40),
    ("uecda", ("exchange=no", "seat_change_period=3"), 30),
    # runs answered by their lowest rank (a joker-filled run may overlap the field's top),
    # the ♣3 opening, six players, groups of at most four, no lock; the joker pair
    ("original", (), 130),
    ("app", (), 130),
    ("original", ("restart=heimin",), 30),  # every game opens as the first, no exchange
    ("web", ("restart=heimin", "sequence_order=next_low"), 30),  # miyako-ochi still
])
def test_numba_matches_are_the_engines_game_for_game(preset: str, overrides: tuple[str, ...],
                                                     games: int) -> None:
    from daihinmin.local.numba_match import play_numba_match

    rules = ruleset_from(preset, list(overrides))
    records = engine_games(rules, 7, games)
    result = play_numba_match(rules, 7, games, ["default"] * rules.players, chunk=16)
    assert [list(r.places) for r in records] == result.places.tolist()
    assert [len(r.turns) for r in records] == result.turns.tolist()
    assert [list(r.points) for r in records] == result.points.tolist()
    assert result.totals.tolist() == records[-1].totals


@pytestmark_mc
def test_the_pass_limit_places_come_from_the_games_generator() -> None:
    """Twenty passes in a row end the game with the rest placed at random: the engine's
    generator decides, and the Numba one is the same generator."""
    from daihinmin.local.numba_match import _finish
    from daihinmin.players.mc import state as S
    from daihinmin.players.mc.convert import state_from_game

    for seed in range(20):
        rng = random.Random(seed)
        deck = list(range(4, 56))
        rng.shuffle(deck)
        hands = [CardSet.of(deck[i::5]) for i in range(5)]
        game = GameState.start(UECDA, hands, (0, 1, 2, 3, 4), random.Random(seed), first=0)
        sim = state_from_game(game)
        while not game.over:
            game.step(PASS)
            S.apply_pass(sim)
        mt = pyrandom.new_generator()
        pyrandom.seed(mt, np.uint64(seed))
        _finish(sim, mt, 5)
        assert [S.place_of(sim, p) for p in range(5)] == game.places()


@pytestmark_mc
def test_what_the_numba_engine_cannot_play_exactly_is_refused() -> None:
    from daihinmin.local.numba_match import NumbaMatchError, play_numba_match

    for rules, bots, why in [
        (UECDA, ["default", "random", "default", "default", "default"], "random"),
        (ruleset_from("original", ["scoring=cards", "end_on_first_out=yes"]), ["default"] * 6,
         "scoring=cards"),
        (ruleset_from("thirteenth_floor"), ["default"] * 4, "hand_size"),
        (ruleset_from("web", ["seven_pass=yes"]), ["default"] * 4, "seven_pass"),
        (UECDA, ["default"] * 4, "5 bots"),
    ]:
        with pytest.raises(NumbaMatchError, match=why):
            play_numba_match(rules, 1, 5, bots)


@pytestmark_mc
def test_match_engine_numba_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from daihinmin.tools.cli import main

    assert main(["match", "--engine", "numba", "--games", "30", "--seed", "5", "--json",
                 "default", "default", "default", "default", "default"]) == 0
    data = json.loads(capsys.readouterr().out)
    records = engine_games(UECDA, 5, 30)
    assert data["totals"] == records[-1].totals and data["games"] == 30
    assert sum(p["places"][0] for p in data["players"]) == 30
    assert main(["match", "--engine", "numba", "--games", "3", "random"] + ["default"] * 4) == 2
    assert "no Numba model" in capsys.readouterr().err
    assert main(["match", "--engine", "numba", "--jobs", "2", "--games", "3"]) == 2
    assert "--jobs" in capsys.readouterr().err


@pytestmark_mc
def test_bench_env_measures_and_checks_against_the_engine(
        capsys: pytest.CaptureFixture[str]) -> None:
    from daihinmin.tools.cli import main

    assert main(["bench", "env", "--json", "--aec-steps", "200", "--batch", "8",
                 "--batched-steps", "5", "--games", "40", "--check", "20"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["aec"]["steps"] >= 200 and data["batched"]["steps"] == 40
    assert data["match"]["identical_to_engine"] == data["match"]["checked_games"] == 20
    assert len(data["load_average"]) == 3
