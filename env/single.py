"""A Gymnasium environment: one seat is the agent, every other seat a bundled bot.

The agent's observations, actions and rewards are the AEC environment's
(:mod:`daihinmin.env.aec`): a dict observation with the legal-action mask (also given as
``info["action_mask"]``), one discrete action per step (a multi-card exchange or choice is
several steps), and the rule set's points when each game ends.  The bots play in process
over the same game driver, seeing every event as in ``tournament --in-process``.  An action
outside the mask ends the episode with ``illegal_reward`` (and ``info["illegal_action"]``),
as PettingZoo's wrapped environments do; ``illegal_reward=None`` raises
:class:`~daihinmin.env.actions.IllegalActionError` instead.

>>> env = SingleAgentEnv(rules="uecda", seat=0, opponents="weakest", seed=3)
>>> obs, info = env.reset()
>>> action = int(info["action_mask"].nonzero()[0][0])
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> obs["observation"].shape == env.observation_space["observation"].shape
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from daihinmin.contract.view import Bot
from daihinmin.rules.ruleset import RuleSet

from .actions import IllegalActionError
from .aec import DaihinminEnv, Observation, agent_name
from .tables import resolve_rules

ILLEGAL_REWARD = -1.0

#: Decisions a reset may skip: a match that ends before the agent is ever asked (possible
#: only under rules where one play can go out at once) is replayed with the next seed.
MAX_SKIPPED_MATCHES = 100


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """The seat ``seat`` against ``opponents`` (one name or bot for every other seat, or one
    per other seat in seat-number order)."""

    # (an instance attribute in gymnasium's declaration, so no ClassVar)
    metadata: dict[str, Any] = {"render_modes": ["ansi", "html"]}  # noqa: RUF012

    def __init__(self, rules: str | RuleSet = "uecda", players: int | None = None,
                 seat: int = 0, opponents: str | Bot | Sequence[str | Bot] = "default",
                 seed: int | None = None, games: int = 1, reward: str = "game",
                 render_mode: str | None = None, rule_overrides: Sequence[str] = (),
                 illegal_reward: float | None = ILLEGAL_REWARD) -> None:
        resolved = resolve_rules(rules, players, rule_overrides)
        n = resolved.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat}")
        others = [p for p in range(n) if p != seat]
        if isinstance(opponents, str | Bot):
            opponents = [opponents] * len(others)
        if len(opponents) != len(others):
            raise ValueError(f"{len(others)} opponents needed, got {len(opponents)}")
        self.aec = DaihinminEnv(resolved, seed=seed, games=games, reward=reward,
                                render_mode=render_mode,
                                bots=dict(zip(others, opponents, strict=True)))
        self.agent = agent_name(seat)
        self.seat = seat
        self.illegal_reward = illegal_reward
        self._ended_by: int | None = None  # the illegal action that ended the episode
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)

    def _out(self) -> tuple[Observation, dict[str, Any]]:
        obs = self.aec.observe(self.agent)
        return obs, {"action_mask": obs["action_mask"]}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        self._ended_by = None
        self.aec.reset(seed=seed)
        for _ in range(MAX_SKIPPED_MATCHES):
            if not self.aec.terminations[self.agent]:
                return self._out()
            self.aec.reset()
        raise RuntimeError(f"{MAX_SKIPPED_MATCHES} matches in a row ended before "
                           f"{self.agent} was asked anything")

    def step(self, action: int | np.integer[Any]
             ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._ended_by is not None or aec.terminations[self.agent]:
            raise RuntimeError("the episode is over: reset the environment")
        mask = aec.action_mask(self.agent)
        a = int(action)
        if self.illegal_reward is not None and not (0 <= a < mask.shape[0] and mask[a]):
            self._ended_by = a
            obs, info = self._out()
            return obs, self.illegal_reward, True, False, {**info, "illegal_action": a}
        aec.step(action)
        reward = float(aec._cumulative_rewards[self.agent])
        aec._cumulative_rewards[self.agent] = 0.0  # (handed out here)
        obs, info = self._out()
        return obs, reward, aec.terminations[self.agent], aec.truncations[self.agent], info

    def render(self) -> str | None:
        return self.aec.render()

    @property
    def match_seed(self) -> int:
        """The seed of the match being played (``daihinmin match --seed`` plays the same)."""
        return self.aec.match_seed


__all__ = ["ILLEGAL_REWARD", "MAX_SKIPPED_MATCHES", "IllegalActionError", "SingleAgentEnv"]
