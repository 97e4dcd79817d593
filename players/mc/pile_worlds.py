"""Worlds of a draw-pile game weighed by what the opponents did.

Under ``draw_on_pass`` with a pile (``thirteenth_floor``) a pass draws cards no one else
sees, so a world's hands plus the cards played since are not the hands each action was
chosen from (:attr:`~daihinmin.players.mc.observe.Knowledge.replays_hands`).  Each proposal
here is therefore a whole history: the world's current hands, and for every opponent which
of its cards came from each of its draws.  Walking an opponent's actions backwards from its
current hand, a play puts its cards back and a draw takes out as many cards as it drew,
chosen uniformly from the hand it held just after that draw.

Every full history (the deal and the order of the pile's cards drawn so far) is equally
likely before anything is seen, and that walk proposes each history that fits the public
record with the same chance (the hand sizes after each draw are public), so the proposal's
importance weight is just the chance of the record in it: each opponent's actions under its
model, from the hand it held then, and the engine's own fact about each drawing pass (the
passer kept the turn exactly when the drawn hand could answer the field).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import popcount
from .models import MODEL_POLICY, N_MODELS, move_chance
from .movegen import generate
from .moves import size_of
from .rulebits import AFTER_DRAW
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
    apply_play,
    choice_pending,
    holds,
    new_state,
    pass_seen,
    take_cards,
)
from .worlds import deal_world, random_card, swap_cards, world_pile

# Columns of a pile action table row.
T_PLAYER, T_CARDS, T_FIELD, T_REV, T_LOCK, T_RULES, T_ELEVEN, T_DRAWN, T_KEPT = range(9)
TABLE_COLUMNS = 9
#: log-chance charged when a reconstructed hand breaks the engine's fact about a draw (kept
#: the turn without an answer, or lost it with one): a soft charge, since another draw of
#: the same world might fit
LOG_MISS = float(np.log(1e-3))


@njit(cache=True)
def pile_action_table(hands: np.ndarray, played: np.ndarray, seats: np.ndarray, first: int,
                      owner_answers: bool, hist_player: np.ndarray, hist_cards: np.ndarray,
                      hist_info: np.ndarray, kept: np.ndarray, me: int, rules_word: int,
                      prev_top: int, pile_start: int) -> tuple[np.ndarray, int]:
    """The opponents' actions with the public facts each was taken on (columns ``T_*``),
    and the pile's size the record leaves (-1 where the record does not replay).

    The public course does not depend on who holds the hidden cards, so one world
    (``hands``) replays it for all, from its hands plus the cards played since and no pile;
    the draws are counted beside it: a pass not declining an after-draw turn draws as many
    cards as the field holds (one on an empty field) while the pile lasts."""
    start = np.empty(MAX_PLAYERS, dtype=np.int64)
    for q in range(MAX_PLAYERS):
        start[q] = add_cards(hands[q], played[q])
    st = new_state(start, seats, first, owner_answers, rules_word, prev_top)
    rows = np.zeros((hist_player.shape[0], TABLE_COLUMNS), dtype=np.int64)
    pile = pile_start
    k = 0
    for t in range(hist_player.shape[0]):
        p = hist_player[t]
        cards = hist_cards[t]
        if st[TURN] != p or not holds(st[HAND + p], cards) or choice_pending(st):
            return rows[:k], -1
        drawn = 0
        if hist_info[t] == 0 and not st[RULES] & AFTER_DRAW:
            field = st[FIELD_INFO]
            drawn = min(size_of(field) if field != 0 else 1, pile)
            pile -= drawn
        if p != me:
            rows[k, T_PLAYER] = p
            rows[k, T_CARDS] = cards
            rows[k, T_FIELD] = st[FIELD_INFO]
            rows[k, T_REV] = st[REV]
            rows[k, T_LOCK] = st[LOCK]
            rows[k, T_RULES] = st[RULES]
            rows[k, T_ELEVEN] = st[ELEVEN]
            rows[k, T_DRAWN] = drawn
            rows[k, T_KEPT] = kept[t]
            k += 1
        if hist_info[t] == 0:
            pass_seen(st, kept[t] != 0)
        else:
            apply_play(st, cards, hist_info[t])
    return rows[:k], pile


@njit(cache=True)
def pile_player_log_chance(p: int, hand_now: int, model: int, eps: float, table: np.ndarray,
                           prm: np.ndarray, st: np.ndarray, bufc: np.ndarray,
                           bufi: np.ndarray, held: np.ndarray) -> float:
    """Log-chance of ``p``'s actions in ``table`` for one history ending in ``hand_now``:
    walking back, a play returns its cards to the hand, a draw takes out a uniform choice
    of the cards held just after it (the reconstruction is drawn afresh at each call).
    ``held[j]`` gets the hand each of ``p``'s actions (row ``j``) was chosen from."""
    hand = hand_now
    total = 0.0
    for j in range(table.shape[0] - 1, -1, -1):
        if table[j, T_PLAYER] != p:
            continue
        cards = table[j, T_CARDS]
        field = table[j, T_FIELD]
        rules = table[j, T_RULES]
        if cards == 0:
            drawn = table[j, T_DRAWN]
            if drawn > 0:
                if popcount(hand) < drawn:
                    return -np.inf  # (the counts cannot come from this record)
                if field != 0:
                    answers = generate(hand, field, table[j, T_REV], table[j, T_LOCK], True,
                                       bufc, bufi, rules) > 0
                    if answers != (table[j, T_KEPT] != 0):
                        total += LOG_MISS
                for _ in range(drawn):
                    # (a joker bit takes a joker by count)
                    hand = take_cards(hand, random_card(hand))
        else:
            hand = add_cards(hand, cards)
        held[j] = hand
        st[HAND + p] = hand
        st[FIELD_INFO] = field
        st[REV] = table[j, T_REV]
        st[LOCK] = table[j, T_LOCK]
        st[RULES] = rules
        st[ELEVEN] = table[j, T_ELEVEN]
        total += np.log(move_chance(model, st, p, prm, cards, eps, bufc, bufi))
    return total


