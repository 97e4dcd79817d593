"""A tree over the searching player's own later decisions in a playout.

In a flat playout every later move of the player the search is for is made by the playout
policy, so each root candidate is valued as "this move, then the policy".  Here the first
``prm[P_TREE]`` of its later decisions are nodes of a tree keyed by what that player sees
(its hand, the field, the effects in play, every player's card count, the pile's size: an
information set, the same in every sampled world that reaches it, so a node's choice never
depends on the hidden hands).  A node plays the policy's move until it has been reached
``prm[P_TREE_AT]`` times, then picks among all its plays and the pass by UCB1 (exploration
``prm[P_TREE_C]``); the rest of the playout is the flat one
(:func:`~daihinmin.players.mc.playout.playout`).  The tree lives for one search
(:meth:`TreeScratch.reset`); a full table or child list only falls back to the policy.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import int64, popcount
from .models import pass_option
from .playout import own_choice, playout, step
from .rollout import P_TREE, P_TREE_AT, P_TREE_C, forced_play, policy_plays
from .rulebits import CARD_SCORING, CHOICE_BITS
from .state import (
    ELEVEN,
    FIELD_CARDS,
    FIELD_INFO,
    HAND,
    LEAD_COUNT,
    LEAD_PLAYER,
    LOCK,
    MAX_PLAYERS,
    N_OUT,
    N_SEATS,
    OVER,
    OWNER,
    PASSED,
    PENDING_REV,
    PILE_COUNT,
    REV,
    REVERSED,
    RULES,
    TURN,
    apply_pass,
    apply_play,
    choice_pending,
)

NODE_CAP = 4096  # nodes per search (a power of two: the hash's mask)
CHILD_CAP = 40  # moves tracked per node
PROBES = 16  # slots tried before a key is given up (the table is then full there)
MAX_TREE_DEPTH = 8
# columns of the node table
N_STAMP, N_KEY, N_VISITS, N_CHILDREN = 0, 1, 2, 3
# columns of the child table
C_CARDS, C_INFO, C_VISITS = 0, 1, 2
_MIX = int64(-7046029254386353131)  # 0x9E3779B97F4A7C15, the golden-ratio multiplier


class TreeScratch:
    """The tree's tables, allocated once per bot and emptied for each search."""

    def __init__(self) -> None:
        self.nodes = np.zeros((NODE_CAP, 4), dtype=np.int64)
        self.node_sums = np.zeros(NODE_CAP)
        self.children = np.zeros((NODE_CAP, CHILD_CAP, 3), dtype=np.int64)
        self.child_sums = np.zeros((NODE_CAP, CHILD_CAP))
        self.generation = np.zeros(1, dtype=np.int64)

    def reset(self) -> None:
        """A new search: every node of the last one counts as empty (by its stamp)."""
        self.generation[0] += 1

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the Numba functions unpack them."""
        return (self.nodes, self.node_sums, self.children, self.child_sums, self.generation)


@njit(cache=True)
def _mix(h: int, x: int) -> int:
    h = (h ^ x) * _MIX
    return h ^ (h >> 29)


@njit(cache=True)
def info_key(st: np.ndarray, me: int) -> int:
    """What ``me`` (to move) sees of ``st``, hashed: its hand, the field and the effects in
    play, the rules word (it carries the after-draw fact), every hand's size, the pile's."""
    h = _mix(int64(0x5EED), st[HAND + me])
    for slot in (FIELD_CARDS, FIELD_INFO, OWNER, PASSED, REV, LOCK, ELEVEN, RULES, N_OUT,
                 PILE_COUNT, REVERSED, PENDING_REV, LEAD_PLAYER, LEAD_COUNT):
        h = _mix(h, st[slot])
    for p in range(MAX_PLAYERS):
        h = _mix(h, popcount(st[HAND + p]))
    return h


@njit(cache=True)
def find_node(tree: tuple[np.ndarray, ...], key: int) -> int:
    """The node of ``key`` (a new empty one if it has none yet), or -1 if no slot is free."""
    nodes = tree[0]
    gen = tree[4][0]
    slot = key & (NODE_CAP - 1)
    for _ in range(PROBES):
        if nodes[slot, N_STAMP] != gen:
            nodes[slot, N_STAMP] = gen
            nodes[slot, N_KEY] = key
            nodes[slot, N_VISITS] = 0
            nodes[slot, N_CHILDREN] = 0
            tree[1][slot] = 0.0
            return slot
        if nodes[slot, N_KEY] == key:
            return slot
        slot = (slot + 1) & (NODE_CAP - 1)
    return -1


@njit(cache=True)
def find_child(tree: tuple[np.ndarray, ...], node: int, cards: int, info: int,
               add: bool) -> int:
    """The child of ``node`` for the move ``(cards, info)`` (the pass: 0, 0); with ``add``
    a new one if it has none yet; -1 if it has none (or no room)."""
    nodes, children = tree[0], tree[2]
    k = nodes[node, N_CHILDREN]
    for j in range(k):
        if children[node, j, C_CARDS] == cards and children[node, j, C_INFO] == info:
            return j
    if not add or k >= CHILD_CAP:
        return -1
    children[node, k, C_CARDS] = cards
    children[node, k, C_INFO] = info
    children[node, k, C_VISITS] = 0
    tree[3][node, k] = 0.0
    nodes[node, N_CHILDREN] = k + 1
    return k


@njit(cache=True)
def ucb_move(st: np.ndarray, me: int, node: int, tree: tuple[np.ndarray, ...],
             prm: np.ndarray, bufc: np.ndarray, bufi: np.ndarray) -> int:
    """UCB1 over ``me``'s plays (listed in the buffers) and the pass: an index, or -1 (the
    pass).  A move not tried yet counts as one playout at the node's mean."""
    nodes, node_sums, children, child_sums = tree[0], tree[1], tree[2], tree[3]
    n = policy_plays(st, me, bufc, bufi)
    if n > 0:
        forced = forced_play(st, me, prm, bufc, bufi, n)
        if forced >= 0:
            return forced  # the race is won at once: nothing to search
    scale = 1.0 / (float(st[N_SEATS]) - 1.0)
    visits = nodes[node, N_VISITS]
    node_mean = (node_sums[node] / max(visits, 1) - 1.0) * scale
    log_n = np.log(max(visits, 1))
    c = prm[P_TREE_C]
    best = -2
    best_u = -1e18
    for i in range(-1, n):
        if i < 0:
            if not pass_option(st, n):
                continue
            j = find_child(tree, node, 0, 0, False)
        else:
            j = find_child(tree, node, bufc[i], bufi[i], False)
        if j >= 0 and children[node, j, C_VISITS] > 0:
            v = children[node, j, C_VISITS]
            u = (child_sums[node, j] / v - 1.0) * scale + c * np.sqrt(log_n / v)
        else:
            u = node_mean + c * np.sqrt(log_n)
        if u > best_u:
            best_u = u
            best = i
    return best if best > -2 else -1


