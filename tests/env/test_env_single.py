"""The Gymnasium single-agent environment: Gymnasium's checker, the engine's games with the
bundled bots in the other seats, rewards, illegal actions."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from daihinmin.driver.game import ExchangeRequest, MoveRequest
from daihinmin.driver.record import GameRecord
from daihinmin.env import SingleAgentEnv
from daihinmin.env.actions import IllegalActionError
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from gymnasium.utils.env_checker import check_env


@pytest.mark.parametrize("preset", ["uecda", "thirteenth_floor"])
def test_gymnasiums_checker_passes(preset: str) -> None:
    env = SingleAgentEnv(rules=preset, seat=1, opponents="random", seed=1, games=2,
                         render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (its notes on dict observations)
        check_env(env)


@pytest.mark.parametrize(("preset", "seat", "opponents"),
                         [("uecda", 2, ["default", "weakest", "random", "greedy"]),
                          ("app", 0, "random")])
def test_the_agents_games_are_the_engines_with_the_same_bots(preset: str, seat: int,
                                                             opponents: Any) -> None:
    """The agent acts as a weakest bot would; the games are the in-process runner's games
    with a weakest bot in its seat and the same bots (same seeds) in the others."""
    env = SingleAgentEnv(rules=preset, seat=seat, opponents=opponents, games=3)
    me = make_bot("weakest")
    for seed in (3, 4):
        _, info = env.reset(seed=seed)
        total, done = 0.0, False
        queued: list[int] = []
        records: list[GameRecord] = []
        while not done:
            aec = env.aec
            assert aec.driver is not None
            if not records or records[-1] is not aec.driver.record:
                records.append(aec.driver.record)
            if not queued:
                view, request = aec.view(env.agent), aec.request
                answer = (me.play(view) if isinstance(request, MoveRequest)
                          else me.exchange(view, request.count)
                          if isinstance(request, ExchangeRequest)
                          else me.choose(view, request.choice))  # type: ignore[union-attr]
                queued = aec.answer_actions(answer)
            action = queued.pop(0)
            assert info["action_mask"][action] == 1
            _obs, reward, done, truncated, info = env.step(action)
            total += reward
            assert not truncated
        names = list(opponents) if isinstance(opponents, list) else [opponents] * 3
        names.insert(seat, "weakest")
        bots = [make_bot(name, seed=seed * 8 + p) for p, name in enumerate(names)]
        expected: list[GameRecord] = []
        match = play_local_match(env.aec.rules, seed, 3, bots, on_game=expected.append)
        assert total == match.points[seat]
        strip = [_untimed(r) for r in expected]
        assert [_untimed(r) for r in records] == strip


def _untimed(record: GameRecord) -> dict[str, Any]:
    data = record.to_json()
    for turn in data["turns"]:
        turn.pop("think_ms", None)
    return data


def test_an_illegal_action_ends_the_episode_or_raises() -> None:
    env = SingleAgentEnv(rules="uecda", opponents="weakest", seed=2)
    _, info = env.reset()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal_action"]) == (-1.0, True, illegal)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = SingleAgentEnv(rules="uecda", opponents="weakest", seed=2, illegal_reward=None)
    strict.reset()
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_opponents_and_seat_are_checked() -> None:
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(rules="web", seat=4)
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv(rules="web", opponents=["random", "weakest"])
