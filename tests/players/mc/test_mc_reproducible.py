"""mc's search is reproducible for a fixed seed, and the solver never counts a coin flip.

At the pass limit the engine places the players still in at random (``GameState.rng``); the
simulator draws the same from Numba's generator, which each decision seeds from the bot's
own ``seed``.  The exact two-player solver treats such an end as unsolved (neither a win nor
a loss): its answer is then the same whatever the generator's state, and a playout that
meets it plays it out, drawing the places as the engine would.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from daihinmin.bench.mc import sample_positions
from daihinmin.contract.view import GameView
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.convert import state_from_game
from daihinmin.players.mc.endgame import UNKNOWN, SolverScratch, solve_two
from daihinmin.players.mc.state import seed_numba
from daihinmin.rules.game import GameState
from daihinmin.rules.ruleset import APP, ORIGINAL, UECDA, WEB, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

PRESETS = {"uecda": UECDA, "web": WEB, "app": APP, "original": ORIGINAL}


def stuck_pair(rules: RuleSet, hands: tuple[str, str], failures: int = 0) -> GameState:
    """Two players left (0 and 1, the others out), 0 to lead, each holding only cards
    whose play would be a forbidden finish (``reject``: both can only pass)."""
    n = rules.players
    cards = [CardSet.parse(hands[0]), CardSet.parse(hands[1])] + [CardSet(0)] * (n - 2)
    game = GameState(rules=rules, hands=cards, seats=tuple(range(n)), turn=0,
                     rng=random.Random(0), owner=0, finished=list(range(2, n)))
    game.failures = failures
    return game


def test_the_engine_places_a_stuck_pair_at_random() -> None:
    """The position of the solver test below: only passes, and the pass limit decides."""
    firsts = set()
    for seed in range(12):
        game = stuck_pair(ORIGINAL, ("D2", "S2"))
        game.rng = random.Random(seed)
        while not game.over:
            assert game.legal_moves() == [PASS]
            game.step(PASS)
        firsts.add(game.finished[-2])
    assert firsts == {0, 1}


@pytest.mark.parametrize("failures", [0, 5, 18])
def test_solver_calls_the_pass_limit_unsolved_whatever_the_generator(failures: int) -> None:
    """The same answer for every state of the generator: unsolved (it was 0 or 1 by the
    draw the pass limit made inside the search)."""
    st = state_from_game(stuck_pair(ORIGINAL, ("D2", "S2"), failures))
    answers = set()
    for seed in range(16):
        seed_numba(seed)
        answers.add(solve_two(st.copy(), 0, 100_000, SolverScratch().arrays()))
    assert answers == {UNKNOWN}


def test_solver_still_wins_past_a_stuck_rival() -> None:
    """The rival can only pass (its ♠2 would be a forbidden finish): ♦4 then ♦5 wins
    without the pass limit, so the race is solved."""
    st = state_from_game(stuck_pair(ORIGINAL, ("D4 C5", "S2")))
    assert solve_two(st, 0, 100_000, SolverScratch().arrays()) == 1


def two_player_endings(rules: RuleSet, count: int) -> list[tuple[GameView, list[CardSet]]]:
    """Endings where the root solver runs (two cards each, 0 to lead), with the true hands
    (revealed to the bot: the view has no history to infer them from)."""
    rng = random.Random(7)
    deck = [f"{s}{r}" for s in "SHDC" for r in "3456789TJQKA2"]
    out: list[tuple[GameView, list[CardSet]]] = []
    while len(out) < count:
        cards = rng.sample(deck, 4)
        game = stuck_pair(rules, (" ".join(cards[:2]), " ".join(cards[2:])))
        if len(game.legal_moves()) < 2:
            continue
        view = GameView(player=0, hand=game.hands[0], field=None, turn_player=0,
                        revolution=False, eleven_back=False, lock=False,
                        counts=game.counts(), classes=(0,) * rules.players,
                        seats=game.seats, my_turn=True, rules=rules)
        out.append((view, list(game.hands)))
    return out


@cache
def positions(name: str) -> list[tuple[GameView, list[CardSet] | None]]:
    rules = PRESETS[name]
    played: list[tuple[GameView, list[CardSet] | None]] = [
        (v, None) for v in sample_positions(10, seed=3, rules=rules)]
    return played + list(two_player_endings(rules, 4))


def decide(seed: int, view: GameView, hands: list[CardSet] | None) -> str:
    bot = MCBot(time_ms=0, playouts=120, seed=seed)
    bot.reveal(hands)
    return str(bot.play(view))


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_same_seed_same_move_over_many_positions(name: str) -> None:
    """Two bots of one seed and a playout cap choose the same move at each position, the
    two-player endings (root solver, solver in the playouts) included."""
    for k, (view, hands) in enumerate(positions(name)):
        assert decide(k, view, hands) == decide(k, view, hands), (k, str(view.hand))
