"""``random``: a uniformly random legal move (the pass included) and random exchange cards."""

from __future__ import annotations

import random

from daihinmin.contract.view import Bot, GameView
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move


class RandomBot(Bot):
    """Picks uniformly among ``view.legal_moves()``; reproducible with a ``seed``."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def exchange(self, view: GameView, count: int) -> CardSet:
        return CardSet.of(self.rng.sample(sorted(view.hand), count))

    def play(self, view: GameView) -> Move:
        return self.rng.choice(view.legal_moves())
