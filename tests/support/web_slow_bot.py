"""A random player that thinks 40 ms per play, so a spectator test can follow a live match
(run as ``daihinmin match web_slow_bot:SlowBot`` with this folder on PYTHONPATH)."""

from __future__ import annotations

import time

from daihinmin.contract.view import GameView
from daihinmin.players.random_bot import RandomBot
from daihinmin.values.moves import Move


class SlowBot(RandomBot):
    name = "slow"

    def play(self, view: GameView) -> Move:
        time.sleep(0.04)
        return super().play(view)
