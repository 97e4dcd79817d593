"""Determinisation: sampling the hidden hands consistent with what one player has seen.

A *world* gives every player a full hand.  Worlds are drawn in two stages:

1. *Proposal*: the unseen cards (not in my hand, not played) are dealt at random to the other
   players so that each gets its current card count, and cards whose holder is known stay
   with it: the cards I handed over in the exchange (still unplayed), and the ♦3, which the
   first player of the game held.
2. *Weights* (sampling-importance-resampling): each proposal is weighted by

   - the exchange: a lower class gave its *strongest* cards.  The weight counts the ways the
     exchange could have produced the world (which cards went up, and, when I am not part of
     the pair, which cards came back), so worlds where a daihinmin kept a card stronger than
     everything the daifugo holds get weight 0;
   - the observed plays: how likely each opponent's recent actions were in that world under
     its model (:mod:`~daihinmin.players.mc.models`; a share ``eps`` of uniform choice is mixed
     in, so no action is impossible), raised to a power ``beta`` <= 1, halved further while
     fewer than a quarter of the kept worlds would stay effective (tempering: a sharp model
     must not collapse the sample onto a few worlds).

   Then ``count`` worlds are drawn in proportion to the weights (systematic resampling).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import JOKER_BIT, REAL_CARDS, cards_above, highest_bit, lowest_bit, nibble, popcount
from .models import move_chance
from .state import HAND, N_PLAYERS, TURN, apply_pass, apply_play, new_state

MODE_NEITHER, MODE_UPPER, MODE_LOWER = 0, 1, 2
JOKER_KEY = 1000
NO_CARD = -1


@njit(cache=True)
def max_key(mask: int) -> int:
    """Exchange strength of the strongest card (joker, then rank, ties ♠ ♥ ♦ ♣)."""
    if mask & JOKER_BIT:
        return JOKER_KEY
    real = mask & REAL_CARDS
    if real == 0:
        return NO_CARD
    r = highest_bit(real) >> 2
    s = lowest_bit(nibble(real, r))
    return 4 * r + 3 - s


@njit(cache=True)
def key_card(key: int) -> int:
    """The card mask of an exchange-strength key."""
    if key == JOKER_KEY:
        return JOKER_BIT
    return np.int64(1) << np.int64(4 * (key >> 2) + 3 - (key & 3))


@njit(cache=True)
def count_above(mask: int, key: int) -> int:
    """How many cards of ``mask`` are stronger (exchange order) than the card of ``key``."""
    if key == JOKER_KEY:
        return 0
    if key == NO_CARD:
        return popcount(mask)
    r = key >> 2
    s = 3 - (key & 3)
    ties = ((np.int64(1) << np.int64(s)) - np.int64(1)) << np.int64(4 * r)
    return popcount(mask & (cards_above(r) | JOKER_BIT | ties))


@njit(cache=True)
def _choose2(k: int) -> int:
    return k * (k - 1) // 2 if k >= 2 else 0


@njit(cache=True)
def _choose(k: int, n: int) -> int:
    if n == 1:
        return k if k > 0 else 0
    return _choose2(k)


@njit(cache=True)
def pair_weight(upper_all: int, lower_all: int, n: int) -> int:
    """Ways a lower class holding ``lower_all`` after the exchange could have given its
    ``n`` strongest cards to an upper class holding ``upper_all``, the upper returning any
    ``n`` cards (all returns equally likely).  Both masks include cards played since."""
    a1 = max_key(lower_all)
    rest = lower_all & ~key_card(a1)
    a2 = max_key(rest)
    size = popcount(lower_all)
    if n == 1:
        # returned a1: a2 is the lower's best kept card; otherwise a1 is
        return (count_above(upper_all, a2) + 1) + (size - 1) * count_above(upper_all, a1)
    a3 = max_key(rest & ~key_card(a2))
    return (_choose2(count_above(upper_all, a3) + 2)
            + (size - 2) * _choose2(count_above(upper_all, a2) + 1)
            + _choose2(size - 1) * _choose2(count_above(upper_all, a1)))


@njit(cache=True)
def exchange_weight(hands: np.ndarray, played: np.ndarray, pairs: np.ndarray) -> float:
    """Relative likelihood of the exchange facts in a world.

    ``pairs`` rows: ``(upper, lower, n, mode, my_deal_hand, my_returned)``; ``mode`` is
    :data:`MODE_UPPER` when I am the upper (my deal hand and my returned cards are known),
    :data:`MODE_LOWER` when I am the lower (nothing latent), else :data:`MODE_NEITHER`.
    """
    w = 1.0
    for i in range(pairs.shape[0]):
        u, lo, n, mode = pairs[i, 0], pairs[i, 1], pairs[i, 2], pairs[i, 3]
        if mode == MODE_LOWER:
            continue
        lower_all = hands[lo] | played[lo]
        if mode == MODE_UPPER:
            kept = lower_all & ~pairs[i, 5]
            w *= _choose(count_above(pairs[i, 4], max_key(kept)), n)
        else:
            w *= pair_weight(hands[u] | played[u], lower_all, n)
        if w == 0.0:
            return 0.0
    return w


@njit(cache=True)
def deal_world(me: int, my_hand: int, unknown: int, counts: np.ndarray, fixed: np.ndarray,
               out: np.ndarray, pool: np.ndarray) -> bool:
    """Deal ``unknown`` to the others uniformly, keeping ``fixed[q]`` with ``q``.

    Writes the five hands into ``out``; False when the counts cannot be met.  Cards left over
    (only when the history missed some plays) are treated as gone.
    """
    free = unknown
    for q in range(N_PLAYERS):
        free &= ~fixed[q]
    k = 0
    m = free
    while m:
        pool[k] = np.int64(1) << np.int64(lowest_bit(m))
        m &= m - np.int64(1)
        k += 1
    for i in range(k - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    pos = 0
    for q in range(N_PLAYERS):
        if q == me:
            out[q] = my_hand
            continue
        hand = fixed[q] & unknown
        need = counts[q] - popcount(hand)
        if need < 0 or pos + need > k:
            return False
        for _ in range(need):
            hand |= pool[pos]
            pos += 1
        out[q] = hand
    return True


@njit(cache=True)
def play_log_likelihood(hands: np.ndarray, played: np.ndarray, seats: np.ndarray, first: int,
                        hist_player: np.ndarray, hist_cards: np.ndarray, hist_info: np.ndarray,
                        me: int, models: np.ndarray, prm: np.ndarray, eps: np.ndarray,
                        window: int, bufc: np.ndarray, bufi: np.ndarray) -> float:
    """Log-chance of the opponents' last ``window`` actions in a world, each opponent by its
    model (``eps[model]``: the share of uniform choice mixed into that model).

    The game is replayed from its start (hands = world hands plus the cards played since);
    returns NaN if the history does not replay (then it carries no evidence).
    """
    start = np.empty(N_PLAYERS, dtype=np.int64)
    for q in range(N_PLAYERS):
        start[q] = hands[q] | played[q]
    st = new_state(start, seats, first)
    n_hist = hist_player.shape[0]
    from_opp = 0
    for t in range(n_hist):
        if hist_player[t] != me:
            from_opp += 1
    skip = from_opp - window
    total = 0.0
    seen = 0
    for t in range(n_hist):
        p = hist_player[t]
        if st[TURN] != p:
            return np.nan
        cards = hist_cards[t]
        if p != me:
            seen += 1
            if seen > skip:
                m = models[p]
                total += np.log(move_chance(m, st, p, prm, cards, eps[m], bufc, bufi))
        if hist_info[t] == 0:
            apply_pass(st)
        else:
            if (st[HAND + p] & cards) != cards:
                return np.nan
            apply_play(st, cards, hist_info[t])
    return total


@njit(cache=True)
def _weights(log_ex: np.ndarray, log_play: np.ndarray, k: int, beta: float,
             out: np.ndarray) -> float:
    """``out[i]`` = exchange weight x play likelihood ** beta (scaled); return the ESS."""
    top = -np.inf
    for i in range(k):
        out[i] = log_ex[i] + beta * log_play[i]
        top = max(top, out[i])
    if top == -np.inf:
        return 0.0
    total = 0.0
    squares = 0.0
    for i in range(k):
        out[i] = np.exp(out[i] - top)
        total += out[i]
        squares += out[i] * out[i]
    return total * total / squares


@njit(cache=True)
def sample_worlds(me: int, my_hand: int, unknown: int, counts: np.ndarray, fixed: np.ndarray,
                  played: np.ndarray, pairs: np.ndarray, seats: np.ndarray, first: int,
                  hist_player: np.ndarray, hist_cards: np.ndarray, hist_info: np.ndarray,
                  models: np.ndarray, prm: np.ndarray, eps: np.ndarray, beta: float,
                  window: int, proposals: int, out: np.ndarray, bufc: np.ndarray,
                  bufi: np.ndarray) -> float:
    """Fill ``out`` (count x 5 hands) with worlds; return the effective sample size of the
    proposals (0 when no proposal fitted the hard facts; ``out`` is then untouched).

    The play likelihood is tempered: its power is lowered from ``beta`` (by halving) until
    at least a quarter of ``count`` proposals stay effective, so a sharp opponent model
    cannot collapse the sample onto a handful of worlds.
    """
    cand = np.empty((proposals, N_PLAYERS), dtype=np.int64)
    log_ex = np.full(proposals, -np.inf)
    log_play = np.zeros(proposals)
    pool = np.empty(64, dtype=np.int64)
    use_history = window > 0 and hist_player.shape[0] > 0
    k = 0
    for _ in range(proposals * 4):
        if k == proposals:
            break
        if not deal_world(me, my_hand, unknown, counts, fixed, cand[k], pool):
            continue
        w = exchange_weight(cand[k], played, pairs)
        if w > 0.0:
            log_ex[k] = np.log(w)
            if use_history:
                ll = play_log_likelihood(cand[k], played, seats, first, hist_player,
                                         hist_cards, hist_info, me, models, prm, eps, window,
                                         bufc, bufi)
                log_play[k] = 0.0 if np.isnan(ll) else ll
        k += 1
    if k == 0:
        return 0.0
    count = out.shape[0]
    weights = np.empty(k)
    ess = _weights(log_ex, log_play, k, beta, weights)
    if ess == 0.0:
        # the exchange facts rule every proposal out (e.g. an unusual server): ignore them
        log_ex[:k] = 0.0
        ess = _weights(log_ex, log_play, k, beta, weights)
    b = beta
    while use_history and ess < min(count, k) / 4 and b > beta / 64:
        b /= 2
        ess = _weights(log_ex, log_play, k, b, weights)
    total = 0.0
    for i in range(k):
        total += weights[i]
    step = total / count
    u = np.random.random() * step
    acc = weights[0]
    j = 0
    for i in range(count):
        target = u + i * step
        while acc < target and j < k - 1:
            j += 1
            acc += weights[j]
        out[i] = cand[j]
    return ess
