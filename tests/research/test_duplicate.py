"""Duplicate evaluation: both players get exactly the same positions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from daihinmin.research import duplicate
from daihinmin.research.positions import position_classes, position_game
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import UECDA


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert duplicate.main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_same_deterministic_player_ties_on_every_position(
        capsys: pytest.CaptureFixture[str]) -> None:
    s = run(capsys, "--a", "default", "--b", "default", "--positions", "12")
    assert s["positions"] == 12 and s["diff"] == 0 and s["differ"] == 0
    assert s["places_a"] == s["places_b"] and sum(s["places_a"]) == 12


def test_each_job_plays_its_warm_up_games_first(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import daihinmin.local.runner as local_match

    played: list[int] = []
    real = local_match.play_local_game

    def counted(match: MatchState, bots: list[object], *hooks: object) -> object:
        played.append(match.game)
        return real(match, bots, *hooks)  # type: ignore[arg-type]

    monkeypatch.setattr(local_match, "play_local_game", counted)
    s = run(capsys, "--a", "default", "--b", "default", "--positions", "6", "--warm-games",
            "3")
    assert s["differ"] == 0
    # per player: games 1..3 of the warm-up match, then the six positions' games
    assert played[:3] == [1, 2, 3] and len(played) == 2 * (3 + 6)
    assert played[9:12] == [1, 2, 3]


def test_a_stronger_player_shows_up_as_a_positive_difference(
        capsys: pytest.CaptureFixture[str]) -> None:
    s = run(capsys, "--a", "random", "--b", "default", "--positions", "40", "--my-classes",
            "none,2")
    assert s["mean_b"] > s["mean_a"] and s["diff"] > 0
    lo, hi = s["diff_ci95"]
    assert lo <= s["diff"] <= hi


def test_positions_hold_the_asked_classes_and_never_a_class_reset() -> None:
    for k in range(300):
        g = position_game(k, UECDA.class_reset_period)
        assert not MatchState(UECDA, seed=1, games=g).is_block_start(g)
        classes = position_classes(k, 3, k % 5)
        assert classes is not None and classes[0] == k % 5 and sorted(classes) == [0, 1, 2, 3, 4]
    assert position_classes(4, 3, None) is None


def test_bad_classes_are_refused() -> None:
    with pytest.raises(SystemExit, match="not a class"):
        duplicate.main(["--my-classes", "0,7", "--positions", "1"])


def test_the_result_says_which_bot_is_a_and_which_is_b(
        capsys: pytest.CaptureFixture[str]) -> None:
    s = run(capsys, "--a", "random", "--b", "default", "--b-opt", "seed=3", "--positions", "4")
    assert s["a"] == {"bot": "random", "options": {}, "label": "random"}
    assert s["b"] == {"bot": "default", "options": {"seed": 3}, "label": "default (seed=3)"}
    assert s["opponent"] == "default"
    assert duplicate.main(["--a", "random", "--b", "default", "--positions", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "4 positions, each played by A and by B against 4 x default:"
    assert lines[1].startswith("  A = random: mean ")
    assert lines[2].startswith("  B = default: mean ")
    assert lines[3].startswith("  B - A = ")
