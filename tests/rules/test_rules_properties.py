"""Property tests of the ``uecda`` rules engine on random reachable states.

States come from random deals driven by random legal moves.  On them:

* the judge agrees with a spec oracle (docs/PROTOCOL.md §5, written here from the text and
  reading the move's shape from its table cells) on every play the move generator makes;
* movegen is complete: any table whose decoded move the judge accepts is a generated move, and
  for small hands an exhaustive walk over every card subset and joker cell finds nothing more;
* tables that are not generated legal moves are rejected, and decoding errors are always
  typed :class:`MoveTableError` s;
* cards are conserved through exchanges and plays, places and classes are permutations,
  games end within a bounded number of turns, and copies are independent.
"""

from __future__ import annotations

import random
from itertools import combinations

from daihinmin.protocol.codec import build_move, decode_move_table
from daihinmin.protocol.errors import MoveTableError
from daihinmin.protocol.table import Table
from daihinmin.rules.game import GameState
from daihinmin.rules.match import MatchState
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.ruleset import UECDA
from daihinmin.values.cards import DECK52, JOKER, CardSet
from daihinmin.values.errors import MoveShapeError
from daihinmin.values.moves import PASS, Cell, Move, MoveKind
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FULL_DECK = CardSet(DECK52 | 1 << JOKER)
MAX_TURNS = 53 + 20 * 54  # each play removes a card; at most 19 failures between plays
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


# --- an oracle written from the spec text ------------------------------------------------------
def cell_shape(move: Move) -> tuple[int, int, int]:
    """(lowest column, highest column, suit-row mask) read from the move's table cells."""
    cells = build_move(move).nonzero()
    cols = [c for _, c in cells]
    return min(cols), max(cols), sum({1 << r for r, _ in cells})


def spec_accepts(state: GameState, move: Move) -> bool:
    if move.kind is MoveKind.PASS:
        return True  # always allowed (answered 8 over cards)
    hand = state.hands[state.turn]
    if not (move.cards <= hand and move.jokers <= hand.jokers):
        return False
    field = state.field
    if field is None:
        return True
    if field.kind is MoveKind.JOKER:  # only a single spade 3
        return move.kind is MoveKind.SINGLE and str(move) == "S3"
    if move.size != field.size:
        return False
    if move.kind is MoveKind.JOKER:
        return field.kind is MoveKind.SINGLE  # the lock does not apply to it
    if move.kind is not field.kind:
        return False
    low, high, suits = cell_shape(move)
    f_low, f_high, f_suits = cell_shape(field)
    if state.revolution:
        stronger = high < f_low if move.kind is MoveKind.SEQUENCE else low < f_low
    else:
        stronger = low > f_high if move.kind is MoveKind.SEQUENCE else low > f_low
    return stronger and not (state.lock and suits != f_suits)


# --- random reachable states ---------------------------------------------------------------
def random_states(seed: int, games: int = 1):
    """Yield (state, rng) before every move of ``games`` random games of a fresh match."""
    rng = random.Random(seed)
    match = MatchState(UECDA, seed=seed, games=games)
    while not match.finished:
        setup = match.setup_game()
        for upper in setup.exchange_order():
            count, _ = setup.owed[upper]
            cards = list(setup.hands[upper])
            setup.give_back(upper, CardSet.of(rng.sample(cards, count)))
        state = setup.start()
        while not state.over:
            yield state, rng
            state.step(rng.choice(state.legal_moves()))
        match.finish_game(state)


