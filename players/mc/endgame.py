"""Exact play when two players are left: who of the two goes out first.

With two players left every card is known to both (the rest has been played), so the end is
a perfect-information race.  :func:`solve_two` searches it exhaustively (AND/OR search over
every legal play, each joker placement included, and the pass) with a transposition table
and a node budget; it answers ``1`` (``me`` goes out first whatever the other does), ``0``
(the other can see to it that ``me`` does not), or :data:`UNKNOWN`: the budget ran out, or
neither can force the race and the pass limit, which places the two at random, is in reach
(a coin flip is no sure result either way; a playout plays it out with the seeded RNG).  A
leader never passes an empty field here: that only hands the lead over.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import int64
from .control import THREATS_SIZE, control_win, threats
from .movegen import generate, keep_plays
from .moves import MAX_MOVES
from .plays import GEKI, LOCKED
from .rulebits import CHOICE_BITS, FORBIDDEN_LAST, LEADER_MUST_PLAY
from .state import (
    ELEVEN,
    FAILS,
    FIELD_CARDS,
    FIELD_INFO,
    HAND,
    LEAD_COUNT,
    LEAD_PLAYER,
    LOCK,
    MAX_PLAYERS,
    N_OUT,
    OVER,
    OWNER,
    OWNER_ANSWERS,
    PASS_LIMIT,
    PASSED,
    PENDING_REV,
    REV,
    REVERSED,
    RULES,
    STATE_SIZE,
    TURN,
    apply_pass,
    apply_play,
    place_of,
)

UNKNOWN = -1
MAX_DEPTH = 96
TABLE_BITS = 16
_MIX = int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as a signed 64-bit value


def new_table() -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table (keys, values)."""
    return (np.zeros(1 << TABLE_BITS, dtype=np.int64), np.zeros(1 << TABLE_BITS, dtype=np.int8))


@njit(cache=True)
def _mix(h: int, v: int) -> int:
    h = (h ^ v) * _MIX
    return h ^ (h >> int64(31))


@njit(cache=True)
def position_key(st: np.ndarray, me: int) -> int:
    h = int64(me + 1)
    for p in range(MAX_PLAYERS):
        h = _mix(h, st[HAND + p])
    h = _mix(h, st[FIELD_CARDS])
    h = _mix(h, st[FIELD_INFO])
    h = _mix(h, st[TURN] | (st[OWNER] << 4) | (st[PASSED] << 8) | (st[REV] << 16)
             | ((st[LOCK] & LOCKED) << 17) | (st[OWNER_ANSWERS] << 18) | (st[ELEVEN] << 19))
    if st[FAILS] > 2:  # passes in a row past the two a trick takes (only a stuck leader,
        h = _mix(h, st[FAILS])  # under reject, gets there): how near the pass limit
    if st[RULES] >> 20 != 0:  # the thirteenth_floor effects (uecda and web keys unchanged)
        h = _mix(h, st[PENDING_REV] | (st[REVERSED] << 8) | ((st[LEAD_PLAYER] + 1) << 16)
                 | (st[LEAD_COUNT] << 24) | ((st[LOCK] & GEKI) << 31))
    return h if h != 0 else int64(1)


# Columns of the per-depth frame table of the search.
F_MOVES, F_NEXT, F_KEY, F_UNKNOWN = 0, 1, 2, 3
_EXPAND = -2


@njit(cache=True)
def _settle(st: np.ndarray, me: int, depth: int, nodes: np.ndarray, limit: int,
            tt_keys: np.ndarray, tt_vals: np.ndarray, frames: np.ndarray) -> int:
    """The value of a position known without expanding it, or ``_EXPAND``."""
    if st[OVER] != 0:
        if st[FAILS] >= PASS_LIMIT:
            # the pass limit placed the two at random (a coin flip): neither a sure win nor
            # a sure loss, so unsolved; a playout then plays it out with the world's RNG
            return UNKNOWN
        # the race is over: me won it unless it took the last place
        return 1 if place_of(st, me) < st[N_OUT] - 1 else 0
    if st[HAND + me] == 0:
        return 1
    nodes[0] += 1
    if nodes[0] > limit or depth + 1 >= frames.shape[0]:
        return UNKNOWN
    key = position_key(st, me)
    frames[depth, F_KEY] = key
    slot = key & (tt_keys.shape[0] - 1)
    if tt_keys[slot] == key:
        return tt_vals[slot]
    return _EXPAND


@njit(cache=True)
def _store(tt_keys: np.ndarray, tt_vals: np.ndarray, key: int, value: int) -> None:
    slot = key & (tt_keys.shape[0] - 1)
    tt_keys[slot] = key
    tt_vals[slot] = value


