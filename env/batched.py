"""A batched environment on the Numba simulator: N games stepped at once, arrays in and out.

:class:`BatchedEnv` plays ``batch`` matches side by side, one seat of each (``seat``) taken by
the agent and the others by bundled bots' Numba models (``default``: the UECda sample
client, ``weakest``, ``random``: a uniformly random legal move, ``policy``: mc's playout
policy).  Each step takes one action per game and returns, per game, the observation and the
legal-action mask of the agent's next move, its reward and whether a game ended.

The observations and actions are the AEC environment's (:mod:`daihinmin.env.observe`,
:mod:`daihinmin.env.actions`): the same vector for the same position, the same action
indices, so a policy moves between the two unchanged.  Only moves are asked: the agent's
exchange returns its weakest cards (as ``default`` does), and rules with 7-pass/10-discard
choices are not played here.  Game ``g`` of slot ``i`` is the engine's game ``g`` of the match
of seed ``seed + i`` (the deal, the exchange, the bots' moves): with the agent playing as
``default`` it is the engine's game move for move (tests/env/test_env_batched.py).

When a game ends, the slot goes on with the match's next game at once (its classes carry
into the exchange): the step's ``dones[i]`` is set, ``rewards[i]`` holds the points of the
agent's place (the rule set's points per place), and the observation is the next game's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from daihinmin.local import pyrandom
from daihinmin.local.numba_match import (
    _CARRY,
    _CLASSES,
    _SEATS,
    MODEL_POLICY,
    MODEL_SAMPLE,
    MODEL_UNIFORM,
    MODEL_WEAKEST,
    NumbaMatchError,
    _finish,
    _params,
    _start,
    game_seeds,
    model_move,
    numba_gaps,
    read_order,
    revolted_field,
)
from daihinmin.players.mc.bits import C3_BIT, JOKER_BITS, lowest_bit, popcount
from daihinmin.players.mc.convert import encode_move
from daihinmin.players.mc.models import pass_option
from daihinmin.players.mc.movegen import generate
from daihinmin.players.mc.moves import (
    MAX_MOVES,
    NO_JOKER_ROW,
    joker2_col_of,
    joker2_row_of,
    joker_col_of,
    joker_row_of,
    kind_of,
)
from daihinmin.players.mc.plays import GEKI, LOCKED
from daihinmin.players.mc.rollout import DEFAULT_PARAMS
from daihinmin.players.mc.rulebits import LEAD_HOLDS_CLUB3
from daihinmin.players.mc.state import (
    ELEVEN,
    FIELD_CARDS,
    FIELD_INFO,
    HAND,
    LOCK,
    MAX_PLAYERS,
    N_SEATS,
    OVER,
    OWNER,
    PASSED,
    POS,
    REV,
    REVERSED,
    RULES,
    SEAT,
    STATE_SIZE,
    TURN,
    apply_pass,
    apply_play,
    place_of,
    seed_numba,
)
from daihinmin.rules.ruleset import RuleSet, Scoring
from numba import njit

from .actions import IllegalActionError, action_table
from .observe import ObservationLayout
from .tables import resolve_rules

#: The opponents' models by bot name.
OPPONENTS: dict[str, int] = {"default": MODEL_SAMPLE, "weakest": MODEL_WEAKEST,
                             "random": MODEL_UNIFORM, "policy": MODEL_POLICY}
AGENT = -1  # the agent's seat in the models array
SEEDS_AHEAD = 64  # game seeds kept per slot (refilled from Python before they run out)
REFILL_AT = SEEDS_AHEAD - 8
# Per-slot facts beside the state (slots of the ``aux`` rows).
_GAME, _NEXT_SEED, _PLAYED, _LAST_REVOLTED, _FRESH, _FACTS = 0, 1, 2, 3, 4, 5
_AUX = _FACTS + 2 * MAX_PLAYERS
# Where the observation's parts start (ObservationLayout), in this order.
PART_ORDER = ("hand", "played", "given", "received", "lead_must", "field", "field_jokers",
              "field_kind", "decision", "flags", "count", "out", "passed", "owner", "turn",
              "class")
_MOVE_DECISION = 1  # observe.Decision.MOVE


@njit(cache=True)
def _cards(out: np.ndarray, start: int, mask: int) -> None:
    """The 54 card slots of ``mask`` (observe.card_bits: bits 4..55, then 60 and 61)."""
    while mask:
        bit = lowest_bit(mask)
        out[start + (bit - 4 if bit < 56 else bit - 8)] = 1.0
        mask &= mask - 1


@njit(cache=True)
def encode(st: np.ndarray, me: int, aux: np.ndarray, carry: np.ndarray, parts: np.ndarray,
           out: np.ndarray) -> None:
    """The agent's observation (``observe.encode`` of its view at a move decision);
    ``carry``: the match's seats and classes (the previous game's places)."""
    out[:] = 0.0
    n = st[N_SEATS]
    _cards(out, parts[0], st[HAND + me])
    _cards(out, parts[1], aux[_PLAYED])
    _cards(out, parts[2], aux[_FACTS + 2 * me])
    _cards(out, parts[3], aux[_FACTS + 2 * me + 1])
    if st[RULES] & LEAD_HOLDS_CLUB3:
        _cards(out, parts[4], C3_BIT)
    info = st[FIELD_INFO]
    if info == 0:
        out[parts[7]] = 1.0
    else:
        out[parts[7] + kind_of(info)] = 1.0
        _cards(out, parts[5], st[FIELD_CARDS])
        if st[FIELD_CARDS] & JOKER_BITS and joker_row_of(info) != NO_JOKER_ROW:
            out[parts[6] + 15 * joker_row_of(info) + joker_col_of(info)] = 1.0
            if joker2_row_of(info) >= 0:
                out[parts[6] + 15 * joker2_row_of(info) + joker2_col_of(info)] = 1.0
    out[parts[8] + _MOVE_DECISION] = 1.0
    flags = parts[9]
    lock = st[LOCK]
    eleven = st[ELEVEN]
    out[flags] = 1.0 if (st[REV] ^ eleven) != 0 else 0.0
    out[flags + 1] = 1.0 if eleven != 0 else 0.0
    out[flags + 2] = 1.0 if lock & LOCKED else 0.0
    out[flags + 3] = 1.0 if lock & GEKI else 0.0
    out[flags + 4] = 1.0 if st[REVERSED] != 0 else 0.0
    known = aux[_FRESH] == 0
    out[flags + 5] = 1.0 if known else 0.0
    mine = st[POS + me]
    for k in range(n):
        p = st[SEAT + (mine + k) % n]
        cards = popcount(st[HAND + p])
        out[parts[10] + k] = min(cards / 54.0, 1.0)
        if cards == 0:
            out[parts[11] + k] = 1.0
        if (st[PASSED] >> p) & 1:
            out[parts[12] + k] = 1.0
        if info != 0 and st[OWNER] == p:
            out[parts[13] + k] = 1.0
        if st[TURN] == p:
            out[parts[14] + k] = 1.0
        if known:
            out[parts[15] + k] = carry[_CLASSES + p] / (n - 1)


@njit(cache=True)
def _slot_of(keys_c: np.ndarray, keys_i: np.ndarray, cards: int, info: int) -> int:
    """Where ``(cards, info)`` sits in the open-addressed action hash (its index beside)."""
    size = keys_c.shape[0]
    h = ((cards * 0x9E3779B97F4A7C15) ^ (info * 0xC2B2AE3D27D4EB4F)) & (size - 1)
    while keys_c[h] != 0 or keys_i[h] != 0:
        if keys_c[h] == cards and keys_i[h] == info:
            return h
        h = (h + 1) & (size - 1)
    return h


@njit(cache=True)
def _mask(st: np.ndarray, me: int, keys_c: np.ndarray, keys_i: np.ndarray,
          index: np.ndarray, bufc: np.ndarray, bufi: np.ndarray, out: np.ndarray) -> None:
    out[:] = 0
    n = generate(st[HAND + me], st[FIELD_INFO], st[REV], st[LOCK], False, bufc, bufi,
                 st[RULES])
    for i in range(n):
        out[index[_slot_of(keys_c, keys_i, bufc[i], bufi[i])]] = 1
    if pass_option(st, n):
        out[0] = 1


@njit(cache=True)
def _start_game(prm: np.ndarray, carry: np.ndarray, aux: np.ndarray, mt: np.ndarray,
                seeds: np.ndarray, hands: np.ndarray, deck: np.ndarray,
                facts: np.ndarray) -> np.ndarray:
    game = aux[_GAME] + 1
    aux[_GAME] = game
    k = aux[_NEXT_SEED]
    if k >= seeds.shape[0]:
        raise ValueError("out of game seeds")  # (refilled from Python long before)
    aux[_NEXT_SEED] = k + 1
    pyrandom.seed(mt, seeds[k])
    reset = prm[5]
    aux[_FRESH] = 1 if game == 1 or (reset > 0 and (game - 1) % reset == 0) else 0
    st = _start(prm, carry, mt, game, hands, deck, facts)
    aux[_PLAYED] = 0
    aux[_LAST_REVOLTED] = 0
    for j in range(2 * MAX_PLAYERS):
        aux[_FACTS + j] = facts[j]
    return st


@njit(cache=True)
def _advance(st: np.ndarray, prm: np.ndarray, models: np.ndarray, me: int, carry: np.ndarray,
             aux: np.ndarray, mt: np.ndarray, seeds: np.ndarray, points: np.ndarray,
             policy: np.ndarray, hands: np.ndarray, deck: np.ndarray, facts: np.ndarray,
             bufc: np.ndarray, bufi: np.ndarray) -> tuple[float, bool]:
    """Play the other seats until the agent is to move (starting the next games as games
    end); the agent's reward on the way, and whether a game ended."""
    reward = 0.0
    ended = False
    n = prm[0]
    while True:
        if st[OVER] != 0:
            _finish(st, mt, n)
            for p in range(n):
                carry[_CLASSES + p] = place_of(st, p)
            reward += points[place_of(st, me)]
            ended = True
            st[:] = _start_game(prm, carry, aux, mt, seeds, hands, deck, facts)
            continue
        p = st[TURN]
        if p == me:
            return reward, ended
        i = model_move(models[p], st, p, read_order(st, aux[_LAST_REVOLTED] != 0), policy,
                       bufc, bufi)
        _apply(st, aux, i, bufc, bufi)