def near_move_cells(hand: CardSet, rng: random.Random) -> dict[Cell, int]:
    """Table cells that are often, but not always, a play of ``hand``."""
    kind = rng.randrange(5)
    cells: dict[Cell, int] = {}
    if kind == 0:  # a group, maybe with a joker in some row
        rank = rng.randrange(1, 14)
        for row in range(4):
            if rng.random() < 0.5:
                cells[(row, rank)] = 1
        if rng.random() < 0.4:
            cells[(rng.randrange(5), rank)] = 2
    elif kind == 1:  # a run, maybe with a joker anywhere in it
        row, low, length = rng.randrange(4), rng.randrange(0, 14), rng.randrange(2, 7)
        for col in range(low, min(low + length, 15)):
            cells[(row, col)] = 1
        if rng.random() < 0.5:
            cells[(row, rng.randrange(low, min(low + length, 15)))] = 2
    elif kind == 2:  # cards of the hand, any shape
        for c in hand.without_jokers:
            if rng.random() < 0.25:
                cells[(c & 3, c >> 2)] = 1
    elif kind == 3:  # a single, or the joker alone in any cell
        if rng.random() < 0.5:
            cells[(rng.randrange(5), rng.randrange(15))] = 2
        else:
            cells[(rng.randrange(4), rng.randrange(1, 14))] = 1
    else:  # noise
        for _ in range(rng.randrange(1, 5)):
            cells[(rng.randrange(8), rng.randrange(15))] = rng.choice([1, 1, 2, 3])
    return cells


# --- properties ---------------------------------------------------------------------------------
@SETTINGS
@given(seeds)
def test_judge_agrees_with_spec_on_every_generated_play(seed: int) -> None:
    for state, _ in random_states(seed):
        legal = set(state.legal_moves())
        for move in [*all_plays(state.hands[state.turn], UECDA), PASS]:
            verdict = state.judge(move)
            assert verdict.accepted == spec_accepts(state, move), (str(move), str(state.field))
            assert verdict.accepted == (move in legal)
            if move.is_pass:
                assert verdict.answer == (9 if state.field is None else 8)
            else:
                assert verdict.answer == (9 if verdict.accepted else 8)


@SETTINGS
@given(seeds)
def test_tables_that_are_not_legal_moves_are_rejected(seed: int) -> None:
    accepted_outside = 0
    for state, rng in random_states(seed):
        legal = set(state.legal_moves())
        hand = state.hands[state.turn]
        for _ in range(8):
            table = Table.zeros().with_cells(near_move_cells(hand, rng))
            try:
                move = decode_move_table(table)
            except (MoveTableError, MoveShapeError):
                continue
            verdict = state.judge(move)
            assert verdict.accepted == (move in legal), str(move)
            accepted_outside += verdict.accepted and move not in legal
    assert accepted_outside == 0


def subset_tables(hand: CardSet):
    """Every table made of a subset of the hand's cards plus at most one joker cell."""
    real = list(hand.without_jokers)
    joker_cells: list[Cell | None] = [None]
    if hand.jokers:
        joker_cells += [(r, c) for r in range(5) for c in range(15)]
    for n in range(len(real) + 1):
        for chosen in combinations(real, n):
            base = {(c & 3, c >> 2): 1 for c in chosen}
            for cell in joker_cells:
                if cell is None:
                    yield base
                elif cell not in base:
                    yield base | {cell: 2}


@st.composite
def clustered_hands(draw: st.DrawFn) -> CardSet:
    """Up to 7 cards from a window of 3-5 neighbouring ranks (so runs and groups are common),
    with or without the joker."""
    width = draw(st.integers(3, 5))
    low = draw(st.integers(1, 14 - width))
    window = [4 * r + s for r in range(low, low + width) for s in range(4)]
    chosen = draw(st.lists(st.sampled_from(window), min_size=2, max_size=7, unique=True))
    return CardSet.of(chosen + ([JOKER] if draw(st.booleans()) else []))


@settings(max_examples=40, deadline=None)
@given(clustered_hands())
def test_movegen_is_complete_on_small_hands(hand: CardSet) -> None:
    plays = all_plays(hand, UECDA)
    assert len(plays) == len(set(plays))
    found = set()
    for cells in subset_tables(hand):
        try:
            move = decode_move_table(Table.zeros().with_cells(cells))
        except (MoveTableError, MoveShapeError):
            continue
        if not move.is_pass:
            found.add(move)
    assert found == set(plays)