@njit(cache=True)
def tree_playout(st: np.ndarray, me: int, models: np.ndarray, prm: np.ndarray,
                 bufc: np.ndarray, bufi: np.ndarray, solver: tuple[np.ndarray, ...],
                 tree: tuple[np.ndarray, ...]) -> float:
    """:func:`~daihinmin.players.mc.playout.playout` with ``me``'s first ``prm[P_TREE]``
    decisions made by the tree (module doc); every node on the way gets the value."""
    depth_cap = min(int(prm[P_TREE]), MAX_TREE_DEPTH)
    expand_at = int(prm[P_TREE_AT])
    path_node = np.empty(MAX_TREE_DEPTH, dtype=np.int64)
    path_child = np.empty(MAX_TREE_DEPTH, dtype=np.int64)
    cards = st[RULES] & CARD_SCORING != 0
    depth = 0
    while depth < depth_cap and st[OVER] == 0 and (cards or st[HAND + me] != 0):
        if st[TURN] != me or (st[RULES] & CHOICE_BITS and choice_pending(st)):
            step(st, me, models, prm, bufc, bufi)
            continue
        node = find_node(tree, info_key(st, me))
        if node >= 0 and tree[0][node, N_VISITS] >= expand_at:
            i = ucb_move(st, me, node, tree, prm, bufc, bufi)
        else:
            i = own_choice(st, me, prm, bufc, bufi)
        mc = bufc[i] if i >= 0 else int64(0)
        mi = bufi[i] if i >= 0 else int64(0)
        path_node[depth] = node
        path_child[depth] = find_child(tree, node, mc, mi, True) if node >= 0 else -1
        depth += 1
        if i < 0:
            apply_pass(st)
        else:
            apply_play(st, mc, mi)
    v = playout(st, me, models, prm, bufc, bufi, solver)
    for d in range(depth):
        node = path_node[d]
        if node < 0:
            continue
        tree[0][node, N_VISITS] += 1
        tree[1][node] += v
        j = path_child[d]
        if j >= 0:
            tree[2][node, j, C_VISITS] += 1
            tree[3][node, j] += v
    return v
