"""Opponent models: how a player is assumed to choose its moves in playouts and when its
observed actions weigh the sampled worlds.

- :data:`MODEL_POLICY` -- the playout policy of :mod:`~daihinmin.players.mc.rollout`;
- :data:`MODEL_WEAKEST` -- always the weakest play (the bundled ``weakest`` player): lead
  the weakest sequence, else the weakest group, else the weakest single, keeping the joker
  while anything else can be led; follow with the weakest play (one without the joker
  first); pass only when nothing can be played;
- :data:`MODEL_UNIFORM` -- a uniformly random legal move, the pass included;
- :data:`MODEL_SAMPLE` -- the official UECda sample client, quirks and all
  (:mod:`~daihinmin.players.mc.sample_model`; the bundled ``default`` player).

The player learns which model fits each opponent from finished games (see
:func:`action_log_chances`), where every hand is known afterwards.  The uniform model wins
that contest against any player whose choices the other models miss, random or not; it is
taken only while the player's plays look random by :func:`order_z` too (a player that keeps
to an order of its own, e.g. strongest first, is simulated by the playout policy instead).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import JOKER_BIT, JOKER_BITS, popcount
from .movegen import generate
from .moves import K_GROUP, K_JOKER, K_SEQUENCE, high_of, kind_of, low_of, size_of
from .rollout import choose, model_chance
from .rulebits import LEAD_HOLDS_CLUB3, LEADER_MUST_PLAY
from .sample_model import sample_move, sample_table
from .state import (
    ELEVEN,
    FIELD_INFO,
    HAND,
    LOCK,
    MAX_PLAYERS,
    REV,
    RULES,
    TURN,
    apply_pass,
    apply_play,
    choice_pending,
    new_state,
)

MODEL_POLICY, MODEL_WEAKEST, MODEL_UNIFORM, MODEL_SAMPLE = 0, 1, 2, 3
MODEL_NAMES = ("policy", "weakest", "uniform", "sample")
N_MODELS = 4


@njit(cache=True)
def weakness(info: int, rev: int) -> int:
    """Sort key of a play, weakest first (the lone joker last)."""
    if kind_of(info) == K_JOKER:
        return 99
    if rev:
        return -high_of(info)
    return low_of(info)


@njit(cache=True)
def weakest_choice(st: np.ndarray, p: int, bufc: np.ndarray, bufi: np.ndarray) -> int:
    """The sample strategy's play (index into the buffers) or -1 to pass."""
    n = generate(st[HAND + p], st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi,
                 st[RULES])
    return _weakest_of(st, n, bufc, bufi)


@njit(cache=True)
def _weakest_of(st: np.ndarray, n: int, bufc: np.ndarray, bufi: np.ndarray) -> int:
    field = st[FIELD_INFO]
    rev = st[REV]
    if n == 0:
        return -1
    if field != 0:
        best, best_joker, best_key = -1, 0, 0
        for i in range(n):
            joker = 1 if bufc[i] & JOKER_BIT else 0
            key = weakness(bufi[i], rev)
            if best < 0 or joker < best_joker or (joker == best_joker and key < best_key):
                best, best_joker, best_key = i, joker, key
        return best
    plain = False
    for i in range(n):
        if not bufc[i] & JOKER_BIT:
            plain = True
            break
    for kind in (K_SEQUENCE, K_GROUP, 0):
        best, best_key, best_size = -1, 0, 0
        for i in range(n):
            if plain and bufc[i] & JOKER_BIT:
                continue
            if kind != 0 and kind_of(bufi[i]) != kind:
                continue
            key = weakness(bufi[i], rev)
            size = size_of(bufi[i])
            if best < 0 or key < best_key or (kind != 0 and key == best_key
                                               and size > best_size):
                best, best_key, best_size = i, key, size
        if best >= 0:
            return best
    return -1


@njit(cache=True)
def uniform_choice(st: np.ndarray, p: int, bufc: np.ndarray, bufi: np.ndarray) -> int:
    """A uniformly random legal move: an index, or -1 for the pass."""
    n = generate(st[HAND + p], st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi,
                 st[RULES])
    i = np.random.randint(0, n + pass_option(st, n))
    return -1 if i == n else i


@njit(cache=True)
def pass_option(st: np.ndarray, n: int) -> int:
    """1 if the player to move (with ``n`` legal plays) may pass, else 0: a leader may not
    under ``leader_may_pass=False``, nor at a first lead that must hold the ♣3, while it has
    a play."""
    must = st[RULES] & (LEADER_MUST_PLAY | LEAD_HOLDS_CLUB3)
    return 0 if st[FIELD_INFO] == 0 and must and n > 0 else 1


@njit(cache=True)
def choose_as(model: int, st: np.ndarray, p: int, prm: np.ndarray, bufc: np.ndarray,
              bufi: np.ndarray) -> int:
    """The move of ``p`` (to move) under ``model``: an index into the buffers, or -1."""
    if model == MODEL_WEAKEST:
        return weakest_choice(st, p, bufc, bufi)
    if model == MODEL_UNIFORM:
        return uniform_choice(st, p, bufc, bufi)
    if model == MODEL_SAMPLE:
        return sample_choice(st, p, bufc, bufi)
    return choose(st, p, prm, bufc, bufi)


@njit(cache=True)
def sample_choice(st: np.ndarray, p: int, bufc: np.ndarray, bufi: np.ndarray) -> int:
    """The sample client's move (index into the buffers, or -1 to pass), as the bundled
    ``default`` bot makes it under any rules: the client reads only the revolution (not an
    11-back); a move the rules do not allow is a pass, or, where a leader must play, the
    sample strategy's lead (``players.default_bot``)."""
    return sample_choice_read(st, p, st[REV] ^ st[ELEVEN], bufc, bufi)


