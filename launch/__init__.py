"""daihinmin.launch: starting a player's process for a table, and leaving nothing behind.

``process``: the launcher's API (:class:`PlayerSpec`, :class:`LaunchOptions`,
:func:`run_player` -> :class:`PlayerExit`); ``limits``: the resource limits and how a stop by
one is described; ``guard`` and ``inner``: the two small standard-library programs that run
beside each player (outside and inside the sandbox; ``inner.c`` is the inner one in C, built
once per machine by ``inner_program``); ``sandbox``: the bubblewrap command line;
``submission``: submission folders and their manifest.  The TCP server's headless runner,
``match``, tournaments and ``check-bot`` start every player process through here.
Layout and limits for users: docs/SANDBOX.md.
"""

from daihinmin.launch.limits import Limits, LimitsError
from daihinmin.launch.process import (
    LaunchOptions,
    PlayerExit,
    PlayerSpec,
    run_player,
    stderr_tail,
    stop_process_group,
)

__all__ = ["LaunchOptions", "Limits", "LimitsError", "PlayerExit", "PlayerSpec", "run_player",
           "stderr_tail", "stop_process_group"]
