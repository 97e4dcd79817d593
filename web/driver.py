"""The browser game's match loop: the engine's games over async seats, logged as the server logs.

Each seat answers three questions (the exchange, the play, a 7-pass/10-discard choice) with
the same :class:`~daihinmin.contract.view.GameView` a networked client builds; the engine
judges every answer, exactly as in :mod:`daihinmin.server.game_play` and
:mod:`daihinmin.local.runner`.  What differs is only that seats are awaited (a person's
browser, or a CPU bot run in a worker thread), so a slow person never blocks the event loop.
Every game becomes a :class:`~daihinmin.server.matchlog.GameRecord`, so a browser match
writes a match log that ``daihinmin replay --verify`` re-simulates.

This is the loop issue 18's sans-IO driver should absorb (it repeats the turn order of
``play_local_game``, awaited).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from daihinmin.contract.engine_views import ExchangeFacts, deal_view, engine_view, exchange_facts
from daihinmin.contract.view import GameView, Observed
from daihinmin.driver.record import ChoiceRecord
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.events import Event
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.server.matchlog import GameRecord, TransferRecord, TurnRecord
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move


class Seat(Protocol):
    """One player of a browser match.  ``by`` names the stand-in that answered the last
    question (``"fallback"`` when a CPU played a person's seat), else None."""

    by: str | None

    async def exchange(self, view: GameView, count: int) -> CardSet | None: ...

    async def play(self, view: GameView) -> Move: ...

    async def choose(self, view: GameView, choice: PendingChoice) -> CardSet | None: ...

    async def game_start(self, view: GameView) -> None: ...

    async def turn_seen(self, view: GameView, observed: Observed, accepted: bool) -> None: ...

    async def game_end(self, view: GameView, places: tuple[int, ...]) -> None: ...


@dataclass
class LiveGame:
    """The game being played, for whoever shows it (read between the driver's steps)."""

    setup: GameSetup
    state: GameState | None = None  # None during the exchange
    history: list[Observed] = field(default_factory=list)
    facts: list[ExchangeFacts] = field(default_factory=list)
    events: list[tuple[int, Event]] = field(default_factory=list)  # (turn number, event)
    exchanging: int | None = None  # the player choosing cards to return
    last_play: Observed | None = None

    def view(self, player: int) -> GameView:
        if self.state is None:
            return deal_view(self.setup, player, exchange_facts(self.setup)[player])
        return engine_view(self.state, player, self.setup, self.history, self.facts[player])


Publish = Callable[[LiveGame], None]


async def play_game(match: MatchState, seats: Sequence[Seat], publish: Publish) -> GameRecord:
    """Play the match's next game; ``publish`` is called after every change of state."""
    setup = match.setup_game()
    live = LiveGame(setup)
    record = GameRecord(game=setup.game, seats=list(setup.seats), dealer=setup.dealer,
                        classes=None if setup.classes is None else list(setup.classes),
                        dealt=[str(h) for h in setup.dealt])
    for p, seat in enumerate(seats):
        await seat.game_start(live.view(p))
    chosen: dict[int, str | None] = {}
    for player in setup.exchange_order():
        live.exchanging = player
        publish(live)
        count = setup.give_count(player)
        cards = await seats[player].exchange(live.view(player), count)
        chosen[player] = seats[player].by
        setup.give_back(player, cards)
    live.exchanging = None
    record.transfers = [TransferRecord(t.giver, t.receiver, str(t.cards), t.automatic,
                                       t.substituted, by=None if t.automatic
                                       else chosen.get(t.giver))
                        for t in setup.transfers]
    live.facts = exchange_facts(setup)
    game = live.state = setup.start()
    record.hands = [str(h) for h in game.hands]
    record.first = game.turn
    while not game.over:
        publish(live)
        record.turns.append(await _turn(live, game, seats, publish))
    result = match.finish_game(game)
    record.places, record.points = list(result.places), list(result.points)
    record.totals = list(match.points)
    record.stand_in = sorted({t.player for t in record.turns if t.by}
                             | {t.giver for t in record.transfers if t.by})
    for p, seat in enumerate(seats):
        await seat.game_end(live.view(p), result.places)
    publish(live)
    return record


async def _turn(live: LiveGame, game: GameState, seats: Sequence[Seat],
                publish: Publish) -> TurnRecord:
    mover = game.turn
    start = time.perf_counter()
    move = await seats[mover].play(live.view(mover))
    think_ms = (time.perf_counter() - start) * 1000
    by = seats[mover].by
    was_empty = game.field is None
    step = game.step(move)
    live.events.extend((game.turns, e) for e in step.events)
    choices: list[ChoiceRecord] = []
    while game.pending is not None:
        choice = game.pending
        publish(live)
        cards = await seats[choice.player].choose(live.view(choice.player), choice)
        answer = game.step_choice(cards)
        live.events.extend((game.turns, e) for e in answer.events)
        choices.append(ChoiceRecord(choice.kind.value, choice.count, str(answer.cards),
                                    answer.substituted, by=seats[choice.player].by))
    observed = Observed(mover, move if step.judgement.accepted else PASS,
                        trick_cleared_before=was_empty)
    live.history.append(observed)
    if observed.is_play:
        live.last_play = observed
    for p, seat in enumerate(seats):
        await seat.turn_seen(live.view(p), observed, step.judgement.accepted)
    return TurnRecord(mover, str(move), step.answer, round(think_ms, 3), by=by,
                      choices=choices)


__all__ = ["LiveGame", "Publish", "Seat", "play_game"]
