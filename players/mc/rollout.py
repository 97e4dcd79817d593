"""The playout policy: how players move in playouts unless modelled otherwise.

For whoever is to move:

1. a play that empties the hand;
2. with few cards left, a play no one can answer after which the rest of the hand goes out
   the same way (:func:`control_win`);
3. otherwise the weakest play of the shape, scored: weak ranks first, more cards per lead,
   keep the joker, do not break a rank, like 8-cuts (and, where a role card may not be the
   last play, shed role cards: ``role``, off by default); uniform noise breaks ties and adds
   variety.  A follow that would spend the joker or a top rank is sometimes passed.

:func:`model_chance` gives the chance of an observed action under this policy (without the
noise), used to weigh sampled worlds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import (
    JOKER_BIT,
    JOKER_BITS,
    REAL_CARDS,
    S3_BIT,
    int64,
    lowest_bit,
    nibble,
    popcount,
    suit_ranks,
)
from .control import T_LEADS, THREATS_SIZE, control_win, threats, unbeatable
from .movegen import generate, keep_plays
from .moves import K_JOKER, K_SEQUENCE, K_SINGLE, K_STAIRS, high_of, kind_of, low_of
from .plays import EIGHT, FIVE, NINE, cuts, is_sandstorm, order_flips
from .rulebits import FORBID_ROLE_CARDS, FORBIDDEN_LAST, LEADER_MUST_PLAY
from .state import ELEVEN, FIELD_INFO, HAND, LOCK, PENDING_REV, REV, RULES, choice_count, take_cards
from .weights import FEATURE_NAMES, FITTED_WEIGHTS, N_FEATURES

# Indices of the policy parameter vector.
P_NOISE = 0  # width of the uniform noise added to play scores
P_SIZE = 1  # lead: bonus per extra card in the play
P_JOKER = 2  # penalty for spending the joker
P_SPLIT = 3  # penalty per card a play leaves behind at its rank
P_CUT = 4  # bonus of an 8-cut
P_PASS_JOKER = 5  # chance of passing instead of following with the joker
P_PASS_HIGH = 6  # chance of passing instead of following with a top-two rank
P_PASS_BASE = 7  # chance of passing any follow
P_WIN_CARDS = 8  # run the win check when the hand holds at most this many cards
P_WIN_DEPTH = 9  # unbeatable plays the win check may chain before the last play
P_SOLVE_NODES = 10  # node budget of the two-player solver (0: off)
P_RUN = 11  # penalty per card a single or group takes out of a 3-card run of its suit
P_SELF = 12  # the searching player's own moves: 0 by this policy, 1 by the learned one
# The playout's value under card scoring (playout.card_value): the share of the place's
# value and of "went out first" mixed into the card score's (0, 0: the card score alone).
P_PLACE = 13
P_FIRST = 14
P_ROLE = 15  # bonus per role card in a play where a role card may not be the last play
# The tree over the searching player's own later decisions (:mod:`.tree`): how many it
# makes (0: none, the flat playout), the visits before a node searches, its exploration.
P_TREE = 16
P_TREE_AT = 17
P_TREE_C = 18
P_WEIGHTS = 19  # from here: the learned policy's weights (:mod:`.weights`)
N_PARAMS = P_WEIGHTS + N_FEATURES

DEFAULT_PARAMS = np.concatenate((
    np.array([2.0, 3.0, 6.0, 5.0, 0.0, 0.8, 0.15, 0.01, 7.0, 2.0, 3000.0, 0.0, 0.0, 0.0, 0.0,
              0.0, 0.0, 8.0, 0.5]),
    FITTED_WEIGHTS))
PARAM_NAMES = ("noise", "size", "joker", "split", "cut", "pass_joker", "pass_high", "pass_base",
               "win_cards", "win_depth", "solve_nodes", "run", "self", "place", "first", "role",
               "tree", "tree_at", "tree_c",
               *(f"w_{name}" for name in FEATURE_NAMES))


def policy_params(**overrides: float) -> np.ndarray:
    """The parameter vector with some entries changed by name (see ``PARAM_NAMES``)."""
    prm = DEFAULT_PARAMS.copy()
    for name, value in overrides.items():
        if name not in PARAM_NAMES:
            raise KeyError(f"unknown policy parameter {name!r}; known: {', '.join(PARAM_NAMES)}")
        prm[PARAM_NAMES.index(name)] = float(value)
    return prm


#: Move buffer size for one decision including the win check's scratch levels.
BUFFER = 16384


@njit(cache=True)
def strength(info: int, rev: int) -> int:
    """How strong a play's weakest card is under the current order (the joker alone: 15)."""
    if kind_of(info) == K_JOKER:
        return 15
    if rev:
        return 14 - high_of(info)
    return low_of(info)


