"""Learn a daihinmin policy with the batched environment, numpy only (REINFORCE).

The policy scores each legal action by a few facts of the move (its kind, size, ranks, jokers,
whether it cuts, revolts or passes) weighed by a few facts of the position (revolution, an
empty field, the cards left), ``features(a) . W . state``, plus a weight for a play that
empties the hand: about eighty numbers.  It plays seat 0 against four ``weakest`` bots
(``--opponents random`` for random ones) in ``--batch`` games at once; after each game its
moves are reinforced by the points it got (less a running mean).  It starts close to
``weakest``, so that its games are worth learning from at once.  Then it is evaluated,
greedily, against the same bots on fresh seeds, and so are ``weakest`` itself and the
untrained start in seat 0 on the same seeds: the difference of the mean points per game
from ``weakest``'s, with its 95% confidence interval over the matches, says whether it
learned to beat ``weakest``.

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


class Policy:
    """``logit(a) = features(a) . W . state + w_out * (a empties the hand)``."""

    def __init__(self, env: BatchedEnv) -> None:
        self.env = env
        self.feats = action_features(env)
        self.sizes = np.array([0 if m.is_pass else len(m.hand_cards())
                               for m in env.table.moves] + [0] * (env.action_size
                                                                 - len(env.table.moves)))
        self.weights = np.zeros((self.feats.shape[1], 6))
        self.w_out = 0.0
        # The start: close to ``weakest`` (the lowest ranks first, the lowest ones when the
        # order is reversed; many cards at a lead; no pass, no joker while avoidable).
        w = self.weights
        w[7, 0], w[7, 1] = -8.0, 16.0  # rank, and its flip under a revolution
        w[6, 2] = 2.0  # size at a lead
        w[0, 0], w[9, 0] = -3.0, -2.0  # pass, joker

    def inputs(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = state_features(self.env, obs)
        mine = np.rint(obs[:, self.env.layout.parts["count"].start] * 54.0)
        empties = (self.sizes[None, :] == mine[:, None]).astype(np.float64)
        return s, empties

    def logits(self, s: np.ndarray, empties: np.ndarray, masks: np.ndarray) -> np.ndarray:
        z = s @ self.weights.T @ self.feats.T + self.w_out * empties
        return np.where(masks > 0, z, -np.inf)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def train(args: argparse.Namespace) -> Policy:
    env = BatchedEnv(args.rules, batch=args.batch, opponents=args.opponents, seed=args.seed)
    pol = Policy(env)
    rng = np.random.default_rng(args.seed)
    obs, masks = env.reset()
    rows = np.arange(args.batch)
    grads = np.zeros((args.batch, *pol.weights.shape))  # each game's score function so far
    grads_out = np.zeros(args.batch)
    baseline = float(np.mean([env.rules.points_for_place(p)
                              for p in range(env.rules.players)]))
    spread = 1.0  # the running mean distance of the points from the baseline
    done_games = 0
    for step in range(args.steps):
        s, empties = pol.inputs(obs)
        z = pol.logits(s, empties, masks)
        probs = softmax(z)
        actions = (z + rng.gumbel(size=z.shape)).argmax(axis=1)  # a sample of each row
        grads += np.einsum("bf,bs->bfs", pol.feats[actions] - probs @ pol.feats, s)
        grads_out += empties[rows, actions] - (probs * empties).sum(axis=1)
        obs, masks, rewards, dones = env.step(actions)
        if dones.any():
            ended = np.flatnonzero(dones)
            advantage = (rewards[ended] - baseline) / spread
            pol.weights += args.lr * np.einsum("b,bfs->fs", advantage, grads[ended]) / len(ended)
            pol.w_out += args.lr * float(advantage @ grads_out[ended]) / len(ended)
            baseline += 0.02 * (float(rewards[ended].mean()) - baseline)
            spread += 0.02 * (float(np.abs(rewards[ended] - baseline).mean()) - spread)
            grads[ended] = 0.0
            grads_out[ended] = 0.0
            done_games += len(ended)
        if args.verbose and step % 500 == 0:
            print(f"step {step}: {done_games} games, mean points {baseline:.3f}")
    return pol


def evaluate(args: argparse.Namespace, trained: Policy | None) -> np.ndarray:
    """Mean points per game of seat 0 in each match: the greedy policy (or ``weakest``)."""
    env = BatchedEnv(args.rules, batch=args.eval_matches, opponents=args.opponents,
                     seed=args.eval_seed)
    pol = None
    if trained is not None:
        pol = Policy(env)
        pol.weights, pol.w_out = trained.weights, trained.w_out
    obs, masks = env.reset()
    points = np.zeros(args.eval_matches)
    games = np.zeros(args.eval_matches, dtype=np.int64)
    while (games < args.eval_games).any():
        if pol is None:
            actions = env.expert_actions("weakest")
        else:
            actions = pol.logits(*pol.inputs(obs), masks).argmax(axis=1)
        obs, masks, rewards, dones = env.step(actions)
        counted = dones & (games < args.eval_games)
        points[counted] += rewards[counted]
        games += dones
    return points / args.eval_games


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rules", default="uecda")
    p.add_argument("--opponents", default="weakest", choices=["weakest", "random"])
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-matches", type=int, default=1000)
    p.add_argument("--eval-games", type=int, default=40, help="games of each match")
    p.add_argument("--eval-seed", type=int, default=1_000_000)
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    started = time.perf_counter()
    pol = train(args)
    trained = time.perf_counter() - started
    learned, weakest = evaluate(args, pol), evaluate(args, None)
    args_start = argparse.Namespace(**{**vars(args), "steps": 0})
    start = evaluate(args, train(args_start))  # the untrained start, for comparison
    diff = learned - weakest
    half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
    print(json.dumps({
        "rules": args.rules, "opponents": args.opponents, "train_steps": args.steps,
        "batch": args.batch, "train_seconds": round(trained, 1),
        "eval_matches": args.eval_matches, "eval_games_each": args.eval_games,
        "start_points_per_game": round(float(start.mean()), 4),
        "learned_points_per_game": round(float(learned.mean()), 4),
        "weakest_points_per_game": round(float(weakest.mean()), 4),
        "difference": round(float(diff.mean()), 4),
        "difference_ci95": [round(float(diff.mean() - half), 4),
                            round(float(diff.mean() + half), 4)]}))


if __name__ == "__main__":
    main()
