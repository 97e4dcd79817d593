"""``greedy``: shed as many cards as possible, save the joker and the top rank.

- If one legal play empties the hand, make it.
- Lead: the play with the most cards, then the weakest, among plays that keep the
  "precious" cards (the joker and the top rank of the current order: 2s, or 3s in a
  revolution); if only precious plays exist, the one with the most cards.
- Follow: the weakest play without precious cards; precious ones only when the hand is
  down to ``endgame`` cards or fewer; otherwise pass.
- Exchange: give the weakest cards that stand alone (no other card of their rank), then
  the weakest of the rest, so pairs and triples stay together.
"""

from __future__ import annotations

from daihinmin.contract.view import Bot, GameView
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move

from .util import rank_counts, weakest_cards, weakness

TOP_RANK, BOTTOM_RANK = 13, 1


def is_precious(move: Move, reversed_order: bool) -> bool:
    top = BOTTOM_RANK if reversed_order else TOP_RANK
    return move.jokers > 0 or bool(move.cards.suits_of_rank(top))


class GreedyBot(Bot):
    """Most cards first, strongest cards last.  Deterministic (``seed`` is accepted)."""

    name = "greedy"

    def __init__(self, seed: int | None = None, endgame: int = 4) -> None:
        del seed  # nothing random here
        self.endgame = endgame

    def exchange(self, view: GameView, count: int) -> CardSet:
        counts = rank_counts(view.hand)
        lonely = CardSet.of(c for c in view.hand.without_jokers if counts[c >> 2] == 1)
        chosen = weakest_cards(lonely, count)
        if len(chosen) < count:
            chosen |= weakest_cards(view.hand - chosen, count - len(chosen))
        return chosen

    def play(self, view: GameView) -> Move:
        plays = view.legal_plays()
        if not plays:
            return PASS
        rev = view.reversed
        size = len(view.hand)
        finishing = [m for m in plays if m.size == size]
        if finishing:
            return finishing[0]
        cheap = [m for m in plays if not is_precious(m, rev)]
        if view.field is None:
            pool = cheap or plays
            return min(pool, key=lambda m: (-m.size, weakness(m, rev), m.jokers))
        if cheap:
            return min(cheap, key=lambda m: weakness(m, rev))
        if size <= self.endgame:
            return min(plays, key=lambda m: (m.jokers > 0, weakness(m, rev)))
        return PASS
