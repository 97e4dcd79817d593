"""Differential tests of the draw pile in the mc simulator (``hand_size`` > 0, ``draw_on_pass``).

A deal of ``hand_size`` cards each leaves a draw pile (top card last); with ``draw_on_pass`` a
pass draws as many cards as the field holds (one on an empty field), and a player who can then
answer the field keeps the turn: it plays, or passes again to decline.  Held against the
reference engine: the same legal plays and the same next state (the pile, the hands after a
draw and the after-draw turn included) in arbitrary positions and whole matches at 3-6
players, with the other rules at the uecda defaults and at the thirteenth_floor values (its
double stairs aside).  Then the determinised worlds of a pile game against the view they
come from, and mc playing such a table.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from daihinmin.contract.engine_views import ExchangeFacts, engine_view
from daihinmin.contract.view import Observed
from daihinmin.players.mc import state as S
from daihinmin.players.mc.bot import MCBot, world_states
from daihinmin.players.mc.control import THREATS_SIZE, threats
from daihinmin.players.mc.convert import hand_mask, state_from_game
from daihinmin.players.mc.deadline import Deadline
from daihinmin.players.mc.observe import knowledge_from_view, simulator_gaps
from daihinmin.players.mc.rulebits import AFTER_DRAW, DRAW_ON_PASS
from daihinmin.rules.match import MatchState
from daihinmin.rules.ruleset import THIRTEENTH_FLOOR, UECDA, RuleSet
from daihinmin.values.cards import CardSet
from daihinmin.values.moves import PASS, Move
from games import new_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_mc_sim import PLAYER_COUNTS, play_whole_game, table_rules
from test_mc_sim_floor import FLOOR_TOGGLES, check_position, check_step, floor_positions

pytestmark = pytest.mark.usefixtures("mc_compiled")  # conftest.py: compiled once a session

#: thirteenth_floor without its double stairs (i21st's part), at any table size.
FLOOR = THIRTEENTH_FLOOR.with_rules(double_stairs=False)


def pile_rules(base: str, players: int, hand_size: int, draw: bool) -> RuleSet:
    """The uecda defaults or the thirteenth_floor values, at ``players`` with a pile."""
    if base == "floor":
        return FLOOR.with_rules(players=players, hand_size=hand_size, draw_on_pass=draw)
    return table_rules(players, 2, False, {"hand_size": hand_size, "draw_on_pass": draw})


def hand_sizes(players: int) -> st.SearchStrategy[int]:
    """Always some pile; at least three cards, so that no exchange (at most two cards)
    empties a hand before play (the engine keeps such a player in the game, the simulator
    takes an empty hand for one who is out)."""
    return st.integers(3, 54 // players - 1)


@pytest.mark.parametrize("base", ["uecda", "floor"])
@pytest.mark.parametrize("draw", [True, False])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data(), players=st.sampled_from(PLAYER_COUNTS))
def test_pile_games_match_engine(base: str, draw: bool, seed: int, data: st.DataObject,
                                 players: int) -> None:
    """Two-game matches: every position of every game agrees, the draws and the after-draw
    turns included (later games: the exchange at uecda, the worst scorer's lead at the 13th
    floor)."""
    hand_size = data.draw(hand_sizes(players), label="hand_size")
    play_whole_game(pile_rules(base, players, hand_size, draw), seed, data, 2, check_position)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_thirteenth_floor_deal_matches_engine(players: int) -> None:
    """The preset's own deal of seven, a match of three games at every table size."""
    rules = FLOOR.with_rules(players=players)
    for seed in range(3):
        match = MatchState(rules, seed=seed, games=3)
        rng = random.Random(seed)
        while not match.finished:
            game = match.setup_game().start()
            while not game.over:
                check_position(game, 2, rng)
                moves = game.legal_moves()
                # pass often: the draws are what is tested
                game.step(PASS if PASS in moves and rng.random() < 0.5 else rng.choice(moves))
            match.finish_game(game)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 1000), players=st.sampled_from(PLAYER_COUNTS))
def test_draws_match_engine_in_arbitrary_positions(data: st.DataObject, seed: int,
                                                   players: int) -> None:
    """Mid-trick positions with a pile of any size (empty, smaller than the field) and, at
    times, a player who has drawn already: the same plays and next states."""
    toggles = dict(data.draw(st.sampled_from([{}, FLOOR_TOGGLES["floor_effects"]])))
    toggles["draw_on_pass"] = True
    game = data.draw(floor_positions(players, 2, toggles), label="position")
    jokers = sum(h.jokers for h in game.hands)
    held = set().union(*(set(h) for h in game.hands))
    rest = [c for c in range(4, 56) if c not in held] + [60, 61][:2 - jokers]
    game.pile = data.draw(st.permutations(rest))[:data.draw(st.integers(0, 8))]
    game.after_draw = game.field is not None and data.draw(st.booleans(), label="drew")
    check_position(game, 8, random.Random(seed))


