"""``mc_strength`` seats any registered player as the opponents, with options of their own:
copies of mc (the harness's self-play check) and a differently set mc that mc's opponent
models do not know."""

from __future__ import annotations

import importlib
import json

import pytest
from daihinmin.local.runner import play_local_match
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.models import MODEL_POLICY, MODEL_UNIFORM
from daihinmin.research import mc_strength
from daihinmin.rules.ruleset import UECDA

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

def test_the_opponents_get_their_options_and_seeds_of_their_own(
        capsys: pytest.CaptureFixture[str]) -> None:
    # the player is made by name, from the module as its import name gives it
    made = importlib.import_module("option_recorder").MADE
    made.clear()
    code = mc_strength.main(["--games", "2", "--seed", "3", "--time-ms", "0", "--playouts",
                             "20", "--opponent", "option_recorder:OptionRecorder",
                             "--opponent-opt", "style=loud", "--opponent-opt", "depth=2",
                             "--json"])
    assert code == 0
    assert made == [(30 + seat, {"style": "loud", "depth": 2}) for seat in range(1, 5)]
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 2 and len(out["opponent_mean_points"]) == 4
    # the places game by game (one job) make up the histogram
    (by_game,) = out["places_by_job"]
    assert [by_game.count(k) for k in range(5)] == out["places"] and len(by_game) == 2
    # uecda scores 5..1 per game: mc's mean and the four seats' means add up to 15
    assert out["mean_points"] + sum(out["opponent_mean_points"]) == pytest.approx(15.0)


def test_mc_plays_copies_of_itself() -> None:
    """One job of the self-play check: four mc opponents at a small fixed budget; every game
    scores each place once, and the copies decide by their own (capped) searches."""
    result = mc_strength.run_job((2, 5, "mc", {"time_ms": 0, "playouts": 24}, "", "uecda",
                                  None, {"time_ms": 0, "playouts": 24}, []))
    assert len(result.points) == 2
    for mine, theirs in zip(result.points, result.opponent_points, strict=True):
        assert sorted([mine, *theirs]) == [1, 2, 3, 4, 5]
    assert result.playouts and max(result.playouts) <= 24
    # every searched play's CPU time is recorded beside its wall time
    assert len(result.decision_cpu_ms) == len(result.decision_ms) == len(result.playouts)
    assert all(cpu > 0 for cpu in result.decision_cpu_ms)


@pytest.mark.parametrize("flag", ["--opt", "--opponent-opt"])
def test_an_option_the_player_does_not_take_is_a_usage_error(
        flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        mc_strength.main(["--games", "1", "--opponent", "mc", flag, "no_such_option=1"])
    assert exc.value.code == 2
    assert "no_such_option" in capsys.readouterr().err


def test_mc_with_other_settings_is_simulated_by_the_playout_policy() -> None:
    """Graceful degradation against another mc (a bot no model names): mc keeps the playout
    policy for it, never the uniform model, after every game."""
    mc = MCBot(time_ms=0, playouts=32, seed=1)
    others = [MCBot(time_ms=0, playouts=48, seed=10 + k, c_explore=1.0, adapt=k % 2 == 0)
              for k in range(4)]
    seen: list[list[int]] = []
    play_local_match(UECDA, seed=4, games=5, bots=[mc, *others],
                     on_game=lambda _: seen.append([int(m) for m in mc.models[1:5]]))
    assert len(seen) == 5
    assert all(MODEL_UNIFORM not in models for models in seen)
    assert seen[-1] == [MODEL_POLICY] * 4


def test_rules_mc_does_not_simulate_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """mc plays a fallback at rules it does not simulate (it plays every preset, so a preset
    with a rule it lacks): no figure would be mc's own."""
    with pytest.raises(SystemExit) as exc:
        mc_strength.main(["--games", "1", "--rules", "web", "--rule", "group_max=2"])
    assert exc.value.code == 2 and "does not simulate" in capsys.readouterr().err


def test_rules_changed_by_rule_options_are_played(capsys: pytest.CaptureFixture[str]) -> None:
    """``--rule KEY=VALUE`` changes the preset: the 13th floor without double stairs (its
    draw pile included) is mc's own; a bad rule is one line and exit 2."""
    code = mc_strength.main(["--games", "1", "--time-ms", "0", "--playouts", "16", "--rules",
                             "thirteenth_floor", "--rule", "double_stairs=no", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == "thirteenth_floor+double_stairs=no" and out["games"] == 1
    assert len(out["places"]) == 4 and out["decisions"] > 0
    with pytest.raises(SystemExit) as exc:
        mc_strength.main(["--games", "1", "--rule", "hand_size=99"])
    assert exc.value.code == 2 and "hand_size" in capsys.readouterr().err
def test_rules_of_the_preset_changed_by_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """``--rule`` plays the preset with a toggle (mc searches the 10-discard choices there);
    a rule mc does not simulate, or no rule at all, is a usage error."""
    code = mc_strength.main(["--games", "1", "--time-ms", "0", "--playouts", "20",
                             "--rule", "ten_discard=yes", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["rules"] == "uecda+ten_discard=yes"
    for bad, said in (("sequence_min=6", "sequence_min=6"), ("no_such_rule=1", "no_such_rule")):
        with pytest.raises(SystemExit) as exc:
            mc_strength.main(["--games", "1", "--rule", bad])
        assert exc.value.code == 2
        assert said in capsys.readouterr().err
