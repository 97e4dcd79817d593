"""Views built straight from an engine state, for bots that run in the same process.

Used by the in-process match runner, the server's stand-in bots and the terminal game: each
gives a bot exactly the facts a networked client learns from the tables (hand, field,
flags, counts, classes, seats, this game's turns, its own side of the exchange).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup
from daihinmin.values.cards import EMPTY, CardSet

from .view import GameView, Observed, quick_view


@dataclass
class ExchangeFacts:
    """What one player knows privately about this game's exchange."""

    given: CardSet = EMPTY
    received: CardSet = EMPTY


def class_row(setup: GameSetup) -> tuple[int, ...]:
    """Row 6's classes: the previous game's places, or all 0 at the start of a class block."""
    return setup.classes if setup.classes is not None else (0,) * setup.rules.players


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
    """The view of a deal table (before play): the hand the deal table shows (and the draw
    pile's size, for the rules that have one)."""
    n = setup.rules.players
    return quick_view(player=player, hand=setup.deal_hand(player), field=None, turn_player=-1,
                      revolution=False, eleven_back=False, lock=False,
                      counts=tuple(len(setup.dealt[p]) for p in range(n)),
                      classes=class_row(setup), seats=setup.seats, rules=setup.rules,
                      game=setup.game, exchange_given=facts.given,
                      exchange_received=facts.received, pile_count=len(setup.pile))


def engine_view(game: GameState, player: int, setup: GameSetup, history: Sequence[Observed],
                facts: ExchangeFacts) -> GameView:
    """The view of ``player`` now, straight from the engine's state.  A pending choice (7-pass,
    10-discard) shows only in the view of the player it is asked of, as on the wire."""
    pending = game.pending if game.pending is not None and game.pending.player == player else None
    return quick_view(
        player=player, hand=game.hands[player], field=game.field, turn_player=game.turn,
        revolution=game.revolution, eleven_back=game.eleven_back, lock=game.lock,
        counts=game.counts(), classes=class_row(setup), seats=game.seats,
        my_turn=game.turn == player and not game.over, rules=game.rules, game=setup.game,
        history=tuple(history), exchange_given=facts.given, exchange_received=facts.received,
        passed=game.passed, field_owner=game.owner if game.field is not None else None,
        geki=game.geki, opening=game.lead_must_contain, pending=pending,
        pile_count=len(game.pile), direction=game.direction)
