"""The players on the devkit's extra turn: the last player who played, every other player
having passed, answers its own cards (``owner_answers``, on in ``uecda``).

Positions come from real engine games; the views are the ones stand-ins and local matches get.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from daihinmin.contract.engine_views import ExchangeFacts, engine_view, exchange_facts
from daihinmin.contract.view import GameView, Observed
from daihinmin.driver.faults import OnFault
from daihinmin.players.default_bot import DefaultBot
from daihinmin.players.registry import make_bot
from daihinmin.players.sample_tables import field_facts, follow_cells, hand_grid
from daihinmin.rules.game import GameState
from daihinmin.rules.match import GameSetup, MatchState
from daihinmin.rules.ruleset import UECDA
from daihinmin.server.stand_in import StandIn
from daihinmin.values.moves import PASS, move_from_cells, move_to_cells


@dataclass
class Position:
    game: GameState
    setup: GameSetup
    history: list[Observed]
    facts: list[ExchangeFacts]

    def view(self) -> GameView:
        p = self.game.turn
        return engine_view(self.game, p, self.setup, self.history, self.facts[p])


def owner_answer_positions(count: int, seed: int = 1) -> list[Position]:
    """The first ``count`` owner-answer turns of games between ``default`` bots."""
    found: list[Position] = []
    match = MatchState(UECDA, seed=seed, games=50)
    bots = [DefaultBot() for _ in range(5)]
    while len(found) < count and not match.finished:
        setup = match.setup_game()
        for player in setup.exchange_order():
            setup.give_back(player, None)
        facts = exchange_facts(setup)
        game = setup.start()
        history: list[Observed] = []
        while not game.over:
            if game.field is not None and game.owner == game.turn and len(found) < count:
                found.append(Position(game.copy(), setup, list(history), facts))
            view = engine_view(game, game.turn, setup, history, facts[game.turn])
            move = bots[game.turn].play(view)
            history.append(Observed(game.turn, move, game.field is None))
            game.step(move)
        match.finish_game(game)
    assert len(found) == count
    return found


POSITIONS = owner_answer_positions(40)


def test_every_position_is_an_owner_answer_turn() -> None:
    for pos in POSITIONS:
        view = pos.view()
        assert view.field is not None and view.field_owner == view.player
        others = [p for p in range(5) if p != view.player and view.counts[p] > 0]
        assert all(view.passed >> p & 1 for p in others)


def test_default_follows_its_own_cards_exactly_as_the_sample_client_code() -> None:
    """The C client reads only ``[5][4]``: a field is followed whoever put it there."""
    played = 0
    for pos in POSITIONS:
        view = pos.view()
        assert view.field is not None
        facts = field_facts(move_to_cells(view.field), view.revolution)
        cells = follow_cells(hand_grid(view.hand), facts, view.revolution, view.lock)
        chosen = move_from_cells(cells, max_jokers=1) if cells else PASS
        move = DefaultBot().play(view)
        assert move == (chosen if chosen in view.legal_moves() else PASS)
        played += not move.is_pass
    assert played > 0  # it does play over its own cards


@pytest.mark.parametrize("kind", [OnFault.FALLBACK, OnFault.FORFEIT])
def test_stand_ins_answer_the_extra_turn_legally(kind: OnFault) -> None:
    for pos in POSITIONS[:10]:
        view = pos.view()
        stand_in = StandIn.make(view.player, kind, "default", seed=0)
        move = stand_in.play(view)
        assert move in view.legal_moves()
        if kind is OnFault.FORFEIT:
            assert move == PASS


@pytest.mark.usefixtures("mc_compiled")
def test_mc_searches_the_extra_turn_and_sees_it_in_its_simulator() -> None:
    from daihinmin.players.mc.convert import hand_mask
    from daihinmin.players.mc.observe import knowledge_from_view, public_state
    from daihinmin.players.mc.state import FIELD_INFO, OWNER, OWNER_ANSWERS, TURN

    mc = make_bot("mc", time_ms=0, playouts=64, seed=3)
    for pos in POSITIONS[:12]:
        view = pos.view()
        world = np.array([hand_mask(h) for h in pos.game.hands], dtype=np.int64)
        st = public_state(view, knowledge_from_view(view), world)  # the history replays
        assert st[TURN] == view.player == st[OWNER] and st[FIELD_INFO] != 0
        assert st[OWNER_ANSWERS] == 1
        assert mc.play(view) in view.legal_moves()
