"""A learned playout policy for the searching player's own later moves.

Each candidate (every play in canonical form, and the pass when following) is described by a
few numbers (:func:`move_features`); the policy samples a candidate with probability
proportional to ``exp(weights . features)`` (a linear softmax, drawn by the Gumbel-max
trick).  A play that wins the lead race at once is still taken first
(:func:`~daihinmin.players.mc.rollout.plays_or_forced`).

The weights are fitted to the search's own decisions (:mod:`~daihinmin.players.mc.fit`):
the playouts then play the searching player's future moves more like the search would.
It is opt-in (``MCBot(learned_self=True)``): against four ``default`` bots it has not beaten
the heuristic policy (-0.01 to -0.04 points per game, 95% CI about +-0.03, in paired runs of
800 positions with ``python -m daihinmin.research.duplicate``); fit it to other opponents.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import JOKER_BIT, JOKER_BITS, nibble, popcount, rank_presence
from .control import THREATS_SIZE, threats, unbeatable
from .moves import K_JOKER, K_SEQUENCE, K_STAIRS, kind_of, low_of, size_of, suits_of
from .plays import cuts, order_flips
from .rollout import plays_or_forced, role_cards, run_cards, strength
from .rulebits import AFTER_DRAW, FORBID_ROLE_CARDS
from .state import FIELD_INFO, HAND, LOCK, PILE_COUNT, REV, RULES, draws_ahead, n_active, take_cards
from .weights import N_FEATURES

# Feature indices (one row per candidate).
F_PASS = 0  # the pass
F_STRENGTH_LEAD = 1  # strength of the play's weakest card / 13, when leading
F_STRENGTH_FOLLOW = 2  # the same, when following
F_EXTRA_LEAD = 3  # cards beyond the first, when leading
F_JOKER_MIX = 4  # the joker stands in for a card of a group or sequence
F_JOKER_ALONE = 5  # the lone joker
F_SPLIT = 6  # cards left behind at the play's rank
F_RUN = 7  # cards the play takes out of a 3-card run of a suit
F_CUT = 8  # an 8-cut
F_REVOLT = 9  # a revolution
F_REVOLT_WEAK = 10  # a revolution x how weak the rest of the hand is (centred)
F_CONTROL_LEAD = 11  # no one can answer (leading)
F_CONTROL_FOLLOW = 12  # no one can answer (following)
F_TOP_FOLLOW = 13  # following with an ace, a 2 (or their reversed peers) or the joker
F_RANKS_LEFT = 14  # ranks (and the joker) left in the hand after the move / 10
F_CARDS_LEFT = 15  # cards left after the move / 11
F_PASS_FIELD = 16  # the pass x strength of the field / 13
F_PASS_ACTIVE = 17  # the pass x players still in beyond two / 3
F_LOCK = 18  # the follow locks the suits
F_SEQUENCE = 19  # a sequence (or double stairs)
# Where a role card may not be the last play (thirteenth_floor): the role cards
# (rollout.role_cards) a play sheds and the ones the move leaves in the hand / 3, and a move
# that leaves only role cards (the hand cannot go out as it stands).
F_ROLE_PLAY = 20
F_ROLE_LEFT = 21
F_ONLY_ROLE = 22
F_PASS_DRAW = 23  # the pass x the cards it draws / 4 (draw_on_pass with a pile)


@njit(cache=True)
def hand_weakness(hand: int, rev: int) -> float:
    """Mean strength of the real cards of ``hand`` under ``rev``, centred on the middle (7)
    and negated: positive when the hand is weak."""
    total = 0.0
    n = 0
    for r in range(1, 14):
        k = popcount(nibble(hand, r))
        if k:
            total += k * (14 - r if rev else r)
            n += k
    if n == 0:
        return 0.0
    return (7.0 - total / n) / 6.0


@njit(cache=True)
def ranks_left(hand: int) -> int:
    """Distinct ranks in ``hand``, each joker counting as one more."""
    return popcount(rank_presence(hand)) + popcount(hand & JOKER_BITS)


@njit(cache=True)
def play_features(st: np.ndarray, p: int, c: int, info: int, t: np.ndarray, in_runs: int,
                  row: np.ndarray) -> None:
    """Fill ``row`` for the play ``(c, info)`` of ``p`` (to move); ``t``: the others'
    :func:`~daihinmin.players.mc.control.threats`, ``in_runs``: ``run_cards`` of the hand."""
    hand = st[HAND + p]
    rev = st[REV]
    field = st[FIELD_INFO]
    row[:] = 0.0
    kind = kind_of(info)
    s = strength(info, rev) / 13.0
    rw = st[RULES]
    rv, ans = order_flips(c, info, rw)
    rev_after = rev ^ ans  # the order the answers follow
    rest = take_cards(hand, c)
    if field == 0:
        row[F_STRENGTH_LEAD] = s
        row[F_EXTRA_LEAD] = popcount(c) - 1  # the cards (a stairs' size_of is its steps)
    else:
        row[F_STRENGTH_FOLLOW] = s
        if strength(info, rev) >= 12:
            row[F_TOP_FOLLOW] = 1.0
        if st[LOCK] == 0 and kind != K_JOKER and suits_of(info) == suits_of(field):
            row[F_LOCK] = 1.0
    if kind == K_JOKER:
        row[F_JOKER_ALONE] = 1.0
    elif c & JOKER_BIT:
        row[F_JOKER_MIX] = 1.0
    multi_rank = kind in (K_SEQUENCE, K_STAIRS)
    if kind != K_JOKER and not multi_rank:
        row[F_SPLIT] = popcount(nibble(hand, low_of(info))) - popcount(nibble(c, low_of(info)))
        row[F_RUN] = popcount(c & in_runs)
    if multi_rank:  # a double stairs weighs as a sequence (no weight of its own yet)
        row[F_SEQUENCE] = 1.0
    if kind != K_JOKER and cuts(c, info, rw):
        row[F_CUT] = 1.0
    if rv:
        row[F_REVOLT] = 1.0
        row[F_REVOLT_WEAK] = hand_weakness(rest, rev)
    if unbeatable(t, c, info, rev_after):
        if field == 0:
            row[F_CONTROL_LEAD] = 1.0
        else:
            row[F_CONTROL_FOLLOW] = 1.0
    row[F_RANKS_LEFT] = ranks_left(rest) / 10.0
    row[F_CARDS_LEFT] = popcount(rest) / 11.0
    if rw & FORBID_ROLE_CARDS:
        row[F_ROLE_PLAY] = role_cards(c)
        role_features(rest, row)


@njit(cache=True)
def role_features(rest: int, row: np.ndarray) -> None:
    """F_ROLE_LEFT and F_ONLY_ROLE of the hand ``rest`` a move leaves."""
    left = role_cards(rest)
    row[F_ROLE_LEFT] = left / 3.0
    if rest != 0 and left == popcount(rest):
        row[F_ONLY_ROLE] = 1.0


@njit(cache=True)
def pass_features(st: np.ndarray, p: int, row: np.ndarray) -> None:
    """Fill ``row`` for the pass of ``p`` (to move, following)."""
    hand = st[HAND + p]
    row[:] = 0.0
    row[F_PASS] = 1.0
    row[F_PASS_FIELD] = strength(st[FIELD_INFO], st[REV]) / 13.0
    row[F_PASS_ACTIVE] = (n_active(st) - 2) / 3.0
    row[F_RANKS_LEFT] = ranks_left(hand) / 10.0
    row[F_CARDS_LEFT] = popcount(hand) / 11.0
    rw = st[RULES]
    if draws_ahead(st) and not rw & AFTER_DRAW:
        row[F_PASS_DRAW] = min(size_of(st[FIELD_INFO]), st[PILE_COUNT]) / 4.0
    if rw & FORBID_ROLE_CARDS:
        role_features(hand, row)


@njit(cache=True)
def move_features(st: np.ndarray, p: int, bufc: np.ndarray, bufi: np.ndarray, n: int,
                  out: np.ndarray) -> int:
    """Fill ``out`` (rows x :data:`N_FEATURES`) for the ``n`` listed plays of ``p`` (to
    move) and, when following, a last row for the pass; return the number of rows."""
    t = np.empty(THREATS_SIZE, dtype=np.int64)
    threats(st, p, t)
    in_runs = run_cards(st[HAND + p])
    for i in range(n):
        play_features(st, p, bufc[i], bufi[i], t, in_runs, out[i])
    if st[FIELD_INFO] == 0:
        return n
    pass_features(st, p, out[n])
    return n + 1


@njit(cache=True)
def _score(weights: np.ndarray, row: np.ndarray) -> float:
    total = 0.0
    for f in range(N_FEATURES):
        total += weights[f] * row[f]
    # Gumbel noise: the argmax of the noisy scores is a draw from the softmax
    return total - np.log(-np.log(np.random.random() + 1e-300) + 1e-300)


@njit(cache=True)
def learned_choose(st: np.ndarray, p: int, prm: np.ndarray, weights: np.ndarray,
                   bufc: np.ndarray, bufi: np.ndarray) -> int:
    """Index in ``bufc``/``bufi`` of the learned policy's play for ``p``, or -1 to pass."""
    n, forced = plays_or_forced(st, p, prm, bufc, bufi)
    if n == 0:
        return -1
    if forced >= 0:
        return forced
    t = np.empty(THREATS_SIZE, dtype=np.int64)
    threats(st, p, t)
    in_runs = run_cards(st[HAND + p])
    row = np.empty(N_FEATURES)
    best = -1
    best_score = -1e300
    for i in range(n):
        play_features(st, p, bufc[i], bufi[i], t, in_runs, row)
        score = _score(weights, row)
        if score > best_score:
            best_score = score
            best = i
    if st[FIELD_INFO] != 0:
        pass_features(st, p, row)
        if _score(weights, row) > best_score:
            best = -1
    return best
