"""The tree over mc's own later decisions in a playout (players/mc/tree.py), held against the
rules engine at thirteenth_floor positions from real deals (the draw pile included).

- A tree whose nodes never search plays the flat playout move for move (same value, same
  final state, same random stream).
- A node's key is what the player sees: the same for every way of dealing the hidden cards
  (the other hands at their sizes, the pile), another when its own hand or the after-draw
  fact differs.
- A node that searches tries exactly the engine's legal moves (one per card set, the pass
  where the engine allows it), and its children's visits add up to its own.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from daihinmin.players.mc import state as S
from daihinmin.players.mc.convert import encode_move, state_from_game
from daihinmin.players.mc.endgame import SolverScratch
from daihinmin.players.mc.models import MODEL_SAMPLE
from daihinmin.players.mc.playout import playout
from daihinmin.players.mc.rollout import BUFFER, plays_or_forced, policy_params
from daihinmin.players.mc.rulebits import AFTER_DRAW
from daihinmin.players.mc.tree import (
    C_CARDS,
    C_INFO,
    C_VISITS,
    CHILD_CAP,
    N_CHILDREN,
    N_VISITS,
    TreeScratch,
    find_node,
    info_key,
    tree_playout,
)
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import THIRTEENTH_FLOOR
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

MODELS = np.full(S.MAX_PLAYERS, MODEL_SAMPLE, dtype=np.int64)


def floor_positions(seed: int, count: int) -> list[GameState]:
    """Positions along one thirteenth_floor game (passing often, to draw)."""
    game = MatchState(THIRTEENTH_FLOOR, seed=seed, games=1).setup_game().start()
    rng = random.Random(seed)
    out: list[GameState] = []
    while not game.over and len(out) < count:
        out.append(game.copy())
        legal = game.legal_moves()
        game.step(PASS if PASS in legal and rng.random() < 0.4 else rng.choice(legal))
    return out


def buffers() -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    return (np.zeros(BUFFER, dtype=np.int64), np.zeros(BUFFER, dtype=np.int64),
            SolverScratch().arrays())


@pytest.mark.parametrize("seed", range(3))
def test_a_tree_that_never_searches_plays_the_flat_playout(seed: int) -> None:
    tree = TreeScratch()
    bufc, bufi, solver = buffers()
    flat = policy_params(first=0.6, place=0.4)
    never = policy_params(first=0.6, place=0.4, tree=4, tree_at=10**9)
    for k, game in enumerate(floor_positions(seed, 12)):
        me = (game.turn + k) % game.n_players  # to move, or waiting for its turn
        start = state_from_game(game)
        a, b = start.copy(), start.copy()
        tree.reset()
        S.seed_numba(k)
        va = playout(a, me, MODELS, flat, bufc, bufi, solver)
        S.seed_numba(k)
        vb = tree_playout(b, me, MODELS, never, bufc, bufi, solver, tree.arrays())
        assert va == vb and list(a) == list(b)


@pytest.mark.parametrize("seed", range(3))
def test_the_key_is_what_the_player_sees(seed: int) -> None:
    rng = random.Random(seed)
    for game in floor_positions(seed, 10):
        me = game.turn
        key = info_key(state_from_game(game), me)
        # the hidden cards dealt another way: the other hands at their sizes, the pile
        hidden = [c for q in range(game.n_players) if q != me for c in game.hands[q]]
        hidden += list(game.pile)
        rng.shuffle(hidden)
        other = game.copy()
        for q in range(game.n_players):
            if q != me:
                size = len(game.hands[q])
                other.hands[q], hidden = CardSet.of(hidden[:size]), hidden[size:]
        other.pile = hidden
        assert info_key(state_from_game(other), me) == key
        # my hand another (one card swapped with a hidden one): another node
        q = next(q for q in range(game.n_players) if q != me and game.hands[q])
        mine, theirs = min(game.hands[me]), min(game.hands[q])
        if mine != theirs:
            swapped = game.copy()
            swapped.hands[me] = CardSet.of([*(set(game.hands[me]) - {mine}), theirs])
            swapped.hands[q] = CardSet.of([*(set(game.hands[q]) - {theirs}), mine])
            assert info_key(state_from_game(swapped), me) != key
        drawn = state_from_game(game)
        drawn[S.RULES] ^= AFTER_DRAW
        assert info_key(drawn, me) != key


@pytest.mark.parametrize("seed", range(4))
def test_a_searching_node_tries_the_engines_legal_moves(seed: int) -> None:
    tree = TreeScratch()
    bufc, bufi, solver = buffers()
    prm = policy_params(first=0.6, place=0.4, tree=1, tree_at=0, tree_c=2.0)
    checked = 0
    for game in floor_positions(seed, 8):
        me = game.turn
        start = state_from_game(game)
        _, forced = plays_or_forced(start.copy(), me, prm, bufc, bufi)
        legal = {encode_move(m) if m != PASS else (0, 0) for m in game.legal_moves()}
        cards = {c for c, _ in legal}
        if forced >= 0 or len(cards) > CHILD_CAP or len(cards) < 2:
            continue  # a sure win is played at once; a list the node cannot hold
        tree.reset()
        arrays = tree.arrays()
        playouts = 30 * len(cards)
        for _ in range(playouts):
            tree_playout(start.copy(), me, MODELS, prm, bufc, bufi, solver, arrays)
        node = find_node(arrays, info_key(start, me))
        k = tree.nodes[node, N_CHILDREN]
        tried = {(int(tree.children[node, j, C_CARDS]), int(tree.children[node, j, C_INFO]))
                 for j in range(k)}
        assert tried <= legal, f"{game.hands[me]} on {game.field}: {tried - legal}"
        assert {c for c, _ in tried} == cards  # one placement per card set, every set
        assert tree.nodes[node, N_VISITS] == playouts
        assert tree.children[node, :k, C_VISITS].sum() == playouts
        checked += 1
    assert checked > 0
