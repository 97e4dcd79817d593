"""Determinisation: sampling the hidden hands consistent with what one player has seen.

A *world* gives every player a full hand.  Worlds are drawn in up to three stages:

1. *Proposal*: the unseen cards (not in my hand, not played) are dealt at random to the other
   players so that each gets its current card count, and cards whose holder is known stay
   with it: the cards I handed over in the exchange (still unplayed), and the ♦3, which the
   first player of the game held.
2. *Weights* (sampling-importance-resampling): each proposal is weighted by

   - the exchange: a lower class gave its *strongest* cards.  The weight counts the ways the
     exchange could have produced the world (which cards went up, and, when I am not part of
     the pair, which cards came back: any cards, or the upper's weakest once the player has
     learned that this upper returns those), so worlds where a daihinmin kept a card stronger
     than everything the daifugo holds get weight 0;
   - the observed plays: how likely each opponent's recent actions were in that world under
     its model (:mod:`~daihinmin.players.mc.models`; a share ``eps`` of uniform choice is mixed
     in, so no action is impossible), raised to a power ``beta`` <= 1, halved further while
     fewer than a quarter of the kept worlds would stay effective (tempering: a sharp model
     must not collapse the sample onto a few worlds).

   Then ``count`` worlds are drawn in proportion to the weights (systematic resampling).
3. *Refinement* (:func:`refine_worlds`, optional): Metropolis steps on each drawn world, each
   swapping one card between two opponents, accepted by the exchange weight times the
   *untempered* likelihood of every observed action.  Uniform proposals almost never fit a
   sharp opponent model (the sample strategy reveals a lot: a pass says "nothing could beat
   this"), so the resampled worlds stay close to the prior; the swaps carry them the rest of
   the way while keeping every hard fact.

When every opponent's model looks only at its own hand (:func:`models_are_local`), a player's
likelihood is computed from its own hand and a table of the public facts at each of its
actions (:func:`action_table`, the same in every world) instead of replaying the game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import (
    JOKER_BIT,
    JOKER_BITS,
    REAL_CARDS,
    cards_above,
    highest_bit,
    int64,
    lowest_bit,
    nibble,
    popcount,
)
from .models import MODEL_POLICY, move_chance
from .state import (
    ELEVEN,
    FIELD_INFO,
    HAND,
    LOCK,
    MAX_PLAYERS,
    REV,
    RULES,
    STATE_SIZE,
    TURN,
    add_cards,
    apply_pass,
    apply_play,
    canonical_jokers,
    choice_pending,
    deal_pile,
    holds,
    new_state,
    take_cards,
)

MODE_NEITHER, MODE_UPPER, MODE_LOWER = 0, 1, 2
#: like :data:`MODE_NEITHER`, but the upper is known to return its weakest cards (the
#: ``Bot`` default, :func:`~daihinmin.players.util.weakest_cards`)
MODE_NEITHER_LOWEST = 3
JOKER_KEY = 1000
ACTION_COLUMNS = 8  # of an action_table row
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
    return int64(1) << int64(4 * (key >> 2) + 3 - (key & 3))


@njit(cache=True)
def count_above(mask: int, key: int) -> int:
    """How many cards of ``mask`` are stronger (exchange order) than the card of ``key``."""
    if key == JOKER_KEY:
        return 0
    if key == NO_CARD:
        return popcount(mask)
    r = key >> 2
    s = 3 - (key & 3)
    ties = ((int64(1) << int64(s)) - int64(1)) << int64(4 * r)
    return popcount(mask & (cards_above(r) | JOKER_BITS | ties))


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
    rest = take_cards(lower_all, key_card(a1))
    a2 = max_key(rest)
    size = popcount(lower_all)
    if n == 1:
        # returned a1: a2 is the lower's best kept card; otherwise a1 is
        return (count_above(upper_all, a2) + 1) + (size - 1) * count_above(upper_all, a1)
    a3 = max_key(take_cards(rest, key_card(a2)))
    return (_choose2(count_above(upper_all, a3) + 2)
            + (size - 2) * _choose2(count_above(upper_all, a2) + 1)
            + _choose2(size - 1) * _choose2(count_above(upper_all, a1)))


@njit(cache=True)
def lowest_return_weight(upper_all: int, lower_all: int, n: int) -> int:
    """Ways a lower class holding ``lower_all`` after the exchange could have given its
    ``n`` strongest cards to an upper class holding ``upper_all`` that returned its ``n``
    weakest (lowest rank, then lowest card bit; never the joker).

    The returned cards are real cards of the lower below the upper's lowest real card.
    (For ``n`` = 2, the rare case of the upper handing back a card it had just received is
    not counted.)"""
    real_up = upper_all & REAL_CARDS
    floor = lowest_bit(real_up) if real_up else 63
    below = lower_all & REAL_CARDS & ((int64(1) << int64(floor)) - int64(1))
    e = popcount(below)
    a1 = max_key(lower_all)
    in1 = 1 if key_card(a1) & below else 0
    a2 = max_key(take_cards(lower_all, key_card(a1)))
    if n == 1:
        # returned a card other than a1 (a1 is the best kept), or a1 itself (a2 is; or the
        # upper handed a1 straight back)
        return (e - in1) * count_above(upper_all, a1) + in1 * (count_above(upper_all, a2) + 1)
    in2 = 1 if key_card(a2) & below else 0
    a3 = max_key(take_cards(take_cards(lower_all, key_card(a1)), key_card(a2)))
    return (_choose2(e - in1) * _choose2(count_above(upper_all, a1))
            + in1 * (e - 1 - in2) * _choose2(count_above(upper_all, a2))
            + in1 * in2 * _choose2(count_above(upper_all, a3)))


@njit(cache=True)
def exchange_weight(hands: np.ndarray, played: np.ndarray, pairs: np.ndarray) -> float:
    """Relative likelihood of the exchange facts in a world.

    ``pairs`` rows: ``(upper, lower, n, mode, my_deal_hand, my_returned)``; ``mode`` is
    :data:`MODE_UPPER` when I am the upper (my deal hand and my returned cards are known),
    :data:`MODE_LOWER` when I am the lower (nothing latent), else :data:`MODE_NEITHER`
    (any return equally likely) or :data:`MODE_NEITHER_LOWEST` (the upper returns its
    weakest cards).
    """
    w = 1.0
    for i in range(pairs.shape[0]):
        u, lo, n, mode = pairs[i, 0], pairs[i, 1], pairs[i, 2], pairs[i, 3]
        if mode == MODE_LOWER:
            continue
        lower_all = add_cards(hands[lo], played[lo])
        if mode == MODE_UPPER:
            kept = take_cards(lower_all, pairs[i, 5])
            w *= _choose(count_above(pairs[i, 4], max_key(kept)), n)
        elif mode == MODE_NEITHER_LOWEST:
            w *= lowest_return_weight(add_cards(hands[u], played[u]), lower_all, n)
        else:
            w *= pair_weight(add_cards(hands[u], played[u]), lower_all, n)
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
    for q in range(MAX_PLAYERS):
        free &= ~fixed[q]
    k = 0
    m = free
    while m:
        pool[k] = int64(1) << int64(lowest_bit(m))
        m &= m - int64(1)
        k += 1
    for i in range(k - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        pool[i], pool[j] = pool[j], pool[i]
    pos = 0
    for q in range(MAX_PLAYERS):
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
        out[q] = canonical_jokers(hand)  # the pool may deal bit 61 alone
    return True


@njit(cache=True)
def world_pile(unknown: int, hands: np.ndarray, me: int) -> int:
    """The cards of ``unknown`` no opponent holds in the world ``hands`` (jokers by count):
    the draw pile of the world, and any cards the history missed."""
    real = unknown & ~JOKER_BITS
    jokers = popcount(unknown & JOKER_BITS)
    for q in range(MAX_PLAYERS):
        if q != me:
            real &= ~hands[q]
            jokers -= popcount(hands[q] & JOKER_BITS)
    return canonical_jokers(real | (JOKER_BITS if jokers >= 2 else
                                    int64(1) << int64(60) if jokers == 1 else int64(0)))


@njit(cache=True)
def set_world_piles(states: np.ndarray, unknown: int, me: int, count: int) -> None:
    """Give each state (one a row, its hands a world's) a pile of ``count`` of the cards its
    world leaves unheld, in a random order: the pile's order is hidden from every player."""
    for i in range(states.shape[0]):
        deal_pile(states[i], world_pile(unknown, states[i, HAND:HAND + MAX_PLAYERS], me),
                  count)


@njit(cache=True)
def play_log_likelihood(hands: np.ndarray, played: np.ndarray, seats: np.ndarray, first: int,
                        owner_answers: bool, hist_player: np.ndarray, hist_cards: np.ndarray,
                        hist_info: np.ndarray,
                        me: int, models: np.ndarray, prm: np.ndarray, eps: np.ndarray,
                        window: int, bufc: np.ndarray, bufi: np.ndarray, rules_word: int = 0,
                        prev_top: int = -1) -> float:
    """Log-chance of the opponents' last ``window`` actions in a world, each opponent by its
    model (``eps[model]``: the share of uniform choice mixed into that model).

    The game is replayed from its start (hands = world hands plus the cards played since);
    returns NaN if the history does not replay (then it carries no evidence).
    """
    start = np.empty(MAX_PLAYERS, dtype=np.int64)
    for q in range(MAX_PLAYERS):
        start[q] = add_cards(hands[q], played[q])
    st = new_state(start, seats, first, owner_answers, rules_word, prev_top)
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
        if st[TURN] != p or choice_pending(st):  # (the history does not hold the choices)
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
            if not holds(st[HAND + p], cards):
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
                  owner_answers: bool, hist_player: np.ndarray, hist_cards: np.ndarray,
                  hist_info: np.ndarray, models: np.ndarray, prm: np.ndarray, eps: np.ndarray,
                  beta: float,
                  window: int, proposals: int, out: np.ndarray, bufc: np.ndarray,
                  bufi: np.ndarray, rules_word: int = 0, prev_top: int = -1) -> float:
    """Fill ``out`` (count x 5 hands) with worlds; return the effective sample size of the
    proposals (0 when no proposal fitted the hard facts; ``out`` is then untouched).

    All ``proposals`` in one call: :func:`propose_worlds` then :func:`resample_worlds`
    (which a caller on a clock runs itself, the proposals in chunks).
    """
    cand = np.empty((proposals, MAX_PLAYERS), dtype=np.int64)
    log_ex = np.full(proposals, -np.inf)
    log_play = np.zeros(proposals)
    k, _, _, _ = propose_worlds(me, my_hand, unknown, counts, fixed, played, pairs, seats,
                                first, owner_answers, hist_player, hist_cards, hist_info,
                                models, prm, eps, window, cand, log_ex, log_play, 0,
                                proposals, 0, proposals * 4, False,
                                np.zeros((0, ACTION_COLUMNS), dtype=np.int64), bufc, bufi,
                                rules_word, prev_top)
    return resample_worlds(cand, log_ex, log_play, k, beta,
                           window > 0 and hist_player.shape[0] > 0, out)


