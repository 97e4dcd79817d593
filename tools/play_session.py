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
from collections.abc import Sequence
from dataclasses import dataclass, field

from daihinmin.client.view import Bot, GameView, Observed
from daihinmin.players.human import HumanBot
from daihinmin.players.human_render import cards_text
from daihinmin.protocol.cards import EMPTY, CardSet
from daihinmin.protocol.moves import PASS, Move
from daihinmin.rules.choices import ChoiceKind, PendingChoice
from daihinmin.rules.events import EventKind
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameResult, GameSetup, MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.rules.scoring import lower_is_better
from rich.table import Table
from rich.text import Text

log = logging.getLogger(__name__)


@dataclass
class Seat:
    bot: Bot
    name: str
    given: CardSet = EMPTY  # exchange facts of the current game
    received: CardSet = EMPTY


def classes_of(setup: GameSetup) -> tuple[int, ...]:
    return setup.classes if setup.classes is not None else (0,) * setup.rules.players


def engine_view(state: GameState, player: int, setup: GameSetup, history: Sequence[Observed],
                seat: Seat, pending: PendingChoice | None = None) -> GameView:
    """What ``player`` sees now (``pending`` only when the choice is theirs)."""
    return GameView(
        player=player, hand=state.hands[player], field=state.field, turn_player=state.turn,
        revolution=state.revolution, eleven_back=state.eleven_back, lock=state.lock,
        counts=state.counts(), classes=classes_of(setup), seats=state.seats,
        my_turn=state.turn == player and not state.over, rules=state.rules, game=setup.game,
        history=tuple(history), exchange_given=seat.given, exchange_received=seat.received,
        passed=state.passed, field_owner=state.owner if state.field is not None else None,
        geki=state.geki, opening=state.lead_must_contain, pending=pending,
        pile_count=len(state.pile), direction=state.direction)


def deal_view(setup: GameSetup, player: int, seat: Seat) -> GameView:
    n = setup.rules.players
    return GameView(player=player, hand=setup.deal_hand(player), field=None, turn_player=-1,
                    revolution=False, eleven_back=False, lock=False,
                    counts=tuple(len(setup.dealt[p]) for p in range(n)),
                    classes=classes_of(setup), seats=setup.seats, rules=setup.rules,
                    game=setup.game, exchange_given=seat.given, exchange_received=seat.received,
                    pile_count=len(setup.pile))


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
        for seat in self.seats:
            seat.given = seat.received = EMPTY
        for p, seat in enumerate(self.seats):
            seat.bot.on_game_start(deal_view(setup, p, seat))
        self.exchange(setup)
        state = setup.start()
        if state.lead_must_contain:
            self.person.say(f"p{state.turn} {self.names[state.turn]} leads and must play "
                            f"{cards_text(state.lead_must_contain).plain}.")
        history: list[Observed] = []
        while not state.over:
            if state.pending is not None:
                self.answer_choice(state, setup, history)
            else:
                self.take_turn(state, setup, history)
        result = self.match.finish_game(state)
        for p, seat in enumerate(self.seats):
            seat.bot.on_game_end(engine_view(state, p, setup, history, seat), result.places)
        if state.scores is not None:
            self.person.say("Scores (lower is better): " + ", ".join(
                f"p{p} {s}" for p, s in enumerate(state.scores)))
        return result

    def exchange(self, setup: GameSetup) -> None:
        for t in setup.transfers:
            if t.automatic:
                self.seats[t.giver].given = t.cards
                self.seats[t.receiver].received = t.cards
        for player in setup.exchange_order():
            count = setup.give_count(player)
            seat = self.seats[player]
            choice: CardSet | None = seat.bot.exchange(deal_view(setup, player, seat), count)
            t = setup.give_back(player, choice)
            seat.given = t.cards
            self.seats[t.receiver].received = t.cards
        me = self.seats[self.human]
        if me.given or me.received:
            self.person.say(Text("Exchange: you gave ").append_text(cards_text(me.given))
                            .append(" and received ").append_text(cards_text(me.received)))

    def take_turn(self, state: GameState, setup: GameSetup, history: list[Observed]) -> None:
        mover = state.turn
        seat = self.seats[mover]
        try:
            move: Move = seat.bot.play(engine_view(state, mover, setup, history, seat))
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
            other.bot.on_turn(engine_view(state, p, setup, history, other), observed,
                              step.judgement.accepted)
        self.person.note_events(step.events, self.names)
        if mover != self.human and self.delay:
            time.sleep(self.delay)

    def answer_choice(self, state: GameState, setup: GameSetup,
                      history: list[Observed]) -> None:
        choice = state.pending
        assert choice is not None
        seat = self.seats[choice.player]
        view = engine_view(state, choice.player, setup, history, seat, pending=choice)
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


__all__ = ["PlaySession", "Seat", "deal_view", "engine_view"]
