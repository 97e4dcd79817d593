"""A person against bundled bots in one process, driven straight from the engine.

The person's seat is a :class:`~daihinmin.players.human.HumanBot`; every seat gets the same
:class:`GameView` a 20260 client would build (hand, field, flags, counts, classes, seats,
history, pending choice, draw pile, direction), so the bots and the person see exactly
what they would over the wire.  Besides each play, the person is told what the engine says
happened (8-cuts, revolutions, gives, draws, players going out).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from daihinmin.contract.engine_views import (
    ExchangeFacts,
    deal_view,
    engine_view,
    exchange_facts,
)
from daihinmin.contract.view import Bot, Observed
from daihinmin.players.human import HumanBot
from daihinmin.players.human_render import cards_text
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameResult, GameSetup, MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.rules.scoring import lower_is_better
from daihinmin.tools.local_match import run_exchange
from daihinmin.values.cards import EMPTY, CardSet
from daihinmin.values.moves import PASS, Move
from rich.table import Table
from rich.text import Text

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
        setup = self.match.setup_game()
        before = exchange_facts(setup)
        for p, seat in enumerate(self.seats):
            seat.bot.on_game_start(deal_view(setup, p, before[p]))
        facts = self.exchange(setup)
        state = setup.start()
        if state.lead_must_contain:
            self.person.say(f"p{state.turn} {self.names[state.turn]} leads and must play "
                            f"{cards_text(state.lead_must_contain).plain}.")
        history: list[Observed] = []
        while not state.over:
            if state.pending is not None:
                self.answer_choice(state, setup, history, facts)
            else:
                self.take_turn(state, setup, history, facts)
        result = self.match.finish_game(state)
        for p, seat in enumerate(self.seats):
            seat.bot.on_game_end(engine_view(state, p, setup, history, facts[p]),
                                 result.places)
        if state.scores is not None:
            self.person.say("Scores (lower is better): " + ", ".join(
                f"p{p} {s}" for p, s in enumerate(state.scores)))
        return result

    def exchange(self, setup: GameSetup) -> list[ExchangeFacts]:
        """The upper classes give back; every seat's exchange facts afterwards (as its tables
        would show them).  The person is told both sides of their own exchange.  A bot that
        fails loses its choice, as in any local match; the person's quit (a
        ``KeyboardInterrupt``) still ends the game."""
        run_exchange(setup, [seat.bot for seat in self.seats])
        gave = received = EMPTY
        for t in setup.transfers:
            if t.giver == self.human:
                gave = gave | t.cards
            if t.receiver == self.human:
                received = received | t.cards
        if gave or received:
            self.person.say(Text("Exchange: you gave ").append_text(cards_text(gave))
                            .append(" and received ").append_text(cards_text(received)))
        return exchange_facts(setup)

    def take_turn(self, state: GameState, setup: GameSetup, history: list[Observed],
                  facts: list[ExchangeFacts]) -> None:
        mover = state.turn
        seat = self.seats[mover]
        try:
            move: Move = seat.bot.play(engine_view(state, mover, setup, history, facts[mover]))
        except Exception:  # a failing bot passes, as a bad table does on the wire
            if mover == self.human:
                raise
            log.exception("bot %d failed to move", mover)
            move = PASS
        was_empty = state.field is None
        step = state.step(move)
        played = move if step.judgement.accepted else PASS
        observed = Observed(mover, played, trick_cleared_before=was_empty)
        history.append(observed)
        for p, other in enumerate(self.seats):
            other.bot.on_turn(engine_view(state, p, setup, history, facts[p]), observed,
                              step.judgement.accepted)
        self.person.note_events(step.events, self.names)
        if mover != self.human and self.delay:
            time.sleep(self.delay)

    def answer_choice(self, state: GameState, setup: GameSetup, history: list[Observed],
                      facts: list[ExchangeFacts]) -> None:
        choice = state.pending
        assert choice is not None
        seat = self.seats[choice.player]
        view = engine_view(state, choice.player, setup, history, facts[choice.player])
        try:
            cards: CardSet | None = seat.bot.choose(view, choice)
        except Exception:
            if choice.player == self.human:
                raise
            log.exception("bot %d failed to choose", choice.player)
            cards = None
        result = state.step_choice(cards)
        self.person.say(Text("   ").append_text(self.choice_line(choice, result.cards)))
        self.person.note_events([e for e in result.events
                                 if e.kind not in (EventKind.GIVE, EventKind.DISCARD)],
                                self.names)

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
            line.append(f"{len(cards)} card(s)")
        return line.append(f" to {who(choice.receiver)}")

    # --- results ------------------------------------------------------------------------------
    def show_standings(self, result: GameResult) -> None:
        match = self.match
        lower = lower_is_better(self.rules)
        table = Table(title=f"Standings after game {result.game} of {self.games}"
                      + (" (fewest points lead)" if lower else ""))
        for column in ("rank", "player", "this game", "points", "last place"):
            table.add_column(column)
        for rank, p in enumerate(match.standings(), 1):
            who = Text(f"p{p} {self.names[p]}", style="bold green" if p == self.human else "")
            table.add_row(str(rank), who, f"{result.points[p]:+d}", str(match.points[p]),
                          str(result.places[p] + 1))
        self.person.say(table)
        if match.finished:
            best = match.standings()[0]
            self.person.say(Text(f"Match over: p{best} {self.names[best]} wins.", style="bold"))


__all__ = ["PlaySession", "Seat"]
