"""Playouts: the game played on from a position until one player's place is known.

Every player moves by its model (:mod:`~daihinmin.players.mc.models`); the player the playout
is run for always moves by the playout policy.  The playout stops as soon as that player goes
out (its place is then fixed), or when it is one of the last two and the exact two-player
solver settles the race (not while passes still draw: its table keys no pile).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .endgame import UNKNOWN, solve_two
from .learned import learned_choose
from .models import MODEL_POLICY, choose_as
from .rollout import P_FIRST, P_PLACE, P_SELF, P_SOLVE_NODES, P_WEIGHTS, choice_cards
from .rulebits import CARD_SCORING, CHOICE_BITS
from .state import (
    HAND,
    N_OUT,
    N_SEATS,
    OVER,
    RULES,
    TURN,
    apply_choice,
    apply_pass,
    apply_play,
    choice_pending,
    draws_ahead,
    n_active,
    place_of,
    place_value,
    score_value,
)


@njit(cache=True)
def own_choice(st: np.ndarray, me: int, prm: np.ndarray, bufc: np.ndarray,
               bufi: np.ndarray) -> int:
    """``me``'s move (to move) in a playout: by the playout policy, or by the learned one
    when the parameters say so; an index into the buffers, or -1 to pass."""
    if prm[P_SELF] > 0.0:
        return learned_choose(st, me, prm, prm[P_WEIGHTS:], bufc, bufi)
    return choose_as(MODEL_POLICY, st, me, prm, bufc, bufi)


@njit(cache=True)
def step(st: np.ndarray, me: int, models: np.ndarray, prm: np.ndarray, bufc: np.ndarray,
         bufi: np.ndarray) -> None:
    """The player to move acts by its model (``me`` by the playout policy, or by the learned
    one when the parameters say so)."""
    p = st[TURN]
    if st[RULES] & CHOICE_BITS and choice_pending(st):  # every model answers by the policy
        apply_choice(st, choice_cards(st, p))
        return
    if p == me:
        i = own_choice(st, me, prm, bufc, bufi)
    else:
        i = choose_as(models[p], st, p, prm, bufc, bufi)
    if i < 0:
        apply_pass(st)
    else:
        apply_play(st, bufc[i], bufi[i])


@njit(cache=True)
def card_value(st: np.ndarray, me: int, prm: np.ndarray) -> float:
    """The value of a finished card-scoring game to ``me``: the card score's value
    (:func:`~daihinmin.players.mc.state.score_value`) mixed with the place's (share
    ``prm[P_PLACE]``) and with going out first (share ``prm[P_FIRST]``: the player count
    for first place, else 1).  Every mix stays within 1..players, as the search expects."""
    w_place = prm[P_PLACE]
    w_first = prm[P_FIRST]
    value = 0.0
    if w_place + w_first < 1.0:
        value = (1.0 - w_place - w_first) * score_value(st, me)
    if w_place > 0.0 or w_first > 0.0:
        place = place_of(st, me)
        value += w_place * place_value(st, place)
        value += w_first * (float(st[N_SEATS]) if place == 0 else 1.0)
    return value


@njit(cache=True)
def playout(st: np.ndarray, me: int, models: np.ndarray, prm: np.ndarray, bufc: np.ndarray,
            bufi: np.ndarray, solver: tuple[np.ndarray, ...]) -> float:
    """Play ``st`` on until ``me``'s place is known; return its value
    (:func:`~daihinmin.players.mc.state.place_value`: players - place; under card scoring
    the game is played to its end and valued by :func:`card_value`: the score mapped by
    :func:`~daihinmin.players.mc.state.score_value`, mixed with the place as ``prm`` says).

    ``st`` is modified.  ``solver`` is the two-player solver's work space
    (:meth:`~daihinmin.players.mc.endgame.SolverScratch.arrays`).
    """
    cards = st[RULES] & CARD_SCORING != 0
    # the solver races for places (not with choices: it does not search them)
    budget = 0 if cards or st[RULES] & CHOICE_BITS else int(prm[P_SOLVE_NODES])
    while True:
        if cards:
            if st[OVER] != 0:
                return card_value(st, me, prm)
        elif st[OVER] != 0 or st[HAND + me] == 0:
            return float(place_value(st, place_of(st, me)))
        if budget > 0 and n_active(st) == 2 and not draws_ahead(st):
            won = solve_two(st, me, budget, solver)
            if won != UNKNOWN:
                return float(place_value(st, st[N_OUT] + (0 if won else 1)))
            budget = 0  # too big to solve: play it out
        step(st, me, models, prm, bufc, bufi)
