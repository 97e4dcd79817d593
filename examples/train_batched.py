"""Learn a daihinmin policy with the batched environment, numpy only (REINFORCE).

The policy scores each legal action by a few facts of the move (its kind, size, ranks, jokers,
whether it cuts, revolts or passes) weighed by a few facts of the position (revolution, an
empty field, the cards left): ``logit(a) = features(a) . W . state``, ``W`` about a hundred
numbers.  It plays seat 0 against four ``weakest`` bots (``--opponents random`` for random
ones) in ``--batch`` games at once; after each game its moves are reinforced by the points it
got (less a running mean).  Then it is evaluated, greedily, against the same bots on fresh
seeds, and so is ``weakest`` itself in seat 0 on the same seeds: the difference of the mean
points per game, with its 95% confidence interval over the matches, says whether it learned
to beat ``weakest``.

    python examples/train_batched.py --steps 3000 --eval-games 40

Needs the package (``pip install -e .``); the first run compiles the Numba code (minutes).
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
from daihinmin.env.batched import BatchedEnv
from daihinmin.values.moves import MoveKind


def action_features(env: BatchedEnv) -> np.ndarray:
    """One row of move facts per action (the pass, every play; card picks stay zero)."""
    rows = np.zeros((env.action_size, 13), dtype=np.float64)
    for a, move in enumerate(env.table.moves):
        f = rows[a]
        if move.is_pass:
            f[0] = 1.0
            continue
        f[int(move.kind)] = 1.0  # 1 single, 2 group, 3 sequence, 4 lone joker, 5 stairs
        f[6] = move.size / 5.0
        f[7] = move.low / 14.0  # its weakest rank (3 = 1 ... 2 = 13, a joker 14)
        f[8] = move.high / 14.0
        f[9] = float(move.jokers > 0)
        f[10] = float(move.kind is not MoveKind.JOKER and move.low <= 6 <= move.high)  # an 8
        f[11] = float((move.kind is MoveKind.GROUP and move.size >= 4)
                      or (move.kind is MoveKind.SEQUENCE and move.size >= 5))  # revolts
        f[12] = float(move.kind is not MoveKind.JOKER and move.high >= 12)  # an A or a 2
    return rows


def state_features(env: BatchedEnv, obs: np.ndarray) -> np.ndarray:
    """A few facts of each position (from the observation vector)."""
    parts = env.layout.parts
    n = env.rules.players
    counts = obs[:, parts["count"]]
    out = np.ones((obs.shape[0], 6))
    out[:, 1] = obs[:, parts["flags"].start]  # revolution
    out[:, 2] = obs[:, parts["field_kind"].start]  # the field is empty: a lead
    out[:, 3] = counts[:, 0] * 54.0 / 11.0  # my cards, about 0..1
    out[:, 4] = counts[:, 1:n].min(axis=1) * 54.0 / 11.0  # the nearest opponent to going out
    out[:, 5] = obs[:, parts["flags"].start + 2]  # lock
    return out


def policy(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    z = np.where(masks > 0, logits, -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def train(args: argparse.Namespace) -> np.ndarray:
    env = BatchedEnv(args.rules, batch=args.batch, opponents=args.opponents, seed=args.seed)
    feats = action_features(env)
    weights = np.zeros((feats.shape[1], 6))
    rng = np.random.default_rng(args.seed)
    obs, masks = env.reset()
    grads = np.zeros((args.batch, *weights.shape))  # each game's score function so far
    baseline, done_games = 0.0, 0
    for step in range(args.steps):
        s = state_features(env, obs)
        probs = policy(s @ weights.T @ feats.T, masks)
        actions = np.array([rng.choice(env.action_size, p=p) for p in probs])
        expected = probs @ feats  # (batch, features)
        grads += np.einsum("bf,bs->bfs", feats[actions] - expected, s)
        obs, masks, rewards, dones = env.step(actions)
        if dones.any():
            ended = np.flatnonzero(dones)
            advantage = rewards[ended] - baseline
            update = np.einsum("b,bfs->fs", advantage, grads[ended]) / len(ended)
            weights += args.lr * update
            baseline += 0.01 * (rewards[ended].mean() - baseline)
            grads[ended] = 0.0
            done_games += len(ended)
        if args.verbose and step % 500 == 0:
            print(f"step {step}: {done_games} games, mean points {baseline:.3f}")
    return weights


def evaluate(args: argparse.Namespace, weights: np.ndarray | None) -> np.ndarray:
    """Mean points per game of seat 0 in each match: the greedy policy (or ``weakest``)."""
    env = BatchedEnv(args.rules, batch=args.eval_matches, opponents=args.opponents,
                     seed=args.eval_seed)
    feats = action_features(env)
    obs, masks = env.reset()
    points = np.zeros(args.eval_matches)
    games = np.zeros(args.eval_matches, dtype=np.int64)
    while (games < args.eval_games).any():
        if weights is None:
            actions = env.expert_actions("weakest")
        else:
            logits = state_features(env, obs) @ weights.T @ feats.T
            actions = np.where(masks > 0, logits, -np.inf).argmax(axis=1)
        obs, masks, rewards, dones = env.step(actions)
        counted = dones & (games < args.eval_games)
        points[counted] += rewards[counted]
        games += dones
    return points / args.eval_games


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="uecda")
    p.add_argument("--opponents", default="weakest", choices=["weakest", "random"])
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-matches", type=int, default=1000)
    p.add_argument("--eval-games", type=int, default=40, help="games of each match")
    p.add_argument("--eval-seed", type=int, default=1_000_000)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    started = time.perf_counter()
    weights = train(args)
    trained = time.perf_counter() - started
    learned, weakest = evaluate(args, weights), evaluate(args, None)
    diff = learned - weakest
    half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
    print(json.dumps({
        "rules": args.rules, "opponents": args.opponents, "train_steps": args.steps,
        "batch": args.batch, "train_seconds": round(trained, 1),
        "eval_matches": args.eval_matches, "eval_games_each": args.eval_games,
        "learned_points_per_game": round(float(learned.mean()), 4),
        "weakest_points_per_game": round(float(weakest.mean()), 4),
        "difference": round(float(diff.mean()), 4),
        "difference_ci95": [round(float(diff.mean() - half), 4),
                            round(float(diff.mean() + half), 4)]}))


if __name__ == "__main__":
    main()
