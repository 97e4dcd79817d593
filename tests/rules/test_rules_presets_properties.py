"""Property tests of every preset (and the local rules all on) with 3-6 players where the
preset allows, driven by random legal moves and random (sometimes invalid) choices:

* games end within a bounded number of turns and matches finish;
* cards are conserved: hands + draw pile + played + discarded = the deck, at every step;
* places and classes are permutations; points follow the scoring;
* a client's GameView built from the same facts lists exactly the engine's legal moves.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from daihinmin.contract.view import GameView, Observed
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import RuleSet, Scoring, ruleset_from
from daihinmin.values.cards import DECK52, CardSet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ALL_LOCAL = ["seven_pass=yes", "ten_discard=yes", "five_skip=yes", "nine_reverse=yes",
             "geki_shibari=yes", "sandstorm=yes", "ambulance=yes", "miyako_ochi=yes",
             "joker_revolution=yes"]
CONFIGS: list[tuple[str, list[str]]] = [
    ("original", ["players=3"]), ("original", ["players=4"]), ("original", ["players=5"]),
    ("original", []),  # 6 players
    ("original", ["players=4", "restart=heimin", "joker_exchange_exempt=yes"]),
    ("web", ["players=3"]), ("web", []), ("web", ["forbidden_finish=last"]),
    ("app", ["players=3"]), ("app", []), ("app", ["players=5"]), ("app", ALL_LOCAL),
    ("app", ["players=3", *ALL_LOCAL]),
    ("thirteenth_floor", ["players=3"]), ("thirteenth_floor", []),
    ("thirteenth_floor", ["players=5"]), ("thirteenth_floor", ["players=6"]),
    ("thirteenth_floor", ["uno_scoring=yes", "seven_pass=yes", "ten_discard=yes"]),
]
MAX_TURNS = 6000
SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def config_id(config: tuple[str, list[str]]) -> str:
    return "+".join([config[0], *config[1]])


def check_conservation(state: GameState) -> None:
    rules = state.rules
    real = CardSet(0)
    jokers = 0
    parts = [*state.hands, CardSet.of(state.pile), state.played, state.discarded]
    for part in parts:
        assert not (real & part.without_jokers), "a card is in two places"
        real = real | part.without_jokers
        jokers += part.jokers
    assert real.mask == DECK52 and jokers == rules.jokers


def view_of(state: GameState) -> GameView:
    p = state.turn
    return GameView(
        player=p, hand=state.hands[p], field=state.field, turn_player=p,
        revolution=state.revolution, eleven_back=state.eleven_back, lock=state.lock,
        counts=state.counts(), classes=(0,) * state.n_players, seats=state.seats, my_turn=True,
        rules=state.rules, passed=state.passed, geki=state.geki,
        opening=state.lead_must_contain, pending=state.pending,
        pile_count=len(state.pile), direction=state.direction)


def play_game(state: GameState, rng: random.Random, classes: tuple[int, ...]) -> None:
    history: tuple[Observed, ...] = ()
    while not state.over:
        assert state.turns <= MAX_TURNS
        if state.pending is not None:
            options = state.legal_choices()
            assert options and state.turn == state.pending.player
            assert view_of(state).legal_choices() == options
            roll = rng.random()
            answer = None if roll < 0.1 else CardSet.parse("S2 H2") if roll < 0.2 else (
                rng.choice(options))
            state.step_choice(answer)
        else:
            assert state.is_active(state.turn) and not state.passed >> state.turn & 1
            moves = state.legal_moves()
            assert moves
            view = view_of(state)
            assert set(view.legal_moves()) == set(moves)
            # a client that does not know the opening card infers it from public facts
            inferred = replace(view, opening=None, classes=classes, history=history)
            assert set(inferred.legal_moves()) == set(moves)
            move = rng.choice(moves)
            if state.step(move).judgement.accepted and not move.is_pass:
                history = (Observed(state.turn, move),)
        check_conservation(state)


def play_match(rules: RuleSet, seed: int, games: int) -> MatchState:
    rng = random.Random(seed)
    match = MatchState(rules, seed=seed, games=games)
    while not match.finished:
        setup = match.setup_game()
        for upper in setup.exchange_order():
            count, _ = setup.owed[upper]
            pool = sorted(setup.hands[upper])
            choice = CardSet.of(rng.sample(pool, min(len(pool), rng.choice([count, count + 1]))))
            setup.give_back(upper, choice)
        state = setup.start()
        assert len(state.hands) == rules.players
        check_conservation(state)
        classes = setup.classes if setup.classes is not None else (0,) * rules.players
        play_game(state, rng, classes)
        places = state.places()
        assert sorted(places) == list(range(rules.players))
        result = match.finish_game(state)
        if rules.scoring is Scoring.PLACE:
            assert sorted(result.points) == sorted(rules.points_for_place(p)
                                                   for p in range(rules.players))
        else:
            assert state.scores is not None and result.points == state.scores
            assert len(state.finished) == rules.players and not state.bottom
            if rules.scoring is Scoring.UNO and state.winning_play is not None:
                assert sum(state.scores) == 0  # zero-sum (not after the pass limit)
        assert match.classes is not None and sorted(match.classes) == list(range(rules.players))
    return match


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@SETTINGS
@given(seed=seeds)
def test_random_matches_keep_the_invariants(config: tuple[str, list[str]], seed: int) -> None:
    rules = ruleset_from(*config)
    match = play_match(rules, seed, games=2)
    assert len(match.results) == 2
    assert sorted(match.standings()) == list(range(rules.players))


@pytest.mark.parametrize("name", ["original", "web", "app", "thirteenth_floor"])
@settings(max_examples=5, deadline=None)
@given(seed=seeds)
def test_games_replay_identically_from_the_seed(name: str, seed: int) -> None:
    rules = ruleset_from(name)
    a = play_match(rules, seed, games=2)
    b = play_match(rules, seed, games=2)
    assert a.results == b.results and a.points == b.points


# --- movegen completeness for the new shapes (double stairs, the joker pair, two jokers) ------
@st.composite
def clustered_hands(draw: st.DrawFn) -> CardSet:
    """Up to 7 cards from 3-4 neighbouring ranks, with 0-2 jokers."""
    width = draw(st.integers(3, 4))
    low = draw(st.integers(1, 14 - width))
    window = [4 * r + s for r in range(low, low + width) for s in range(4)]
    chosen = draw(st.lists(st.sampled_from(window), min_size=2, max_size=7, unique=True))
    return CardSet.of(chosen + [60, 61][:draw(st.integers(0, 2))])


def decodable_plays(hand: CardSet, rules: RuleSet) -> set:
    """Every move a table made of some of the hand's cards and its jokers decodes to (in
    the extended shapes) that the rules' shape check accepts."""
    from itertools import combinations

    from daihinmin.protocol.errors import MoveTableError
    from daihinmin.rules.judge import check_shape
    from daihinmin.values.errors import MoveShapeError
    from daihinmin.values.moves import move_from_cells

    real = list(hand.without_jokers)
    cols = sorted({c >> 2 for c in real})
    span = range(max(1, cols[0] - 2), min(13, cols[-1] + 2) + 1)
    cells = [(r, c) for r in range(5) for c in span]
    ctx = GameState.start(rules, [hand], (0,), random.Random(0), first=0)
    found = set()
    for n in range(len(real) + 1):
        for chosen in combinations(real, n):
            base = {(c & 3, c >> 2): 1 for c in chosen}
            free = [cell for cell in cells if cell not in base]
            for j in range(hand.jokers + 1):
                for spots in combinations(free, j):
                    table = base | dict.fromkeys(spots, 2)
                    try:
                        move = move_from_cells(table, max_jokers=2, extended=True)
                    except (MoveTableError, MoveShapeError):
                        continue
                    if not move.is_pass and check_shape(ctx, move) is None:
                        found.add(move)
    return found


@pytest.mark.parametrize("name", ["thirteenth_floor", "app", "original"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=clustered_hands())
def test_movegen_is_complete_for_the_preset_shapes(name: str, hand: CardSet) -> None:
    from daihinmin.rules.movegen import all_plays

    rules = ruleset_from(name)
    plays = all_plays(hand, rules)
    assert len(plays) == len(set(plays))
    assert set(plays) == decodable_plays(hand, rules)