@njit(cache=True)
def propose_pile_worlds(me: int, my_hand: int, unknown: int, counts: np.ndarray,
                        fixed: np.ndarray, table: np.ndarray, models: np.ndarray,
                        eps: np.ndarray, prm: np.ndarray, cand: np.ndarray,
                        log_ex: np.ndarray, log_play: np.ndarray, k: int, stop: int,
                        attempts: int, max_attempts: int, bufc: np.ndarray,
                        bufi: np.ndarray) -> tuple[int, int]:
    """Deal proposals ``k`` up to ``stop`` into ``cand`` with their log weights (no exchange
    in a pile game: ``log_ex`` 0; ``log_play``: every opponent's record, ``models[q]`` and
    ``eps[q]`` its model and uniform share), at most ``max_attempts`` deals in all.  Returns
    the new ``(k, attempts)``, chunk after chunk the same deals as one call."""
    pool = np.empty(64, dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    held = np.zeros(table.shape[0], dtype=np.int64)
    while k < stop and attempts < max_attempts:
        attempts += 1
        if not deal_world(me, my_hand, unknown, counts, fixed, cand[k], pool):
            continue
        log_ex[k] = 0.0
        total = 0.0
        for q in range(MAX_PLAYERS):
            if q != me:
                total += pile_player_log_chance(q, cand[k, q], models[q], eps[q], table,
                                               prm, st, bufc, bufi, held)
        log_play[k] = total
        k += 1
    return k, attempts


@njit(cache=True)
def pile_model_evidence(me: int, my_hand: int, unknown: int, counts: np.ndarray,
                        fixed: np.ndarray, table: np.ndarray, prm: np.ndarray,
                        eps: np.ndarray, proposals: int, bufc: np.ndarray,
                        bufi: np.ndarray) -> np.ndarray:
    """Per player and model (rows: players, columns: ``models.MODEL_*``), the log of the
    record's chance with the hidden cards averaged out: the mean over ``proposals`` uniform
    histories of the chance of each opponent's actions (an estimate of the model's
    evidence).  The playout policy's column is NaN: its choices look at the other hands,
    which a record scored one player at a time does not hold."""
    out = np.full((MAX_PLAYERS, N_MODELS), np.nan)
    top = np.full((MAX_PLAYERS, N_MODELS), -np.inf)
    logs = np.zeros((proposals, MAX_PLAYERS, N_MODELS))
    pool = np.empty(64, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    held = np.zeros(table.shape[0], dtype=np.int64)
    k = 0
    attempts = 0
    while k < proposals and attempts < proposals * 4:
        attempts += 1
        if not deal_world(me, my_hand, unknown, counts, fixed, hands, pool):
            continue
        for q in range(MAX_PLAYERS):
            if q == me:
                continue
            for m in range(N_MODELS):
                if m == MODEL_POLICY:
                    continue
                ll = pile_player_log_chance(q, hands[q], m, eps[m], table, prm, st, bufc,
                                            bufi, held)
                logs[k, q, m] = ll
                top[q, m] = max(top[q, m], ll)
        k += 1
    if k == 0:
        return out
    for q in range(MAX_PLAYERS):
        if q == me:
            continue
        for m in range(N_MODELS):
            if m == MODEL_POLICY or top[q, m] == -np.inf:
                continue
            total = 0.0
            for i in range(k):
                total += np.exp(logs[i, q, m] - top[q, m])
            out[q, m] = top[q, m] + np.log(total / k)
    return out



@njit(cache=True)
def refine_pile_worlds(worlds: np.ndarray, me: int, fixed: np.ndarray, unknown: int,
                       table: np.ndarray, models: np.ndarray, eps: np.ndarray,
                       prm: np.ndarray, steps: int, bufc: np.ndarray,
                       bufi: np.ndarray) -> float:
    """Move each world towards the histories that explain the record: ``steps`` Metropolis
    steps, each swapping one card of an opponent with one of another opponent or of the
    world's pile (the unseen cards no hand holds), accepted by the untempered chance of the
    record.  A step's chance is drawn afresh with each proposal and the current one's kept
    (pseudo-marginal: the chain still has the posterior of the hands as its target).
    Counts and known holders never change.  Returns the share of accepted swaps."""
    opponents = np.empty(MAX_PLAYERS, dtype=np.int64)
    n_opp = 0
    for q in range(MAX_PLAYERS):
        if q != me and worlds.shape[0] and worlds[0, q] != 0:
            opponents[n_opp] = q
            n_opp += 1
    if n_opp == 0 or steps <= 0:
        return 0.0
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    held = np.zeros(table.shape[0], dtype=np.int64)
    ll = np.zeros(MAX_PLAYERS)
    accepted = 0
    tried = 0
    for i in range(worlds.shape[0]):
        hands = worlds[i]
        pile = world_pile(unknown, hands, me)
        for a in range(n_opp):
            q = opponents[a]
            ll[q] = pile_player_log_chance(q, hands[q], models[q], eps[q], table, prm, st,
                                           bufc, bufi, held)
        for _ in range(steps):
            q1 = opponents[np.random.randint(0, n_opp)]
            b = np.random.randint(0, n_opp)  # another opponent, or (drawing q1) the pile
            q2 = opponents[b] if opponents[b] != q1 else -1
            free1 = hands[q1] & ~fixed[q1]
            free2 = (hands[q2] & ~fixed[q2]) if q2 >= 0 else pile
            c1, c2 = swap_cards(free1, free2)
            if c1 == 0:
                continue
            h1 = add_cards(take_cards(hands[q1], c1), c2)
            h2 = add_cards(take_cards(hands[q2] if q2 >= 0 else pile, c2), c1)
            tried += 1
            new1 = pile_player_log_chance(q1, h1, models[q1], eps[q1], table, prm, st, bufc,
                                          bufi, held)
            new2 = 0.0
            old = ll[q1]
            if q2 >= 0:
                new2 = pile_player_log_chance(q2, h2, models[q2], eps[q2], table, prm, st,
                                              bufc, bufi, held)
                old += ll[q2]
            delta = new1 + new2 - old
            if delta >= 0.0 or np.random.random() < np.exp(delta):
                hands[q1] = h1
                ll[q1] = new1
                if q2 >= 0:
                    hands[q2] = h2
                    ll[q2] = new2
                else:
                    pile = h2
                accepted += 1
    return accepted / tried if tried else 0.0


__all__ = ["LOG_MISS", "pile_action_table", "pile_model_evidence", "pile_player_log_chance",
           "propose_pile_worlds", "refine_pile_worlds"]