@njit(cache=True)
def _apply(st: np.ndarray, aux: np.ndarray, i: int, bufc: np.ndarray,
           bufi: np.ndarray) -> None:
    if i < 0:
        apply_pass(st)
        aux[_LAST_REVOLTED] = 0
        return
    cards, info = bufc[i], bufi[i]
    apply_play(st, cards, info)
    aux[_PLAYED] |= cards
    aux[_LAST_REVOLTED] = 1 if revolted_field(st, cards, info) else 0


@njit(cache=True)
def run_batch(actions: np.ndarray, states: np.ndarray, prm: np.ndarray, models: np.ndarray,
              me: int, carry: np.ndarray, aux: np.ndarray, mts: np.ndarray,
              seeds: np.ndarray, points: np.ndarray, policy: np.ndarray,
              table_c: np.ndarray, table_i: np.ndarray, keys_c: np.ndarray,
              keys_i: np.ndarray, index: np.ndarray, parts: np.ndarray, obs: np.ndarray,
              masks: np.ndarray, rewards: np.ndarray, dones: np.ndarray) -> int:
    """One step of every game (``actions[i] < 0``: start slot ``i``'s match instead); how
    many slots then need more game seeds."""
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    deck = np.zeros(54, dtype=np.int64)
    facts = np.zeros(2 * MAX_PLAYERS, dtype=np.int64)
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    low = 0
    for b in range(actions.shape[0]):
        st = states[b]
        a = actions[b]
        if a < 0:
            st[:] = _start_game(prm, carry[b], aux[b], mts[b], seeds[b], hands, deck, facts)
        else:
            c, i = table_c[a], table_i[a]
            if i == 0:
                apply_pass(st)
                aux[b, _LAST_REVOLTED] = 0
            else:
                bufc[0], bufi[0] = c, i
                _apply(st, aux[b], 0, bufc, bufi)
        reward, ended = _advance(st, prm, models, me, carry[b], aux[b], mts[b], seeds[b],
                                 points, policy, hands, deck, facts, bufc, bufi)
        rewards[b] = reward
        dones[b] = ended
        encode(st, me, aux[b], carry[b], parts, obs[b])
        _mask(st, me, keys_c, keys_i, index, bufc, bufi, masks[b])
        if aux[b, _NEXT_SEED] >= REFILL_AT:
            low += 1
    return low