def test_a_pass_draws_as_the_engine_does_by_hand() -> None:
    """Hand-picked: a pass over a pair draws two and the player then answers; declining
    passes without a second draw; a draw that does not help moves the turn on; a pile of
    one gives one card; an empty pile nothing; a stuck leader draws one."""
    hands = ["H6 D6 SK CK", "H4 S7 DQ", "SQ HQ DJ", "D4 C4 DK"]
    cases = [("DK C7 HA HJ", ["H6 D6"], [PASS, Move.parse("S7 C7")]),
             ("DK C7 HA HJ", ["H6 D6", "pass"], [PASS]),
             ("DA C2 HA HJ", ["H6 D6"], [PASS]),
             ("C7", ["H6 D6"], [PASS]),
             ("", ["H6 D6"], [PASS])]
    for pile, before, moves in cases:
        game = new_game(FLOOR, hands, pile=pile)
        for name in before:
            game.step(Move.parse(name))
        for move in moves:
            check_step(game, move)
            game.step(move)
    stuck = new_game(FLOOR.with_rules(forbidden_finish=UECDA.forbidden_finish), hands,
                     pile="C7 HA")
    stuck.step(Move.parse("H6 D6"))
    check_step(stuck, PASS)


def test_pile_rules_leave_no_gap() -> None:
    assert simulator_gaps(FLOOR) == []
    assert simulator_gaps(UECDA.with_rules(hand_size=5, draw_on_pass=True)) == []
    assert simulator_gaps(THIRTEENTH_FLOOR) == []  # (double stairs too)


def test_threats_count_the_pile_as_every_opponents() -> None:
    """The win check's "no one can answer" holds only if no one can after drawing either:
    with a pile to draw from, its cards count as every opponent's."""
    game = new_game(FLOOR, ["S2 H3", "S4", "D5", "C6"], pile="H2 CA")
    sim = state_from_game(game)
    t = np.empty(THREATS_SIZE, dtype=np.int64)
    threats(sim, 0, t)
    assert t[0] == 13  # the ♥2 in the pile: the top rank, as if an opponent held it
    sim[S.RULES] &= ~DRAW_ON_PASS
    threats(sim, 0, t)
    assert t[0] == 4  # without draws the pile is out of play


# --- determinisation ------------------------------------------------------------------------
def pile_views(rules: RuleSet, seed: int, moves: int) -> list:
    """Views of the player to move along a game at ``rules`` (passing often, to draw)."""
    match = MatchState(rules, seed=seed, games=1)
    setup = match.setup_game()
    game = setup.start()
    rng = random.Random(seed)
    history: list[Observed] = []
    facts = ExchangeFacts()
    views = []
    for _ in range(moves):
        if game.over:
            break
        views.append((engine_view(game, game.turn, setup, history, facts), game.copy()))
        legal = game.legal_moves()
        move = PASS if PASS in legal and rng.random() < 0.6 else rng.choice(legal)
        was_empty = game.field is None
        r = game.step(move)
        history.append(Observed(r.player, move if r.judgement.accepted else PASS, was_empty))
    return views


@pytest.mark.parametrize("seed", range(6))
def test_worlds_fit_the_view_of_a_pile_game(seed: int) -> None:
    """Each sampled world of a pile game: my hand as I hold it, every opponent with its
    exact count, the pile as big as the view says and made of cards nobody holds or played;
    the public facts (the field, whose turn, the after-draw turn) are the engine's."""
    rules = FLOOR.with_rules(players=3 + seed % 4)
    bot = MCBot(time_ms=0, playouts=64, seed=seed, worlds=16)
    views = pile_views(rules, seed, 40)
    assert any(game.after_draw for _, game in views)  # the after-draw turn is among them
    for view, game in views:
        kn = knowledge_from_view(view)
        worlds, _ = bot._sample(kn, Deadline.start(0))
        bases = world_states(view, kn, worlds)
        truth = state_from_game(game)
        played = hand_mask(game.played)
        for base in bases:
            assert base[S.HAND + view.player] == hand_mask(view.hand)
            assert [int(base[S.HAND + q]).bit_count() for q in range(len(view.counts))] == list(
                view.counts)
            assert base[S.PILE_COUNT] == view.pile_count == len(game.pile)
            pile = CardSet(int(base[S.PILE_MASK]))
            assert len(pile) == view.pile_count
            seen = hand_mask(view.hand) | played
            assert not pile.mask & seen & ~(3 << 60)
            held = [int(base[S.HAND + q]) for q in range(len(view.counts))]
            assert sum(h.bit_count() for h in held) + len(pile) + len(game.played) == 54
            for slot in (S.TURN, S.FIELD_INFO, S.FIELD_CARDS, S.PASSED, S.OWNER, S.REV,
                         S.PENDING_REV, S.LEAD_PLAYER, S.LEAD_COUNT, S.REVERSED, S.RULES):
                assert base[slot] == truth[slot], (slot, base[slot], truth[slot])
        assert bool(bases[0][S.RULES] & AFTER_DRAW) == game.after_draw
