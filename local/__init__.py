"""daihinmin.local: games played in one process, bots as objects over the game driver.

Modules: ``runner`` (in-process matches between bots, with an optional observer of the
driver: the research fast path), ``terminal`` (``daihinmin play``: a person against bots in
the terminal), ``parallel`` (experiment jobs side by side, one process each),
``terminal_text`` (outside text made safe for a terminal).
"""

from daihinmin.local.runner import BotTable, DriverObserver, play_local_game, play_local_match

__all__ = ["BotTable", "DriverObserver", "play_local_game", "play_local_match"]
