"""The browser game's match loop: the one game driver (:mod:`daihinmin.driver`), awaited.

:class:`~daihinmin.driver.game.GameDriver` deals, runs the exchange, the turns and the
7-pass/10-discard choices, judges every answer and writes the game's record, exactly as for
the TCP server, the in-process runner and replay.  This adapter only asks the seats (a
person's browser, or a CPU bot run in a worker thread) and awaits their answers, so a slow
person never blocks the event loop; it tells every seat what the driver says happened, and
the table's pages what they show.  Each game's record is the driver's, so a browser match
writes the server's match log (``daihinmin replay --verify`` re-simulates it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from daihinmin.contract.view import GameView, Observed
from daihinmin.driver.faults import SeatStatus
from daihinmin.driver.game import (
    ChoiceRequest,
    ExchangeDone,
    ExchangeRequest,
    GameDriver,
    GameOver,
    GameStarted,
    MoveRequest,
    TurnDone,
)
from daihinmin.driver.record import GameRecord
from daihinmin.rules.choices import PendingChoice
from daihinmin.rules.events import Event
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move


class Seat(Protocol):
    """One player of a browser match.  ``by`` names the stand-in that answered the last
    question (``"fallback"`` when a CPU played a person's seat), else None."""

    by: str | None
    error: str | None  # why the last question got no answer of the seat's own (a bot raised)

    async def exchange(self, view: GameView, count: int) -> CardSet | None: ...

    async def play(self, view: GameView) -> Move: ...

    async def choose(self, view: GameView, choice: PendingChoice) -> CardSet | None: ...

    async def game_start(self, view: GameView) -> None: ...

    async def turn_seen(self, view: GameView, observed: Observed, accepted: bool) -> None: ...

    async def game_end(self, view: GameView, places: tuple[int, ...]) -> None: ...


@dataclass
class LiveGame:
    """The game being played, for whoever shows it (read between the driver's steps)."""

    driver: GameDriver
    events: list[tuple[int, Event]] = field(default_factory=list)  # (turn number, event)
    exchanging: int | None = None  # the player choosing cards to return

    @property
    def setup(self) -> GameSetup:
        return self.driver.setup

    @property
    def state(self) -> GameState | None:  # None during the exchange
        return self.driver.state

    @property
    def history(self) -> list[Observed]:
        return self.driver.history

    @property
    def last_play(self) -> Observed | None:
        """This game's last play (not a pass), the turn's own play already during its 7-pass
        or 10-discard choice."""
        return next((o for o in reversed(self.driver.history) if o.is_play), None)


Publish = Callable[[LiveGame], None]


def _failed(seat: Seat) -> tuple[str | None, str | None]:
    """The record's ``error`` and ``fault`` of an answer the seat's bot lost by raising
    (``CRASHED``, as in the in-process runner); None, None for an answer of its own."""
    return (None, None) if seat.error is None else (seat.error, str(SeatStatus.CRASHED))


async def play_game(match: MatchState, seats: Sequence[Seat], publish: Publish) -> GameRecord:
    """Play the match's next game; ``publish`` is called whenever a seat is asked and at the
    end.  The record lists in ``stand_in`` the players a stand-in answered for."""
    driver = GameDriver(match)
    live = LiveGame(driver)
    view = driver.view
    while (out := driver.next()) is not None:
        match out:
            case GameStarted():
                for p, seat in enumerate(seats):
                    await seat.game_start(view(p))
            case ExchangeRequest(player=p, count=n):
                live.exchanging = p
                publish(live)
                cards = await seats[p].exchange(view(p), n)
                error, fault = _failed(seats[p])
                driver.exchange(cards, by=seats[p].by, error=error, fault=fault)
            case ExchangeDone():
                live.exchanging = None
            case MoveRequest(player=p):
                publish(live)
                start = time.perf_counter()
                move = await seats[p].play(view(p))
                error, fault = _failed(seats[p])
                step = driver.move(None if error else move,
                                   think_ms=(time.perf_counter() - start) * 1000,
                                   by=seats[p].by, error=error, fault=fault)
                live.events.extend((len(driver.history), e) for e in step.events)
            case ChoiceRequest(choice=choice):
                publish(live)
                seat = seats[choice.player]
                cards = await seat.choose(view(choice.player), choice)
                error, fault = _failed(seat)
                result = driver.choose(cards, by=seat.by, error=error, fault=fault)
                live.events.extend((len(driver.history), e) for e in result.events)
            case TurnDone(observed=observed, accepted=accepted):
                for p, seat in enumerate(seats):
                    await seat.turn_seen(view(p), observed, accepted)
            case GameOver(result=result):
                for p, seat in enumerate(seats):
                    await seat.game_end(view(p), result.places)
                publish(live)
    record = driver.record
    record.stand_in = sorted({t.player for t in record.turns
                              if t.by or any(c.by for c in t.choices)}
                             | {t.giver for t in record.transfers if t.by})
    return record


__all__ = ["LiveGame", "Publish", "Seat", "play_game"]