@njit(cache=True)
def first_illegal(actions: np.ndarray, masks: np.ndarray) -> int:
    """The first game whose action is out of range or not legal in its mask (-1: none)."""
    size = masks.shape[1]
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < 0 or a >= size or masks[b, a] == 0:
            return b
    return -1


@njit(cache=True)
def expert_moves(model: int, states: np.ndarray, me: int, aux: np.ndarray,
                 policy: np.ndarray, keys_c: np.ndarray, keys_i: np.ndarray,
                 index: np.ndarray, out: np.ndarray) -> None:
    """The action a bot's model would take in the agent's seat, for every game."""
    bufc = np.zeros(MAX_MOVES, dtype=np.int64)
    bufi = np.zeros(MAX_MOVES, dtype=np.int64)
    for b in range(states.shape[0]):
        st = states[b]
        i = model_move(model, st, me, read_order(st, aux[b, _LAST_REVOLTED] != 0), policy,
                       bufc, bufi)
        out[b] = 0 if i < 0 else index[_slot_of(keys_c, keys_i, bufc[i], bufi[i])]


class BatchedEnv:
    """``batch`` games at once on the Numba simulator (see the module docstring)::

        env = BatchedEnv("uecda", batch=1024, opponents="weakest", seed=1)
        obs, masks = env.reset()  # (1024, 507) float32, (1024, 2661) int8
        obs, masks, rewards, dones = env.step(env.expert_actions("default"))
    """

    def __init__(self, rules: str | RuleSet = "uecda", batch: int = 1024, seat: int = 0,
                 opponents: str | Sequence[str] = "default", seed: int = 0,
                 players: int | None = None, rule_overrides: Sequence[str] = ()) -> None:
        self.rules = resolve_rules(rules, players, rule_overrides)
        gaps = numba_gaps(self.rules)
        if gaps:
            raise NumbaMatchError(f"the batched environment does not play these rules as "
                                  f"the engine does: {', '.join(gaps)}")
        n = self.rules.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat}")
        others = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(others) != n - 1:
            raise ValueError(f"{n - 1} opponents needed, got {len(others)}")
        unknown = sorted(set(others) - set(OPPONENTS))
        if unknown:
            raise ValueError(f"no Numba model for {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(OPPONENTS))}")
        if batch < 1:
            raise ValueError(f"batch must be 1 or more, got {batch}")
        self.batch, self.seat, self.seed = batch, seat, seed
        self.opponents = list(others)
        self.models = np.array([AGENT if p == seat else OPPONENTS[others.pop(0)]
                                for p in range(n)], dtype=np.int64)
        self.prm = _params(self.rules)
        self.policy = DEFAULT_PARAMS.copy()
        self.points = np.array([self.rules.points_for_place(p) for p in range(n)],
                               dtype=np.float64)
        if self.rules.scoring is not Scoring.PLACE:  # (numba_gaps refuses it already)
            raise NumbaMatchError("card scoring is not played here")
        self.table = action_table(self.rules)
        self.action_size = self.table.size
        self.layout = ObservationLayout.of(self.rules)
        self.parts = np.array([self.layout.parts[name].start for name in PART_ORDER],
                              dtype=np.int64)
        self._build_action_hash()
        self.states = np.zeros((batch, STATE_SIZE), dtype=np.int64)
        self.carry = np.zeros((batch, _CARRY), dtype=np.int64)
        self.aux = np.zeros((batch, _AUX), dtype=np.int64)
        self.mts = np.zeros((batch, pyrandom.STATE_SIZE), dtype=np.int64)
        self.seeds = np.zeros((batch, SEEDS_AHEAD), dtype=np.uint64)
        self.obs = np.zeros((batch, self.layout.size), dtype=np.float32)
        self.masks = np.zeros((batch, self.action_size), dtype=np.int8)
        self.rewards = np.zeros(batch, dtype=np.float32)
        self.dones = np.zeros(batch, dtype=np.bool_)
        self._started = False

    def _build_action_hash(self) -> None:
        moves = self.table.moves
        codes = [encode_move(m) for m in moves]
        self.table_c = np.array([c for c, _ in codes], dtype=np.int64)
        self.table_i = np.array([i for _, i in codes], dtype=np.int64)
        size = 1 << (2 * len(moves)).bit_length()
        self.keys_c = np.zeros(size, dtype=np.int64)
        self.keys_i = np.zeros(size, dtype=np.int64)
        self.index = np.zeros(size, dtype=np.int64)
        for a in range(1, len(moves)):  # (the pass, (0, 0), is the empty key: action 0)
            h = _slot_of(self.keys_c, self.keys_i, self.table_c[a], self.table_i[a])
            self.keys_c[h], self.keys_i[h], self.index[h] = (self.table_c[a],
                                                             self.table_i[a], a)

    def match_seed(self, slot: int) -> int:
        """The seed of the match slot ``slot`` plays (``daihinmin match --seed``)."""
        return self.seed + slot

    def _refill(self, slots: npt.NDArray[np.intp]) -> None:
        for b in slots:
            first = int(self.aux[b, _GAME]) + 1
            self.seeds[b] = game_seeds(self.match_seed(int(b)), first, SEEDS_AHEAD)
            self.aux[b, _NEXT_SEED] = 0

    def _run(self, actions: npt.NDArray[np.int64]) -> None:
        low = run_batch(actions, self.states, self.prm, self.models, self.seat, self.carry,
                  self.aux, self.mts, self.seeds, self.points, self.policy, self.table_c,
                  self.table_i, self.keys_c, self.keys_i, self.index, self.parts, self.obs,
                  self.masks, self.rewards, self.dones)
        if low:
            self._refill(np.flatnonzero(self.aux[:, _NEXT_SEED] >= REFILL_AT))

    def reset(self, seed: int | None = None
              ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """Start every slot's match (slot ``i``: seed ``seed + i``); the first observations
        and masks.  The random opponent's and the playout policy's draws are seeded too."""
        if seed is not None:
            self.seed = seed
        n = self.rules.players
        self.carry[:] = -1
        self.carry[:, _SEATS:_SEATS + n] = np.arange(n)
        self.aux[:] = 0
        self._refill(np.arange(self.batch))
        seed_numba(self.seed % 2**32)
        self._run(np.full(self.batch, -1, dtype=np.int64))
        self._started = True
        return self.obs, self.masks

    def step(self, actions: npt.ArrayLike) -> tuple[npt.NDArray[np.float32],
                                                     npt.NDArray[np.int8],
                                                     npt.NDArray[np.float32],
                                                     npt.NDArray[np.bool_]]:
        """Each game's action; (observations, masks, rewards, dones) after it.  The arrays
        are the environment's own, overwritten by the next step (copy what you keep)."""
        if not self._started:
            raise RuntimeError("reset the environment first")
        acts = np.ascontiguousarray(actions, dtype=np.int64).reshape(self.batch)
        bad = first_illegal(acts, self.masks)
        if bad >= 0:
            raise IllegalActionError(f"game {bad}: action {int(acts[bad])} is not legal")
        self._run(acts)
        return self.obs, self.masks, self.rewards, self.dones

    def expert_actions(self, bot: str = "default") -> npt.NDArray[np.int64]:
        """The actions a bot's model (``OPPONENTS``) would take in the agent's seat now."""
        out = np.zeros(self.batch, dtype=np.int64)
        expert_moves(OPPONENTS[bot], self.states, self.seat, self.aux, self.policy,
                     self.keys_c, self.keys_i, self.index, out)
        return out

    def games_played(self) -> npt.NDArray[np.int64]:
        """Per slot, the games finished so far."""
        return self.aux[:, _GAME] - 1

    def info(self) -> dict[str, Any]:
        return {"batch": self.batch, "seat": self.seat, "opponents": self.opponents,
                "rules": self.rules.name, "observation_size": self.layout.size,
                "action_size": self.action_size}





def warm_up() -> None:
    """Compile (or load from the cache) the Numba code of the batched environment and of
    the Numba matches, with a few games of each."""
    from daihinmin.local.numba_match import play_numba_match
    from daihinmin.rules.ruleset import UECDA

    play_numba_match(UECDA, 1, 2, ["default"] * 5)
    env = BatchedEnv(UECDA, batch=2, opponents="random", seed=1)
    env.reset()
    env.step(env.expert_actions("default"))


__all__ = ["OPPONENTS", "PART_ORDER", "BatchedEnv", "encode", "expert_moves", "first_illegal",
           "run_batch", "warm_up"]
