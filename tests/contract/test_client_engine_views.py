"""Views built from the engine show what the wire would: the draw pile at the deal, and a
pending choice only to the player it is asked of."""

from __future__ import annotations

import random

from daihinmin.contract.engine_views import ExchangeFacts, deal_view, engine_view, exchange_facts
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import PRESETS, ruleset_from


def test_deal_view_shows_the_draw_pile() -> None:
    match = MatchState(PRESETS["thirteenth_floor"], seed=3, games=2)
    setup = match.setup_game()
    facts = exchange_facts(setup)
    assert len(setup.pile) > 0
    for p in range(setup.rules.players):
        assert deal_view(setup, p, facts[p]).pile_count == len(setup.pile)


def test_pending_choice_is_shown_only_to_its_player() -> None:
    rules = ruleset_from("uecda", ["seven_pass=true", "ten_discard=true"])
    rng = random.Random(5)
    seen = 0
    for game in range(20):
        match = MatchState(rules, seed=game, games=1)
        setup = match.setup_game()
        for player in setup.exchange_order():
            setup.give_back(player, None)
        state = setup.start()
        while not state.over:
            if state.pending is not None:
                asked = state.pending.player
                for p in range(rules.players):
                    view = engine_view(state, p, setup, (), ExchangeFacts())
                    assert view.pending == (state.pending if p == asked else None)
                seen += 1
                state.step_choice(None)
                continue
            state.step(rng.choice(state.legal_moves()))
    assert seen > 0  # the random games did ask for choices
