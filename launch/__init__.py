"""daihinmin.launch: starting a player's process for a table, and leaving nothing behind.

``process``: how to start one player (a bundled bot or a command, ``{host}``/``{port}``
filled in), run it in its own session so its whole process group can be stopped, and keep the
tail of its stderr to explain a failure.  The TCP server's headless runner, ``match`` and
tournaments start every player process through here.
"""

from daihinmin.launch.process import PlayerSpec, run_player_process, stderr_tail, stop_process_group

__all__ = ["PlayerSpec", "run_player_process", "stderr_tail", "stop_process_group"]
