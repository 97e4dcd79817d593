"""The rules engine alone: random legal games played as fast as it judges them."""

from __future__ import annotations

import random
import time

from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import ruleset_from


def run_random_games(rules_name: str, overrides: list[str], games: int, seed: int
                     ) -> dict[str, float]:
    rules = ruleset_from(rules_name, overrides)
    pick = random.Random(seed)
    match = MatchState(rules, seed=seed, games=games)
    turns = 0
    start = time.perf_counter()
    while not match.finished:
        setup = match.setup_game()
        for player in setup.exchange_order():
            count, _ = setup.owed[player]
            choice = pick.sample(list(setup.hands[player]), count)
            setup.give_back(player, type(setup.hands[player]).of(choice))
        game = setup.start()
        while not game.over:
            if game.pending is not None:  # 7-pass / 10-discard: a random valid answer
                game.step_choice(pick.choice(game.legal_choices()))
                continue
            game.step(pick.choice(game.legal_moves()))
            turns += 1
        match.finish_game(game)
    wall = time.perf_counter() - start
    return {"games": games, "turns": turns, "seconds": round(wall, 4),
            "games_per_second": round(games / wall, 2),
            "turns_per_second": round(turns / wall, 1)}
