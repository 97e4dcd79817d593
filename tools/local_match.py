"""In-process matches: bots as Python objects, no sockets (the research fast path).

The same engine judges as in the server; each bot sees exactly the :class:`GameView` a
networked client would build from the tables (hand, field, flags, counts, classes, seats,
the turns observed so far, its own exchange facts).

>>> from daihinmin.rules.ruleset import UECDA
>>> from daihinmin.players.util import weakest_cards
>>> from daihinmin.contract.view import Bot
>>> class Lowest(Bot):
...     def play(self, view):
...         return min(view.legal_moves(), key=lambda m: (m.is_pass, m.low))
>>> match = play_local_match(UECDA, seed=3, games=2, bots=[Lowest() for _ in range(5)])
>>> match.game, sum(match.points)
(3, 30)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from daihinmin.contract.engine_views import ExchangeFacts, deal_view, exchange_facts
from daihinmin.contract.engine_views import engine_view as build_view
from daihinmin.contract.view import Bot, Observed
from daihinmin.rules.game import GameState, StepResult
from daihinmin.rules.match import GameResult, GameSetup, MatchState
from daihinmin.rules.ruleset import RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move

log = logging.getLogger(__name__)


@dataclass
class LocalGameRecord:
    """One game as played in process (for logs and tests)."""

    setup: GameSetup
    steps: list[StepResult] = field(default_factory=list)
    think_ms: list[float] = field(default_factory=list)
    result: GameResult | None = None


def run_exchange(setup: GameSetup, bots: Sequence[Bot]) -> None:
    for player in setup.exchange_order():
        count, _lower = setup.owed[player]
        view = deal_view(setup, player, exchange_facts(setup)[player])
        try:
            choice: CardSet | None = bots[player].exchange(view, count)
        except Exception:  # a crashing bot forfeits its choice; the server picks, as on the wire
            log.exception("bot %d failed in the exchange of game %d", player, setup.game)
            choice = None
        setup.give_back(player, choice)


def answer_choices(state: GameState, bots: Sequence[Bot], setup: GameSetup,
                   history: Sequence[Observed], facts: list[ExchangeFacts]) -> None:
    """Ask the mover for each follow-up choice its play opened (7-pass, 10-discard)."""
    while state.pending is not None:
        choice = state.pending
        view = build_view(state, choice.player, setup, history, facts[choice.player])
        try:
            cards: CardSet | None = bots[choice.player].choose(view, choice)
        except Exception:  # a crashing bot gets the default answer (the weakest cards)
            log.exception("bot %d failed to choose in game %d", choice.player, setup.game)
            cards = None
        state.step_choice(cards)


#: called with the live game state just before a bot is asked for its play (research hooks
#: such as an oracle; it must not change the state)
BeforePlay = Callable[[GameState], None]


def play_local_game(match: MatchState, bots: Sequence[Bot],
                    before_play: BeforePlay | None = None) -> LocalGameRecord:
    setup = match.setup_game()
    record = LocalGameRecord(setup)
    before = exchange_facts(setup)
    for p, bot in enumerate(bots):
        bot.on_game_start(deal_view(setup, p, before[p]))
    run_exchange(setup, bots)
    facts = exchange_facts(setup)
    state = setup.start()
    history: list[Observed] = []
    while not state.over:
        mover = state.turn
        view = build_view(state, mover, setup, history, facts[mover])
        if before_play is not None:
            before_play(state)
        start = time.perf_counter()
        try:
            move: Move = bots[mover].play(view)
        except Exception:  # a crashing bot passes this turn, as a bad table would
            log.exception("bot %d failed to move in game %d", mover, setup.game)
            move = PASS
        record.think_ms.append((time.perf_counter() - start) * 1000)
        was_empty = state.field is None
        step = state.step(move)
        record.steps.append(step)
        played = move if step.judgement.accepted else PASS
        obs = Observed(mover, played, trick_cleared_before=was_empty)
        history.append(obs)
        answer_choices(state, bots, setup, history, facts)
        for p, bot in enumerate(bots):
            bot.on_turn(build_view(state, p, setup, history, facts[p]), obs,
                        step.judgement.accepted)
    record.result = match.finish_game(state)
    for p, bot in enumerate(bots):
        bot.on_game_end(build_view(state, p, setup, history, facts[p]), record.result.places)
    return record


def play_local_match(rules: RuleSet, seed: int, games: int, bots: Sequence[Bot],
                     on_game: Callable[[LocalGameRecord], None] | None = None,
                     before_play: BeforePlay | None = None) -> MatchState:
    """Play ``games`` games between in-process ``bots`` (index = player number)."""
    if len(bots) != rules.players:
        raise ValueError(f"{rules.players} bots needed, got {len(bots)}")
    match = MatchState(rules, seed=seed, games=games)
    for p, bot in enumerate(bots):
        bot.on_match_start(p)
    while not match.finished:
        record = play_local_game(match, bots, before_play)
        if on_game is not None:
            on_game(record)
    return match
