"""``daihinmin.env``: the game as reinforcement-learning environments.

* :func:`env` / :data:`raw_env`: a PettingZoo AEC environment over the one game driver
  (:mod:`daihinmin.env.aec`); ``env(...)`` wraps it as PettingZoo's own environments are
  wrapped (an illegal action ends the episode with ``illegal_reward`` for the agent that
  took it; actions out of range and calls out of order are refused).
* :class:`~daihinmin.env.single.SingleAgentEnv`: a Gymnasium environment where one seat is
  the agent and the others are bundled bots.

They need the ``env`` extra (``pip install "daihinmin[env]"``: pettingzoo, gymnasium).
See ``docs/RESEARCH.md``.
"""

from __future__ import annotations

from typing import Any

from .aec import DaihinminEnv
from .single import SingleAgentEnv

raw_env = DaihinminEnv
ILLEGAL_REWARD = -1.0


def env(illegal_reward: float = ILLEGAL_REWARD, **kwargs: Any) -> Any:
    """The wrapped AEC environment (``kwargs`` as :class:`DaihinminEnv`'s)."""
    from pettingzoo.utils import wrappers

    wrapped: Any = wrappers.TerminateIllegalWrapper(raw_env(**kwargs),
                                                    illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = ["ILLEGAL_REWARD", "DaihinminEnv", "SingleAgentEnv", "env", "raw_env"]