def check_conservation(state: GameState, on_table: CardSet) -> None:
    union = CardSet(0)
    for h in state.hands:
        assert not (union & h)
        union = union | h
    assert not (union & on_table) and (union | on_table) == FULL_DECK


@SETTINGS
@given(seeds)
def test_cards_are_conserved_and_turn_invariants_hold(seed: int) -> None:
    rng = random.Random(seed)
    match = MatchState(UECDA, seed=seed, games=3)
    while not match.finished:
        setup = match.setup_game()
        for upper in setup.exchange_order():
            count, _ = setup.owed[upper]
            setup.give_back(upper, CardSet.of(rng.sample(list(setup.hands[upper]), count)))
        state = setup.start()
        on_table = CardSet(0)
        check_conservation(state, on_table)
        while not state.over:
            assert state.is_active(state.turn) and not state.passed >> state.turn & 1
            counts = state.counts()
            result = state.step(rng.choice(state.legal_moves()))
            if result.judgement.accepted and not result.move.is_pass:
                gone = result.move.hand_cards()
                assert not (on_table & gone)
                on_table = on_table | gone
                assert len(state.hands[result.player]) == counts[result.player] - len(gone)
            else:
                assert state.counts() == counts
            check_conservation(state, on_table)
            if not state.over:  # (the pass limit hands out places to players with cards)
                assert all(not state.hands[p] for p in state.finished)
            assert state.turns <= MAX_TURNS
        match.finish_game(state)


@SETTINGS
@given(seeds)
def test_matches_end_with_permutation_places_and_bounded_turns(seed: int) -> None:
    rng = random.Random(seed)
    match = MatchState(UECDA, seed=seed, games=3)
    while not match.finished:
        setup = match.setup_game()
        for upper in setup.exchange_order():
            count, lower = setup.owed[upper]
            before = len(setup.hands[upper]), len(setup.hands[lower])
            # a random, sometimes invalid choice: too many cards or cards not held
            pool = list(FULL_DECK)
            setup.give_back(upper, CardSet.of(rng.sample(pool, rng.choice([count, count + 1]))))
            assert (len(setup.hands[upper]), len(setup.hands[lower])) == (before[0] - count,
                                                                          before[1] + count)
        state = setup.start()
        start_counts = sorted(len(h) for h in state.hands)
        assert start_counts == [10, 10, 11, 11, 11]
        total = CardSet(0)
        for h in state.hands:
            total = total | h
        assert total == FULL_DECK
        while not state.over:
            state.step(rng.choice(state.legal_moves()))
            assert state.turns <= MAX_TURNS
        places = state.places()
        assert sorted(places) == [0, 1, 2, 3, 4]
        result = match.finish_game(state)
        assert sorted(result.points) == [1, 2, 3, 4, 5]
        assert match.classes is not None and sorted(match.classes) == [0, 1, 2, 3, 4]


@SETTINGS
@given(seeds)
def test_copies_are_independent_and_replays_deterministic(seed: int) -> None:
    rng = random.Random(seed)
    setup = MatchState(UECDA, seed=seed, games=1).setup_game()
    state = setup.start()
    for _ in range(rng.randrange(0, 40)):
        if state.over:
            break
        state.step(rng.choice(state.legal_moves()))
    if state.over:
        return
    snapshot = state.copy()
    frozen = (list(state.hands), state.turn, state.field, state.passed, state.lock,
              state.revolution, list(state.finished), state.failures)
    moves = []
    while not snapshot.over:
        move = rng.choice(snapshot.legal_moves())
        moves.append(move)
        snapshot.step(move)
    assert frozen == (list(state.hands), state.turn, state.field, state.passed, state.lock,
                      state.revolution, list(state.finished), state.failures)
    for move in moves:
        state.step(move)
    assert state.over and state.places() == snapshot.places()
