"""The bundled players always answer legally, on random states reached by real play.

States come from the rules engine: a match is played with random moves (and random
exchanges) for a drawn number of games and turns, then the player to move gets a
:class:`GameView` built from the engine's state, exactly the facts a client knows.
"""

from __future__ import annotations

import random

import pytest
from daihinmin.contract.view import GameView
from daihinmin.players.registry import make_bot
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import UECDA, RuleSet, ruleset_from
from daihinmin.values.cards import CardSet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

RULES = [
    UECDA,
    ruleset_from("uecda", ["eleven_back=yes"]),
    ruleset_from("uecda", ["jokers=2"]),
    ruleset_from("uecda", ["lock=no", "eight_cut=no"]),
    ruleset_from("uecda", ["sequences=no"]),
    ruleset_from("uecda", ["forbidden_finish=reject"]),
]
BOTS = ["random", "default", "weakest", "greedy"]


def view_of(state: GameState, classes: tuple[int, ...] | None) -> GameView:
    p = state.turn
    return GameView(
        player=p, hand=state.hands[p], field=state.field, turn_player=p,
        revolution=state.revolution, eleven_back=state.eleven_back, lock=state.lock,
        counts=state.counts(), classes=classes or (0,) * state.n_players, seats=state.seats,
        my_turn=True, rules=state.rules, passed=state.passed,
        field_owner=state.owner if state.field is not None else None)


@st.composite
def reachable_states(draw: st.DrawFn) -> tuple[GameState, tuple[int, ...] | None]:
    rules: RuleSet = draw(st.sampled_from(RULES))
    seed = draw(st.integers(0, 2**32 - 1))
    games = draw(st.integers(1, 3))
    turns = draw(st.integers(0, 120))
    rng = random.Random(seed)
    match = MatchState(rules, seed=seed, games=games)
    while True:
        setup = match.setup_game()
        for player in setup.exchange_order():
            count, _ = setup.owed[player]
            setup.give_back(player, CardSet.of(rng.sample(sorted(setup.hands[player]), count)))
        state = setup.start()
        if match.game == games:
            break
        while not state.over:
            state.step(rng.choice(state.legal_moves()))
        match.finish_game(state)
    for _ in range(turns):
        nxt = state.copy()
        nxt.step(rng.choice(nxt.legal_moves()))
        if nxt.over:
            break
        state = nxt
    return state, setup.classes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable_states(), st.sampled_from(BOTS), st.integers(0, 1000))
def test_bots_play_legal_moves(sample: tuple[GameState, tuple[int, ...] | None], kind: str,
                               seed: int) -> None:
    state, classes = sample
    view = view_of(state, classes)
    # The view lists exactly the moves the server's engine accepts.
    assert {str(m) for m in view.legal_moves()} == {str(m) for m in state.legal_moves()}
    move = make_bot(kind, seed=seed).play(view)
    assert move in view.legal_moves()
    assert state.judge(move).accepted


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(BOTS), st.integers(0, 2**32 - 1), st.integers(1, 2),
       st.integers(0, 1000))
def test_bots_give_a_valid_exchange(kind: str, deal_seed: int, count: int, seed: int) -> None:
    rng = random.Random(deal_seed)
    deck = [*range(4, 56), 60]
    hand = CardSet.of(rng.sample(deck, rng.randint(count, 13)))
    view = GameView(player=0, hand=hand, field=None, turn_player=-1, revolution=False,
                    eleven_back=False, lock=False, counts=(len(hand),) * 5,
                    classes=(0, 1, 2, 3, 4), seats=(0, 1, 2, 3, 4))
    cards = make_bot(kind, seed=seed).exchange(view, count)
    assert isinstance(cards, CardSet) and len(cards) == count and cards <= hand


@pytest.mark.parametrize("kind", BOTS)
def test_bots_finish_whole_games_in_process(kind: str) -> None:
    """Five copies of one bot play complete games on the engine; every move is accepted."""
    match = MatchState(UECDA, seed=5, games=3)
    bots = [make_bot(kind, seed=i) for i in range(5)]
    while not match.finished:
        setup = match.setup_game()
        for player in setup.exchange_order():
            count, _ = setup.owed[player]
            hand = setup.hands[player]
            view = GameView(player=player, hand=hand, field=None, turn_player=-1,
                            revolution=False, eleven_back=False, lock=False,
                            counts=tuple(len(h) for h in setup.hands),
                            classes=setup.classes or (0,) * 5, seats=setup.seats)
            transfer = setup.give_back(player, bots[player].exchange(view, count))
            assert not transfer.substituted
        state = setup.start()
        while not state.over:
            move = bots[state.turn].play(view_of(state, setup.classes))
            assert state.step(move).judgement.accepted
        match.finish_game(state)