@njit(cache=True)
def propose_worlds(me: int, my_hand: int, unknown: int, counts: np.ndarray, fixed: np.ndarray,
                   played: np.ndarray, pairs: np.ndarray, seats: np.ndarray, first: int,
                   owner_answers: bool, hist_player: np.ndarray, hist_cards: np.ndarray,
                   hist_info: np.ndarray, models: np.ndarray, prm: np.ndarray,
                   eps: np.ndarray, window: int, cand: np.ndarray, log_ex: np.ndarray,
                   log_play: np.ndarray, k: int, stop: int, attempts: int, max_attempts: int,
                   listed: bool, table: np.ndarray, bufc: np.ndarray, bufi: np.ndarray,
                   rules_word: int = 0, prev_top: int = -1
                   ) -> tuple[int, int, bool, np.ndarray]:
    """Deal proposals ``k`` up to ``stop`` into ``cand`` with their log weights (exchange,
    play), trying at most ``max_attempts`` deals in all (``attempts`` so far).  Returns the
    new ``(k, attempts, listed, table)``: chunk after chunk, the same deals as one call."""
    use_history = window > 0 and hist_player.shape[0] > 0
    local = models_are_local(models, me)
    pool = np.empty(64, dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    per_player = np.zeros(MAX_PLAYERS)
    while k < stop and attempts < max_attempts:
        attempts += 1
        if not deal_world(me, my_hand, unknown, counts, fixed, cand[k], pool):
            continue
        if use_history and local and not listed:
            # the public course of the game is the same in every world: list it once
            rows = action_table(cand[k], played, seats, first, owner_answers, hist_player,
                                hist_cards, hist_info, me, rules_word, prev_top)
            table = rows[max(0, rows.shape[0] - window):].copy()  # C order: one signature
            listed = True
        w = exchange_weight(cand[k], played, pairs)
        if w > 0.0:
            log_ex[k] = np.log(w)
            if use_history and local:
                log_play[k] = opponents_log_chance(cand[k], played, me, models, eps, table,
                                                   prm, st, bufc, bufi, per_player)
            elif use_history:
                ll = play_log_likelihood(cand[k], played, seats, first, owner_answers,
                                         hist_player, hist_cards, hist_info, me, models, prm,
                                         eps, window, bufc, bufi, rules_word, prev_top)
                log_play[k] = 0.0 if np.isnan(ll) else ll
        k += 1
    return k, attempts, listed, table


@njit(cache=True)
def resample_worlds(cand: np.ndarray, log_ex: np.ndarray, log_play: np.ndarray, k: int,
                    beta: float, use_history: bool, out: np.ndarray) -> float:
    """Draw ``out`` from the first ``k`` proposals by their weights; return their effective
    sample size (0, ``out`` untouched, when there are none).

    The play likelihood is tempered: its power is lowered from ``beta`` (by halving) until
    at least a quarter of ``count`` proposals stay effective, so a sharp opponent model
    cannot collapse the sample onto a handful of worlds.
    """
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


@njit(cache=True)
def models_are_local(models: np.ndarray, me: int) -> bool:
    """Does every opponent's model look only at its own hand (not the playout policy, whose
    win check looks at the others')?  Then one player's likelihood needs only its own hand
    and the public facts of :func:`action_table`."""
    for q in range(MAX_PLAYERS):  # noqa: SIM110 - Numba compiles loops, not all(genexpr)
        if q != me and models[q] == MODEL_POLICY:
            return False
    return True


@njit(cache=True)
def _nth_bit(mask: int, k: int) -> int:
    """The ``k``-th (from 0, lowest first) set bit of ``mask`` as a mask."""
    for _ in range(k):
        mask &= mask - int64(1)
    return mask & -mask


@njit(cache=True)
def random_card(mask: int) -> int:
    """One set bit of ``mask`` (non-empty), each as likely, as a mask."""
    return _nth_bit(mask, np.random.randint(0, popcount(mask)))


@njit(cache=True)
def swap_cards(free1: int, free2: int) -> tuple[int, int]:
    """A card of each of two sets for a swap, each card as likely; ``(0, 0)`` when either
    is empty, or both are jokers (a joker for a joker changes nothing)."""
    if free1 == 0 or free2 == 0:
        return int64(0), int64(0)
    c1 = random_card(free1)
    c2 = random_card(free2)
    if c1 & JOKER_BITS and c2 & JOKER_BITS:
        return int64(0), int64(0)
    return c1, c2


@njit(cache=True)
def _log_exchange(hands: np.ndarray, played: np.ndarray, pairs: np.ndarray) -> float:
    w = exchange_weight(hands, played, pairs)
    return np.log(w) if w > 0.0 else -np.inf


@njit(cache=True)
def action_table(hands: np.ndarray, played: np.ndarray, seats: np.ndarray, first: int,
                 owner_answers: bool, hist_player: np.ndarray, hist_cards: np.ndarray,
                 hist_info: np.ndarray,
                 me: int, rules_word: int = 0, prev_top: int = -1) -> np.ndarray:
    """The opponents' actions with the public facts each was taken on, one row each:
    (player, cards, field info, revolution, lock, cards the player had played before, the
    rules word, the 11-back).

    The public course of the game does not depend on who holds the hidden cards, so one
    world (``hands``) replays it for all.  Rows stop where the history does not replay.
    """
    start = np.empty(MAX_PLAYERS, dtype=np.int64)
    for q in range(MAX_PLAYERS):
        start[q] = add_cards(hands[q], played[q])
    st = new_state(start, seats, first, owner_answers, rules_word, prev_top)
    rows = np.zeros((hist_player.shape[0], ACTION_COLUMNS), dtype=np.int64)
    before = np.zeros(MAX_PLAYERS, dtype=np.int64)
    k = 0
    for t in range(hist_player.shape[0]):
        p = hist_player[t]
        cards = hist_cards[t]
        if st[TURN] != p or not holds(st[HAND + p], cards) or choice_pending(st):
            break
        if p != me:
            rows[k, 0] = p
            rows[k, 1] = cards
            rows[k, 2] = st[FIELD_INFO]
            rows[k, 3] = st[REV]
            rows[k, 4] = st[LOCK]
            rows[k, 5] = before[p]
            rows[k, 6] = st[RULES]
            rows[k, 7] = st[ELEVEN]
            k += 1
        before[p] = add_cards(before[p], cards)
        if hist_info[t] == 0:
            apply_pass(st)
        else:
            apply_play(st, cards, hist_info[t])
    return rows[:k]


@njit(cache=True)
def player_log_chance(p: int, start_hand: int, model: int, eps: float, table: np.ndarray,
                      prm: np.ndarray, st: np.ndarray, bufc: np.ndarray,
                      bufi: np.ndarray) -> float:
    """Log-chance of ``p``'s actions in ``table`` had it started the game with
    ``start_hand``, for a model that looks only at its own hand and the field (the sample
    strategy, uniform choice)."""
    total = 0.0
    for j in range(table.shape[0]):
        if table[j, 0] != p:
            continue
        st[HAND + p] = take_cards(start_hand, table[j, 5])
        st[FIELD_INFO] = table[j, 2]
        st[REV] = table[j, 3]
        st[LOCK] = table[j, 4]
        st[RULES] = table[j, 6]  # (the rules and an 11-back: the models' legal moves)
        st[ELEVEN] = table[j, 7]
        total += np.log(move_chance(model, st, p, prm, table[j, 1], eps, bufc, bufi))
    return total


@njit(cache=True)
def opponents_log_chance(hands: np.ndarray, played: np.ndarray, me: int, models: np.ndarray,
                         eps: np.ndarray, table: np.ndarray, prm: np.ndarray, st: np.ndarray,
                         bufc: np.ndarray, bufi: np.ndarray, per_player: np.ndarray) -> float:
    """:func:`player_log_chance` of every opponent in a world, each by its own model;
    ``per_player[q]`` gets each one's share, the sum is returned."""
    total = 0.0
    for q in range(MAX_PLAYERS):
        per_player[q] = 0.0
        if q != me:
            per_player[q] = player_log_chance(q, add_cards(hands[q], played[q]), models[q],
                                              eps[models[q]], table, prm, st, bufc, bufi)
            total += per_player[q]
    return total


@njit(cache=True)
def refine_worlds(worlds: np.ndarray, me: int, fixed: np.ndarray, played: np.ndarray,
                  pairs: np.ndarray, seats: np.ndarray, first: int, owner_answers: bool,
                  hist_player: np.ndarray, hist_cards: np.ndarray, hist_info: np.ndarray,
                  models: np.ndarray, prm: np.ndarray, eps: np.ndarray, steps: int,
                  bufc: np.ndarray, bufi: np.ndarray, rules_word: int = 0,
                  prev_top: int = -1) -> float:
    """Move each world towards the worlds that explain the whole history: ``steps``
    Metropolis steps, each swapping one card between two opponents (cards whose holder is
    known stay put), accepted by the exchange weight times the untempered likelihood of every
    observed action.  Counts and known holders never change, so every world stays consistent
    with the hard facts.  Returns the share of accepted swaps.

    Only for learned models (:func:`models_are_local`): a swap then changes just the two
    players' own likelihood terms, which are all that is rescored.  With a guessed model (the
    playout policy, whose choices look at the other hands too) the worlds are left as they
    are and 0 is returned: its tempered weights are as far as it is trusted."""
    opponents = np.empty(MAX_PLAYERS, dtype=np.int64)
    k = 0
    for q in range(seats.shape[0]):
        if q != me:
            opponents[k] = q
            k += 1
    if k < 2 or steps <= 0 or worlds.shape[0] == 0 or not models_are_local(models, me):
        return 0.0
    table = action_table(worlds[0], played, seats, first, owner_answers, hist_player,
                         hist_cards, hist_info, me, rules_word, prev_top)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    ll = np.zeros(MAX_PLAYERS)
    accepted = 0
    tried = 0
    for i in range(worlds.shape[0]):
        hands = worlds[i]
        # a world that breaks a hard fact (-inf) takes the first swap that mends it
        opponents_log_chance(hands, played, me, models, eps, table, prm, st, bufc, bufi, ll)
        cur = _log_exchange(hands, played, pairs) + ll.sum()
        for _ in range(steps):
            a = np.random.randint(0, k)
            b = np.random.randint(0, k - 1)
            if b >= a:
                b += 1
            q1, q2 = opponents[a], opponents[b]
            free1 = hands[q1] & ~fixed[q1]
            free2 = hands[q2] & ~fixed[q2]
            c1, c2 = swap_cards(free1, free2)
            if c1 == 0:
                continue
            h1, h2 = hands[q1], hands[q2]
            hands[q1] = add_cards(take_cards(h1, c1), c2)  # jokers by count
            hands[q2] = add_cards(take_cards(h2, c2), c1)
            tried += 1
            ll1 = player_log_chance(q1, add_cards(hands[q1], played[q1]), models[q1],
                                    eps[models[q1]], table, prm, st, bufc, bufi)
            ll2 = player_log_chance(q2, add_cards(hands[q2], played[q2]), models[q2],
                                    eps[models[q2]], table, prm, st, bufc, bufi)
            new = (_log_exchange(hands, played, pairs) + ll.sum() - ll[q1] - ll[q2] + ll1
                   + ll2)
            if new - cur >= 0.0 or np.random.random() < np.exp(new - cur):
                cur = new
                ll[q1] = ll1
                ll[q2] = ll2
                accepted += 1
            else:
                hands[q1] = h1
                hands[q2] = h2
    return accepted / tried if tried else 0.0
