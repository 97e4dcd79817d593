"""Endgames: the exact two-player solver against brute force, and forced wins taken."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest
from daihinmin.contract.view import GameView, Observed
from daihinmin.players.mc.bot import MCBot
from daihinmin.players.mc.control import (
    THREATS_SIZE,
    control_win,
    is_one_play,
    threats,
    unbeatable,
)
from daihinmin.players.mc.convert import encode_move, hand_mask, state_from_game
from daihinmin.players.mc.endgame import UNKNOWN, SolverScratch, solve_two
from daihinmin.players.mc.rollout import BUFFER
from daihinmin.rules.game import GameState
from daihinmin.rules.movegen import all_plays
from daihinmin.rules.plays import RANK_J, eight_cuts, rank_count, revolts
from daihinmin.rules.ruleset import APP, ORIGINAL, UECDA, WEB, ForbiddenFinish
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import LONE_JOKER, Move
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

DECK = [4 * r + s for r in range(1, 14) for s in range(4)] + [60]


pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session


def race_moves(game: GameState) -> list[Move]:
    """The moves the solver considers: all legal ones except passing an empty field."""
    return [m for m in game.legal_moves() if not (m.is_pass and game.field is None)]


def brute_force(game: GameState, me: int) -> bool:
    """Does ``me`` go out before the other player left, with best play by both?"""
    seen: dict[tuple, bool] = {}
    if game.over:
        out = game.finished
        return out.index(me) < max(out.index(p) for p in range(5) if p != me)
    (other,) = [p for p in game.active_players() if p != me]

    def key(g: GameState) -> tuple:
        return (tuple(h.mask for h in g.hands), g.field, g.turn, g.owner, g.passed,
                g.revolution, g.lock, g.eleven_back, g.pending_revolutions, g.lead_streak,
                g.direction, g.geki)  # pending..direction: the thirteenth_floor effects

    def solve(g: GameState) -> bool:
        if g.over:
            return g.places()[me] < g.places()[other]
        if not g.hands[me]:
            return True
        k = key(g)
        if k not in seen:
            results = []
            for m in race_moves(g):
                child = g.copy()
                child.step(m)
                results.append(solve(child))
            seen[k] = any(results) if g.turn == me else all(results)
        return seen[k]

    return solve(game)


def deal_two_left(draw: st.DrawFn, cards: list[int], n: int
                  ) -> tuple[list[int], list[CardSet], CardSet]:
    """Two players left at a table of ``n``: the players in a random order (the first two
    still hold 1..4 and 1..3 cards, the others are out), the hands, and ten more cards from
    which the field is drawn."""
    deck = draw(st.permutations(cards))
    a, b = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    players = draw(st.permutations(range(n)))
    hands = [CardSet(0)] * n
    hands[players[0]] = CardSet.of(deck[:a])
    hands[players[1]] = CardSet.of(deck[a:a + b])
    return players, hands, CardSet.of(deck[a + b:a + b + 10])


def deal_by_sizes(cards: list[int], sizes: list[int]) -> list[CardSet]:
    """The hands of ``sizes`` cards each, dealt from the top of ``cards`` in seat order."""
    hands, pos = [], 0
    for size in sizes:
        hands.append(CardSet.of(cards[pos:pos + size]))
        pos += size
    return hands


@st.composite
def two_player_endings(draw: st.DrawFn, me_to_move: bool = False) -> tuple[GameState, int]:
    players, hands, pile = deal_two_left(draw, DECK, 5)
    me, other = players[0], players[1]
    finished = list(players[2:])
    field = None
    lock = False
    turn = me if me_to_move else draw(st.sampled_from([me, other]))
    owner = draw(st.sampled_from(range(5)))
    if draw(st.booleans()):
        field = draw(st.sampled_from(all_plays(pile, UECDA)))
        lock = field.kind.name != "JOKER" and draw(st.booleans())
    if field is None or owner == turn:
        owner = turn if field is None else owner
    passed = 0
    for p in (me, other):
        if p not in (turn, owner) and field is not None and draw(st.booleans()):
            passed |= 1 << p
    game = GameState(rules=UECDA, hands=hands, seats=tuple(draw(st.permutations(range(5)))),
                     turn=turn, rng=random.Random(0), field=field, owner=owner, passed=passed,
                     revolution=draw(st.booleans()), lock=lock, finished=finished)
    return game, me


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=two_player_endings())
def test_two_player_solver_agrees_with_brute_force(case: tuple[GameState, int]) -> None:
    game, me = case
    scratch = SolverScratch()
    got = solve_two(state_from_game(game), me, 10**6, scratch.arrays())
    assert got != UNKNOWN
    assert bool(got) == brute_force(game, me)


def test_solver_budget_reports_unknown() -> None:
    hands = [CardSet.parse("S3 H5 D7 C9 SJ HK"), CardSet.parse("S4 H6 D8 CT SQ HA"),
             CardSet(0), CardSet(0), CardSet(0)]
    game = GameState(rules=UECDA, hands=hands, seats=(0, 1, 2, 3, 4), turn=0,
                     rng=random.Random(0), owner=0, finished=[2, 3, 4])
    scratch = SolverScratch()
    assert solve_two(state_from_game(game), 0, 3, scratch.arrays()) == UNKNOWN
    assert solve_two(state_from_game(game), 0, 10**6, scratch.arrays()) in (0, 1)


def test_one_play_hands() -> None:
    for text, expected in [("S3", True), ("S3 H3 JK", True), ("S3 S4 S5", True),
                           ("S3 S5 JK", True), ("S3 S5", False), ("S3 S6 JK", False),
                           ("S3 H4 D5", False), ("JK", True), ("S3 H3 D3 C3 JK", True),
                           ("SQ SK SA S2 JK", True)]:
        assert is_one_play(hand_mask(CardSet.parse(text)), 0) == expected, text


def test_control_win_sees_cut_then_last_card() -> None:
    """♠8 cuts, then the ♦3 goes out: a certain win; without the 8 it is not."""
    hands = [CardSet.parse("S8 D3"), CardSet.parse("S4 H9 DK"), CardSet.parse("C4 C5"),
             CardSet(0), CardSet(0)]
    game = GameState(rules=UECDA, hands=hands, seats=(0, 1, 2, 3, 4), turn=0,
                     rng=random.Random(0), owner=0, finished=[3, 4])
    sim = state_from_game(game)
    buf_c, buf_i = np.zeros(BUFFER, dtype=np.int64), np.zeros(BUFFER, dtype=np.int64)
    t = np.zeros(THREATS_SIZE, dtype=np.int64)
    threats(sim, 0, t)
    assert control_win(t, sim[0], 0, 2, buf_c, buf_i, 0)
    assert not control_win(t, hand_mask(CardSet.parse("S9 D3")), 0, 2, buf_c, buf_i, 0)


_NO_FORBIDDEN = {"forbidden_finish": ForbiddenFinish.OFF}
UNBEATABLE_RULES = {"uecda": UECDA, "web": WEB, "app": APP, "original": ORIGINAL,
                    "app_no_forbidden": APP.with_rules(**_NO_FORBIDDEN),
                    "original_no_forbidden": ORIGINAL.with_rules(**_NO_FORBIDDEN)}


@pytest.mark.parametrize("name", sorted(UNBEATABLE_RULES))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), rev=st.booleans())
def test_unbeatable_matches_the_engine(name: str, data: st.DataObject, rev: bool) -> None:
    """A play is unbeatable exactly when no other player has a legal answer, or it clears
    at once (an 8-cut, the joker pair), in the order the answers follow (revolution, and at
    web and app the 11-back a J starts); lone jokers with no ♠3 return and runs answered by
    their lowest rank included.  Where finishes may be forbidden an answer that would be one
    still counts, so there the check is only on the safe side."""
    rules = UNBEATABLE_RULES[name]
    n = rules.players
    deck = data.draw(st.permutations(DECK if rules.jokers == 1 else [*DECK, 61]))
    sizes = data.draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
    sizes[0] = max(sizes[0], 1)
    hands = deal_by_sizes(deck, sizes)
    seats = tuple(range(n))
    game = GameState(rules=rules, hands=hands, seats=seats, turn=0,
                     rng=random.Random(0), owner=0, revolution=rev)
    sim = state_from_game(game)
    t = np.zeros(THREATS_SIZE, dtype=np.int64)
    threats(sim, 0, t)
    for move in all_plays(hands[0], rules):
        cards, info = encode_move(move)
        turned = move.kind.name != "JOKER" and revolts(move, rules)
        eleven = rules.eleven_back and rank_count(move, RANK_J, rules) > 0
        answers = False
        for q in range(1, n):
            if not hands[q]:
                continue
            probe = GameState(rules=rules, hands=hands, seats=seats, turn=q,
                              rng=random.Random(0), field=move, owner=0,
                              revolution=rev != turned, eleven_back=eleven)
            answers = answers or bool(probe.legal_plays())
        truth = eight_cuts(move, rules) or move.is_joker_pair or not answers
        got = unbeatable(t, cards, info, int(rev) ^ int(turned) ^ int(eleven))
        if rules.forbidden_finish is ForbiddenFinish.OFF:
            assert got == truth, str(move)
        else:
            assert truth or not got, str(move)


def lead_view(hands: list[CardSet], me: int, finished: int) -> GameView:
    counts = tuple(len(h) for h in hands)
    return GameView(player=me, hand=hands[me], field=None, turn_player=me, revolution=False,
                    eleven_back=False, lock=False, counts=counts, classes=(0,) * 5,
                    seats=(0, 1, 2, 3, 4), my_turn=True, rules=UECDA)


@lru_cache(maxsize=1)
def small_bot() -> MCBot:
    return MCBot(time_ms=0, playouts=300, seed=5)


def test_bot_takes_a_forced_win_among_five() -> None:
    """The 8 must go first (cut, then the 3 goes out); leading the 3 first can lose."""
    hands = [CardSet.parse("S8 D3"), CardSet.parse("S4 H9 DK SA"), CardSet.parse("C4 C5 H2"),
             CardSet.parse("D6 D7 CJ"), CardSet.parse("H3 CQ S2")]
    view = lead_view(hands, 0, 0)
    assert small_bot().play(view) == Move.parse("S8")


def seen_everything(game: GameState) -> tuple[Observed, ...]:
    """A history in which the finished players played every card not in a hand, so the
    player knows the other hand exactly (as it does in a real two-player ending)."""
    held = CardSet(0)
    for h in game.hands:
        held = held | h
    gone = [c for c in CardSet.parse(" ".join(str(CardSet.of([c])) for c in DECK))
            if c not in held and not (c >= 60 and held.jokers)]
    out = game.finished
    d3 = CardSet.parse("D3").mask.bit_length() - 1
    # the game's first mover held the ♦3
    first = next((p for p, h in enumerate(game.hands) if d3 in h), out[0])
    plays = [Observed(first, Move.parse("pass"))] if first not in out else []
    return (*plays, *(Observed(out[i % len(out)], LONE_JOKER if c >= 60 else Move.single(c))
                      for i, c in enumerate(sorted(gone, key=lambda c: c != d3))))


def race_view(game: GameState, me: int) -> GameView:
    """``me``'s view of a two-player ending, having seen every card played."""
    return GameView(player=me, hand=game.hands[me], field=game.field, turn_player=me,
                    revolution=game.revolution, eleven_back=False, lock=game.lock,
                    counts=game.counts(), classes=(0,) * 5, seats=game.seats, my_turn=True,
                    rules=UECDA, history=seen_everything(game), passed=game.passed,
                    field_owner=game.owner)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=two_player_endings(me_to_move=True))
def test_bot_keeps_two_player_wins(case: tuple[GameState, int]) -> None:
    """Wherever brute force finds a win for the bot, the bot's move keeps it."""
    game, me = case
    assume(len(race_moves(game)) >= 2 and brute_force(game, me))
    move = small_bot().play(race_view(game, me))
    child = game.copy()
    child.step(move)
    assert brute_force(child, me), f"{move} throws away the win"
