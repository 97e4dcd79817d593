"""Who plays a seat once its player is gone: a bundled bot in the server's process, or nobody.

The ``fallback`` stand-in is a bundled bot (``players.registry.make_bot``) that sees a
:class:`~daihinmin.client.view.GameView` built from the engine's state (the same facts a
client learns from the tables: hand, field, flags, counts, classes, seats, this game's turns,
its own exchange).  The ``forfeit`` stand-in passes every turn and leaves the exchange to
the server.  A stand-in that raises passes (its exchange: the server picks), so it can never
stop the match.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from daihinmin.client.view import Bot, GameView, Observed
from daihinmin.protocol.cards import EMPTY, CardSet
from daihinmin.protocol.moves import PASS, Move
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup

from .faults import OnFault
from .tables import class_row

log = logging.getLogger("daihinmin.server")


@dataclass
class ExchangeFacts:
    """What one player knows privately about this game's exchange."""

    given: CardSet = EMPTY
    received: CardSet = EMPTY


def exchange_facts(setup: GameSetup) -> list[ExchangeFacts]:
    """Per player: the cards it gave, and those it can see it received (the lower classes
    see what comes back; the upper classes never learn what they were given)."""
    facts = [ExchangeFacts() for _ in range(setup.rules.players)]
    for t in setup.transfers:
        facts[t.giver].given = facts[t.giver].given | t.cards
        if not t.automatic:
            facts[t.receiver].received = facts[t.receiver].received | t.cards
    return facts


def deal_view(setup: GameSetup, player: int, facts: ExchangeFacts) -> GameView:
    """The view of a deal table (before play): the hand the deal table shows."""
    n = setup.rules.players
    return GameView(player=player, hand=setup.deal_hand(player), field=None, turn_player=-1,
                    revolution=False, eleven_back=False, lock=False,
                    counts=tuple(len(setup.dealt[p]) for p in range(n)),
                    classes=class_row(setup), seats=setup.seats, rules=setup.rules,
                    game=setup.game, exchange_given=facts.given,
                    exchange_received=facts.received)


def engine_view(game: GameState, player: int, setup: GameSetup, history: Sequence[Observed],
                facts: ExchangeFacts) -> GameView:
    """The view of ``player`` now, straight from the engine's state."""
    return GameView(
        player=player, hand=game.hands[player], field=game.field, turn_player=game.turn,
        revolution=game.revolution, eleven_back=game.eleven_back, lock=game.lock,
        counts=game.counts(), classes=class_row(setup), seats=game.seats,
        my_turn=game.turn == player and not game.over, rules=game.rules, game=setup.game,
        history=tuple(history), exchange_given=facts.given, exchange_received=facts.received,
        passed=game.passed, field_owner=game.owner if game.field is not None else None,
        geki=game.geki, opening=game.lead_must_contain, pending=game.pending,
        pile_count=len(game.pile), direction=game.direction)


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

    def _call(self, what: str, fn: object, *args: object) -> object:
        try:
            return fn(*args)  # type: ignore[operator]
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