@njit(cache=True)
def run_cards(hand: int) -> int:
    """The real cards of ``hand`` that belong to a run of 3+ consecutive ranks of a suit."""
    out = int64(0)
    for s in range(4):
        ranks = suit_ranks(hand, s)
        starts = ranks & (ranks >> 1) & (ranks >> 2)
        members = starts | (starts << 1) | (starts << 2)
        while members:
            r = lowest_bit(members)
            members &= members - 1
            out |= int64(1) << int64(4 * r + s)
    return out


@njit(cache=True)
def forced_play(st: np.ndarray, p: int, prm: np.ndarray, bufc: np.ndarray, bufi: np.ndarray,
                n: int) -> int:
    """A play among the ``n`` listed that wins the lead race at once, or -1."""
    hand = st[HAND + p]
    for i in range(n):
        if bufc[i] == hand:
            return i
    if popcount(hand) > prm[P_WIN_CARDS]:
        return -1
    depth = int(prm[P_WIN_DEPTH])
    rev = st[REV]
    # the order of the next lead: an 11-back ends with the trick, delayed revolutions fire
    lead_rev = rev ^ st[ELEVEN] ^ (st[PENDING_REV] & 1)
    rw = st[RULES]
    on_joker = kind_of(st[FIELD_INFO]) == K_JOKER
    t = np.empty(THREATS_SIZE, dtype=np.int64)
    threats(st, p, t)
    if st[FIELD_INFO] == 0:
        t[T_LEADS] -= 1  # the play is itself a lead
    for i in range(n):
        c = bufc[i]
        info = bufi[i]
        kind = kind_of(info)
        rv, ans = order_flips(c, info, rw)
        if not ((on_joker and kind == K_SINGLE) or unbeatable(t, c, info, rev ^ ans)):
            continue
        after = lead_rev ^ rv
        if st[PENDING_REV] & 1 and is_sandstorm(c, info, rw):
            after ^= 1  # the sandstorm cancels the delayed revolutions
        if control_win(t, take_cards(hand, c), after, depth - 1, bufc, bufi, n):
            return i
    return -1


@njit(cache=True)
def role_cards(cards: int) -> int:
    """How many 13th floor role cards ``cards`` holds: jokers, the ♠3, every 5, 8 and 9
    (plays.holds_role_card asks only whether there is one)."""
    return (popcount(cards & (JOKER_BITS | S3_BIT)) + popcount(nibble(cards, FIVE))
            + popcount(nibble(cards, EIGHT)) + popcount(nibble(cards, NINE)))


@njit(cache=True)
def best_play(st: np.ndarray, p: int, prm: np.ndarray, bufc: np.ndarray, bufi: np.ndarray,
              n: int, noise: float) -> int:
    """The best-scored of the ``n`` listed plays (``noise``: width of the random term)."""
    hand = st[HAND + p]
    rev = st[REV]
    lead = st[FIELD_INFO] == 0
    in_runs = run_cards(hand) if prm[P_RUN] > 0.0 else int64(0)
    # a role card can never be the last play: shed them while other cards remain to finish
    role = prm[P_ROLE] if st[RULES] & FORBID_ROLE_CARDS else 0.0
    best = -1
    best_score = -1e9
    for i in range(n):
        c = bufc[i]
        info = bufi[i]
        kind = kind_of(info)
        score = -float(strength(info, rev))
        if lead:  # the cards, jokers included (a stairs' size_of is its steps)
            score += prm[P_SIZE] * (popcount(c) - 1)
        if c & JOKER_BIT:
            score -= prm[P_JOKER]
        if kind != K_JOKER and kind != K_SEQUENCE and kind != K_STAIRS:  # one-rank plays
            left = popcount(nibble(hand, low_of(info))) - popcount(nibble(c, low_of(info)))
            score -= prm[P_SPLIT] * left
            score -= prm[P_RUN] * popcount(c & in_runs)
        if kind != K_JOKER and cuts(c, info, st[RULES]):
            score += prm[P_CUT]
        if role != 0.0:
            score += role * role_cards(c)
        if noise > 0.0:
            score += noise * np.random.random()
        if score > best_score:
            best_score = score
            best = i
    return best


@njit(cache=True)
def pass_chance(st: np.ndarray, p: int, prm: np.ndarray, cards: int, info: int) -> float:
    """Chance that the policy passes instead of following with ``(cards, info)``."""
    if st[FIELD_INFO] == 0:
        return 0.0
    n_cards = popcount(st[HAND + p])
    chance = prm[P_PASS_BASE]
    if cards & JOKER_BIT:
        if n_cards > 3:
            chance = max(chance, prm[P_PASS_JOKER])
    elif strength(info, st[REV]) >= 12 and n_cards > 4:
        chance = max(chance, prm[P_PASS_HIGH])
    return chance


