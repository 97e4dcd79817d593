"""In-process matches: bots as Python objects over the game driver, no sockets.

The research fast path (``tournament --in-process``, ``mc_strength``, ``duplicate``) and the
terminal game play through :class:`~daihinmin.driver.game.GameDriver`, as the TCP server
does, so every bot sees the same views and callbacks in the same order as over the wire, and
every game ends as the same :class:`~daihinmin.driver.record.GameRecord` (written to a match
log by :mod:`daihinmin.records.inprocess_log`).  A bot that raises loses that answer, as a bad
table does on the wire: its move is a pass answered 8, its exchange or choice the rules'
default, and the record says so (``error``, fault ``CRASHED``); an answer that is no move or
no cards at all (``None``, a string) is a table that is no table (fault ``MALFORMED``), and a
move or cards the rules reject are ``ILLEGAL``, as the server classifies what it reads.

>>> from daihinmin.rules.ruleset import UECDA
>>> from daihinmin.contract.view import Bot
>>> class Lowest(Bot):
...     def play(self, view):
...         return min(view.legal_moves(), key=lambda m: (m.is_pass, m.low))
>>> records = []
>>> match = play_local_match(UECDA, seed=3, games=2, bots=[Lowest() for _ in range(5)],
...                          on_game=records.append)
>>> match.game, sum(match.points), [r.game for r in records]
(3, 30, [1, 2])
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Container, Sequence

from daihinmin.contract.view import Bot
from daihinmin.driver.faults import SeatStatus
from daihinmin.driver.game import (
    ChoiceRequest,
    ExchangeRequest,
    GameDriver,
    GameOver,
    GameStarted,
    MoveRequest,
    Output,
    TurnDone,
)
from daihinmin.driver.record import GameRecord
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import Move

log = logging.getLogger(__name__)

#: Called with the live game state just before a bot is asked for its play (research hooks
#: such as an oracle; it must not change the state).
BeforePlay = Callable[[GameState], None]

#: Told every output of the driver after the bots have handled it (a watcher of the table,
#: such as :func:`daihinmin.watch.publish.driver_observer`; it must not change the game).
DriverObserver = Callable[[GameDriver, Output], None]

CRASHED = str(SeatStatus.CRASHED)
MALFORMED = str(SeatStatus.MALFORMED)


def _crash(exc: Exception) -> str:
    return f"the bot raised {type(exc).__name__}: {exc}"


def _not_a(answer: object, kind: str) -> str:
    return f"the bot answered {type(answer).__name__}, not a {kind}"


class BotTable:
    """Bots in seats (index = player number), answering and watching one driver's game.

    ``strict`` seats' exceptions propagate (the person of the terminal game) instead of
    costing them the answer."""

    def __init__(self, bots: Sequence[Bot], before_play: BeforePlay | None = None,
                 strict: Container[int] = (), observer: DriverObserver | None = None) -> None:
        self.bots = bots
        self.before_play = before_play
        self.strict = strict
        self.observer = observer

    def handle(self, driver: GameDriver, out: Output) -> None:
        """Answer a request with the asked bot, or tell every bot an event."""
        bots = self.bots
        if isinstance(out, ExchangeRequest | MoveRequest | ChoiceRequest):
            self.answer(driver, out)
        elif isinstance(out, GameStarted):
            for p, bot in enumerate(bots):
                bot.on_game_start(driver.view(p))
        elif isinstance(out, TurnDone):
            for p, bot in enumerate(bots):
                bot.on_turn(driver.view(p), out.observed, out.accepted)
        elif isinstance(out, GameOver):
            for p, bot in enumerate(bots):
                bot.on_game_end(driver.view(p), out.result.places)
        if self.observer is not None:
            self.observer(driver, out)

    def answer(self, driver: GameDriver, request: ExchangeRequest | MoveRequest | ChoiceRequest
               ) -> None:
        player = request.player
        bot, view = self.bots[player], driver.view(player)
        if isinstance(request, MoveRequest):
            if self.before_play is not None:
                assert driver.state is not None
                self.before_play(driver.state)
            start = time.perf_counter()
            try:
                move: Move | None = bot.play(view)
            except Exception as exc:
                error = self._failed(player, driver, "move", exc)
                driver.move(None, think_ms=(time.perf_counter() - start) * 1000, error=error,
                            fault=CRASHED)
                return
            think_ms = (time.perf_counter() - start) * 1000
            if isinstance(move, Move):
                driver.move(move, think_ms=think_ms)
            else:
                driver.move(None, think_ms=think_ms, error=_not_a(move, "Move"), fault=MALFORMED)
            return
        try:
            cards: CardSet = (bot.exchange(view, request.count)
                              if isinstance(request, ExchangeRequest)
                              else bot.choose(view, request.choice))
        except Exception as exc:
            error = self._failed(player, driver, "choose", exc)
            if isinstance(request, ExchangeRequest):
                driver.exchange(None, error=error, fault=CRASHED)
            else:
                driver.choose(None, error=error, fault=CRASHED)
            return
        answer: CardSet | None = cards if isinstance(cards, CardSet) else None
        why = None if answer is not None else _not_a(cards, "CardSet")
        fault = None if answer is not None else MALFORMED
        if isinstance(request, ExchangeRequest):
            driver.exchange(answer, error=why, fault=fault)
        else:
            driver.choose(answer, error=why, fault=fault)

    def _failed(self, player: int, driver: GameDriver, what: str, exc: Exception) -> str:
        if player in self.strict:
            raise exc
        log.exception("bot %d failed to %s in game %d", player, what, driver.setup.game)
        return _crash(exc)


def play_local_game(match: MatchState, bots: Sequence[Bot],
                    before_play: BeforePlay | None = None,
                    observer: DriverObserver | None = None) -> GameRecord:
    """Play the match's next game between ``bots``; its record."""
    driver = GameDriver(match)
    table = BotTable(bots, before_play, observer=observer)
    while (out := driver.next()) is not None:
        table.handle(driver, out)
    return driver.record


def play_local_match(rules: RuleSet, seed: int, games: int, bots: Sequence[Bot],
                     on_game: Callable[[GameRecord], None] | None = None,
                     before_play: BeforePlay | None = None,
                     observer: DriverObserver | None = None) -> MatchState:
    """Play ``games`` games between in-process ``bots`` (index = player number); an
    ``observer`` is told every output of the driver (a watched table)."""
    if len(bots) != rules.players:
        raise ValueError(f"{rules.players} bots needed, got {len(bots)}")
    match = MatchState(rules, seed=seed, games=games)
    for p, bot in enumerate(bots):
        bot.on_match_start(p)
    while not match.finished:
        record = play_local_game(match, bots, before_play, observer)
        if on_game is not None:
            on_game(record)
    return match


__all__ = ["BeforePlay", "BotTable", "DriverObserver", "play_local_game", "play_local_match"]