@njit(cache=True)
def sample_choice_read(st: np.ndarray, p: int, read_rev: int, bufc: np.ndarray,
                       bufi: np.ndarray) -> int:
    """:func:`sample_choice` with the order the client read the field in given (``read_rev``:
    a client that follows the game from the wire may read it otherwise than the table)."""
    hand = st[HAND + p]
    revolution = st[REV] ^ st[ELEVEN]
    if st[RULES] == 0 and popcount(hand & JOKER_BITS) < 2:  # uecda: always a legal move
        cards, info = sample_move(hand, st[FIELD_INFO], revolution, read_rev, st[LOCK])
        if info == 0:
            return -1
        bufc[0] = cards
        bufi[0] = info
        return 0
    # other rules judge the client's table themselves (e.g. a run answering by its lowest
    # rank, sequence_order=above_low, may overlap the field's top): is it a legal play?
    cards, info = sample_table(hand, st[FIELD_INFO], revolution, read_rev, st[LOCK])
    n = generate(hand, st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi, st[RULES])
    if info != 0:
        for i in range(n):
            if bufc[i] == cards and bufi[i] == info:
                return i
    if pass_option(st, n):
        return -1
    return _weakest_of(st, n, bufc, bufi)


@njit(cache=True)
def move_chance(model: int, st: np.ndarray, p: int, prm: np.ndarray, cards: int,
                eps: float, bufc: np.ndarray, bufi: np.ndarray) -> float:
    """Chance that ``p`` (to move) plays ``cards`` (0: passes) under ``model``, mixed with
    ``eps`` of uniform choice (the uniform model is exact)."""
    if model == MODEL_POLICY:
        return model_chance(st, p, prm, cards, eps, bufc, bufi)
    if model == MODEL_UNIFORM:
        n = generate(st[HAND + p], st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi,
                     st[RULES])
        return 1.0 / (n + pass_option(st, n))
    n = generate(st[HAND + p], st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi,
                 st[RULES])
    if model == MODEL_SAMPLE:
        # the field was read in this order too (the bitboard state keeps no older one)
        i = sample_choice(st, p, bufc, bufi)
        chosen = 0 if i < 0 else bufc[i]
    else:
        i = _weakest_of(st, n, bufc, bufi)
        chosen = 0 if i < 0 else bufc[i]  # 0: the pass
    return (1.0 - eps) * (1.0 if chosen == cards else 0.0) + eps / (n + pass_option(st, n))


@njit(cache=True)
def play_rank(st: np.ndarray, p: int, cards: int, info: int, bufc: np.ndarray,
              bufi: np.ndarray) -> tuple[int, int]:
    """(rank, n): where the play ``(cards, info)`` of ``p`` stands among its ``n`` legal plays
    ordered weakest first (ties in generation order); rank -1 if it is not among them."""
    n = generate(st[HAND + p], st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi,
                 st[RULES])
    j = -1
    for i in range(n):
        if bufc[i] == cards and bufi[i] == info:
            j = i
            break
    if j < 0:
        return -1, n
    key = weakness(info, st[REV])
    rank = 0
    for i in range(n):
        k = weakness(bufi[i], st[REV])
        if k < key or (k == key and i < j):
            rank += 1
    return rank, n


@njit(cache=True)
def action_log_chances(start: np.ndarray, seats: np.ndarray, first: int, owner_answers: bool,
                       hist_player: np.ndarray, hist_cards: np.ndarray, hist_info: np.ndarray,
                       prm: np.ndarray, eps: np.ndarray, bufc: np.ndarray,
                       bufi: np.ndarray, order: np.ndarray, rules_word: int = 0,
                       prev_top: int = -1) -> np.ndarray:
    """Replay a whole game from its starting hands; return, per player and model, the sum of
    the log-chances of that player's actions (NaN everywhere if the game does not replay).

    ``order`` (players x 2) gains, per player, the sum over its plays (with two or more to
    choose from) of the play's rank among the legal plays, weakest first, less the mean rank
    of a uniform choice, and the variance of that rank under a uniform choice: a random
    player's sum stays within a few standard deviations of 0 (see :func:`order_z`)."""
    out = np.zeros((MAX_PLAYERS, N_MODELS))
    st = new_state(start, seats, first, owner_answers, rules_word, prev_top)
    for t in range(hist_player.shape[0]):
        p = hist_player[t]
        if st[TURN] != p or choice_pending(st):  # (the history does not hold the choices)
            out[:, :] = np.nan
            return out
        for m in range(N_MODELS):
            out[p, m] += np.log(move_chance(m, st, p, prm, hist_cards[t], eps[m], bufc,
                                            bufi))
        if hist_info[t] != 0:
            rank, n = play_rank(st, p, hist_cards[t], hist_info[t], bufc, bufi)
            if rank >= 0 and n >= 2:
                order[p, 0] += rank - (n - 1) / 2.0
                order[p, 1] += (n * n - 1) / 12.0
        if hist_info[t] == 0:
            apply_pass(st)
        else:
            apply_play(st, hist_cards[t], hist_info[t])
    return out


ORDER_Z = 4.0  # |z| above which a player's plays keep to an order (are not random)


def order_z(order_row: np.ndarray) -> float:
    """The z-score of a player's accumulated play ranks (a row of ``order`` of
    :func:`action_log_chances`): near 0 for a uniformly random player, large for one that
    prefers weak (negative) or strong (positive) plays.

    >>> order_z(np.array([0.0, 0.0])), order_z(np.array([-30.0, 25.0]))
    (0.0, -6.0)
    """
    return float(order_row[0] / np.sqrt(order_row[1])) if order_row[1] > 0 else 0.0
