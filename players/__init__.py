"""daihinmin.players: the bundled players, by name.

``make_bot("default")`` makes one (``names()`` lists them; ``register`` adds your own as
``"module:factory"``); each is imported only when it is made, so ``mc``'s Numba simulator
costs nothing until it plays.  The players: ``random``, ``default`` and ``default2013`` (the
UECda sample client, choice for choice), ``weakest``, ``greedy``, ``mc`` (Monte Carlo,
:mod:`daihinmin.players.mc`) and ``human`` (you, at the terminal); ``levels`` names the
browser's CPU levels.

>>> from daihinmin.players import make_bot
>>> make_bot("weakest").name
'weakest'
"""

from daihinmin.players.registry import (
    UnknownBotError,
    make_bot,
    names,
    parse_options,
    prepare,
    register,
)

__all__ = ["UnknownBotError", "make_bot", "names", "parse_options", "prepare", "register"]
