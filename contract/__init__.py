"""daihinmin.contract: what a bot is given and what it answers.

It sits below the server, the client library and the players, which all import it.

:class:`~daihinmin.contract.view.GameView` is everything one seat may see;
:class:`~daihinmin.contract.view.Bot` is the interface every bot implements, whoever runs it.
"""

from daihinmin.contract.view import Bot, GameView, Observed

__all__ = ["Bot", "GameView", "Observed"]
