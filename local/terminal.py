"""A person against bundled bots in one process, driven straight from the engine.

The person's seat is a :class:`~daihinmin.players.human.HumanBot`.  The game runs on the
game driver (:mod:`daihinmin.driver.game`) exactly as an in-process match does
(:class:`~daihinmin.local.runner.BotTable`), so every seat gets the same :class:`GameView`
a 20260 client would build (hand, field, flags, counts, classes, seats, history, pending
choice, draw pile, direction) and the same callbacks in the same order (``on_turn`` after
the turn's 7-pass/10-discard choices are answered).  Besides each play, the person is told
what the engine says happened (8-cuts, revolutions, gives, draws, players going out).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from daihinmin.contract.view import Bot
from daihinmin.driver.game import ExchangeDone, GameDriver, TurnDone
from daihinmin.players.human import HumanBot
from daihinmin.players.human_render import cards_text
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.events import EventKind
from daihinmin.rules.match import GameResult, MatchState, Transfer
from daihinmin.rules.ruleset import RuleSet
from daihinmin.rules.scoring import lower_is_better
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.words import counted
from rich.table import Table
from rich.text import Text

from .runner import BotTable

log = logging.getLogger(__name__)


@dataclass
class Seat:
    bot: Bot
    name: str


@dataclass
class PlaySession:
    """One match: ``seats[i]`` plays as player ``i``; ``human`` is the person's seat."""

    rules: RuleSet
    seed: int
    games: int
    seats: list[Seat]
    human: int
    delay: float = 0.0  # seconds to pause after each bot move, so a person can follow
    match: MatchState = field(init=False)

    def __post_init__(self) -> None:
        if len(self.seats) != self.rules.players:
            raise ValueError(f"{self.rules.players} seats needed, got {len(self.seats)}")
        self.match = MatchState(self.rules, seed=self.seed, games=self.games)

    @property
    def person(self) -> HumanBot:
        bot = self.seats[self.human].bot
        assert isinstance(bot, HumanBot)
        return bot

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def run(self) -> MatchState:
        for p, seat in enumerate(self.seats):
            seat.bot.on_match_start(p)
        while not self.match.finished:
            result = self.play_game()
            self.show_standings(result)
        return self.match

    # --- one game -----------------------------------------------------------------------------
    def play_game(self) -> GameResult:
        """One game over the driver: the bots answer and watch it as in any in-process match;
        the person is also told the exchange, the lead, each play's events and each choice."""
        driver = GameDriver(self.match)
        table = BotTable([seat.bot for seat in self.seats], strict={self.human})
        while (out := driver.next()) is not None:
            table.handle(driver, out)
            if isinstance(out, ExchangeDone):
                self.tell_exchange(out.transfers, driver)
            elif isinstance(out, TurnDone):
                self.tell_turn(out)
        result = driver.result
        assert result is not None and driver.state is not None
        if driver.state.scores is not None:
            self.person.say("Scores (lower is better): " + ", ".join(
                f"p{p} {s}" for p, s in enumerate(driver.state.scores)))
        return result

    def tell_exchange(self, transfers: Sequence[Transfer], driver: GameDriver) -> None:
        """Both sides of the person's own exchange, and what the first lead must hold."""
        gave = received = EMPTY
        for t in transfers:
            if t.giver == self.human:
                gave = gave | t.cards
            if t.receiver == self.human:
                received = received | t.cards
        if gave or received:
            self.person.say(Text("Exchange: you gave ").append_text(cards_text(gave))
                            .append(" and received ").append_text(cards_text(received)))
        state = driver.state
        assert state is not None
        if state.lead_must_contain:
            self.person.say(f"p{state.turn} {self.names[state.turn]} leads and must play "
                            f"{cards_text(state.lead_must_contain).plain}.")

    def tell_turn(self, turn: TurnDone) -> None:
        """What the engine says the play did, then each choice it opened."""
        self.person.note_events(turn.step.events, self.names)
        for result in turn.choices:
            self.person.say(Text("   ").append_text(self.choice_line(result.choice,
                                                                     result.cards)))
            self.person.note_events([e for e in result.events
                                     if e.kind not in (EventKind.GIVE, EventKind.DISCARD)],
                                    self.names)
        if turn.player != self.human and self.delay:
            time.sleep(self.delay)

    def choice_line(self, choice: PendingChoice, cards: CardSet) -> Text:
        """What the person may know of a give or discard: the cards when they are involved
        (discards are face up), else how many."""
        def who(p: int) -> str:
            return "you" if p == self.human else f"p{p} {self.names[p]}"

        shown = cards_text(cards) if cards else Text("nothing")
        if choice.kind is ChoiceKind.DISCARD:
            return Text(f"{who(choice.player)} discarded ").append_text(shown)
        line = Text(f"{who(choice.player)} gave ")
        if self.human in (choice.player, choice.receiver):
            line.append_text(shown)
        else:
            line.append(counted(len(cards), "card"))
        return line.append(f" to {who(choice.receiver)}")

    # --- results ------------------------------------------------------------------------------
    def show_standings(self, result: GameResult) -> None:
        match = self.match
        lower = lower_is_better(self.rules)
        table = Table(title=f"Standings after game {result.game} of {self.games}"
                      + (" (fewest points lead)" if lower else ""))
        for column in ("rank", "player", "place this game", "points this game", "points"):
            table.add_column(column)
        for rank, p in enumerate(match.standings(), 1):
            who = Text(f"p{p} {self.names[p]}", style="bold green" if p == self.human else "")
            table.add_row(str(rank), who, str(result.places[p] + 1), f"{result.points[p]:+d}",
                          str(match.points[p]))
        self.person.say(table)
        if match.finished:
            best = match.standings()[0]
            self.person.say(Text(f"Match over: p{best} {self.names[best]} wins.", style="bold"))


__all__ = ["PlaySession", "Seat"]
