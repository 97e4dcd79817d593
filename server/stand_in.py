"""Who plays a seat once its player is gone: a bundled bot in the server's process, or nobody.

The ``fallback`` stand-in is a bundled bot (``players.registry.make_bot``) that sees a
:class:`~daihinmin.contract.view.GameView` built from the engine's state (the same facts a
client learns from the tables: hand, field, flags, counts, classes, seats, this game's turns,
its own exchange).  The ``forfeit`` stand-in passes every turn and leaves the exchange to
the server.  A stand-in that raises passes (its exchange: the server picks), so it can never
stop the match.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from daihinmin.contract.engine_views import (  # re-exported for the server's modules
    ExchangeFacts,
    deal_view,
    engine_view,
    exchange_facts,
)
from daihinmin.contract.view import Bot, GameView, Observed
from daihinmin.driver.faults import OnFault
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move

T = TypeVar("T")

__all__ = ["ExchangeFacts", "StandIn", "deal_view", "engine_view", "exchange_facts"]

log = logging.getLogger("daihinmin.server")


class StandIn:
    """Plays one seat for the rest of the match (``kind`` is ``fallback`` or ``forfeit``)."""

    def __init__(self, player: int, kind: OnFault, bot: Bot | None) -> None:
        self.player = player
        self.kind = kind
        self.bot = bot

    @classmethod
    def make(cls, player: int, kind: OnFault, fallback: str, seed: int) -> StandIn:
        if kind is OnFault.FORFEIT:
            return cls(player, kind, None)
        from daihinmin.players.registry import make_bot

        bot = make_bot(fallback, seed=seed)
        bot.on_match_start(player)
        return cls(player, kind, bot)

    def _call(self, what: str, fn: Callable[..., T], *args: object) -> T | None:
        try:
            return fn(*args)
        except Exception:  # the stand-in must never stop the match
            log.exception("stand-in of player %d failed in %s", self.player, what)
            return None

    def game_start(self, view: GameView) -> None:
        if self.bot is not None:
            self._call("on_game_start", self.bot.on_game_start, view)

    def exchange(self, view: GameView, count: int) -> CardSet | None:
        """The cards to return, or None for the server's pick."""
        if self.bot is None:
            return None
        cards = self._call("exchange", self.bot.exchange, view, count)
        return cards if isinstance(cards, CardSet) else None

    def play(self, view: GameView) -> Move:
        if self.bot is None:
            return PASS
        move = self._call("play", self.bot.play, view)
        return move if isinstance(move, Move) else PASS

    def turn_seen(self, view: GameView, observed: Observed, accepted: bool) -> None:
        if self.bot is not None:
            self._call("on_turn", self.bot.on_turn, view, observed, accepted)

    def game_end(self, view: GameView, places: tuple[int, ...]) -> None:
        if self.bot is not None:
            self._call("on_game_end", self.bot.on_game_end, view, places)


__all__ = ["ExchangeFacts", "StandIn", "deal_view", "engine_view", "exchange_facts"]
