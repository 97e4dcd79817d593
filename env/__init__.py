"""``daihinmin.env``: the game as reinforcement-learning environments.

* :func:`env` / :data:`raw_env`: a PettingZoo AEC environment over the one game driver
  (:mod:`daihinmin.env.aec`); ``env(...)`` wraps it as PettingZoo's own environments are
  wrapped (an illegal action ends the episode with ``illegal_reward`` for the agent that
  took it; actions out of range and calls out of order are refused).
* :class:`~daihinmin.env.single.SingleAgentEnv`: a Gymnasium environment where one seat is
  the agent and the others are bundled bots.

* :class:`~daihinmin.env.batched.BatchedEnv`: N games a step on the Numba simulator;
  :func:`~daihinmin.local.numba_match.play_numba_match`: whole matches of bundled bots there.

The first two need the ``env`` extra (``pip install "daihinmin[env]"``: pettingzoo,
gymnasium), imported when first used; the Numba ones do not.  See ``docs/ENVIRONMENTS.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from daihinmin.local.numba_match import play_numba_match

    from .aec import DaihinminEnv
    from .batched import BatchedEnv
    from .single import SingleAgentEnv

ILLEGAL_REWARD = -1.0


def __getattr__(name: str) -> Any:
    """The classes, imported on first use (``DaihinminEnv``, ``raw_env`` and
    ``SingleAgentEnv`` need pettingzoo and gymnasium; the Numba ones compile on first
    call)."""
    if name in ("DaihinminEnv", "raw_env"):
        from .aec import DaihinminEnv

        return DaihinminEnv
    if name == "SingleAgentEnv":
        from .single import SingleAgentEnv

        return SingleAgentEnv
    if name == "BatchedEnv":
        from .batched import BatchedEnv

        return BatchedEnv
    if name == "play_numba_match":
        from daihinmin.local.numba_match import play_numba_match

        return play_numba_match
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def env(illegal_reward: float = ILLEGAL_REWARD, **kwargs: Any) -> Any:
    """The wrapped AEC environment (``kwargs`` as :class:`DaihinminEnv`'s)."""
    from pettingzoo.utils import wrappers

    from .aec import DaihinminEnv

    wrapped: Any = wrappers.TerminateIllegalWrapper(DaihinminEnv(**kwargs),
                                                    illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


__all__ = ["ILLEGAL_REWARD", "BatchedEnv", "DaihinminEnv", "SingleAgentEnv", "env",
           "play_numba_match", "raw_env"]