@njit(cache=True)
def _expand(st: np.ndarray, me: int, depth: int, bufc: np.ndarray, bufi: np.ndarray,
            frames: np.ndarray, control_offset: int) -> int:
    """List the moves of a position; return its value if one of them settles it at once."""
    p = st[TURN]
    hand = st[HAND + p]
    field = st[FIELD_INFO]
    offset = depth * MAX_MOVES
    oc = bufc[offset:offset + MAX_MOVES]
    oi = bufi[offset:offset + MAX_MOVES]
    rw = st[RULES]
    n = generate(hand, field, st[REV], st[LOCK], False, oc, oi, rw)
    if rw & FORBIDDEN_LAST:  # going out forbidden loses the race: never a winning move
        n = keep_plays(hand, field, st[REV], rw, False, True, oc, oi, n)
        if n == 0 and field == 0 and rw & LEADER_MUST_PLAY:
            return 0 if p == me else 1  # a leader with only forbidden finishes goes out last
    for i in range(n):
        if bufc[offset + i] == hand:
            return 1 if p == me else 0
    if field == 0:
        t = np.empty(THREATS_SIZE, dtype=np.int64)
        threats(st, p, t)
        if control_win(t, hand, st[REV], 2, bufc, bufi, control_offset):
            return 1 if p == me else 0
    frames[depth, F_MOVES] = n + (1 if field != 0 else 0)
    frames[depth, F_NEXT] = 0
    frames[depth, F_UNKNOWN] = 0
    return _EXPAND


@njit(cache=True)
def _enter_child(stack: np.ndarray, depth: int, bufc: np.ndarray, bufi: np.ndarray,
                 frames: np.ndarray) -> None:
    """Set up stack[depth + 1] as the next child of the position at ``depth``."""
    i = frames[depth, F_NEXT]
    frames[depth, F_NEXT] = i + 1
    child = stack[depth + 1]
    child[:] = stack[depth]
    n_plays = frames[depth, F_MOVES] - (1 if stack[depth, FIELD_INFO] != 0 else 0)
    if i < n_plays:
        k = depth * MAX_MOVES + i
        apply_play(child, bufc[k], bufi[k])
    else:
        apply_pass(child)


@njit(cache=True)
def _search(stack: np.ndarray, me: int, nodes: np.ndarray, limit: int, tt_keys: np.ndarray,
            tt_vals: np.ndarray, bufc: np.ndarray, bufi: np.ndarray,
            frames: np.ndarray) -> int:
    """AND/OR depth-first search from ``stack[0]`` with an explicit stack (Numba cannot cache
    recursive functions)."""
    control_offset = frames.shape[0] * MAX_MOVES
    depth = 0
    entering = True
    value = 0
    while True:
        if entering:
            st = stack[depth]
            value = _settle(st, me, depth, nodes, limit, tt_keys, tt_vals, frames)
            if value == _EXPAND:
                value = _expand(st, me, depth, bufc, bufi, frames, control_offset)
                if value != _EXPAND:
                    _store(tt_keys, tt_vals, frames[depth, F_KEY], value)
            if value == _EXPAND:
                _enter_child(stack, depth, bufc, bufi, frames)
                depth += 1
                continue
            if depth == 0:
                return value
            depth -= 1
            entering = False
            continue
        # a child of the position at ``depth`` came back with ``value``
        mover_is_me = stack[depth, TURN] == me
        if value == UNKNOWN:
            frames[depth, F_UNKNOWN] = 1
        elif (value == 1) == mover_is_me:  # the mover found a winning move
            _store(tt_keys, tt_vals, frames[depth, F_KEY], value)
            if depth == 0:
                return value
            depth -= 1
            continue
        if frames[depth, F_NEXT] < frames[depth, F_MOVES]:
            _enter_child(stack, depth, bufc, bufi, frames)
            depth += 1
            entering = True
            continue
        if frames[depth, F_UNKNOWN]:
            value = UNKNOWN
        else:
            value = 0 if mover_is_me else 1
            _store(tt_keys, tt_vals, frames[depth, F_KEY], value)
        if depth == 0:
            return value
        depth -= 1


class SolverScratch:
    """Work space of the solver, allocated once and reused by every call."""

    def __init__(self) -> None:
        self.keys, self.vals = new_table()
        self.stack = np.zeros((MAX_DEPTH, STATE_SIZE), dtype=np.int64)
        self.bufc = np.zeros((MAX_DEPTH + 4) * MAX_MOVES, dtype=np.int64)
        self.bufi = np.zeros((MAX_DEPTH + 4) * MAX_MOVES, dtype=np.int64)
        self.nodes = np.zeros(1, dtype=np.int64)
        self.frames = np.zeros((MAX_DEPTH, 4), dtype=np.int64)

    def clear(self) -> None:
        self.keys[:] = 0

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order :func:`solve_two` unpacks them."""
        return (self.keys, self.vals, self.stack, self.bufc, self.bufi, self.nodes,
                self.frames)


@njit(cache=True)
def solve_two(st: np.ndarray, me: int, limit: int, scratch: tuple[np.ndarray, ...]) -> int:
    """With ``me`` and one other player left, does ``me`` go out first (1/0/UNKNOWN)?

    ``scratch`` is :meth:`SolverScratch.arrays`; ``limit`` caps the positions searched.
    """
    tt_keys, tt_vals, stack, bufc, bufi, nodes, frames = scratch
    if st[RULES] & CHOICE_BITS:
        return UNKNOWN  # switched off: the race would have to search the 7-pass/10-discard choices
    stack[0] = st
    nodes[0] = 0
    return _search(stack, me, nodes, limit, tt_keys, tt_vals, bufc, bufi, frames)


__all__ = ["UNKNOWN", "SolverScratch", "new_table", "position_key", "solve_two"]
