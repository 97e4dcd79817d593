"""``duplicate --sprt``: the positions are played until the sequential test decides."""

from __future__ import annotations

import json
from typing import Any

import pytest
from daihinmin.research import duplicate


def run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert duplicate.main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_much_stronger_player_is_accepted_early(capsys: pytest.CaptureFixture[str]) -> None:
    s = run(capsys, "--a", "random", "--b", "default", "--positions", "400", "--my-classes",
            "none,2", "--warm-games", "0", "--sprt", "0", "0.5")
    t = s["sprt"]
    assert t["verdict"] == "H1" and t["llr"] >= t["upper"]
    assert s["positions"] == t["positions_used"] == len(t["trace"]) < 100
    assert t["games_used"] == 2 * t["positions_used"] and t["limit"] == 400
    assert t["ci95"][0] > 0 and s["diff_ci95"][0] > 0  # the interval of the pairs used
    assert t["fixed_length_positions"] > t["positions_used"]
    assert [i for i, _ in t["trace"]] == list(range(1, t["positions_used"] + 1))


def test_the_same_player_is_accepted_as_no_better(capsys: pytest.CaptureFixture[str]) -> None:
    s = run(capsys, "--a", "default", "--b", "default", "--positions", "400", "--sprt",
            "0", "0.5", "--alpha", "0.1", "--beta", "0.1")
    assert s["sprt"]["verdict"] == "H0" and s["diff"] == 0 and s["positions"] < 100


def test_the_verdict_does_not_depend_on_the_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--a", "greedy", "--b", "default", "--positions", "300", "--sprt", "0", "0.5")
    one, two = run(capsys, *args), run(capsys, *args, "--jobs", "2")
    keys = ("verdict", "positions_used", "llr", "trace")
    assert [one["sprt"][k] for k in keys] == [two["sprt"][k] for k in keys]
    assert one["sprt"]["verdict"] is not None


def test_without_a_verdict_the_limit_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    s = run(capsys, "--a", "greedy", "--b", "default", "--positions", "12", "--sprt", "0",
            "0.1")
    assert s["sprt"]["verdict"] is None and s["positions"] == 12
    assert "no verdict" in s["sprt"]["text"]
    assert duplicate.main(["--a", "greedy", "--b", "default", "--positions", "12", "--sprt",
                           "0", "0.1"]) == 0
    text = capsys.readouterr().out
    assert "no verdict yet" in text and "LLR trace" in text


def test_bad_hypotheses_are_refused() -> None:
    with pytest.raises(SystemExit, match="d0 < d1"):
        duplicate.main(["--sprt", "0.5", "0", "--positions", "1"])


@pytest.mark.slow
@pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session
def test_mc_against_weakest_stops_early(capsys: pytest.CaptureFixture[str]) -> None:
    """A real run: mc (few playouts) is far stronger than weakest; the test says so long
    before the fixed number of positions (the first use of mc compiles it: minutes)."""
    s = run(capsys, "--a", "weakest", "--b", "mc", "--b-opt", "playouts=100", "--b-opt",
            "time_ms=0", "--positions", "400", "--my-classes", "none,2", "--warm-games", "0",
            "--sprt", "0", "0.5")
    t = s["sprt"]
    assert t["verdict"] == "H1" and t["positions_used"] < 100 < 400
    assert s["mean_b"] > s["mean_a"]
