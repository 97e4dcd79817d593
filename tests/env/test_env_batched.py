"""The batched environment on the Numba simulator (daihinmin.env.batched): the engine's games
and the AEC environment's observations and masks, position for position."""

from __future__ import annotations

import numpy as np
import pytest
from daihinmin.driver.game import ExchangeRequest, MoveRequest
from daihinmin.driver.record import GameRecord
from daihinmin.env.actions import IllegalActionError
from daihinmin.env.aec import DaihinminEnv
from daihinmin.env.observe import Decision
from daihinmin.local.runner import play_local_match
from daihinmin.players.registry import make_bot
from daihinmin.rules.ruleset import ruleset_from

pytestmark = pytest.mark.usefixtures("env_compiled")  # conftest.py: compiled once a session


def aec_decisions(rules_name: str, overrides: list[str], seat: int, seed: int, games: int
                  ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) at each of the agent's moves, in the AEC environment with
    ``default`` bots around it and the agent answering as ``default`` too."""
    rules = ruleset_from(rules_name, overrides)
    others = {p: "default" for p in range(rules.players) if p != seat}
    env = DaihinminEnv(rules, games=games, bots=others)
    env.reset(seed=seed)
    me = make_bot("default")
    agent = f"player_{seat}"
    out = []
    queued: list[int] = []
    while not env.terminations[agent]:
        obs = env.observe(agent)
        if not queued:
            view, request = env.view(agent), env.request
            if isinstance(request, MoveRequest):
                assert env._decision(seat)[0] is Decision.MOVE
                out.append((obs["observation"], obs["action_mask"]))
                queued = env.answer_actions(me.play(view))
            else:
                assert isinstance(request, ExchangeRequest)
                queued = env.answer_actions(me.exchange(view, request.count))
        env.step(queued.pop(0))
    return out


@pytest.mark.parametrize(("preset", "overrides", "seat"),
                         [("uecda", [], 0), ("uecda", [], 3), ("web", [], 1),
                          ("uecda", ["players=4"], 2), ("original", [], 4), ("app", [], 2)])
def test_observations_and_masks_are_the_aec_environments(preset: str, overrides: list[str],
                                                         seat: int) -> None:
    from daihinmin.env.batched import BatchedEnv

    games = 7  # (past a seat redraw, with exchanges)
    env = BatchedEnv(preset, batch=2, seat=seat, opponents="default", seed=20,
                     rule_overrides=overrides)
    obs, masks = env.reset()
    seen: list[list[tuple[np.ndarray, np.ndarray]]] = [[], []]
    while (env.games_played() < games).any():
        for b in range(2):
            if env.games_played()[b] < games:
                seen[b].append((obs[b].copy(), masks[b].copy()))
        obs, masks, _, _ = env.step(env.expert_actions("default"))
    for b in range(2):
        expected = aec_decisions(preset, overrides, seat, env.match_seed(b), games)
        assert len(seen[b]) == len(expected) > 7 * 5
        for k, ((o, m), (eo, em)) in enumerate(zip(seen[b], expected, strict=True)):
            assert np.array_equal(m, em), (b, k, np.flatnonzero(m != em))
            assert np.array_equal(o, eo), (b, k, np.flatnonzero(o != eo))


def test_games_and_rewards_are_the_engines() -> None:
    """Every slot plays its match's games as the engine does (the agent as ``default``);
    the rewards are the agent's points."""
    from daihinmin.env.batched import BatchedEnv

    games, batch, seat = 12, 3, 1
    env = BatchedEnv("uecda", batch=batch, seat=seat, opponents="default", seed=40)
    env.reset()
    places: list[list[list[int]]] = [[] for _ in range(batch)]
    rewards = np.zeros(batch)
    while (env.games_played() < games).any():
        _, _, r, done = env.step(env.expert_actions("default"))
        for slot in np.flatnonzero(done):
            if len(places[slot]) < games:  # (the carry holds the finished game's places)
                places[slot].append(env.carry[slot, 6:11].tolist())
                rewards[slot] += r[slot]
    rules = ruleset_from("uecda")
    for b in range(batch):
        records: list[GameRecord] = []
        play_local_match(rules, env.match_seed(b), games,
                         [make_bot("default") for _ in range(5)], on_game=records.append)
        assert places[b] == [list(r.places) for r in records]
        assert rewards[b] == records[-1].totals[seat]


def test_opponent_models_play_and_illegal_actions_are_refused() -> None:
    from daihinmin.env.batched import BatchedEnv

    env = BatchedEnv("uecda", batch=16, opponents=["weakest", "random", "policy", "default"],
                     seed=3)
    obs, masks = env.reset()
    rng = np.random.default_rng(1)
    total = 0.0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, rewards, dones = env.step(actions)
        total += float(rewards[dones].sum())
        assert masks.any(axis=1).all() and obs.shape == (16, env.layout.size)
    assert env.games_played().sum() > 50 and total > 0
    illegal = np.array([np.flatnonzero(m == 0)[0] for m in masks])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    with pytest.raises(ValueError, match="no Numba model"):
        BatchedEnv("uecda", opponents="greedy")


def test_the_training_example_runs_and_reports_its_comparison() -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "examples" / "train_batched.py"
    out = subprocess.run([sys.executable, str(script), "--steps", "40", "--batch", "16",
                          "--eval-matches", "8", "--eval-games", "2"],
                         capture_output=True, text=True, timeout=600, check=True)
    data = json.loads(out.stdout)
    low, high = data["difference_ci95"]
    assert low <= data["difference"] <= high
    assert data["eval_matches"] == 8 and 0 < data["weakest_points_per_game"] <= 5


def trajectory_digest(preset: str, overrides: list[str], seat: int,
                      opponents: str | list[str], seed: int, acting: str) -> str:
    """A digest of a seeded run's actions, observations, masks, rewards and dones (the agent
    as ``default``, or picking its legal actions by a fixed arithmetic rule)."""
    import hashlib

    from daihinmin.env.batched import BatchedEnv

    env = BatchedEnv(preset, batch=6, seat=seat, opponents=opponents, seed=seed,
                     rule_overrides=overrides)
    h = hashlib.sha256()
    obs, masks = env.reset()
    h.update(obs.tobytes() + masks.tobytes())
    for step in range(1000):  # (past the refill of each slot's game seeds, 56 games)
        if acting == "default":
            actions = env.expert_actions("default")
        else:
            actions = np.array([legal[(step * 7919 + b * 104729) % legal.size]
                                for b, legal in enumerate(np.flatnonzero(m) for m in masks)],
                               dtype=np.int64)
        obs, masks, rewards, dones = env.step(actions)
        for part in (actions, obs, masks, rewards, dones):
            h.update(part.tobytes())
    h.update(env.games_played().tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(("preset", "overrides", "seat", "opponents", "seed", "acting",
                          "digest"), [
    ("uecda", [], 0, "default", 5, "default", "3c2ad40c9e1514d9"),
    ("uecda", [], 2, ["weakest", "random", "policy", "default"], 9, "fixed",
     "153ec0ed13813913"),
    ("web", [], 1, "random", 3, "fixed", "708061154cb15eaf"),
    ("uecda", ["players=4"], 3, "policy", 11, "default", "e64517a7213550bd")])
def test_seeded_runs_keep_their_trajectories(preset: str, overrides: list[str], seat: int,
                                             opponents: str | list[str], seed: int,
                                             acting: str, digest: str) -> None:
    """A seeded run is the same run on every machine and after every change to the
    environment's code (the digests were taken from the first version)."""
    assert trajectory_digest(preset, overrides, seat, opponents, seed, acting) == digest
