"""Compile (or load from Numba's cache) everything the player runs, with a tiny workload."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np
from daihinmin.contract.engine_views import ExchangeFacts, engine_view
from daihinmin.contract.view import GameView, Observed
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, UECDA
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS

from .bits import JOKER_BIT
from .endgame import SolverScratch, solve_two
from .models import MODEL_POLICY, MODEL_WEAKEST
from .moves import K_SINGLE, NO_JOKER_ROW, pack
from .plays import SEVEN
from .rulebits import SEVEN_PASS
from .search import choice_batch
from .state import N_OUT, apply_play, new_state

if TYPE_CHECKING:
    from .bot import MCBot


def _view_after(steps: int, seed: int) -> GameView:
    """A view after ``steps`` random moves (a negative count: at the end of the game)."""
    match = MatchState(UECDA, seed=seed, games=1)
    game = match.setup_game().start()
    rng = random.Random(seed)
    history = []
    while steps != 0 and not game.over:
        steps -= 1
        was_empty = game.field is None
        player = game.turn
        moves = game.legal_moves()
        move = rng.choice(moves[:-1] or moves)
        game.step(move)
        history.append(Observed(player, move, was_empty))
    p = game.turn
    return GameView(player=p, hand=game.hands[p], field=game.field, turn_player=p,
                    revolution=game.revolution, eleven_back=False, lock=game.lock,
                    counts=game.counts(), classes=(0, 1, 2, 3, 4), seats=game.seats,
                    my_turn=True, rules=UECDA, history=tuple(history),
                    exchange_given=CardSet(0))


def _pile_view(seed: int) -> GameView | None:
    """A thirteenth_floor view after a few moves and at least one draw, of a player with a
    choice (None if the game went otherwise): the pile sampler's workload."""
    match = MatchState(THIRTEENTH_FLOOR, seed=seed, games=1)
    setup = match.setup_game()
    game = setup.start()
    rng = random.Random(seed)
    history: list[Observed] = []
    drew = False
    while not game.over and len(history) < 12:
        view = engine_view(game, game.turn, setup, history, ExchangeFacts())
        if drew and len(view.legal_moves()) > 1 and game.pending is None:
            return view
        legal = game.legal_moves()
        move = PASS if PASS in legal and rng.random() < 0.5 else rng.choice(legal)
        drew |= move.is_pass
        was_empty = game.field is None
        r = game.step(move)
        history.append(Observed(r.player, move if r.judgement.accepted else PASS, was_empty))
    return None


def run_warm_up(MCBot: type[MCBot]) -> None:
    """Play the tiny workloads with players of class ``MCBot`` (passed in: the player's
    module calls this, so this module does not import it)."""
    bot = MCBot(time_ms=0, playouts=24, worlds=4, proposals=8, warm=False, seed=0)
    for steps in (0, 1, 5):
        view = _view_after(steps, seed=steps)
        if len(view.legal_moves()) > 1:
            bot.play(view)
    # with learned opponent models the sampler scores worlds locally and refines them
    bot.models[:] = MODEL_WEAKEST
    for seed in range(8):
        view = _view_after(6, seed=seed)
        if len(view.legal_moves()) > 1:
            bot.play(view)
            break
    bot.models[:] = MODEL_POLICY
    # a draw-pile game: its worlds are weighed by the opponents' record (pile_worlds)
    piles = MCBot(time_ms=0, playouts=24, worlds=4, proposals=8, warm=False, seed=0,
                  pile_history=True, pile_refine_steps=2)
    for seed in range(8):
        pile = _pile_view(seed)
        if pile is not None:
            piles.play(pile)
            piles.on_game_end(pile, None)  # a pile game's record judged (pile_model_evidence)
            break
    deal = _view_after(0, seed=9)
    upper = GameView(player=0, hand=deal.hand, field=None, turn_player=-1, revolution=False,
                     eleven_back=False, lock=False, counts=(11, 11, 11, 10, 10),
                     classes=tuple(range(UECDA.players)), seats=deal.seats, rules=UECDA)
    bot.exchange(upper, 2)
    bot.on_game_end(_view_after(-1, seed=3), None)
    # two players left: the root solver runs on the candidates (apply_move from Python),
    # in rounds on a clock
    ending = GameView(player=0, hand=CardSet.parse("S8 D3 H4"), field=None, turn_player=0,
                      revolution=False, eleven_back=False, lock=False, counts=(3, 2, 0, 0, 0),
                      classes=(0,) * UECDA.players, seats=deal.seats, my_turn=True,
                      rules=UECDA)
    for timed in (bot, MCBot(time_ms=1000, playouts=24, worlds=4, proposals=8, warm=False,
                             seed=0)):
        timed.play(ending)
    # a 7-pass choice (MCBot.choose's search): ♠7 played, ♠3 or ♠4 to give
    seven = 1 << (4 * SEVEN)
    hands = np.array([seven | 0b10001 << 4, 0b11 << 12, 1 << 16, 1 << 24, 1 << 28, 0],
                     dtype=np.int64)
    st = new_state(hands, np.arange(UECDA.players, dtype=np.int64), 0, True, SEVEN_PASS)
    apply_play(st, seven, pack(K_SINGLE, 1, SEVEN, SEVEN, 1, NO_JOKER_ROW, 0))
    ws = bot.ws
    cand = np.array([1 << 4, 1 << 8], dtype=np.int64)
    choice_batch(st[None, :].copy(), cand, np.zeros(2), np.zeros(2), np.zeros(2, dtype=np.int64),
                 0, 4, bot.models, bot.prm, 0.5, 1, ws.state, ws.bufc, ws.bufi,
                 ws.solver.arrays())
    # a two-player ending for the exact solver
    hands = np.array([0b1011 << 8, (0b0100 << 8) | int(JOKER_BIT), 0, 0, 0], dtype=np.int64)
    st = new_state(hands, np.arange(UECDA.players, dtype=np.int64), 0, True)
    st[N_OUT] = 3
    s = SolverScratch()
    solve_two(st, 0, 1000, s.arrays())