@njit(cache=True)
def plays_or_forced(st: np.ndarray, p: int, prm: np.ndarray, bufc: np.ndarray,
                    bufi: np.ndarray) -> tuple[int, int]:
    """List the plays of ``p`` (to move, one per card set) in the buffers; return how many
    and the index of one that wins the lead race at once (-1: none)."""
    n = policy_plays(st, p, bufc, bufi)
    if n == 0:
        return 0, -1
    return n, forced_play(st, p, prm, bufc, bufi, n)


@njit(cache=True)
def policy_plays(st: np.ndarray, p: int, bufc: np.ndarray, bufi: np.ndarray) -> int:
    """The plays the policy considers (one per card set): every legal one, except that under
    ``forbidden_finish=last`` a forbidden finish (a sure lowest place) is left out, unless
    it is all a leader who must play has."""
    hand = st[HAND + p]
    field = st[FIELD_INFO]
    rw = st[RULES]
    n = generate(hand, field, st[REV], st[LOCK], True, bufc, bufi, rw)
    if n == 0 or not rw & FORBIDDEN_LAST:
        return n
    if field == 0 and rw & LEADER_MUST_PLAY:
        k = 0
        for i in range(n):  # is there a play that is not a forbidden finish?
            if bufc[i] != hand:
                k = 1
                break
        if k == 0:
            return n
    return keep_plays(hand, field, st[REV], rw, False, True, bufc, bufi, n)


@njit(cache=True)
def choose(st: np.ndarray, p: int, prm: np.ndarray, bufc: np.ndarray,
           bufi: np.ndarray) -> int:
    """Index in ``bufc``/``bufi`` of the policy's play for ``p`` (to move), or -1 to pass."""
    n, forced = plays_or_forced(st, p, prm, bufc, bufi)
    if n == 0:
        return -1
    if forced >= 0:
        return forced
    best = best_play(st, p, prm, bufc, bufi, n, prm[P_NOISE])
    if np.random.random() < pass_chance(st, p, prm, bufc[best], bufi[best]):
        return -1
    return best


@njit(cache=True)
def weakest_cards(hand: int, count: int, rev: int) -> int:
    """The ``count`` weakest cards of ``hand`` in the order ``rev``, ties ♠ ♥ ♦ ♣, the
    jokers last (rules.deal.weakest: the default answer of every bot and of the server)."""
    out = int64(0)
    k = 0
    for i in range(13):
        r = 13 - i if rev else 1 + i
        for s in range(4):
            bit = int64(1) << int64(4 * r + s)
            if k < count and hand & bit:
                out |= bit
                k += 1
    jokers = hand & JOKER_BITS
    while k < count and jokers:
        out |= int64(1) << int64(lowest_bit(jokers))
        jokers &= jokers - int64(1)
        k += 1
    return out


@njit(cache=True)
def choice_cards(st: np.ndarray, p: int) -> int:
    """The policy's answer to ``p``'s pending choice (7-pass, 10-discard): as many cards as
    it may move, the weakest in the current order (the default bot's answer, so the sample
    model makes it too); a hand that fits goes out whole."""
    hand = st[HAND + p]
    count = choice_count(st)
    if popcount(hand) <= count:
        return hand
    return weakest_cards(hand & (REAL_CARDS | JOKER_BITS), count, st[REV])


@njit(cache=True)
def model_chance(st: np.ndarray, p: int, prm: np.ndarray, cards: int, eps: float,
                 bufc: np.ndarray, bufi: np.ndarray) -> float:
    """How likely the policy (noise-free, mixed with ``eps`` of uniform choice) is to make
    the play of ``cards`` (0: pass) for ``p`` to move in ``st``."""
    n = policy_plays(st, p, bufc, bufi)
    follow = st[FIELD_INFO] != 0
    if n == 0:
        return 1.0 if cards == 0 else eps
    uniform = eps / (n + (1 if follow else 0))
    target = forced_play(st, p, prm, bufc, bufi, n)
    chance_pass = 0.0
    if target < 0:
        target = best_play(st, p, prm, bufc, bufi, n, 0.0)
        chance_pass = pass_chance(st, p, prm, bufc[target], bufi[target])
    if cards == 0:
        return (1.0 - eps) * chance_pass + uniform
    if bufc[target] == cards:
        return (1.0 - eps) * (1.0 - chance_pass) + uniform
    return uniform
