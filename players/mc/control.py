"""Which plays no opponent can answer, and hands that win by keeping the lead.

A play is *unbeatable* when no other player still in the game holds a legal play over it
(the lock is ignored, which only makes the test more cautious), or when it clears the trick at
once (an 8-cut, the ♠3 on a lone joker).  A player who leads and can empty the hand by
unbeatable plays followed by one last play of any kind wins the lead race for certain.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import (
    JOKER_BITS,
    REAL_CARDS,
    S3_BIT,
    SUIT_ROWS,
    SUIT_SET_ROWS,
    cards_above,
    cards_below,
    columns,
    highest_bit,
    int64,
    lowest_bit,
    nibble,
    popcount,
    suit_ranks,
)
from .movegen import STAIRS_SUITS, generate, group_max_of, sequence_min_of
from .moves import (
    K_GROUP,
    K_JOKER,
    K_SEQUENCE,
    K_SINGLE,
    K_STAIRS,
    high_of,
    kind_of,
    low_of,
    size_of,
    suits_of,
)
from .plays import NINE, clears_at_once, cuts, is_forbidden_finish, is_joker_pair, order_flips
from .rulebits import (
    AMBULANCE,
    DOUBLE_STAIRS,
    DRAW_ON_PASS,
    FORBIDDEN_LAST,
    FORBIDDEN_REJECT,
    JOKER_BEATS_JOKER,
    JOKER_PAIR,
    LEAD_HOLDS_CLUB3,
    LEAD_LIMIT_SHIFT,
    NO_EDGE_JOKERS,
    NO_JOKER_EFFECTS,
    NO_SEQUENCES,
    NO_SPADE3_RETURN,
    SANDSTORM,
    SEQUENCE_ABOVE_LOW,
    SEQUENCE_NEXT_LOW,
)
from .state import (
    HAND,
    LEAD_COUNT,
    LEAD_PLAYER,
    MAX_PLAYERS,
    PILE_COUNT,
    PILE_MASK,
    RULES,
    add_cards,
    take_cards,
)


@njit(cache=True)
def can_answer(hand: int, info: int, rev: int, rw: int) -> bool:
    """Does ``hand`` hold a play over the field ``info`` (lock ignored) under the rules word
    ``rw``?"""
    kind = kind_of(info)
    jk = popcount(hand & JOKER_BITS)
    joker = jk > 0
    if kind == K_JOKER:
        return ((hand & S3_BIT) != 0 and not rw & NO_SPADE3_RETURN) or (
            joker and rw & JOKER_BEATS_JOKER != 0)
    if kind == K_SINGLE:
        if joker:
            return True
        r = low_of(info)
        stronger = cards_below(r) if rev else cards_above(r)
        return (hand & stronger) != 0
    if kind == K_GROUP:
        k = size_of(info)
        r = low_of(info)
        if k == 2 and jk >= 2 and rw & JOKER_PAIR:
            return True
        if rev:
            lo, hi = 1, r - 1
        else:
            lo, hi = r + 1, 13
        for q in range(lo, hi + 1):
            held = popcount(nibble(hand, q))
            if held > 0 and held + jk >= k:  # a group needs a real card
                return True
        return False
    if kind in (K_SEQUENCE, K_STAIRS):
        k = size_of(info)  # the run's length, the stairs' steps
        if rw & SEQUENCE_NEXT_LOW:  # answered only one step from the lowest rank
            lo_min = lo_max = low_of(info) + (-1 if rev else 1)
        elif rw & SEQUENCE_ABOVE_LOW:  # answered by a lower (higher) lowest rank
            lo_min, lo_max = (0, low_of(info) - 1) if rev else (low_of(info) + 1, 15 - k)
        elif rev:
            lo_min, lo_max = 0, low_of(info) - k
        else:
            lo_min, lo_max = high_of(info) + 1, 15 - k
        if rw & NO_EDGE_JOKERS:  # runs stay within the 3..2 columns
            lo_min, lo_max = max(lo_min, 1), min(lo_max, 14 - k)
        if lo_max < lo_min:
            return False
        if kind == K_STAIRS:
            return _has_stairs(hand, k, popcount(suits_of(info)), lo_min, lo_max, jk)
        window0 = (int64(1) << int64(k)) - int64(1)
        for s in range(4):
            ranks = suit_ranks(hand, s)
            if popcount(ranks) + jk < k:
                continue
            for low in range(lo_min, lo_max + 1):
                window = window0 << int64(low)
                # (a real card in it: two jokers alone are no run, at sequence_min=2)
                if popcount(window & ~ranks) <= jk and window & ranks:
                    return True
        return False
    return False


@njit(cache=True)
def _has_stairs(hand: int, steps: int, width: int, lo_min: int, lo_max: int, jk: int) -> bool:
    """Does ``hand`` (``jk`` jokers) hold a double stairs of ``steps`` ranks and ``width``
    suits starting at a rank column in ``lo_min..lo_max``?  (At least 3 x 2 cells and at
    most two jokers: it always holds a real card.)"""
    for i in range(STAIRS_SUITS.shape[0]):
        mask = STAIRS_SUITS[i]
        if popcount(mask) != width:
            continue
        rows = SUIT_SET_ROWS[mask]
        for low in range(lo_min, lo_max + 1):
            if popcount(rows & columns(low, low + steps - 1) & ~hand) <= jk:
                return True
    return False


# A summary of what the other players could answer (see :func:`threats`).
T_MAX, T_MIN, T_JOKER, T_S3 = 0, 1, 2, 3
T_GROUP = 4  # 4 + r: the largest group any other player can make at rank column r
T_HANDS = 18  # 18..22: the other players' hands (for sequences), their number at T_COUNT
T_COUNT = 23
T_RULES = 24  # the rules word of the state
T_SAND = 25  # 1 when another player can make a sandstorm or an ambulance: they answer any play
T_LEADS = 26  # tricks in a row the player may still lead (lead_limit; many when off)
THREATS_SIZE = 27
UNLIMITED_LEADS = 99


@njit(cache=True)
def threats(st: np.ndarray, p: int, out: np.ndarray) -> None:
    """Summarise the hands of the players other than ``p`` still in the game into ``out``.

    Under draw_on_pass a player who passes draws and may then answer: the pile's cards count
    as every opponent's (so "unbeatable" stays sure whatever they draw; cautious, as the
    ignored lock)."""
    out[:] = 0
    out[T_MIN] = 14
    k = 0
    pile = st[PILE_MASK] if st[RULES] & DRAW_ON_PASS and st[PILE_COUNT] > 0 else int64(0)
    for q in range(MAX_PLAYERS):
        hand = st[HAND + q]
        if q == p or hand == 0:
            continue
        hand = add_cards(hand, pile)
        real = hand & REAL_CARDS
        joker = popcount(hand & JOKER_BITS)
        if real:
            out[T_MAX] = max(out[T_MAX], highest_bit(real) >> 2)
            out[T_MIN] = min(out[T_MIN], lowest_bit(real) >> 2)
        out[T_JOKER] = max(out[T_JOKER], joker)
        if hand & S3_BIT:
            out[T_S3] = 1
        for r in range(1, 14):
            n = popcount(nibble(hand, r))
            if n > 0:
                out[T_GROUP + r] = max(out[T_GROUP + r], n + joker)
        out[T_HANDS + k] = hand
        k += 1
    out[T_COUNT] = k
    rw = st[RULES] & ~LEAD_HOLDS_CLUB3  # the checks are about later leads
    out[T_RULES] = rw
    out[T_LEADS] = UNLIMITED_LEADS
    if rw & (SANDSTORM | AMBULANCE) or (rw >> LEAD_LIMIT_SHIFT) & 15:
        _effect_threats(st, p, rw, pile, out)


@njit(cache=True)
def _effect_threats(st: np.ndarray, p: int, rw: int, pile: int, out: np.ndarray) -> None:
    """The sandstorm and ambulance threats (the ``pile`` counted as every opponent's) and
    the leads left of ``p`` under the lead limit."""
    if rw & (SANDSTORM | AMBULANCE):
        for q in range(MAX_PLAYERS):
            hand = st[HAND + q]
            if q == p or hand == 0:
                continue
            hand = add_cards(hand, pile)
            jokers = 0 if rw & NO_JOKER_EFFECTS else popcount(hand & JOKER_BITS)
            threes = popcount(nibble(hand, 1))
            if rw & SANDSTORM and threes > 0 and threes + jokers >= 3:
                out[T_SAND] = 1
            nines = popcount(nibble(hand, NINE))
            if rw & AMBULANCE and nines > 0 and nines + jokers >= 2:
                out[T_SAND] = 1
    limit = (rw >> LEAD_LIMIT_SHIFT) & 15
    if limit:
        out[T_LEADS] = limit - st[LEAD_COUNT] if st[LEAD_PLAYER] == p else limit


@njit(cache=True)
def unbeatable(t: np.ndarray, cards: int, info: int, rev_after: int) -> bool:
    """No other player (summarised in ``t``) can answer the play ``(cards, info)`` in the
    order ``rev_after``; an 8-cut always counts as unbeatable, since it clears the trick at
    once."""
    kind = kind_of(info)
    rw = t[T_RULES]
    if kind == K_JOKER:
        return ((t[T_S3] == 0 or rw & NO_SPADE3_RETURN != 0) and t[T_SAND] == 0
                and (t[T_JOKER] == 0 or not rw & JOKER_BEATS_JOKER))
    if (cuts(cards, info, rw) or clears_at_once(cards, info, rw)
            or (rw & JOKER_PAIR and is_joker_pair(cards, info))):
        return True  # each clears the trick at once
    if t[T_SAND]:
        return False  # a sandstorm answers anything
    r = low_of(info)
    if kind == K_SINGLE:
        if t[T_JOKER]:
            return False
        return not (t[T_MIN] < r if rev_after else t[T_MAX] > r)
    if kind == K_GROUP:
        k = size_of(info)
        if k == 2 and t[T_JOKER] >= 2 and rw & JOKER_PAIR:
            return False  # the joker pair
        lo, hi = (1, r - 1) if rev_after else (r + 1, 13)
        for q in range(lo, hi + 1):  # noqa: SIM110 - Numba compiles loops, not any(genexpr)
            if t[T_GROUP + q] >= k:
                return False
        return True
    for i in range(t[T_COUNT]):  # noqa: SIM110 - sequences are rare: ask each hand
        if can_answer(t[T_HANDS + i], info, rev_after, rw):
            return False
    return True


@njit(cache=True)
def is_one_play(hand: int, rw: int) -> bool:
    """Can the whole hand be led as a single play (under the rules word ``rw``)?  (Forbidden
    finishes aside: :func:`finishes_in_one`.)"""
    n = popcount(hand)
    if n <= 1:
        return n == 1
    real = hand & REAL_CARDS
    if real == 0:
        return rw & JOKER_PAIR != 0  # two jokers alone: the joker pair, else two plays
    jk = popcount(hand & JOKER_BITS)
    low_card = lowest_bit(real)
    high_card = highest_bit(real)
    if (low_card >> 2) == (high_card >> 2):
        return n <= group_max_of(rw)  # one rank, the jokers join the group
    if rw & NO_SEQUENCES:
        return False  # (double stairs are runs)
    if rw & DOUBLE_STAIRS and is_stairs_hand(real, jk, rw):
        return True
    if n < sequence_min_of(rw) or (n > 13 and rw & NO_EDGE_JOKERS):
        return False
    suit = low_card & 3
    if (real & ~SUIT_ROWS[suit]) != 0:
        return False
    ranks = suit_ranks(real, suit)
    span = highest_bit(ranks) - lowest_bit(ranks) + 1
    return span - popcount(ranks) <= jk


@njit(cache=True)
def is_stairs_hand(real: int, jk: int, rw: int) -> bool:
    """Are the real cards ``real`` and ``jk`` jokers together one double stairs?  Its rows
    are the suits of the real cards (a row of jokers alone would need sequence_min of them;
    with two such hands are runs too), its columns theirs, or one more of two jokers at
    either end."""
    suits = 0
    m = real
    while m:
        b = lowest_bit(m)
        m &= m - 1
        suits |= 1 << (b & 3)
    w = popcount(suits)
    if w < 2:
        return False
    lo, hi = lowest_bit(real) >> 2, highest_bit(real) >> 2
    first_col, last_col = (1, 13) if rw & NO_EDGE_JOKERS else (0, 14)
    rows = SUIT_SET_ROWS[suits]
    for start, end in ((lo, hi), (lo - 1, hi), (lo, hi + 1)):
        if start < first_col or end > last_col or end - start + 1 < sequence_min_of(rw):
            continue
        if popcount(rows & columns(start, end)) == popcount(real) + jk:  # jokers fill holes
            return True
    return False


@njit(cache=True)
def finishes_in_one(hand: int, rw: int, rev: int, bufc: np.ndarray, bufi: np.ndarray,
                    offset: int) -> bool:
    """Can the whole hand be led as one play (in the order ``rev``) that is not a forbidden
    finish?  ``bufc``/``bufi`` from ``offset`` on are scratch space."""
    if not is_one_play(hand, rw):
        return False
    if not rw & (FORBIDDEN_REJECT | FORBIDDEN_LAST):
        return True
    oc = bufc[offset:]
    oi = bufi[offset:]
    n = generate(hand, 0, rev, 0, False, oc, oi, rw)
    for i in range(n):
        if oc[i] == hand and not is_forbidden_finish(oc[i], oi[i], 0, rev, rw):
            return True
    return False


@njit(cache=True)
def _control_step(t: np.ndarray, hand: int, rev: int, bufc: np.ndarray, bufi: np.ndarray,
                  offset: int, level: int) -> bool:
    """One level of :func:`control_win`: ``level`` more unbeatable plays may follow."""
    oc = bufc[offset:]
    oi = bufi[offset:]
    rw = t[T_RULES]
    n = generate(hand, 0, rev, 0, True, oc, oi, rw)
    for i in range(n):
        c = oc[i]
        info = oi[i]
        rv, ans = order_flips(c, info, rw)
        if not unbeatable(t, c, info, rev ^ ans):  # answers follow an 11-back too
            continue
        rev_after = rev ^ rv  # the next lead: the 11-back ended with the trick
        rest = take_cards(hand, c)
        if finishes_in_one(rest, rw, rev_after, bufc, bufi, offset + n):
            return True
        if level > 0 and _control_deeper(t, rest, rev_after, bufc, bufi, offset + n, level - 1):
            return True
    return False


@njit(cache=True)
def _control_deeper(t: np.ndarray, hand: int, rev: int, bufc: np.ndarray, bufi: np.ndarray,
                    offset: int, level: int) -> bool:
    # Written out level by level: Numba cannot cache recursive functions.
    oc = bufc[offset:]
    oi = bufi[offset:]
    rw = t[T_RULES]
    n = generate(hand, 0, rev, 0, True, oc, oi, rw)
    for i in range(n):
        c = oc[i]
        info = oi[i]
        rv, ans = order_flips(c, info, rw)
        if not unbeatable(t, c, info, rev ^ ans):  # answers follow an 11-back too
            continue
        rev_after = rev ^ rv  # the next lead: the 11-back ended with the trick
        rest = take_cards(hand, c)
        if finishes_in_one(rest, rw, rev_after, bufc, bufi, offset + n):
            return True
        if level > 0 and _control_last(t, rest, rev_after, bufc, bufi, offset + n):
            return True
    return False


@njit(cache=True)
def _control_last(t: np.ndarray, hand: int, rev: int, bufc: np.ndarray, bufi: np.ndarray,
                  offset: int) -> bool:
    oc = bufc[offset:]
    oi = bufi[offset:]
    rw = t[T_RULES]
    n = generate(hand, 0, rev, 0, True, oc, oi, rw)
    for i in range(n):
        c = oc[i]
        info = oi[i]
        rv, ans = order_flips(c, info, rw)
        if unbeatable(t, c, info, rev ^ ans) and finishes_in_one(
                take_cards(hand, c), rw, rev ^ rv, bufc, bufi, offset + n):
            return True
    return False


MAX_CONTROL_DEPTH = 3


@njit(cache=True)
def control_win(t: np.ndarray, hand: int, rev: int, depth: int, bufc: np.ndarray,
                bufi: np.ndarray, offset: int) -> bool:
    """A player leading with ``hand`` against the others summarised in ``t``
    (:func:`threats`): can it finish by at most ``depth`` (<= 3) unbeatable plays and one
    last play?  ``bufc``/``bufi`` from ``offset`` on are scratch space.  Under a lead limit
    the plays are at most the leads left (``t[T_LEADS]``)."""
    leads = t[T_LEADS]
    if leads <= 0:
        return False
    if finishes_in_one(hand, t[T_RULES], rev, bufc, bufi, offset):
        return True
    depth = min(depth, leads - 1)
    if depth <= 0:
        return False
    return _control_step(t, hand, rev, bufc, bufi, offset, min(depth, MAX_CONTROL_DEPTH) - 1)
